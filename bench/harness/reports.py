"""The figures of a run and the tables the benchmarks print."""

from __future__ import annotations

import os
import statistics
from typing import Any

from bench.harness.checks import DatabaseCheck
from bench.harness.clients import ClientsOutcome
from bench.harness.stack import Stack
from bench.report import Table, show

# --- Figures and tables -----------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    """Linear interpolation between closest ranks; nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _ms(seconds: float) -> str:
    return "-" if seconds != seconds else f"{seconds * 1000:,.0f} ms"


def print_table(title: str, rows: list[tuple[str, ...]]) -> None:
    """Print a table as the run log records it (bench/report.py)."""
    show([Table(title, rows)])


def print_latency(outcome: ClientsOutcome, percentiles: tuple[int, ...]) -> list[tuple[str, ...]]:
    items = outcome.instructions
    first = [d for i in items if (d := i.to_first_delta) is not None]
    done = [d for i in items if (d := i.to_done) is not None]
    header = ("from instruction to", "n", *(f"p{p}" for p in percentiles), "mean", "max")
    rows: list[tuple[str, ...]] = [header]
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


MODEL_KINDS = (
    ("stream", "replies"),
    ("SummaryState", "folds"),
    ("MemoryCandidates", "extractions"),
)


def stats_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, int]:
    """Model requests between two `Stack.model_stats()` readings, by kind."""
    kinds = set(before.get("by_kind", {})) | set(after.get("by_kind", {}))
    delta = {
        kind: int(after.get("by_kind", {}).get(kind, 0))
        - int(before.get("by_kind", {}).get(kind, 0))
        for kind in kinds
    }
    return {kind: n for kind, n in delta.items() if n}


def describe_calls(calls: dict[str, int]) -> str:
    named = dict(MODEL_KINDS)
    parts = [f"{named.get(kind, kind)} {n}" for kind, n in sorted(calls.items())]
    return ", ".join(parts) or "none"


def print_throughput(outcome: ClientsOutcome, calls: dict[str, int]) -> list[tuple[str, ...]]:
    items = outcome.instructions
    done = sum(1 for i in items if i.done is not None)
    total = sum(calls.values())
    rows: list[tuple[str, ...]] = [
        ("throughput", "value"),
        ("instructions sent", str(sum(1 for i in items if i.sent))),
        ("reply.done received", str(done)),
        ("wall time (first send to last reply.done)", f"{outcome.elapsed:.1f} s"),
        ("missions per second", f"{done / outcome.elapsed:.2f}"),
        (
            "model calls (until the queues drained)",
            f"{total} ({total / max(done, 1):.2f} per mission: {describe_calls(calls)})",
        ),
    ]
    print_table("Throughput", rows)
    return rows


def client_problems(outcome: ClientsOutcome) -> list[str]:
    problems: list[str] = []
    for run in outcome.runs:
        who = f"client {run.user.index} (channel {run.user.channel_id})"
        if run.failure:
            problems.append(f"{who}: {run.failure}")
        for item in run.instructions:
            if item.error:
                problems.append(f"{who} {item.client_id}: {item.error}")
            elif item.done_frames != 1:
                problems.append(f"{who} {item.client_id}: {item.done_frames} reply.done frames")
            elif item.employee_frames != 1:
                problems.append(
                    f"{who} {item.client_id}: {item.employee_frames} saved replies received"
                )
        if run.error_frames:
            problems.append(f"{who}: error frames {run.error_frames[:3]}")
        if run.unmatched:
            problems.append(f"{who}: frames matching no instruction {dict(run.unmatched)}")
    return problems


