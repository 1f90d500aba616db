"""Concurrency benchmark: both runtimes of docs/design.md §8 one after the other, with real
WebSocket clients against the local OpenAI-compatible server (see bench/harness/).

Scenarios (docs/benchmarks.md has the targets): 1. the model answers in 2 s, 50 clients x 4:
first-delta p50 / p95, nothing lost or doubled; 2. the model answers at once, 50 x 20:
missions/s beside a bare Daphne + Channels echo of the same frames (bench/echo_asgi.py);
3. one client alone: first-delta p50 (also sending only once the server is idle); 4. reply
p95 while 200 folds are queued (FOLD_BATCH=1, model 200 ms) against without; 5. model calls
per 100 missions with FOLD_BATCH 1 and 8; 6. ten master-channel plans of three delegates at
once: instruction to plan done (last: its missions land in the 1:1 channels counted above).
Between scenarios the services restart with the scenario's model delay and FOLD_BATCH (same
database), then an unmeasured warm-up client runs; INSTRUCTION_RATE_LIMIT=0 and
SWEEP_INTERVAL=3600 throughout. Everything started is stopped and removed within --budget.

    .venv/bin/python bench/concurrency.py --quick    # smoke run, a few minutes
    .venv/bin/python bench/concurrency.py            # full size

Exit status: 0 when every scenario ran and nothing was lost or doubled (targets missed are
reported, not failed), 1 when a count check failed, 2 when a runtime could not be run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402
from bench.concurrency_report import Figures, print_plans, print_runtime, print_summary  # noqa: E402
from bench.concurrency_scenarios import run_runtime, sizes_from  # noqa: E402
from bench.harness import (  # noqa: E402
    BenchError,
    log,
)
from bench.report import Table, record_run  # noqa: E402

# --- Command line -----------------------------------------------------------------------


class _Explicit(argparse.Action):
    """Stores the value and remembers that it was given (so --quick leaves it alone)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.explicit = {*getattr(namespace, "explicit", set()), self.dest}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness.benchmark_parser(__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument(
        "--only-plans", action="store_true", help="run scenario 6 (plan latency) alone"
    )
    harness.add_run_arguments(parser, timeout=600.0, runtimes="embedded,production")
    sizes: list[tuple[str, type, Any, str]] = [
        ("s1_clients", int, 50, "scenario 1: clients"),
        ("s1_instructions", int, 4, "scenario 1: instructions per client"),
        ("s1_delay_ms", float, 2000.0, "scenario 1: the model's delay"),
        ("s2_clients", int, 50, "scenario 2: clients (and echo clients)"),
        ("s2_instructions", int, 20, "scenario 2: instructions per client"),
        ("s3_instructions", int, 20, "scenario 3: instructions of the lone client"),
        ("s4_clients", int, 20, "scenario 4: clients"),
        ("s4_instructions", int, 10, "scenario 4: instructions per client"),
        ("s4_backlog", int, 200, "scenario 4: folds queued"),
        ("s4_delay_ms", float, 200.0, "scenario 4: the model's delay"),
        ("s5_clients", int, 10, "scenario 5: clients (sessions)"),
        ("s5_instructions", int, 40, "scenario 5: instructions per session"),
        ("s6_plans", int, 10, "scenario 6: plans of three delegates sent at once"),
        ("s6_delay_ms", float, 2000.0, "scenario 6: the model's delay"),
        ("warmup", int, 2, "instructions of the unmeasured warm-up client after each restart"),
    ]
    for name, kind, default, help_text in sizes:
        parser.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            type=kind,
            default=default,
            action=_Explicit,
            help=help_text,
        )
    harness.add_stack_arguments(parser)
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds the whole run may take, cleanup included (default 3600, quick 1200)",
    )
    args = parser.parse_args(argv)
    if not hasattr(args, "explicit"):
        args.explicit = set()
    if args.budget is None:
        args.budget = 1200.0 if args.quick else 3600.0
    args.delay_ms = 0.0
    args.runtime_list = harness.runtime_list(parser, args.runtimes)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = sizes_from(args)
    started = time.monotonic()
    results: list[Figures] = []
    plan_problems: list[str] = []
    failed: dict[str, str] = {}
    try:
        with harness.run_deadline(args.budget):
            for runtime in args.runtime_list:
                try:
                    run = run_runtime(runtime, args, sizes)
                except BenchError as exc:
                    if "stopped by" in str(exc):
                        raise
                    log(f"{runtime}: {exc}")
                    failed[runtime] = str(exc)[:500]
                    continue
                if not args.only_plans:
                    results.append(print_runtime(run, sizes))
                plan_problems += print_plans(run, sizes)
                sys.stdout.flush()
    except BenchError as exc:
        print(f"\nBenchmark stopped: {exc}", file=sys.stderr)
        failed.setdefault("run", str(exc))
    except KeyboardInterrupt:
        print("\nBenchmark interrupted", file=sys.stderr)
        return 130
    if results:
        summary = print_summary(results, failed)
        if not args.no_record:
            size = "quick sizes" if args.quick else "full sizes"
            record_run(f"concurrency.py ({size})", [Table("Summary", summary)])
    print(f"\n(total {time.monotonic() - started:.0f} s)")
    if failed:
        return 2
    return 1 if any(f.problems for f in results) or plan_problems else 0


if __name__ == "__main__":
    sys.exit(main())
