import threading
from typing import Any

import pytest

from llm.base import ChatMessages, ChatStream, ProviderError, Usage
from sessions.services import session_get_or_open_current, session_start_new
from summaries import tasks
from summaries.models import RollingSummary, SummaryRevision
from summaries.render import render_summary
from summaries.schemas import Decision, DroppedMission, SummaryItem, SummaryState
from summaries.services import summary_fold
from summaries.verifier import summary_verify
from tests.factories import add_finished_missions, dm_channel, make_office, next_context
from tests.threads import at_once

pytestmark = pytest.mark.django_db(transaction=True)


class ScriptedProvider:
    """A model that folds as told, for testing what happens around it."""

    name = "scripted"
    structured_output = True
    calls_tools = False

    def __init__(self, *states: SummaryState | Exception) -> None:
        self.script = list(states)
        # The verifier's findings each call carried in its prompt.
        self.calls: list[list[str]] = []

    def stream_chat(
        self, *, messages: ChatMessages, model: str | None = None, tools: Any = None
    ) -> ChatStream:
        raise NotImplementedError

    def structured(
        self, *, messages: ChatMessages, schema: Any, model: str | None = None
    ) -> tuple[Any, Usage]:
        assert schema is SummaryState
        prompt = str(messages[-1]["content"])
        _, _, rejected = prompt.partition("rejected by the verifier:\n")
        self.calls.append([line[2:] for line in rejected.splitlines() if line.startswith("- ")])
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        return step, Usage()


def _unfolded_session(count: int, monkeypatch: pytest.MonkeyPatch, text: Any = None):
    monkeypatch.setattr(tasks.summary_fold, "delay_on_commit", lambda *a, **k: None)
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, count, text=text)
    return session


def _good_state(seqs: list[int]) -> SummaryState:
    return SummaryState(
        goal="Plan the launch",
        goal_missions=[seqs[0]],
        facts=[SummaryItem(text=f"Step {s} done", missions=[s]) for s in seqs],
    )


def test_the_same_fold_twice_gives_the_result_of_one(monkeypatch: pytest.MonkeyPatch) -> None:
    session = _unfolded_session(12, monkeypatch)
    first = summary_fold(session_id=session.pk)
    summary = RollingSummary.objects.get(session=session)
    second = summary_fold(session_id=session.pk)
    assert first.folded_seqs == [1, 2, 3, 4]
    assert second.folded_seqs == []
    again = RollingSummary.objects.get(session=session)
    assert (again.version, again.state, again.folded_through_seq) == (
        summary.version,
        summary.state,
        4,
    )
    assert SummaryRevision.objects.filter(summary=summary).count() == 1


@pytest.mark.postgres
def test_two_folds_at_once_give_the_result_of_one(monkeypatch: pytest.MonkeyPatch) -> None:
    session = _unfolded_session(12, monkeypatch)
    both_read = threading.Barrier(2, timeout=20)

    class SlowProvider(ScriptedProvider):
        name = "slow"

        def structured(
            self, *, messages: ChatMessages, schema: Any, model: str | None = None
        ) -> tuple[Any, Usage]:
            both_read.wait()  # both folds have read version 0 before either commits
            return _good_state([1, 2, 3, 4]), Usage()

    outcomes = at_once(lambda: summary_fold(session_id=session.pk, provider=SlowProvider()))
    assert sorted(o.raced for o in outcomes) == [False, True]
    summary = RollingSummary.objects.get(session=session)
    assert (summary.version, summary.folded_through_seq) == (1, 4)
    assert SummaryRevision.objects.filter(summary=summary).count() == 1


def test_a_fold_that_fails_verification_is_retried_once_with_the_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = _unfolded_session(11, monkeypatch)
    missing_three = _good_state([1, 2])
    provider = ScriptedProvider(missing_three, _good_state([1, 2, 3]))
    summary_fold(session_id=session.pk, provider=provider)
    assert provider.calls[0] == []
    assert any("coverage" in f and "#3" in f for f in provider.calls[1])
    revision = SummaryRevision.objects.get(summary__session=session)
    assert revision.provider == "scripted"
    assert revision.verifier_report["ok"] is True
    assert len(revision.verifier_report["attempts"]) == 2


