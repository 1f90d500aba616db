from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from context.rendering import trim_middle
from context.selectors import context_for_mission
from missions.intake import mission_create
from missions.models import Mission, MissionStatus
from office.models import ChannelKind
from office.selectors import channel_default_assignee
from sessions.services import session_get_or_open_current
from summaries.models import RollingSummary
from summaries.render import state_refs
from summaries.schemas import SummaryState
from tests.factories import (
    add_finished_missions,
    channel_of,
    dm_channel,
    long_text,
    make_office,
    next_context,
)

pytestmark = pytest.mark.django_db(transaction=True)

SECTION_ORDER = ["system", "summary", "pending", "recent", "memory", "recall", "current"]


def _session(kind: str = ChannelKind.DM):
    office = make_office()
    channel = dm_channel(office) if kind == ChannelKind.DM else channel_of(office, kind)
    return session_get_or_open_current(channel=channel)


def _folded_seqs(session) -> set[int]:
    summary = RollingSummary.objects.get(session=session)
    state = SummaryState.model_validate(summary.state)
    refs = {seq for s, seq in state_refs(state) if s is None}
    refs |= {d.mission for d in state.dropped if d.session is None}
    return refs


def test_sections_come_in_design_order_with_the_current_mission_last() -> None:
    session = _session()
    add_finished_missions(session, 3)
    context = next_context(channel=session.channel, instruction="Draft the launch email")
    assert [s.name for s in context.sections] == SECTION_ORDER
    assert context.messages[0]["role"] == "system"
    assert context.messages[-1]["role"] == "user"
    assert "Draft the launch email" in context.messages[-1]["content"]
    assert "#4" in context.messages[-1]["content"]
    report = context.report()
    assert [s["name"] for s in report["sections"]] == SECTION_ORDER
    assert report["total_chars"] == sum(len(m["content"]) for m in context.messages)


def test_when_the_21st_mission_runs_13_to_20_are_in_detail_and_1_to_12_in_the_summary() -> None:
    session = _session()
    add_finished_missions(session, 20, text=long_text)
    mission, _ = mission_create(
        session=session, assignee=session.channel.employee, source="dm", instruction="What is next?"
    )
    assert mission.seq == 21
    context = context_for_mission(mission=mission)
    assert context.section("recent").mission_seqs == list(range(13, 21))
    assert _folded_seqs(session) == set(range(1, 13))
    assert RollingSummary.objects.get(session=session).folded_through_seq == 12
    assert context.section("pending").mission_seqs == []
    assert context.section("summary").text


def test_every_mission_shown_carries_its_seq_and_date() -> None:
    session = _session()
    add_finished_missions(session, 3)
    context = next_context(channel=session.channel, instruction="x")
    recent = context.section("recent").text
    day = Mission.objects.get(session=session, seq=1).created_at.strftime("%Y-%m-%d")
    for seq in (1, 2, 3):
        assert f"mission #{seq} · {day}" in recent


@pytest.mark.parametrize(
    ("kind", "budget"),
    [
        (ChannelKind.DM, 20_000),
        (ChannelKind.PROJECT, 20_000),
        (ChannelKind.MASTER, 16_000),
        (ChannelKind.ALL, 16_000),
    ],
)
def test_the_detail_budget_is_kept_per_channel_kind(kind: str, budget: int) -> None:
    session = _session(kind)
    add_finished_missions(
        session, 8, text=lambda n: (f"Task {n}: " + "i" * 1500, f"Reply {n}: " + "r" * 3500)
    )
    recent = next_context(channel=session.channel, instruction="next").section("recent")
    assert recent.budget == budget
    assert recent.chars <= budget
    assert recent.mission_seqs == list(range(1, 9))
    # The newest keeps its full text; the oldest is cut with a marker naming it.
    assert "r" * 3500 in recent.text.split("mission #8")[1]
    assert "[… mission #1: " in recent.text and "left out …]" in recent.text


def test_a_channel_override_changes_the_budget() -> None:
    session = _session()
    session.channel.detail_budget_chars = 3_000
    session.channel.save()
    add_finished_missions(session, 8, text=lambda n: ("x" * 900, "y" * 900))
    recent = next_context(channel=session.channel, instruction="next").section("recent")
    assert recent.budget == 3_000 and recent.chars <= 3_000
    assert recent.mission_seqs == list(range(1, 9))


def test_a_single_mission_longer_than_the_whole_budget_is_trimmed() -> None:
    session = _session()
    add_finished_missions(
        session, 1, text=lambda n: ("Write it all. " + "a" * 30_000, "b" * 30_000)
    )
    recent = next_context(channel=session.channel, instruction="next").section("recent")
    assert recent.chars <= 20_000
    assert "[… mission #1: " in recent.text and "left out …]" in recent.text
    assert recent.text.startswith("[mission #1")


