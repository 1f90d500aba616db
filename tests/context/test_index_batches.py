"""The recall index is written in batches (context/progress.py `Progress.index_due`): a
session's finished missions are indexed every INDEX_BATCH seqs, one task and one write a
batch, and always before they leave the detail window, where recall looks for them. A
late finisher, a batch whose mission failed and a session's last missions at carry-over
are indexed too. In English and Korean."""

from typing import Any

import pytest
from django.conf import settings

from context.budget import prompt_budget
from context.models import Passage
from context.progress import INDEX_BATCH, Progress
from context.services import passages_index_session
from missions import lifecycle
from missions.intake import mission_create, mission_record_finished
from missions.lifecycle import mission_complete, mission_fail
from missions.models import Mission, MissionSource
from office.selectors import channel_default_assignee
from sessions.models import ChatSession
from sessions.services import session_start_new
from tests.factories import dm_channel, make_office, next_context
from tests.threads import at_once

pytestmark = pytest.mark.django_db(transaction=True)

TEXTS = {
    "en": ("Note the budget for step {n}.", "The budget for step {n} is {n} thousand."),
    "ko": ("{n}단계 예산을 정리해 줘.", "{n}단계 예산은 {n}천만 원으로 정했습니다."),
}


@pytest.fixture(autouse=True)
def _window_of_eight(settings: Any) -> None:
    settings.DETAIL_MISSIONS = 8
    settings.FOLD_BATCH = 8


def _session() -> ChatSession:
    return dm_channel(make_office()).sessions.get()


def _finish(session: ChatSession, n: int, lang: str = "en") -> Mission:
    instruction, reply = TEXTS[lang]
    return mission_record_finished(
        session=session,
        assignee=channel_default_assignee(channel=session.channel),
        instruction=instruction.format(n=n),
        reply=reply.format(n=n),
    )


def _indexed(session: ChatSession) -> set[int]:
    return set(Passage.objects.filter(session=session).values_list("seq", flat=True))