@pytest.mark.parametrize("failure", ["invalid twice", "model error"])
def test_a_model_that_keeps_failing_gives_way_to_the_extractive_fold(
    monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    session = _unfolded_session(11, monkeypatch)
    invented = SummaryState(facts=[SummaryItem(text="Made up", missions=[999])])
    script: list[SummaryState | Exception] = (
        [invented, invented]
        if failure == "invalid twice"
        else [ProviderError("server_error", "The model server failed.")]
    )
    summary_fold(session_id=session.pk, provider=ScriptedProvider(*script))
    summary = RollingSummary.objects.get(session=session)
    state = SummaryState.model_validate(summary.state)
    assert "Made up" not in summary.text
    report = summary_verify(
        state=state,
        previous=SummaryState(),
        folded=[(None, 1), (None, 2), (None, 3)],
        budget_chars=4_000,
    )
    assert report.ok, report.findings
    revision = SummaryRevision.objects.get(summary=summary)
    assert revision.provider == "extractive"


def test_a_reversed_decision_is_kept_as_superseded(monkeypatch: pytest.MonkeyPatch) -> None:
    def text(n: int) -> tuple[str, str]:
        if n == 1:
            return ("We decided the launch date is May 3.", "Noted: launch on May 3.")
        if n == 2:
            return (
                "Change of plan: we decided the launch date is June 10 instead.",
                "Understood, June 10 it is.",
            )
        return (f"Routine task {n}.", f"Routine answer {n}.")

    session = _unfolded_session(10, monkeypatch, text)
    summary_fold(session_id=session.pk)
    state = SummaryState.model_validate(RollingSummary.objects.get(session=session).state)
    may = [d for d in state.decisions if "May 3" in d.text]
    june = [d for d in state.decisions if "June 10" in d.text]
    assert may and all(d.superseded and d.superseded_by == [2] for d in may)
    assert june and not june[0].superseded
    assert "(superseded by #2" in render_summary(state)


def test_the_summary_stays_within_budget_over_a_long_session(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.SUMMARY_BUDGET_CHARS = 1_500

    def text(n: int) -> tuple[str, str]:
        return (
            f"Prepare the brief for Client {n} by March {n % 28 + 1}; budget ${n * 100}.",
            f"Drafted. Mr Alvarez approved version {n}. We must keep it under {n} pages.",
        )

    session = _unfolded_session(60, monkeypatch, text)
    summary_fold(session_id=session.pk)
    summary = RollingSummary.objects.get(session=session)
    assert summary.folded_through_seq == 52
    assert len(summary.text) <= 1_500
    for revision in SummaryRevision.objects.filter(summary=summary):
        assert revision.verifier_report["ok"]


def test_the_verifier_names_each_kind_of_failure() -> None:
    previous = SummaryState(decisions=[Decision(text="The venue is Arcadia", missions=[1])])
    state = SummaryState(
        decisions=[
            Decision(text="The price is $10", missions=[2]),
            Decision(text="The price is $12", missions=[3]),
        ],
        facts=[SummaryItem(text="x" * 300, missions=[77])],
    )
    report = summary_verify(
        state=state, previous=previous, folded=[(None, 2), (None, 3), (None, 4)], budget_chars=200
    )
    assert not report.ok
    assert report.checks == {
        "coverage": False,
        "evidence": False,
        "contradiction": False,
        "size": False,
    }
    text = " ".join(report.findings)
    assert "#4" in text and "#77" in text and "price" in text and "Arcadia" in text


def test_dropping_a_mission_with_a_reason_satisfies_coverage() -> None:
    state = SummaryState(dropped=[DroppedMission(mission=5, reason="small talk")])
    report = summary_verify(
        state=state, previous=SummaryState(), folded=[(None, 5)], budget_chars=100
    )
    assert report.ok


def test_a_new_session_carries_the_summary_and_the_last_missions_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def text(n: int) -> tuple[str, str]:
        if n == 1:
            return ("We decided the price is $49 per month.", "Price set to $49 per month.")
        if n == 11:
            return ("Remember the deadline is April 2.", "Deadline April 2 noted.")
        return (f"Routine task {n}.", f"Routine answer {n}.")

    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    add_finished_missions(session, 12, text=text)
    new = session_start_new(channel=channel, expected_session_id=session.pk)
    assert new.number == 2 and new.carried_over_from_id == session.pk
    summary = RollingSummary.objects.get(session=new)
    assert not summary.carry_over_pending
    assert "s1#1" in summary.text and "$49" in summary.text
    assert "April 2" in summary.text and "s1#11" in summary.text
    context = next_context(channel=channel, instruction="What next?")
    assert "$49" in context.section("summary").text
    assert context.seq == 1


def test_a_double_click_on_new_session_starts_one_session() -> None:
    channel = dm_channel(make_office())
    first = session_get_or_open_current(channel=channel)
    a = session_start_new(channel=channel, expected_session_id=first.pk)
    b = session_start_new(channel=channel, expected_session_id=first.pk)
    assert a.pk == b.pk and a.number == 2
    assert channel.sessions.count() == 2


def test_while_carry_over_is_pending_the_old_missions_are_not_invisible(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    add_finished_missions(session, 10)  # 1, 2 folded; 3..10 in the window
    monkeypatch.setattr(tasks.summary_carry_over, "delay_on_commit", lambda *a, **k: None)
    session_start_new(channel=channel)
    context = next_context(channel=channel, instruction="next")
    assert context.section("pending").mission_seqs == list(range(3, 11))
    assert "session 1, mission #3" in context.section("pending").text
    assert "#1" in context.section("summary").text
