"""CPU-time bounds in tests that guard against a slow path (a quadratic rule, a model
loaded by the first request), not benchmarks. Measured coverage (CI's `--cov`) traces
every line of Python run and makes pure-Python work several times slower: a bound is
stretched by this factor while a tracer is on, so that it still fails on the regression
it guards and not on the measuring."""

import sys

TRACED_SLOWDOWN = 3.0


def cpu_bound(seconds: float) -> float:
    """`seconds`, or that many times TRACED_SLOWDOWN while a tracer (coverage) is on."""
    return seconds * TRACED_SLOWDOWN if sys.gettrace() is not None else seconds
