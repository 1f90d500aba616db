"""Real-time and load benchmarks: the production stack (Daphne, Redis, PostgreSQL, Celery
workers of both queues, the local OpenAI-compatible server), N WebSocket clients, each its
own user, office, session cookie and 1:1 channel, sending M instructions one after another;
then the count check of the database (every instruction exactly one mission, done, with
exactly one saved reply; the long-session notices exactly where due). Reported: missions/s,
latency percentiles to the first reply.delta and to reply.done, model calls, peak
connections and RSS. Exit status 1 when the count check (with --load, also the notice
check) fails, 2 when the run could not complete. See docs/benchmarks.md.

    .venv/bin/python bench/realtime.py                   # 50 clients x 20, model at once
    .venv/bin/python bench/realtime.py --load            # 100 x 10, 2 replies workers,
                                                         # model 50 ms, every other session
                                                         # pre-filled to cross 20 missions
    .venv/bin/python bench/realtime.py --clients 5 --instructions 3   # quick
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402
from bench.harness import ClientsOutcome, Stack, percentile, print_table  # noqa: E402
from bench.harness.reports import DatabaseCheck  # noqa: E402
from bench.report import Table, record_run  # noqa: E402

# The two presets: (clients, instructions, replies workers, model delay ms, percentiles).
REALTIME = (50, 20, 1, 0.0, (50, 95))
LOAD = (100, 10, 2, 50.0, (50, 95, 99))


def _ms(seconds: float) -> str:
    return "-" if seconds != seconds else f"{seconds * 1000:,.0f} ms"


def _mib(kib: int) -> str:
    return f"{kib / 1024:,.1f} MiB"


def print_latency(outcome: ClientsOutcome, percentiles: tuple[int, ...]) -> list[tuple[str, ...]]:
    items = outcome.instructions
    first = [d for i in items if (d := i.to_first_delta) is not None]
    done = [d for i in items if (d := i.to_done) is not None]
    rows: list[tuple[str, ...]] = [
        ("from instruction to", "n", *(f"p{p}" for p in percentiles), "mean", "max")
    ]
    for label, values in (("first reply.delta", first), ("reply.done", done)):
        rows.append(
            (
                label,
                str(len(values)),
                *(_ms(percentile(values, p)) for p in percentiles),
                _ms(statistics.fmean(values) if values else float("nan")),
                _ms(max(values) if values else float("nan")),
            )
        )
    print_table("Latency", rows)
    return rows


def print_throughput(outcome: ClientsOutcome, calls: dict[str, int]) -> list[tuple[str, ...]]:
    items = outcome.instructions
    done = sum(1 for i in items if i.done is not None)
    total = sum(calls.values())
    per_mission = f"{total / max(done, 1):.2f} per mission: {harness.describe_calls(calls)}"
    rows: list[tuple[str, ...]] = [
        ("throughput", "value"),
        ("instructions sent", str(sum(1 for i in items if i.sent))),
        ("reply.done received", str(done)),
        ("wall time (first send to last reply.done)", f"{outcome.elapsed:.1f} s"),
        ("missions per second", f"{done / outcome.elapsed:.2f}"),
        ("model calls (until the queues drained)", f"{total} ({per_mission})"),
    ]
    print_table("Throughput", rows)
    return rows


def print_counts(check: DatabaseCheck, outcome: ClientsOutcome) -> list[str]:
    """Print the count check; return the problems found (empty when all is well)."""
    client_side = harness.client_problems(outcome)
    received_done = sum(1 for i in outcome.instructions if i.done is not None)
    closed = sum(1 for run in outcome.runs if run.closed_by_server)
    rows: list[tuple[str, ...]] = [
        ("count check", "value", "expected"),
        ("missions stored for the instructions sent", str(check.found), str(check.expected)),
        *(
            (label, str(value), "0")
            for label, value in (
                ("lost (instruction without a mission)", check.lost),
                ("doubled (extra missions or duplicates)", check.doubled),
                ("missions not done", check.not_done),
                ("done with an empty reply", check.empty_replies),
                ("replies that do not answer their own instruction", check.foreign_replies),
                ("missions without exactly one saved reply", check.bad_reply_counts),
                ("missions without exactly one instruction", check.bad_instruction_counts),
                ("sessions whose mission_count is off", check.bad_session_counts),
                ("missions in other channels", check.missions_elsewhere),
            )
        ),
        (
            "failed missions / error messages",
            f"{check.failed_missions} / {check.error_messages}",
            "0 / 0",
        ),
        ("reply.done received by the clients", str(received_done), str(check.expected)),
        ("client-side problems", str(len(client_side)), "0"),
        ("sockets the server closed before the client did", str(closed), "0"),
    ]
    print_table("Count check", rows)
    problems: list[str] = []
    if not check.count_ok:
        for c in check.channels:
            where = f"channel {c.user.channel_id}"
            if c.lost or c.doubled or c.not_done or c.empty_replies or c.foreign_replies:
                problems.append(
                    f"{where} (client {c.user.index}): "
                    f"found {c.found}/{c.expected}, doubled {c.doubled}, "
                    f"not done {c.not_done[:5]}, empty {c.empty_replies}, "
                    f"foreign {c.foreign_replies}"
                )
            bad = {m: n for m, n in c.reply_counts.items() if n != 1}
            if bad:
                problems.append(f"{where}: reply messages per mission {bad}")
            if c.mission_count != c.user.prefill + c.expected:
                problems.append(
                    f"{where}: session mission_count "
                    f"{c.mission_count}, expected {c.user.prefill + c.expected}"
                )
        if not problems:
            problems.append("count check failed")
    if check.missions_elsewhere:
        problems.append(f"{check.missions_elsewhere} missions in channels no client used")
    return problems + client_side


def print_notices(check: DatabaseCheck, outcome: ClientsOutcome) -> list[str]:
    received = {run.user.channel_id: len(run.notices) for run in outcome.runs}
    rows: list[tuple[str, ...]] = [("long-session notices", "stored", "received", "expected")]
    groups = {
        f"sessions that reached {check.threshold}": [
            c for c in check.channels if c.notice_expected
        ],
        "sessions that stayed below": [c for c in check.channels if not c.notice_expected],
    }
    for label, group in groups.items():
        rows.append(
            (
                f"{label} ({len(group)})",
                str(sum(c.notices for c in group)),
                str(sum(received.get(c.user.channel_id, 0) for c in group)),
                str(sum(c.notice_expected for c in group)),
            )
        )
    print_table("Notices (exactly one per session that crossed the threshold)", rows)
    problems = []
    for c in check.channels:
        got = received.get(c.user.channel_id, 0)
        if c.notices != c.notice_expected or got != c.notice_expected:
            problems.append(
                f"channel {c.user.channel_id} (prefill {c.user.prefill}): "
                f"{c.notices} notice(s) stored, {got} received, {c.notice_expected} expected"
            )
    return problems


def print_resources(stack: Stack) -> None:
    sampler = stack.sampler
    if sampler is None:
        return
    rows: list[tuple[str, ...]] = [
        ("process", "pid", "peak RSS (VmHWM)", "children", "largest child", "tree PSS peak")
    ]
    for name, tree in sampler.trees.items():
        main, kids = tree.main, tree.children
        rows.append(
            (
                name,
                str(main.pid) if main else "-",
                _mib(main.peak_kib) if main else "-",
                str(len(kids)),
                _mib(max(k.peak_kib for k in kids)) if kids else "-",
                _mib(tree.tree_pss_kib),
            )
        )
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rows.append(("benchmark clients (this process)", str(os.getpid()), _mib(own), "0", "-", "-"))
    print_table(f"Peak memory ({sampler.rss_samples} samples)", rows)
    database: list[tuple[str, ...]]
    if stack.embedded:
        database = [("connections to the scratch database", "peak"), ("SQLite file", "-")]
    else:
        database = [
            ("PostgreSQL connections to the scratch database", "peak"),
            ("all (pg_stat_activity)", str(sampler.peak_connections)),
            ("active at once", str(sampler.peak_active)),
            ("samples", str(sampler.connection_samples)),
        ]
    print_table("Database", database)
    if sampler.errors:
        print(f"  sampler errors: {sampler.errors[:3]}")


def print_findings(
    stack: Stack, outcome: ClientsOutcome, failed: bool, problems: list[str]
) -> bool:
    """Print the verdict and what else was seen; True when there is anything to look at."""
    print("\nResult: " + ("FAILED" if failed else "OK"))
    for line in problems[:40]:
        print(f"  - {line}")
    closed = [
        f"client {run.user.index} (channel {run.user.channel_id}): {run.closed_by_server}"
        for run in outcome.runs
        if run.closed_by_server
    ]
    if closed:
        print(f"Sockets closed by the server while their client still listened: {len(closed)}")
        for line in closed[:10]:
            print(f"  - {line}")
    service = stack.service_failures()
    if not outcome.queue_idle:
        service.append("the task queues had not drained 120 s after the last reply")
    if service:
        print("Service log findings:")
        for line in service:
            print(f"  - {line}")
    return bool(problems or closed or service)


def run_benchmark(
    args: argparse.Namespace,
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
    config = harness.stack_config(args, prefill=prefill, label=title.split()[0].lower())
    budget = args.timeout + 600  # setup and teardown on top of the client phase
    try:
        with harness.run_deadline(budget), Stack(config, max_seconds=budget) as stack:
            before = stack.model_stats()
            outcome = harness.run_clients(
                stack,
                instructions=args.instructions,
                per_instruction_timeout=args.instruction_timeout,
                phase_timeout=args.timeout,
                linger=args.linger,
            )
            calls = harness.stats_delta(before, stack.model_stats())
            workers = stack.workers_summary()
            stack.stop_services()
            check = harness.check_database(
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
            problems = print_counts(check, outcome)
            notice_problems = print_notices(check, outcome)
            print_resources(stack)
            failed = bool(problems) or (notices_must_match and bool(notice_problems))
            if print_findings(stack, outcome, failed, [*problems, *notice_problems]):
                stack.mark_failed()
            if not args.no_record:
                sizes = f"{args.clients} clients × {args.instructions}, model {args.delay_ms:g} ms"
                verdict = ("FAILED" if failed else "OK", str(len(problems) + len(notice_problems)))
                record_run(
                    f"{title} ({sizes}; {workers})",
                    [
                        Table("Throughput", throughput),
                        Table("Latency", latency),
                        Table("Result", [("count check", "problems"), verdict]),
                    ],
                )
    except harness.BenchError as exc:
        print(f"\nBenchmark stopped: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nBenchmark interrupted", file=sys.stderr)
        return 130
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    load = "--load" in (sys.argv[1:] if argv is None else argv)
    clients, instructions, workers, delay_ms, percentiles = LOAD if load else REALTIME
    parser = harness.benchmark_parser(__doc__)
    parser.add_argument("--load", action="store_true", help="the load preset (above)")
    positive_int = harness.positive_int
    parser.add_argument(
        "--clients", type=positive_int, default=clients, help="concurrent WebSocket clients"
    )
    parser.add_argument(
        "--delay-ms", type=float, default=delay_ms, help="the model server's wait before a reply"
    )
    parser.add_argument(
        "--instructions", type=positive_int, default=instructions, help="instructions per client"
    )
    harness.add_stack_arguments(parser)
    parser.set_defaults(workers=workers)
    harness.add_run_arguments(parser, timeout=600.0)
    parser.add_argument(
        "--linger",
        type=float,
        default=0.0,
        help="seconds each client stays connected after its last reply (idle sockets)",
    )
    parser.add_argument(
        "--prefill",
        type=int,
        default=15 if load else 0,
        help="finished missions already in every other client's session",
    )
    args = parser.parse_args(argv)
    return run_benchmark(
        args,
        title="Load" if load else "Realtime",
        prefill=[args.prefill if n % 2 == 0 else 0 for n in range(args.clients)],
        percentiles=percentiles,
        notices_must_match=load,
    )


if __name__ == "__main__":
    sys.exit(main())
