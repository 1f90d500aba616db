"""Missions that finish out of order (docs/design.md §3 coverage, §4 folding): a mission still
running while later ones finish and folds run, or a failed one retried after the folds
went past it, is never left out of the prompt. Once it finishes, on its first try or on a
retry, stopped or done, the next prompts show it in some section: the detail window,
pending, the summary or recall. English and Korean."""

import threading
from typing import Any

import pytest
from django.utils import timezone

from context.rendering import AssembledContext
from llm.base import ChatMessages, ChatStream, ProviderError, Usage
from llm.gateway import set_provider_override
from missions import tasks as mission_tasks
from missions.creation import mission_create
from missions.intake import mission_record_finished
from missions.lifecycle import (
    mission_complete,
    mission_fail,
    mission_retry,
    mission_save_stopped,
    mission_stop,
)
from missions.models import Mission, MissionSource, MissionStatus
from missions.run import _CLAIM
from office.models import Channel
from sessions.models import ChatSession
from sessions.services import session_get_or_open_current
from summaries import tasks as summary_tasks
from summaries.models import RollingSummary, SummaryRevision
from summaries.schemas import SummaryState
from summaries.services import summary_fold, summary_fold_late
from tests.factories import dm_channel, make_office, next_context
from tests.threads import at_once

pytestmark = pytest.mark.django_db(transaction=True)

# The late mission (#5), what the other missions say, and a next instruction that shares
# nothing with the late one (recall would not bring it back by its words).
TEXTS = {
    "en": {
        "late": "Book the Harbour Hall for the partner dinner and confirm the menu.",
        "late_reply": "Harbour Hall is booked for the partner dinner; the menu is confirmed.",
        "other": "Note {n}: the weekly sync moves to room {n}.",
        "other_reply": "Noted for room {n}, with the agenda and the notes of the week. ",
        "next": "What is left on the website copy?",
    },
    "ko": {
        "late": "파트너 만찬 장소로 하버홀을 예약하고 메뉴를 확정해 줘.",
        "late_reply": "파트너 만찬 장소로 하버홀을 예약했고 메뉴도 확정했어요.",
        "other": "메모 {n}: 주간 회의는 {n}번 회의실로 옮겨요.",
        "other_reply": "{n}번 회의실로 적어 뒀어요, 이번 주 안건과 회의록도 함께요. ",
        "next": "웹사이트 문구는 뭐가 남았지?",
    },
}


