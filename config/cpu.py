"""Keeping a server process's threads on one CPU (`PIN_CPU`).

A Python process runs one thread at a time (the interpreter lock), however many cores the
machine has. Left to the scheduler, its threads spread over the cores, and every time the
lock passes from a thread on one core to a thread on another, the interpreter's shared
state (the lock, reference counts of common objects, caches) moves between the cores'
caches too; the thread giving the lock up and the one taking it also wake each other
across cores. Kept on one CPU, the same threads hand the lock over in place.

Measured on the 2-core development machine: eight threads of one process each inserting
into SQLite and encoding JSON took 2.5 s spread over both cores (2.9 to 3.3 s of CPU) and
1.1 to 1.3 s on one (as much CPU). In the concurrency benchmark's scenario 2 the embedded
web process, pinned, answered 70 to 111 missions/s against 50 to 70 not, in alternating
runs (docs/benchmarks.md).

What a pinned process gives up is running its threads' work outside the lock (SQLite's
statements, socket calls, the Korean analyser) beside its Python on another core; for this
office's processes that is the smaller part.

`PIN_CPU=auto` (the default) pins the embedded web process, which runs every task of the
office in its threads, to the CPU it starts on. A process of the production runtime is left
to the scheduler unless `PIN_CPU` names a CPU: several processes share a machine there, and
must not share one CPU by accident. `PIN_CPU=off` never pins.

A process pins itself when it starts serving (Daphne's reactor starts running, a task worker
starts), never when config.asgi is imported: the test runner, a shell or a benchmark import
it too, and everything they start afterwards would inherit the one CPU."""

import contextlib
import logging
import os
import sys
from pathlib import Path
from typing import Literal

from django.core.exceptions import ImproperlyConfigured

logger = logging.getLogger(__name__)


def _running_on() -> int | None:
    """The CPU this thread runs on now (field 39 of its /proc stat line), if Linux says."""
    try:
        stat = Path("/proc/thread-self/stat").read_text()
    except OSError:
        return None
    # Fields after the command name (which may hold spaces), the first being field 3.
    fields = stat.rsplit(")", 1)[1].split()
    try:
        return int(fields[39 - 3])
    except (IndexError, ValueError):
        return None


def pin_to_one_cpu(cpu: int | None = None) -> int | None:
    """Keep every thread of this process, and those it starts later, on `cpu`, or on the
    CPU this thread runs on now. Returns the CPU; None where the platform cannot pin, or
    (no CPU named) where the process may run on one CPU only anyway."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = os.sched_getaffinity(0)
    if cpu is None:
        if len(allowed) < 2:
            return None
        now = _running_on()
        cpu = now if now in allowed else max(allowed)
    elif cpu not in allowed:
        raise ValueError(
            f"CPU {cpu} is not one this process may run on ({', '.join(map(str, sorted(allowed)))})"
        )
    # A new thread takes the mask of the thread that starts it; those already running
    # (Daphne's, the embedded beat's) are set one by one.
    try:
        threads = [int(task) for task in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]  # no /proc: this thread, and those it starts
    for thread in threads:
        with contextlib.suppress(ProcessLookupError):  # the thread ended meanwhile
            os.sched_setaffinity(thread, {cpu})
    return cpu


def cpu_to_keep() -> int | Literal["auto"] | None:
    """What `PIN_CPU` asks of this process: None (left to the scheduler), "auto" (the CPU
    it runs on when it starts serving) or a CPU number, checked now: a server given a CPU
    it may not run on stops before it starts."""
    from django.conf import settings

    choice = str(settings.PIN_CPU)
    if choice == "off":
        return None
    if choice == "auto":
        return "auto" if settings.TASK_RUNNER == "thread" else None
    cpu = int(choice)
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else {cpu}
    if cpu not in allowed:
        raise ImproperlyConfigured(
            f"PIN_CPU={choice}: CPU {cpu} is not one this process may run on "
            f"({', '.join(map(str, sorted(allowed)))})"
        )
    return cpu


def pin_server_process() -> int | None:
    """Apply `PIN_CPU` to this process now that it serves (see the module's text)."""
    from django.conf import settings

    choice = str(settings.PIN_CPU)
    wanted = cpu_to_keep()
    if wanted is None:
        return None
    if wanted == "auto":
        try:
            cpu = pin_to_one_cpu()
        except OSError as exc:
            # A sandbox that forbids it: the process runs as well as it did unpinned.
            logger.warning("could not keep this process on one CPU (PIN_CPU=auto): %s", exc)
            return None
    else:
        try:
            cpu = pin_to_one_cpu(wanted)
        except (ValueError, OSError) as exc:
            raise ImproperlyConfigured(f"PIN_CPU={choice}: {exc}") from None
    if cpu is not None:
        logger.info("this process keeps its threads on CPU %s (PIN_CPU=%s)", cpu, choice)
    return cpu


def pin_once_serving() -> None:
    """Pin this web process (`PIN_CPU`) when its server starts serving: when Daphne's
    Twisted reactor starts running, after it has bound its port and before it accepts
    anyone. Importing the application pins nothing; a process that never runs the
    reactor (tests, a shell, a benchmark calling the application itself) is never
    pinned, nor is one served by another ASGI server. A CPU the process may not have
    stops the import, as it always did."""
    if cpu_to_keep() is None:
        return
    # Daphne installs its reactor before it imports the application (daphne.server, which
    # the "daphne" app imports too); importing it here would install another.
    reactor = sys.modules.get("twisted.internet.reactor")
    if reactor is not None:
        reactor.callWhenRunning(_pin_or_stop)


def _pin_or_stop() -> None:
    try:
        pin_server_process()
    except ImproperlyConfigured as exc:
        # A named CPU the process could not take: it must not serve on another one. The
        # reactor would only log an exception raised here and go on serving.
        logger.critical("%s; stopping", exc)
        logging.shutdown()
        os._exit(1)
