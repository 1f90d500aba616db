"""The verifier checks a changed goal against what it may come from (docs/design.md §4): the
previous state's goal and the missions the new goal cites (or, citing none, the missions
this fold takes in). A value the new goal states that none of those holds is invented,
and the fold is rejected; the proposed goal itself is never its own evidence."""

from datetime import UTC, datetime

import pytest

from summaries.folding import fold_propose
from summaries.schemas import FoldMission, SummaryItem, SummaryState
from summaries.verifier import VerifierReport, summary_verify
from tests.summaries.test_verifier_evidence import ScriptedProvider

AT = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)

GOALS = [
    pytest.param(
        "Launch the Pro plan at $29 on March 14.",
        "Launch the Pro plan at $39 on March 14, with a newsletter.",
        "Launch the Pro plan at $29 on March 14, with a newsletter.",
        "39",
        "Draft the launch newsletter.",
        id="en",
    ),
    pytest.param(
        "프로 요금제를 월 29,000원에 3월 14일 출시한다.",
        "프로 요금제를 월 39,000원에 3월 14일 출시하고 뉴스레터를 보낸다.",
        "프로 요금제를 월 29,000원에 3월 14일 출시하고 뉴스레터를 보낸다.",
        "39000",
        "출시 안내 뉴스레터 초안을 써 주세요.",
        id="ko",
    ),
]


def _fold(seq: int, instruction: str, reply: str = "Noted.") -> FoldMission:
    return FoldMission(id=seq, seq=seq, at=AT, instruction=instruction, reply=reply)


def _verify(
    state: SummaryState, previous: SummaryState, missions: list[FoldMission]
) -> VerifierReport:
    return summary_verify(
        state=state,
        previous=previous,
        folded=[(None, m.seq) for m in missions],
        budget_chars=4_000,
        missions=missions,
    )


def _state(goal: str, cites: list[int]) -> SummaryState:
    return SummaryState(
        goal=goal,
        goal_missions=cites,
        next_actions=[SummaryItem(text="Send the newsletter draft", missions=[9])],
    )


@pytest.mark.parametrize(("before", "invented", "kept", "wrong", "newest"), GOALS)
@pytest.mark.parametrize("cites", [[9], []], ids=["citing", "citing-none"])
def test_a_changed_goal_with_a_value_from_nowhere_is_rejected(
    before: str, invented: str, kept: str, wrong: str, newest: str, cites: list[int]
) -> None:
    previous = SummaryState(goal=before, goal_missions=[1])
    missions = [_fold(9, newest)]

    report = _verify(_state(invented, cites), previous, missions)

    assert not report.ok and report.checks["evidence"] is False
    assert any(f.startswith("evidence:") and wrong in f and "goal" in f for f in report.findings)
    # The same change keeping the previous goal's values is evidence enough.
    assert _verify(_state(kept, cites), previous, missions).ok


@pytest.mark.parametrize(
    ("newest", "goal"),
    [
        ("The launch moves to April 2.", "Launch the Pro plan at $29 on April 2."),
        ("출시일을 4월 2일로 옮겨요.", "프로 요금제를 월 29,000원에 4월 2일 출시한다."),
    ],
)
@pytest.mark.parametrize("cites", [[9], []], ids=["citing", "citing-none"])
def test_a_goal_may_take_a_new_value_from_the_mission_it_cites(
    newest: str, goal: str, cites: list[int]
) -> None:
    """Citing no mission, a goal may take its values from the missions the fold takes in."""
    previous = SummaryState(goal="Launch the Pro plan at $29 (29,000원).", goal_missions=[1])
    missions = [_fold(9, newest)]
    assert _verify(_state(goal, cites), previous, missions).ok
    # Cited to a mission that does not say it, the same goal is rejected.
    assert not _verify(_state(goal, [1]), previous, missions).ok


@pytest.mark.parametrize(("before", "invented", "kept", "wrong", "newest"), GOALS)
def test_a_fold_that_invents_a_goal_value_twice_falls_back_to_the_extractive_fold(
    before: str, invented: str, kept: str, wrong: str, newest: str
) -> None:
    previous = SummaryState(goal=before, goal_missions=[1])
    missions = [_fold(9, newest)]
    provider = ScriptedProvider(_state(invented, [9]), _state(invented, [9]))

    state, report, producer, _ = fold_propose(
        provider=provider, previous=previous, missions=missions, budget=4_000, session_number=None
    )

    assert any(wrong in f for f in provider.findings[1])
    assert producer == "extractive" and report.ok
    assert wrong not in state.goal.replace(",", "")
