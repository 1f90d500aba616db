"""Running an end-to-end benchmark from the command line: its options, its deadline, and
`run_benchmark` (bench/realtime.py and bench/load.py)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import fields
from types import FrameType
from typing import Any

from bench.harness.base import PG_DEFAULT, POOLS, BenchError, StackConfig
from bench.harness.checks import check_database
from bench.harness.clients import run_clients
from bench.harness.reports import (
    _print_findings,
    print_counts,
    print_latency,
    print_notices,
    print_resources,
    print_throughput,
    stats_delta,
)
from bench.harness.stack import Stack
from bench.report import Table, record_run


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
    """The parser of an end-to-end benchmark: its docstring's first paragraph, defaults
    shown in --help."""
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


def add_common_arguments(
    parser: Any, *, clients: int, instructions: int, workers: int, delay_ms: float
) -> None:
    parser.add_argument(
        "--clients", type=positive_int, default=clients, help="concurrent WebSocket clients"
    )
    parser.add_argument(
        "--delay-ms", type=float, default=delay_ms, help="the model server's wait before a reply"
    )
    parser.add_argument(
        "--instructions", type=positive_int, default=instructions, help="instructions per client"
    )
    add_stack_arguments(parser)
    parser.set_defaults(workers=workers)
    add_run_arguments(parser, timeout=600.0)
    parser.add_argument(
        "--linger",
        type=float,
        default=0.0,
        help="seconds each client stays connected after its last reply (idle sockets)",
    )


def stack_config(
    args: Any, *, prefill: list[int], label: str, embedded: bool = False
) -> StackConfig:
    """The StackConfig of the command-line options (add_stack_arguments, --delay-ms)."""
    options = {f.name: getattr(args, f.name) for f in fields(StackConfig) if hasattr(args, f.name)}
    options.update(users=len(prefill), prefill=prefill, label=label, embedded=embedded)
    return StackConfig(**options)


def run_benchmark(
    args: Any,
    *,
    title: str,
    prefill: list[int],
    percentiles: tuple[int, ...],
    notices_must_match: bool,
) -> int:
    """Bring the stack up, run the clients, check the database, print the tables.

    Returns the exit code: 1 if the count check (and, if asked, the notice check) failed,
    2 if the run could not be completed (a service did not start, the deadline passed)."""
    threshold = int(os.environ.get("LONG_SESSION_MISSIONS") or 20)
    config = stack_config(args, prefill=prefill, label=title.split()[0].lower())
    budget = args.timeout + 600  # setup and teardown on top of the client phase
    try:
        with run_deadline(budget), Stack(config, max_seconds=budget) as stack:
            before = stack.model_stats()
            outcome = run_clients(
                stack,
                instructions=args.instructions,
                per_instruction_timeout=args.instruction_timeout,
                phase_timeout=args.timeout,
                linger=args.linger,
            )
            calls = stats_delta(before, stack.model_stats())
            workers = stack.workers_summary()
            stack.stop_services()
            check = check_database(
                stack,
                sent={run.user.channel_id: len(run.instructions) for run in outcome.runs},
                threshold=threshold,
            )
            pre_filled = [n for n in prefill if n]
            print(
                f"\n{title}: {args.clients} clients x {args.instructions} instructions; "
                f"{workers}; "
                f"model delay {args.delay_ms:g} ms; {len(pre_filled)} sessions pre-filled "
                f"with {max(pre_filled, default=0)} missions; notice threshold {threshold}"
            )
            throughput = print_throughput(outcome, calls)
            latency = print_latency(outcome, percentiles)
            problems = print_counts(check, outcome, with_notices=False)
            notice_problems = print_notices(check, outcome)
            print_resources(stack)
            failed = bool(problems) or (notices_must_match and bool(notice_problems))
            if _print_findings(stack, outcome, failed, [*problems, *notice_problems]):
                stack.mark_failed()
            if not args.no_record:
                sizes = f"{args.clients} clients × {args.instructions}, model {args.delay_ms:g} ms"
                record_run(
                    f"{title} ({sizes}; {workers})",
                    [
                        Table("Throughput", throughput),
                        Table("Latency", latency),
                        Table(
                            "Result",
                            [
                                ("count check", "problems"),
                                (
                                    "FAILED" if failed else "OK",
                                    str(len(problems) + len(notice_problems)),
                                ),
                            ],
                        ),
                    ],
                )
    except BenchError as exc:
        print(f"\nBenchmark stopped: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nBenchmark interrupted", file=sys.stderr)
        return 130
    return 1 if failed else 0
