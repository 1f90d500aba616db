"""The command line of the end-to-end benchmarks: their shared options and the deadline."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
from collections.abc import Iterator
from dataclasses import fields
from types import FrameType
from typing import Any

from bench.harness.base import PG_DEFAULT, POOLS, BenchError, StackConfig


@contextlib.contextmanager
def run_deadline(seconds: float) -> Iterator[None]:
    """SIGALRM after `seconds`, SIGTERM at any time: both unwind through every cleanup."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        raise BenchError(f"stopped by {signal.Signals(signum).name}")

    previous_alarm = signal.signal(signal.SIGALRM, on_signal)
    previous_term = signal.signal(signal.SIGTERM, on_signal)
    signal.alarm(max(1, int(seconds)))
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous_alarm)
        signal.signal(signal.SIGTERM, previous_term)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def benchmark_parser(doc: str | None) -> argparse.ArgumentParser:
    """The parser of a benchmark: its docstring's first paragraph, defaults shown in --help."""
    return argparse.ArgumentParser(
        description=(doc or "").split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )


def add_run_arguments(parser: Any, *, timeout: float, runtimes: str | None = None) -> None:
    """Options every end-to-end benchmark shares: the clients' time limits, --no-record
    and, for those that run both runtimes, --runtimes."""
    parser.add_argument(
        "--instruction-timeout", type=float, default=120.0, help="seconds to wait for a reply"
    )
    parser.add_argument(
        "--timeout", type=float, default=timeout, help="seconds one client phase may take"
    )
    parser.add_argument(
        "--no-record", action="store_true", help="do not append the figures to docs/benchmarks.md"
    )
    if runtimes is not None:
        parser.add_argument(
            "--runtimes", default=runtimes, help="comma-separated: embedded, production (or both)"
        )


def runtime_list(parser: Any, text: str) -> list[str]:
    """The runtimes named by --runtimes, in order; a usage error for any other name."""
    names = [r.strip() for r in text.replace("both", "embedded,production").split(",")]
    runtimes = [r for r in names if r]
    if not runtimes or any(r not in ("embedded", "production") for r in runtimes):
        parser.error("--runtimes takes embedded and/or production")
    return runtimes


def add_stack_arguments(parser: Any) -> None:
    """Options of the services: workers, pools, Redis DB, PostgreSQL, logs."""
    for name, kind, default, help_text in (
        ("workers", positive_int, 1, "Celery workers of the replies queue (-Q replies)"),
        ("pool", None, "threads", "pool of the replies workers"),
        ("concurrency", positive_int, 64, "threads (or children) per replies worker"),
        ("replies-pool-max", positive_int, 16, "DATABASE_POOL_MAX of each replies worker"),
        ("background-workers", positive_int, 1, "Celery workers of the background queue"),
        ("background-pool", None, "threads", "pool of the background workers"),
        ("background-concurrency", positive_int, 8, "threads (or children) per background worker"),
        ("reply-cpu-slots", positive_int, 8, "REPLY_CPU_SLOTS of the process that runs replies"),
        ("redis-db", int, 11, "Redis DB index for this run (must be empty)"),
    ):
        choices = POOLS if kind is None else None
        parser.add_argument(
            f"--{name}", type=kind or str, choices=choices, default=default, help=help_text
        )
    parser.add_argument(
        "--redis-force", action="store_true", help="flush the Redis DB even if it holds keys"
    )
    parser.add_argument(
        "--pg-url",
        default=os.environ.get("BENCH_PG_URL") or PG_DEFAULT,
        help="maintenance database on 127.0.0.1 the scratch database is created from",
    )
    parser.add_argument("--keep-logs", action="store_true", help="keep the processes' logs")


def stack_config(
    args: Any, *, prefill: list[int], label: str, embedded: bool = False
) -> StackConfig:
    """The StackConfig of the command-line options (add_stack_arguments, --delay-ms)."""
    options = {f.name: getattr(args, f.name) for f in fields(StackConfig) if hasattr(args, f.name)}
    options.update(users=len(prefill), prefill=prefill, label=label, embedded=embedded)
    return StackConfig(**options)
