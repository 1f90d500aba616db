"""Context-engine benchmark: how assembly cost and prompt size behave as a session grows,
and whether planted facts survive folding. Not part of the test suite; `make bench`.

    python bench/context.py                  # SQLite and, when reachable, PostgreSQL
    python bench/context.py --database sqlite

Each database runs in its own process (settings are per process) on a scratch test
database that is dropped afterwards. Figures are ratios measured within one run, since
this kind of machine is shared and noisy."""

import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import Table, per_database, scratch_database  # noqa: E402
from bench.retention import common_prefix  # noqa: E402
from bench.transcripts.common import channel_for, read  # noqa: E402

LENGTHS = (10, 100, 1000)
# The prompt-cache prefix: the first missions of these transcripts, one at a time.
PREFIX_TRANSCRIPTS = ("launch_en", "launch_ko")
PREFIX_MISSIONS = 48
# What a provider's prompt cache needs before it reuses anything: 1,024 tokens, about
# 4,096 chars of English (chars / 4; Korean has fewer chars per token, so this is strict).
PREFIX_TARGET_CHARS = 4_096
PROBES = (30, 60, 120)
MISSION_CHARS = 2500
ROUNDS = 40

PLANTED = {
    2: (
        "We decided the price is $49 per month for the Pro plan.",
        "Agreed: the Pro plan costs $49 per month, billed monthly.",
    ),
    3: (
        "Our target customer is independent dental clinics with 5 to 20 staff.",
        "Understood: dental clinics with 5 to 20 staff are the target customer.",
    ),
    4: (
        "The deadline for the public beta is March 14.",
        "Noted, the public beta deadline is March 14.",
    ),
    5: ("We decided the launch city is Lisbon.", "Lisbon it is for the launch event."),
    9: (
        "Change of plan: we decided the launch city is Porto instead.",
        "Switched: the launch event moves to Porto.",
    ),
}
PLANTED_CHECKS = {
    "price": "$49",
    "target customer": "dental clinics",
    "deadline": "March 14",
    "reversed decision (new)": "Porto",
}

_TOPICS = [
    "onboarding flow",
    "pricing page",
    "newsletter",
    "support macros",
    "API docs",
    "landing page",
    "release notes",
    "sales deck",
    "FAQ",
    "status page",
]
_PEOPLE = ["Jordan", "Priya", "Mateo", "Aiko", "Lena", "Omar"]
_SENTENCES = [
    "I reviewed the {topic} and rewrote the opening so it reads faster.",
    "The second part of the {topic} now explains the steps in plain words.",
    "{person} asked for a shorter version of the {topic}, so I cut it by a third.",
    "There were {n} small inconsistencies in the {topic}; all are fixed now.",
    "I would keep the tone friendly but direct, as in the previous drafts.",
    "Here is the revised outline with headings for each section of the {topic}.",
    "The examples now use realistic names and amounts instead of placeholders.",
    "I compared it with last month's version and kept what performed well.",
    "Let me know if the {topic} should mention the integrations as well.",
    "Section {n} covers the edge cases that support raised last week.",
]


def filler(rng: random.Random, n: int) -> tuple[str, str]:
    topic = rng.choice(_TOPICS)
    instruction = f"Mission {n}: please improve the {topic} and send me the result."
    parts: list[str] = []
    while sum(len(p) + 1 for p in parts) < MISSION_CHARS - len(instruction):
        parts.append(
            rng.choice(_SENTENCES).format(
                topic=rng.choice(_TOPICS), person=rng.choice(_PEOPLE), n=rng.randint(2, 40)
            )
        )
    return instruction, " ".join(parts)


def mission_text(rng: random.Random, n: int) -> tuple[str, str]:
    if n in PLANTED:
        instruction, reply = PLANTED[n]
        extra = filler(rng, n)[1]
        return instruction, reply + " " + extra[: MISSION_CHARS - len(instruction) - len(reply)]
    return filler(rng, n)


def bulk_history(
    channel: Any, count: int, texts: Callable[[int], tuple[str, str]]
) -> tuple[Any, list[Any]]:
    """The channel's session and its `count` finished missions (instruction and reply of
    mission n: `texts(n)`), bulk-created: the completion path skipped."""
    from missions.models import Mission, MissionStatus
    from sessions.services import session_get_or_open_current

    session = session_get_or_open_current(channel=channel)
    rows = []
    for n in range(1, count + 1):
        instruction, reply = texts(n)
        rows.append(
            Mission(
                session=session,
                channel=channel,
                seq=n,
                label=str(n),
                source="dm",
                assignee=channel.employee,
                instruction=instruction,
                reply=reply,
                status=MissionStatus.DONE,
            )
        )
    Mission.objects.bulk_create(rows, batch_size=200)
    session.mission_count = count
    session.save(update_fields=["mission_count"])
    return session, rows


