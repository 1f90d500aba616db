"""Cold start: how the first missions after a start compare with the same server warm.

Right after the stack says it is ready (/healthz answers 200, every worker answers a ping),
N clients each send M instructions in their own 1:1 channel (the "cold" group); then, on
the same server, N other clients do the same on channels nobody has used yet (the "warm"
group). Figures: first reply.delta p50 / p95 of each group and their ratio, round by round
(every round restarts the services). Target (issue 42): cold p50 <= 2.5 s with a 2 s model,
20 clients x 2. Nothing else runs before the cold group: no unmeasured warm-up client.

    .venv/bin/python bench/cold_start.py                      # embedded, 3 rounds
    .venv/bin/python bench/cold_start.py --runtimes embedded,production

Production needs PostgreSQL and Redis on 127.0.0.1 (see bench/harness/)."""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402
from bench.harness import BenchError, log, percentile  # noqa: E402
from bench.report import Table, emit  # noqa: E402

TARGET_P50 = 2.5
HEADER: tuple[str, ...] = ("runtime", "start", "cold p50", "cold p95", "warm p50", "warm p95")
HEADER += ("cold / warm p50", "cold mean")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness.benchmark_parser(__doc__)
    parser.add_argument("--clients", type=harness.positive_int, default=20, help="per group")
    parser.add_argument("--instructions", type=harness.positive_int, default=2, help="per client")
    parser.add_argument(
        "--delay-ms", type=float, default=2000.0, help="the model server's wait before a reply"
    )
    parser.add_argument(
        "--rounds", type=harness.positive_int, default=3, help="starts measured, one after another"
    )
    harness.add_run_arguments(parser, timeout=300.0, runtimes="embedded")
    harness.add_stack_arguments(parser)
    args = parser.parse_args(argv)
    args.runtime_list = harness.runtime_list(parser, args.runtimes)
    return args


def run_runtime(args: argparse.Namespace, runtime: str) -> list[tuple[str, ...]]:
    users_per_round = 2 * args.clients
    prefill = [0] * users_per_round * args.rounds
    embedded = runtime == "embedded"
    config = harness.stack_config(args, prefill=prefill, label="coldstart", embedded=embedded)
    config.delay_ms = args.delay_ms
    budget = args.rounds * (2 * args.timeout + 120) + 600
    rows: list[tuple[str, ...]] = []
    cold_all: list[float] = []
    warm_all: list[float] = []
    with harness.run_deadline(budget), harness.Stack(config, max_seconds=budget) as stack:
        for number in range(args.rounds):
            if number:
                stack.restart_services()
            users = stack.users[number * users_per_round : (number + 1) * users_per_round]
            figures: dict[str, list[float]] = {}
            for name, group in (("cold", users[: args.clients]), ("warm", users[args.clients :])):
                log(f"{runtime}: round {number + 1}: {name}, {len(group)} x {args.instructions}")
                outcome = harness.run_clients(
                    stack,
                    users=group,
                    instructions=args.instructions,
                    per_instruction_timeout=args.instruction_timeout,
                    phase_timeout=args.timeout,
                )
                problems = harness.client_problems(outcome)
                if problems:
                    raise BenchError(f"{runtime} {name}: {problems[:3]}")
                items = outcome.instructions
                figures[name] = [d for i in items if (d := i.to_first_delta) is not None]
            cold, warm = figures["cold"], figures["warm"]
            cold_all += cold
            warm_all += warm
            rows.append(_row(runtime, f"round {number + 1}", cold, warm))
    rows.append(_row(runtime, "all rounds", cold_all, warm_all))
    return rows


def _row(runtime: str, label: str, cold: list[float], warm: list[float]) -> tuple[str, ...]:
    cold_p50, warm_p50 = percentile(cold, 50), percentile(warm, 50)
    return (
        runtime,
        label,
        f"{cold_p50:.2f} s",
        f"{percentile(cold, 95):.2f} s",
        f"{warm_p50:.2f} s",
        f"{percentile(warm, 95):.2f} s",
        f"{cold_p50 / warm_p50:.2f}",
        f"{statistics.fmean(cold):.2f} s",
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rows: list[tuple[str, ...]] = [HEADER]
    try:
        for runtime in args.runtime_list:
            rows += run_runtime(args, runtime)
    except BenchError as exc:
        print(f"\nBenchmark stopped: {exc}", file=sys.stderr)
        return 2
    sizes = f"{args.clients} clients × {args.instructions}, model {args.delay_ms:g} ms"
    emit(f"cold_start.py ({sizes})", [Table("First reply.delta", rows)], record=not args.no_record)
    print(f"\ntarget: cold p50 <= {TARGET_P50} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
