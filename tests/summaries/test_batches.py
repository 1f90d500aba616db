"""Folds run in batches (docs/design.md §4): once FOLD_BATCH missions have left the detail
window, not once per mission. Between folds the summary message does not change, so a
provider's prompt cache keeps hitting; no mission is ever invisible meanwhile."""

from datetime import UTC, datetime
from typing import Any

import pytest

from context.lines import pending_capacity
from context.loading import PendingMission
from context.rendering import _pending_section
from missions.models import MissionStatus
from sessions.models import ChatSession
from summaries import services
from summaries.models import RollingSummary
from summaries.services import summary_sweep_lagging
from tests.factories import add_finished_missions, dm_channel, long_text, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _batches_of_eight(settings: Any) -> None:
    settings.FOLD_BATCH = 8
    settings.DETAIL_MISSIONS = 8


def _watermark(session: Any) -> int:
    summary = RollingSummary.objects.filter(session=session).first()
    return summary.folded_through_seq if summary else 0


def test_a_fold_waits_for_a_batch_of_missions_to_leave_the_window() -> None:
    session = dm_channel(make_office()).sessions.get()
    marks = []
    for _ in range(33):
        add_finished_missions(session, 1, text=long_text)
        marks.append(_watermark(session))
    # Mission n leaves the window when n + 8 is done; eight of them make a batch.
    assert marks[14] == 0  # 15 done: 7 have left the window
    assert marks[15] == 8  # 16 done: 8 have left, folded at once
    assert marks[22] == 8
    assert marks[23] == 16
    assert marks[32] == 24


def test_a_fold_check_is_queued_only_when_a_batch_can_be_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between two batches no fold task runs at all (it would find nothing due)."""
    from missions import lifecycle

    checks: list[int] = []
    queue = lifecycle.queue_task_on_commit

    def recording(name: str, *args: Any) -> None:
        if name == "summaries.tasks.summary_fold":
            checks.append(_count(args[0]))
        queue(name, *args)

    def _count(session_id: int) -> int:
        return ChatSession.objects.get(pk=session_id).mission_count

    monkeypatch.setattr(lifecycle, "queue_task_on_commit", recording)
    session = dm_channel(make_office()).sessions.get()
    for _ in range(33):
        add_finished_missions(session, 1, text=long_text)
    # Queued after missions 16, 24 and 32, each of which made a batch: it folded.
    assert checks == [16, 24, 32]
    assert _watermark(session) == 24


def test_the_summary_message_is_byte_identical_between_folds() -> None:
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    add_finished_missions(session, 16, text=long_text)  # the first batch folds here
    prefixes = []
    for _ in range(8):
        messages = next_context(channel=channel, instruction="Next step").messages
        summary_message = messages[1]["content"]
        assert summary_message.startswith("## Summary of this conversation so far")
        prefixes.append(summary_message.split("\n\n## Missions being folded")[0])
        add_finished_missions(session, 1, text=long_text)
    assert len(set(prefixes)) == 1
    after = next_context(channel=channel, instruction="Next step").messages[1]["content"]
    # The second batch (9..16) landed when 24 were done.
    assert after.split("\n\n## Missions being folded")[0] != prefixes[0]


def test_every_finished_mission_stays_visible_between_folds() -> None:
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    for _ in range(30):
        add_finished_missions(session, 1, text=long_text)
        context = next_context(channel=channel, instruction="Next step")
        watermark = _watermark(session)
        shown = {
            seq
            for name in ("recent", "pending", "recall")  # recall: while they all fit
            for seq in context.section(name).mission_seqs
        }
        done = set(session.missions.filter(status=MissionStatus.DONE).values_list("seq", flat=True))
        assert {s for s in done if s > watermark} <= shown


def test_fewer_model_calls_fold_the_same_missions(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    calls: list[int] = []
    real = services.fold_propose

    def counted(**kwargs: Any) -> Any:
        calls.append(len(kwargs["missions"]))
        return real(**kwargs)

    monkeypatch.setattr(services, "fold_propose", counted)
    per_mission = dm_channel(make_office(name="One by one")).sessions.get()
    settings.FOLD_BATCH = 1
    add_finished_missions(per_mission, 40)
    one_by_one = len(calls)
    calls.clear()
    batched = dm_channel(make_office(name="Batched")).sessions.get()
    settings.FOLD_BATCH = 8
    add_finished_missions(batched, 40)
    assert (one_by_one, len(calls)) == (32, 4)
    assert sum(calls) == 32
    assert _watermark(per_mission) == _watermark(batched) == 32


def test_the_sweeper_queues_a_fold_only_for_a_whole_batch(settings: Any) -> None:
    session = dm_channel(make_office()).sessions.get()
    settings.FOLD_BATCH = 100  # nothing folds while the missions are added
    add_finished_missions(session, 12)  # 4 have left the window
    settings.FOLD_BATCH = 8
    assert summary_sweep_lagging() == 0
    settings.FOLD_BATCH = 100
    add_finished_missions(session, 4)  # 8 have left
    settings.FOLD_BATCH = 8
    assert summary_sweep_lagging() == 1
    assert _watermark(session) == 8  # the queued fold ran (inline in tests)


def _korean_text(n: int) -> tuple[str, str]:
    return (
        f"임무 {n}: 출시 계획의 {n}번째 절을 담당자와 날짜까지 넣어서 작성해 주세요.",
        f"{n}번째 절입니다. " + f"{n}단계와 그 위험 요소를 자세히 다룹니다. " * 60,
    )


@pytest.mark.parametrize("text", [long_text, _korean_text])
def test_a_fold_is_due_before_the_pending_digests_would_pass_their_cap(
    settings: Any, text: Any
) -> None:
    """With a small pending cap, a fold comes before a whole batch: the oldest unfolded
    mission never shrinks to a range line for want of a fold."""
    settings.PENDING_BUDGET_CHARS = 1_000
    capacity = pending_capacity(1_000)
    assert 1 < capacity < settings.FOLD_BATCH
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    marks = []
    for _ in range(20):
        add_finished_missions(session, 1, text=text)
        marks.append(_watermark(session))
        pending = next_context(channel=channel, instruction="다음 단계").section("pending")
        assert "earlier missions, ask to recall them" not in pending.text
        assert pending.chars <= 1_000
    # Mission n leaves the window when n + 8 is done; `capacity` of them make a fold.
    assert marks[8 + capacity - 2] == 0
    assert marks[8 + capacity - 1] == capacity


@pytest.mark.parametrize("budget", [1_000, 2_400, 4_000])
def test_the_pending_capacity_lists_that_many_of_the_widest_missions_in_full(
    budget: int, settings: Any
) -> None:
    settings.PENDING_BUDGET_CHARS = budget
    capacity = pending_capacity(budget)
    at = datetime(2026, 12, 31, 23, 59, tzinfo=UTC)
    widest = [
        PendingMission(id=n, seq=9_999_000 + n, at=at, instruction="가" * 500, reply="b" * 500)
        for n in range(capacity)
    ]
    section = _pending_section(widest, session_number=9_999, budget=budget)
    assert section.chars <= budget
    assert "earlier missions" not in section.text
    assert all(f"mission #{m.seq} " in section.text for m in widest)
    # A cap too small for even one line still folds as soon as one mission waits.
    assert pending_capacity(300) == 1