def measure() -> dict[str, object]:
    with scratch_database():
        from django.contrib.auth import get_user_model
        from django.db import connection

        from office.services import office_create_with_team

        owner = get_user_model().objects.create(username="bench")
        office = office_create_with_team(owner=owner, name="Bench office")
        return {
            "vendor": connection.vendor,
            "lengths": _lengths(office),
            "retention": _retention(office),
            "prefix": [_prefix(name) for name in PREFIX_TRANSCRIPTS],
        }


def _lengths(office: Any) -> dict[int, dict[str, float]]:
    """Assembly time, queries and prompt size at each of LENGTHS missions of history."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from context.selectors import context_for_next
    from context.services import passages_sweep
    from summaries.services import summary_fold

    rng = random.Random(7)
    channels = list(office.channels.filter(kind="dm", employee__is_master=False).order_by("id"))
    built = {}
    for count in LENGTHS:
        session, rows = bulk_history(channels.pop(0), count, lambda n: mission_text(rng, n))
        # Bulk-created rows skip the completion path: index their recall passages here.
        passages_sweep(limit=count)
        started = time.perf_counter()
        summary_fold(session_id=session.pk, force=True)
        built[count] = (session, rows, time.perf_counter() - started)
    instruction = "Draft the next update for the pricing page."

    def assemble(session: Any) -> Any:
        return context_for_next(channel=session.channel, session=session, instruction=instruction)

    if connection.vendor == "postgresql":
        # The history was bulk-loaded a moment ago: gather the planner's statistics and
        # merge the GIN index's pending entries, as autovacuum does on a running database
        # (without them the plans depend on whether it happened to run during the bench).
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    timings: dict[int, list[float]] = {count: [] for count in LENGTHS}
    for session, _, _ in built.values():
        assemble(session)  # warm caches
    # Rounds interleave the lengths, so drift in a shared machine's speed hits all alike.
    for _ in range(ROUNDS):
        for count, (session, _, _) in built.items():
            started = time.perf_counter()
            assemble(session)
            timings[count].append(time.perf_counter() - started)
    lengths = {}
    for count, (session, rows, fold_seconds) in built.items():
        with CaptureQueriesContext(connection) as queries:
            context = assemble(session)
        history = sum(len(r.instruction) + len(r.reply) for r in rows)
        folded = max(count - 8, 0)
        lengths[count] = {
            "assembly_ms": statistics.median(timings[count]) * 1000,
            "queries": len(queries),
            "prompt_chars": context.total_chars,
            "naive_chars": len(context.section("system").text) + history + len(instruction),
            "fold_ms_per_mission": (fold_seconds / folded * 1000) if folded else 0.0,
        }
    return lengths


def _retention(office: Any) -> dict[int, dict[str, object]]:
    """Missions appended one by one, folds as the runtime runs them: at each of PROBES, what
    a generic instruction's prompt keeps of the facts planted in missions 2-9."""
    from context.selectors import context_for_next
    from missions.intake import mission_record_finished
    from sessions.services import session_get_or_open_current
    from summaries.services import summary_fold

    channel = office.channels.get(kind="master")
    session = session_get_or_open_current(channel=channel)
    assignee = office.employees.get(is_master=True)
    retention = {}
    rng = random.Random(11)
    for n in range(1, max(PROBES) + 1):
        instruction, reply = mission_text(rng, n)
        mission_record_finished(
            session=session,
            assignee=assignee,
            instruction=instruction,
            reply=reply,
            source="master",
        )
        summary_fold(session_id=session.pk)
        if n in PROBES:
            context = context_for_next(
                channel=channel,
                session=session_get_or_open_current(channel=channel),
                instruction="Continue with the plan.",
            )
            text = "\n".join(m["content"] for m in context.messages)
            summary_text = context.section("summary").text
            lisbon_lines = [line for line in summary_text.splitlines() if "Lisbon" in line]
            retention[n] = {
                "kept": {name: needle in text for name, needle in PLANTED_CHECKS.items()},
                "reversed_only_superseded": bool(lisbon_lines)
                and all("(superseded" in line for line in lisbon_lines),
                "summary_chars": len(summary_text),
                "prompt_chars": context.total_chars,
            }
    return retention


