"""Concurrency benchmark: the two runtimes of docs/design.md §8, one after the other, in one run.

- embedded: Daphne alone, TASK_RUNNER=thread (replies and background lanes are thread
  pools inside the web process: REPLY_CONCURRENCY 64, BACKGROUND_CONCURRENCY 2), a
  scratch SQLite file, no REDIS_URL (in-memory channel layer);
- production: PostgreSQL (a scratch database) + Redis + Daphne + a `replies` Celery worker
  on threads (--concurrency 64, DATABASE_POOL_MAX 16) + a `background` worker (threads,
  --concurrency 8), as docker-compose.yml runs them.

Both talk to the local OpenAI-compatible server (tests/fake_openai.py) through the real
SDK (LLM_PROVIDER=openai). WebSocket clients are real: one user, office, session cookie
and 1:1 channel each, one instruction at a time (see bench/harness/). Scenarios:

1. The model answers after 2 s; 50 clients x 4 instructions: instruction -> first
   reply.delta p50 / p95 (targets 2.5 s / 3.5 s), nothing lost or doubled (the database
   check), peak database connections, peak RSS.
2. The model answers at once; 50 clients x 20: missions/s, beside a bare Daphne + Channels
   echo of the same frames (bench/echo_asgi.py) driven by the same clients in the same
   run; the ratio missions/s / echo/s is the figure (targets: 80 missions/s embedded, 50
   production).
3. One client alone, the model at once: first reply.delta p50 (targets 30 ms embedded,
   60 ms production).
4. The model answers in 200 ms, FOLD_BATCH=1; 20 clients x 10 chat twice: alone, then
   while a backlog of 200 folds is queued (`summaries.tasks.summary_fold` queued by name in
   the web process, as services do, for 200 sessions that each hold one finished mission
   outside the detail window, so each fold is a model call): first-delta p95 with the
   backlog / p95 without it (target <= 1.2).
5. Model calls per 100 missions (replies, folds, extractions), counted by the model
   server, with FOLD_BATCH=1 ("before batching") and FOLD_BATCH=8 ("after").
6. Plans: the model answers after 2 s; 10 clients each send one master-channel
   instruction naming three colleagues at once: instruction -> the plan's `plan` frame
   saying "done" (three delegated missions in parallel, then one synthesis: about 4 s
   when they run at once, 8 s one after another). Run last: the delegated missions land
   in the 1:1 channels the other scenarios count. `--only-plans` runs just this one.

Between scenarios the services are restarted with the scenario's model delay and
FOLD_BATCH (same database); each restart is followed by a short unmeasured warm-up
client. For the whole run INSTRUCTION_RATE_LIMIT=0 (clients send faster than a person)
and SWEEP_INTERVAL=3600 (no sweeper queues folds behind the scenario's back). Figures are
ratios and percentiles of this one run on a shared machine; nothing here is a test.

Everything started is stopped, the scratch database dropped, the SQLite file removed and
the Redis DB flushed, also on failure, within --budget seconds. From the project root:

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
