"""How many replies do their Python work at once in one process (docs/design.md §8).

A reply spends most of its life waiting for the model, and any number of replies may
wait at once (`REPLY_CONCURRENCY`). Its other parts, claiming the mission, reading and
assembling its context, saving the answer, are Python work under the one interpreter
lock: dozens of threads doing them at once do not overlap, they take the lock from each
other, and every hand-over is a thread switch. So a reply holds one of `REPLY_CPU_SLOTS`
slots for that work and gives it back while the model answers. In the concurrency
benchmark's scenario 2 (50 clients, the model answering at once) that raised the embedded
web process's throughput by a median 16 % over nine pairs of runs (docs/benchmarks.md).

A thread that already holds a slot takes it again freely: with the inline runner (tests)
a mission's follow-up runs inside the mission that queued it."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

_lock = threading.Lock()
_semaphores: dict[int, threading.Semaphore] = {}
_held = threading.local()


def _semaphore() -> threading.Semaphore:
    # Keyed by size: the setting can change at run time (tests), a semaphore cannot.
    size = int(settings.REPLY_CPU_SLOTS)
    with _lock:
        semaphore = _semaphores.get(size)
        if semaphore is None:
            semaphore = _semaphores[size] = threading.Semaphore(size)
        return semaphore


def _depth() -> int:
    return int(getattr(_held, "depth", 0))


@contextmanager
def reply_slot() -> Iterator[None]:
    """Hold a slot for the block (waiting for one if all are taken)."""
    depth = _depth()
    if depth == 0:
        _held.semaphore = _semaphore()
        _held.semaphore.acquire()
    _held.depth = depth + 1
    try:
        yield
    finally:
        _held.depth = depth
        if depth == 0:
            _held.semaphore.release()


@contextmanager
def slot_lent() -> Iterator[None]:
    """Give this thread's slot back for the block (a wait for the model), then take it
    again. Lends nothing when the thread holds no slot, or holds it for an outer mission
    (inline runner): that one is not this reply's to lend."""
    if _depth() != 1:
        yield
        return
    semaphore: threading.Semaphore = _held.semaphore
    _held.depth = 0
    semaphore.release()
    try:
        yield
    finally:
        semaphore.acquire()
        _held.depth = 1