def _prefix(name: str) -> dict[str, object]:
    """The first PREFIX_MISSIONS missions of a transcript into a fresh office, one at a
    time, folds run as the runtime runs them (in batches): for every mission, how much of
    its prompt (the messages as sent) is identical to the previous mission's, against the
    stable prefix the context report announces. Transitions are counted from the first
    mission whose prompt holds a summary; a fold transition is one where the summary
    changed."""
    from context.selectors import context_for_next
    from missions.dispatch import SOURCE_FOR_KIND
    from missions.intake import mission_record_finished
    from office.models import ChannelKind
    from office.selectors import channel_default_assignee
    from sessions.services import session_get_or_open_current
    from summaries.services import summary_fold

    doc, lines = read(name)
    _, channel = channel_for(doc, "prefix", name)
    assignee = channel_default_assignee(channel=channel)
    previous: tuple[str, str] | None = None
    same: list[int] = []
    shares: list[float] = []
    at_fold: list[int] = []
    stable: list[int] = []
    for line in lines[:PREFIX_MISSIONS]:
        at = datetime.fromisoformat(line["at"])
        session = session_get_or_open_current(channel=channel)
        context = context_for_next(
            channel=channel, session=session, instruction=line["instruction"], at=at
        )
        prompt = "".join(f"<{m['role']}>\n{m['content']}\n" for m in context.messages)
        summary = context.section("summary").text
        if previous is not None and previous[1]:
            common = common_prefix(previous[0], prompt)
            same.append(common)
            shares.append(common / len(prompt))
            stable.append(context.stable_prefix_chars)
            if summary != previous[1]:
                at_fold.append(common)
        previous = (prompt, summary)
        mission_record_finished(
            session=session,
            assignee=assignee,
            instruction=line["instruction"],
            reply=line["reply"],
            source=SOURCE_FOR_KIND[ChannelKind(channel.kind)],
            at=at,
        )
        summary_fold(session_id=session.pk)

    def median(values: list[Any], empty: float = 0) -> float:
        return statistics.median(values) if values else empty

    return {
        "transcript": name,
        "transitions": len(same),
        "median_chars": median(same),
        "hits": sum(1 for s in same if s >= PREFIX_TARGET_CHARS),
        "median_share": median(shares, 0.0),
        "folds": len(at_fold),
        "median_at_fold": median(at_fold),
        "median_stable": median(stable),
    }


def tables(all_results: list[dict[str, object]]) -> list[Table]:
    """The run's figures for docs/benchmarks.md: one row per database and history length."""
    rows: list[tuple[object, ...]] = [
        (
            "database",
            "missions",
            "assembly",
            "× at 10",
            "queries",
            "prompt chars",
            "naive full history",
            "fold per folded mission",
        )
    ]
    for results in all_results:
        raw: dict[str, dict[str, float]] = results["lengths"]  # type: ignore[assignment]
        lengths = {int(k): v for k, v in raw.items()}
        base = lengths[LENGTHS[0]]["assembly_ms"]
        for count in LENGTHS:
            row = lengths[count]
            rows.append(
                (
                    results["vendor"],
                    f"{count:,}",
                    f"{row['assembly_ms']:.1f} ms",
                    f"{row['assembly_ms'] / base:.2f}",
                    row["queries"],
                    f"{row['prompt_chars']:,}",
                    f"{row['naive_chars']:,}",
                    f"{row['fold_ms_per_mission']:.2f} ms",
                )
            )
    prefix: list[tuple[object, ...]] = [
        (
            "database",
            "transcript",
            "transitions",
            "identical prefix, median",
            f"≥ {PREFIX_TARGET_CHARS:,} chars",
            "share of the prompt",
            "at a fold (median)",
            "stable prefix reported",
        )
    ]
    for results in all_results:
        for row in results.get("prefix", []):  # type: ignore[attr-defined]
            prefix.append(
                (
                    results["vendor"],
                    row["transcript"],
                    row["transitions"],
                    f"{row['median_chars']:,.0f} chars",
                    f"{row['hits']} of {row['transitions']}",
                    f"{row['median_share']:.2f}",
                    f"{row['median_at_fold']:,.0f} ({row['folds']} folds)",
                    f"{row['median_stable']:,.0f}",
                )
            )
    retention: list[tuple[object, ...]] = [
        (
            "database",
            "missions",
            "planted facts in the prompt",
            "reversed decision only as superseded",
            "summary chars",
            "prompt chars",
        )
    ]
    for results in all_results:
        for n, probe in results["retention"].items():  # type: ignore[attr-defined]
            missing = [k for k, v in probe["kept"].items() if not v]
            kept = f"{len(probe['kept']) - len(missing)}/{len(probe['kept'])}"
            retention.append(
                (
                    results["vendor"],
                    n,
                    kept + (f" (missing: {', '.join(missing)})" if missing else ""),
                    "yes" if probe["reversed_only_superseded"] else "no",
                    f"{probe['summary_chars']:,}",
                    f"{probe['prompt_chars']:,}",
                )
            )
    return [
        Table("Context assembly by history length", rows),
        Table("Facts planted in missions 2-9, probed with a generic instruction", retention),
        Table(
            f"Identical prefix between consecutive prompts (first {PREFIX_MISSIONS} missions, "
            "folds in batches, from the first prompt with a summary)",
            prefix,
        ),
    ]


if __name__ == "__main__":
    per_database(
        script=__file__,
        description=__doc__.split("\n\n")[0],
        measure=measure,
        tables=tables,
    )
