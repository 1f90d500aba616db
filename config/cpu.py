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
must not share one CPU by accident. `PIN_CPU=off` never pins."""

import contextlib
import logging
import os
from pathlib import Path

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


def pin_server_process() -> int | None:
    """Apply `PIN_CPU` to this process once it has started (see the module's text)."""
    from django.conf import settings

    choice = str(settings.PIN_CPU)
    if choice == "off":
        return None
    if choice == "auto":
        if settings.TASK_RUNNER != "thread":
            return None
        try:
            cpu = pin_to_one_cpu()
        except OSError as exc:
            # A sandbox that forbids it: the process runs as well as it did unpinned.
            logger.warning("could not keep this process on one CPU (PIN_CPU=auto): %s", exc)
            return None
    else:
        try:
            cpu = pin_to_one_cpu(int(choice))
        except (ValueError, OSError) as exc:
            raise ImproperlyConfigured(f"PIN_CPU={choice}: {exc}") from None
    if cpu is not None:
        logger.info("this process keeps its threads on CPU %s (PIN_CPU=%s)", cpu, choice)
    return cpu