def test_trim_middle_keeps_head_and_tail_within_the_limit() -> None:
    text = "HEAD" + "m" * 5_000 + "TAIL"
    trimmed = trim_middle(text, 400, label="mission #3")
    assert len(trimmed) <= 400
    assert trimmed.startswith("HEAD") and trimmed.endswith("TAIL")
    assert "mission #3" in trimmed


def test_a_mission_whose_fold_has_not_landed_is_shown_as_pending(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from summaries import tasks

    session = _session()
    add_finished_missions(session, 10, text=long_text)  # 1, 2 folded
    monkeypatch.setattr(tasks.summary_fold, "delay_on_commit", lambda *a, **k: None)
    add_finished_missions(session, 3, text=long_text)  # 3, 4, 5 leave the window; no fold
    context = next_context(channel=session.channel, instruction="next")
    assert context.section("pending").mission_seqs == [3, 4, 5]
    assert context.section("recent").mission_seqs == list(range(6, 14))
    assert "mission #3" in context.section("pending").text


def test_coverage_holds_after_every_mission(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every finished mission is in detail, pending, or folded into the summary (or, while
    the whole session fits the envelope, recalled in full)."""
    from summaries import tasks

    session = _session()
    real_delay = tasks.summary_fold.delay_on_commit  # type: ignore[attr-defined]
    for n in range(1, 31):
        # Folds land late every third mission, as a slow queue would.
        if n % 3 == 0:
            monkeypatch.setattr(tasks.summary_fold, "delay_on_commit", lambda *a, **k: None)
        else:
            monkeypatch.setattr(tasks.summary_fold, "delay_on_commit", real_delay)
        add_finished_missions(session, 1)
        context = next_context(channel=session.channel, instruction="status?")
        shown = set(context.section("recent").mission_seqs)
        shown |= set(context.section("pending").mission_seqs)
        shown |= set(context.section("recall").mission_seqs)
        folded = (
            _folded_seqs(session)
            if RollingSummary.objects.filter(session=session).exists()
            else set()
        )
        assert set(range(1, n + 1)) <= shown | folded, n


def _assembly_queries(session) -> int:
    with CaptureQueriesContext(connection) as queries:
        next_context(channel=session.channel, instruction="Where is the venue for launch?")
    return len(queries)


def _bulk_missions(session, count: int) -> None:
    assignee = channel_default_assignee(channel=session.channel)
    Mission.objects.bulk_create(
        Mission(
            session=session,
            channel=session.channel,
            seq=n,
            label=str(n),
            source="dm",
            assignee=assignee,
            instruction=f"Plan item {n} for the venue and launch",
            reply=f"Done {n}.",
            status=MissionStatus.DONE,
        )
        for n in range(1, count + 1)
    )
    session.mission_count = count
    session.save()
    from summaries.services import summary_fold

    summary_fold(session_id=session.pk)


def test_assembly_costs_the_same_number_of_queries_at_10_and_500_missions() -> None:
    short, long = _session(), _session()
    _bulk_missions(short, 10)
    _bulk_missions(long, 500)
    assert _assembly_queries(short) == _assembly_queries(long)


def test_prompt_size_does_not_grow_with_the_session() -> None:
    short, long = _session(), _session()
    _bulk_missions(short, 100)
    _bulk_missions(long, 500)
    small = next_context(channel=short.channel, instruction="next").total_chars
    large = next_context(channel=long.channel, instruction="next").total_chars
    assert large <= small * 1.05 + 500


def test_a_detail_from_mission_2_of_60_is_recalled_at_the_end() -> None:
    session = _session()

    def text(n: int) -> tuple[str, str]:
        if n == 2:
            return (
                "Book the offsite. The venue is the Hotel Arcadia, room Sirius, for 40 people.",
                "Booked: the venue is the Hotel Arcadia, confirmation AR-2291.",
            )
        return (
            f"Work item {n}: review the onboarding copy, part {n}.",
            f"Reviewed part {n}; tightened the wording and fixed two typos.",
        )

    add_finished_missions(session, 60, text=text)
    context = next_context(
        channel=session.channel, instruction="Which venue did we book for the offsite?"
    )
    recall = context.section("recall")
    assert 2 in recall.mission_seqs
    assert "Hotel Arcadia" in recall.text
    assert "mission #2 ·" in recall.text
    assert recall.chars <= recall.budget  # type: ignore[operator]


def test_recall_reaches_earlier_sessions_of_the_channel(settings: Any) -> None:
    from sessions.services import session_start_new

    session = _session()
    add_finished_missions(
        session,
        3,
        text=lambda n: (
            "Our supplier is Nordwind Logistics." if n == 1 else f"Other {n}.",
            f"Ok {n}.",
        ),
    )
    new = session_start_new(channel=session.channel)
    add_finished_missions(new, 1)
    context = next_context(channel=session.channel, instruction="Who is our supplier?")
    assert "Nordwind" in context.section("recall").text
    assert "session 1, mission #1" in context.section("recall").text
