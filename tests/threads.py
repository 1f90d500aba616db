"""Running test code on real threads at one moment (concurrency tests on PostgreSQL)."""

import threading
from collections.abc import Callable
from typing import TypeVar

from django.db import connections

T = TypeVar("T")


def at_once(work: Callable[[], T], times: int = 2, *, timeout: float = 30.0) -> list[T]:
    """Run `work` on `times` threads that start together, each on its own database
    connections (closed when it ends); their results, in the order they finished. The
    first error of any thread is raised here."""
    start = threading.Barrier(times, timeout=timeout)
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            start.wait()
            results.append(work())
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    if errors:
        raise errors[0]
    assert len(results) == times, f"{times - len(results)} of {times} threads did not finish"
    return results


class Gauge:
    """How many threads are inside a block (`with gauge:`) at once, at most."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.now = 0
        self.most = 0

    def __enter__(self) -> None:
        with self._lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.now -= 1