def _index_tasks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The index tasks queued from now on (they still run), by session id."""
    queued: list[int] = []
    queue = lifecycle.queue_task_on_commit

    def recording(name: str, *args: Any) -> None:
        if name == "context.tasks.passages_index_session":
            queued.append(args[0])
        queue(name, *args)

    monkeypatch.setattr(lifecycle, "queue_task_on_commit", recording)
    return queued


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_missions_are_indexed_in_batches_before_they_leave_the_window(
    lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _session()
    tasks = _index_tasks(monkeypatch)
    for n in range(1, 22):
        _finish(session, n, lang)
        indexed = _indexed(session)
        assert indexed == set(range(1, n // INDEX_BATCH * INDEX_BATCH + 1)), n
        # Every mission that has left the window is searchable.
        assert set(range(1, n - 8 + 1)) <= indexed, n
    assert tasks == [session.pk] * (21 // INDEX_BATCH)
    # Each passage once, in its mission's words.
    texts = list(Passage.objects.filter(session=session, seq=3).values_list("text", flat=True))
    assert len(texts) == 1 and TEXTS[lang][1].format(n=3) in texts[0]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_mission_out_of_the_window_is_recalled_by_its_words(lang: str) -> None:
    session = _session()
    for n in range(1, 10):
        _finish(session, n, lang)
    question = {"en": "What was the budget for step 1?", "ko": "1단계 예산이 얼마였지?"}[lang]
    recall = next_context(channel=session.channel, instruction=question).section("recall")
    assert recall.mission_seqs and recall.mission_seqs[0] == 1
    assert TEXTS[lang][1].format(n=1) in recall.text


def test_a_late_finisher_is_indexed_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    session = _session()
    late, _ = mission_create(
        session=session,
        assignee=channel_default_assignee(channel=session.channel),
        source=MissionSource.DM,
        instruction="The slow one",
    )
    for n in range(2, 10):
        _finish(session, n)
    assert 1 not in _indexed(session)
    tasks = _index_tasks(monkeypatch)
    # Seq 1 is not a batch's end, but it finishes with eight later missions done.
    mission_complete(mission=late, reply="Finally: the slow answer.")
    assert tasks == [session.pk]
    assert _indexed(session) == set(range(1, 10))


def test_a_batch_whose_mission_failed_is_taken_by_the_next() -> None:
    session = _session()
    for n in range(1, 4):
        _finish(session, n)
    failed, _ = mission_create(
        session=session,
        assignee=channel_default_assignee(channel=session.channel),
        source=MissionSource.DM,
        instruction="This one fails",
    )
    mission_fail(mission=failed, code="timeout", message="The model did not answer.")
    assert _indexed(session) == set()
    for n in range(5, 9):
        _finish(session, n)
    assert _indexed(session) == {1, 2, 3, 5, 6, 7, 8}


def test_a_sessions_last_missions_are_indexed_when_a_new_session_starts() -> None:
    session = _session()
    for n in range(1, 4):
        _finish(session, n, "ko")
    assert _indexed(session) == set()
    session_start_new(channel=session.channel)
    assert _indexed(session) == {1, 2, 3}
    recall = next_context(channel=session.channel, instruction="2단계 예산이 얼마였지?").section(
        "recall"
    )
    assert "2단계 예산은 2천만 원으로 정했습니다" in recall.text


@pytest.mark.parametrize(
    ("count", "seq", "due"),
    [
        (4, 4, True),  # a batch's end
        (5, 5, False),
        (7, 7, False),
        (8, 8, True),
        (7, 3, True),  # four later ones counted: it is close to leaving the window
        (6, 3, False),
        (40, 1, True),  # a retry, long after
    ],
)
def test_when_a_finished_mission_indexes(count: int, seq: int, due: bool) -> None:
    assert INDEX_BATCH == 4
    progress = Progress(mission_count=count, folded_through=0, budget=prompt_budget("dm"))
    assert progress.index_due(seq=seq) is due


def test_a_mission_the_window_may_trim_indexes_at_once() -> None:
    """What the window leaves out of a mission is recallable from the next mission on
    (issue 36), so one larger than its even share of its channel's detail cap does not
    wait for its batch."""
    for kind in ("dm", "master"):
        share = settings.DETAIL_BUDGET_CHARS[kind] // settings.DETAIL_MISSIONS
        progress = Progress(mission_count=5, folded_through=0, budget=prompt_budget(kind))
        assert not progress.index_due(seq=5, chars=share)
        assert progress.index_due(seq=5, chars=share + 1)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_channel_with_its_own_detail_cap_indexes_by_that_cap(lang: str) -> None:
    """A channel that sets a small detail cap trims missions its kind's cap would keep
    whole: such a mission is indexed as soon as it finishes, so the next prompt can recall
    what the window leaves out of it."""
    session = _session()
    channel = session.channel
    channel.detail_budget_chars = 1_600  # a share of 200 chars a mission
    channel.save(update_fields=["detail_budget_chars"])
    instruction, reply = TEXTS[lang]
    mission_record_finished(
        session=session,
        assignee=channel_default_assignee(channel=channel),
        instruction=instruction.format(n=1),
        reply=reply.format(n=1) + " " + "세부 내용 details " * 40,
    )
    assert _indexed(session) == {1}


@pytest.mark.postgres
def test_two_index_runs_at_once_write_each_passage_once() -> None:
    """Real transactions: both read the same unindexed missions, both write them."""
    session = _session()
    for n in range(1, 4):
        _finish(session, n)
    assert _indexed(session) == set()
    at_once(lambda: passages_index_session(session_id=session.pk))
    rows = list(Passage.objects.filter(session=session).values_list("seq", "position"))
    assert sorted(rows) == [(1, 0), (2, 0), (3, 0)]