def print_counts(check: DatabaseCheck, outcome: ClientsOutcome, *, with_notices: bool) -> list[str]:
    """Print the count check; return the problems found (empty when all is well)."""
    client_side = client_problems(outcome)
    received_done = sum(1 for i in outcome.instructions if i.done is not None)
    rows: list[tuple[str, ...]] = [
        ("count check", "value", "expected"),
        ("missions stored for the instructions sent", str(check.found), str(check.expected)),
        ("lost (instruction without a mission)", str(check.lost), "0"),
        ("doubled (extra missions or duplicates)", str(check.doubled), "0"),
        ("missions not done", str(check.not_done), "0"),
        ("done with an empty reply", str(check.empty_replies), "0"),
        ("replies that do not answer their own instruction", str(check.foreign_replies), "0"),
        ("missions without exactly one saved reply", str(check.bad_reply_counts), "0"),
        ("missions without exactly one instruction", str(check.bad_instruction_counts), "0"),
        ("sessions whose mission_count is off", str(check.bad_session_counts), "0"),
        ("missions in other channels", str(check.missions_elsewhere), "0"),
        (
            "failed missions / error messages",
            f"{check.failed_missions} / {check.error_messages}",
            "0 / 0",
        ),
        ("reply.done received by the clients", str(received_done), str(check.expected)),
        ("client-side problems", str(len(client_side)), "0"),
        (
            "sockets the server closed before the client did",
            str(sum(1 for run in outcome.runs if run.closed_by_server)),
            "0",
        ),
    ]
    print_table("Count check", rows)
    problems: list[str] = []
    if not check.count_ok:
        for channel in check.channels:
            if (
                channel.lost
                or channel.doubled
                or channel.not_done
                or channel.empty_replies
                or channel.foreign_replies
            ):
                problems.append(
                    f"channel {channel.user.channel_id} (client {channel.user.index}): "
                    f"found {channel.found}/{channel.expected}, doubled {channel.doubled}, "
                    f"not done {channel.not_done[:5]}, empty {channel.empty_replies}, "
                    f"foreign {channel.foreign_replies}"
                )
            bad = {m: n for m, n in channel.reply_counts.items() if n != 1}
            if bad:
                problems.append(
                    f"channel {channel.user.channel_id}: reply messages per mission {bad}"
                )
            if channel.mission_count != channel.user.prefill + channel.expected:
                problems.append(
                    f"channel {channel.user.channel_id}: session mission_count "
                    f"{channel.mission_count}, expected {channel.user.prefill + channel.expected}"
                )
        if not problems:
            problems.append("count check failed")
    if check.missions_elsewhere:
        problems.append(f"{check.missions_elsewhere} missions in channels no client used")
    problems.extend(client_side)
    if with_notices:
        problems.extend(print_notices(check, outcome))
    return problems


def print_notices(check: DatabaseCheck, outcome: ClientsOutcome) -> list[str]:
    received = {run.user.channel_id: len(run.notices) for run in outcome.runs}
    crossing = [c for c in check.channels if c.notice_expected]
    staying = [c for c in check.channels if not c.notice_expected]
    rows: list[tuple[str, ...]] = [
        ("long-session notices", "stored", "received", "expected"),
        (
            f"sessions that reached {check.threshold} ({len(crossing)})",
            str(sum(c.notices for c in crossing)),
            str(sum(received.get(c.user.channel_id, 0) for c in crossing)),
            str(len(crossing)),
        ),
        (
            f"sessions that stayed below ({len(staying)})",
            str(sum(c.notices for c in staying)),
            str(sum(received.get(c.user.channel_id, 0) for c in staying)),
            "0",
        ),
    ]
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
        mains = [p for p in tree.pids.values() if p.role == "main"]
        kids = [p for p in tree.pids.values() if p.role == "child"]
        main = mains[0] if mains else None
        rows.append(
            (
                name,
                str(main.pid) if main else "-",
                _mib(max(main.hwm_kib, main.rss_kib)) if main else "-",
                str(len(kids)),
                _mib(max(max(k.hwm_kib, k.rss_kib) for k in kids)) if kids else "-",
                _mib(tree.tree_pss_kib),
            )
        )
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rows.append(("benchmark clients (this process)", str(os.getpid()), _mib(own), "0", "-", "-"))
    print_table(f"Peak memory ({sampler.rss_samples} samples)", rows)
    if stack.embedded:
        print_table(
            "Database", [("connections to the scratch database", "peak"), ("SQLite file", "-")]
        )
    else:
        print_table(
            "Database",
            [
                ("PostgreSQL connections to the scratch database", "peak"),
                ("all (pg_stat_activity)", str(sampler.peak_connections)),
                ("active at once", str(sampler.peak_active)),
                ("samples", str(sampler.connection_samples)),
            ],
        )
    if sampler.errors:
        print(f"  sampler errors: {sampler.errors[:3]}")


def _print_findings(
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


def _mib(kib: int) -> str:
    return f"{kib / 1024:,.1f} MiB"