@pytest.fixture(autouse=True)
def _replies_wait_in_the_queue(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """No reply worker picks missions up: each test runs its missions by hand."""
    queued: list[int] = []
    monkeypatch.setattr(
        mission_tasks.mission_run, "delay", lambda mission_id: queued.append(mission_id)
    )
    return queued


def _channel() -> tuple[Channel, ChatSession]:
    channel = dm_channel(make_office())
    return channel, session_get_or_open_current(channel=channel)


def _finish(session: ChatSession, texts: dict[str, str], seqs: range) -> None:
    for n in seqs:
        assert session.channel.employee is not None
        mission = mission_record_finished(
            session=session,
            assignee=session.channel.employee,
            instruction=texts["other"].format(n=n),
            # Long enough that the session's history does not fit the prompt whole: the
            # window, pending and the summary carry it, as in a long conversation.
            reply=texts["other_reply"].format(n=n) * 60,
        )
        assert mission.seq == n


def _start(session: ChatSession, texts: dict[str, str]) -> Mission:
    """The late mission, sent and picked up by a run (its first try)."""
    assert session.channel.employee is not None
    mission, _ = mission_create(
        session=session,
        assignee=session.channel.employee,
        source=MissionSource.DM,
        instruction=texts["late"],
    )
    _claim(mission)
    return mission


def _claim(mission: Mission) -> str:
    token = f"run-{mission.pk}-{mission.attempts}"
    assert _CLAIM(mission_id=mission.pk, run_token=token, now=timezone.now()) == 1
    mission.refresh_from_db()
    assert mission.status == MissionStatus.RUNNING
    return token


def _failed(session: ChatSession, texts: dict[str, str]) -> Mission:
    mission = _start(session, texts)
    assert mission_fail(mission=mission, code="timeout", message="x", run_token=mission.run_token)
    mission.refresh_from_db()
    return mission


def _sections_holding(context: AssembledContext, seq: int) -> list[str]:
    return [s.name for s in context.sections if s.name != "current" and seq in s.mission_seqs]


def _summary_covers(session: ChatSession, seq: int) -> bool:
    state = SummaryState.model_validate(RollingSummary.objects.get(session=session).state)
    cited = {s for _, item in state.items() for s in item.missions if item.session is None}
    return seq in cited | {d.mission for d in state.dropped if d.session is None}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_running_mission_is_never_folded_past_and_shows_once_it_finishes(
    language: str,
) -> None:
    texts = TEXTS[language]
    channel, session = _channel()
    _finish(session, texts, range(1, 5))
    late = _start(session, texts)
    _finish(session, texts, range(6, 15))
    # Eight finished missions after it: #6 has left the window, and the folds ran.
    summary = RollingSummary.objects.get(session=session)
    assert summary.folded_through_seq == 4

    assert mission_complete(mission=late, reply=texts["late_reply"], run_token=late.run_token)
    late.refresh_from_db()
    assert (late.status, late.attempts) == (MissionStatus.DONE, 1)
    assert _sections_holding(next_context(channel=channel, instruction=texts["next"]), 5)

    # Ten missions later, it is still there: folded into the summary.
    _finish(session, texts, range(15, 25))
    later = next_context(channel=channel, instruction=texts["next"])
    assert "summary" in _sections_holding(later, 5)
    assert _summary_covers(session, 5)


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("stop_while", ["queued", "running"])
def test_a_retry_stopped_after_the_folds_went_past_it_is_folded_late(
    language: str, stop_while: str
) -> None:
    texts = TEXTS[language]
    channel, session = _channel()
    _finish(session, texts, range(1, 5))
    failed = _failed(session, texts)
    _finish(session, texts, range(6, 15))
    # A failed mission is not part of the conversation: the folds go past it.
    assert RollingSummary.objects.get(session=session).folded_through_seq == 6

    assert mission_retry(mission=failed)
    if stop_while == "running":
        token = _claim(failed)
        assert mission_stop(mission=failed) is True
        assert mission_save_stopped(mission=failed, reply=texts["late_reply"], run_token=token)
    else:
        assert mission_stop(mission=failed) is True
    failed.refresh_from_db()
    assert failed.status == MissionStatus.STOPPED

    assert "summary" in _sections_holding(
        next_context(channel=channel, instruction=texts["next"]), 5
    )
    assert _summary_covers(session, 5)


class _Hook:
    """A model whose fold proposals fail (the extractive fold takes over), and which,
    on its first proposal, first lets something happen that a real model's seconds of
    thinking leave room for."""

    name = "hooked"
    structured_output = True
    calls_tools = False

    def __init__(self, meanwhile: Any) -> None:
        self.meanwhile = meanwhile
        self.calls = 0

    def stream_chat(
        self, *, messages: ChatMessages, model: str | None = None, tools: Any = None
    ) -> ChatStream:
        raise NotImplementedError

    def structured(
        self, *, messages: ChatMessages, schema: Any, model: str | None = None
    ) -> tuple[Any, Usage]:
        self.calls += 1
        if self.calls == 1:
            self.meanwhile()
        raise ProviderError("bad_output", "no fold from this model")


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_retry_that_finishes_while_a_fold_is_made_is_not_passed_over(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = TEXTS[language]
    channel, session = _channel()
    monkeypatch.setattr(summary_tasks.summary_fold, "delay_on_commit", lambda *a, **k: None)
    _finish(session, texts, range(1, 5))
    failed = _failed(session, texts)
    _finish(session, texts, range(6, 15))

    def retried_and_answered() -> None:
        # The fold read #5 as failed; the person retries it and the answer comes.
        assert mission_retry(mission=failed)
        token = _claim(failed)
        assert mission_complete(mission=failed, reply=texts["late_reply"], run_token=token)

    outcome = summary_fold(session_id=session.pk, provider=_Hook(retried_and_answered))
    assert outcome.folded_seqs == [1, 2, 3, 4, 6]
    assert RollingSummary.objects.get(session=session).folded_through_seq == 6
    failed.refresh_from_db()
    assert failed.status == MissionStatus.DONE

    assert "summary" in _sections_holding(
        next_context(channel=channel, instruction=texts["next"]), 5
    )
    assert _summary_covers(session, 5)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_late_fold_that_loses_its_race_folds_into_the_winner(language: str) -> None:
    texts = TEXTS[language]
    channel, session = _channel()
    _finish(session, texts, range(1, 5))
    failed = _failed(session, texts)
    _finish(session, texts, range(6, 15))
    assert mission_retry(mission=failed)
    token = _claim(failed)
    # While the late fold of #5 is being made, #15 finishes and its fold lands first.
    set_provider_override(_Hook(lambda: _finish(session, texts, range(15, 16))))
    try:
        assert mission_complete(mission=failed, reply=texts["late_reply"], run_token=token)
    finally:
        set_provider_override(None)
    assert RollingSummary.objects.get(session=session).folded_through_seq == 7

    assert "summary" in _sections_holding(
        next_context(channel=channel, instruction=texts["next"]), 5
    )
    assert _summary_covers(session, 5)


@pytest.mark.postgres
def test_two_late_folds_of_one_mission_at_once_commit_one_revision(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both read the summary at the same version and watermark; the commit's version check
    makes the second a clean lost race (no IntegrityError on the revision's version), and
    the loser, reading again, finds the mission folded."""
    texts = TEXTS["en"]
    _, session = _channel()
    _finish(session, texts, range(1, 5))
    failed = _failed(session, texts)
    _finish(session, texts, range(6, 15))
    monkeypatch.setattr(summary_tasks.summary_fold_late, "delay_on_commit", lambda *a, **k: None)
    assert mission_retry(mission=failed)
    token = _claim(failed)
    assert mission_complete(mission=failed, reply=texts["late_reply"], run_token=token)
    summary = RollingSummary.objects.get(session=session)
    version, revisions = summary.version, summary.revisions.count()

    both_read = threading.Barrier(2, timeout=20)
    outcomes = at_once(
        lambda: summary_fold_late(mission_id=failed.pk, provider=_Hook(both_read.wait))
    )

    assert sorted(outcomes) == [False, True]
    summary.refresh_from_db()
    assert summary.version == version + 1
    assert SummaryRevision.objects.filter(summary=summary).count() == revisions + 1
    assert _summary_covers(session, 5)
