"""A reversal supersedes by subject whatever section holds the old value (decision,
constraint, fact), in English and Korean; a topic match alone never retires an unrelated
item: the newer statement must name the same subject and a new value (issue: decisions
that change)."""

from datetime import UTC, datetime

import pytest

from language.statements import supersedes
from summaries.extractive import extractive_fold
from summaries.schemas import Decision, FoldMission, SummaryItem, SummaryState
from summaries.verifier import summary_verify

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

REVERSALS = [
    pytest.param(
        "We decided to put our ads mainly into Instagram Reels.",
        "We'll move the ads budget off Reels.",
        id="en-off",
    ),
    pytest.param(
        "Cream for the gift set box.",
        "Let's do navy for the gift set box instead of cream.",
        id="en-instead",
    ),
    pytest.param(
        "광고는 주로 인스타그램 릴스에 넣기로 했어요.",
        "광고 예산을 릴스에서 빼기로 했어요.",
        id="ko-out-of",
    ),
    pytest.param(
        "월 광고 예산은 80만원이에요.", "월 광고 예산은 100만원으로 변경해요.", id="ko-value"
    ),
]

UNRELATED = [
    pytest.param("월 광고 예산은 80만원이에요.", "예산을 옮기기로 했어요.", id="ko-topic-only"),
    pytest.param(
        "The ads budget is $800 a month.", "We decided to move the budget meeting.", id="en-topic"
    ),
]


@pytest.mark.parametrize(("old", "new"), REVERSALS)
def test_a_reversal_supersedes_the_statement_it_reverses(old: str, new: str) -> None:
    assert supersedes(new, old)


@pytest.mark.parametrize(("old", "new"), UNRELATED)
def test_a_topic_match_without_a_new_value_retires_nothing(old: str, new: str) -> None:
    assert not supersedes(new, old)


def _mission(seq: int, instruction: str) -> FoldMission:
    return FoldMission(id=seq, seq=seq, at=AT, instruction=instruction, reply="")


def _verify(state: SummaryState, previous: SummaryState, missions: list[FoldMission]) -> bool:
    return summary_verify(
        state=state,
        previous=previous,
        folded=[(None, m.seq) for m in missions],
        budget_chars=4_000,
        missions=missions,
    ).ok


@pytest.mark.parametrize(("old", "new"), REVERSALS)
def test_the_extractive_fold_leaves_no_reversed_value_live(old: str, new: str) -> None:
    missions = [_mission(1, old), _mission(2, new)]
    state = extractive_fold(previous=SummaryState(), missions=missions, budget_chars=4_000)
    live = [d.text for d in state.decisions if not d.superseded]
    live += [i.text for i in state.constraints + state.facts]
    assert not any(text.startswith(old[:12]) for text in live), live
    assert any(new[:12] in text for text in live), live
    assert _verify(state, SummaryState(), missions)


@pytest.mark.parametrize(("old", "new"), UNRELATED)
def test_the_extractive_fold_keeps_what_a_topic_match_does_not_replace(old: str, new: str) -> None:
    missions = [_mission(1, old), _mission(2, new)]
    state = extractive_fold(previous=SummaryState(), missions=missions, budget_chars=4_000)
    live = [d.text for d in state.decisions if not d.superseded]
    live += [i.text for i in state.constraints + state.facts]
    assert any(text.startswith(old[:12]) for text in live), live


@pytest.mark.parametrize(
    ("decision", "constraint"),
    [
        pytest.param(
            "We decided to put our ads mainly into Instagram Reels.",
            "Move the ads budget off Reels.",
            id="en",
        ),
        pytest.param(
            "월 광고 예산은 80만원으로 결정.", "월 광고 예산은 100만원으로 변경.", id="ko"
        ),
    ],
)
def test_the_verifier_refuses_a_reversal_written_as_a_constraint_beside_a_live_decision(
    decision: str, constraint: str
) -> None:
    previous = SummaryState(decisions=[Decision(text=decision, missions=[1])])
    missions = [_mission(2, constraint)]
    both_live = SummaryState(
        decisions=[Decision(text=decision, missions=[1])],
        constraints=[SummaryItem(text=constraint, missions=[2])],
    )
    report = summary_verify(
        state=both_live,
        previous=previous,
        folded=[(None, 2)],
        budget_chars=4_000,
        missions=missions,
    )
    assert report.checks["contradiction"] is False
    assert any("disagree" in f for f in report.findings)
    resolved = both_live.model_copy(deep=True)
    resolved.decisions[0].superseded = True
    resolved.decisions[0].superseded_by = [2]
    assert _verify(resolved, previous, missions)
