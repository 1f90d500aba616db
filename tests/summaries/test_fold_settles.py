"""The extractive fold is the fallback every fold ends in: if its own verifier refused it,
`fold_propose` would raise, the watermark would never move, and every later fold of the
channel would fail the same way. So the fold settles exactly the pairs the verifier's
contradiction check refuses (`verifier.clashes`), and the verifier reads a mission's
sentences as the fold does: two things one mission says."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from summaries.compaction import BLOCK_SIZE, merge_states
from summaries.extractive import extractive_fold
from summaries.render import MATERIAL_PREFIX, summary_text_budget
from summaries.schemas import Decision, FoldMission, SummaryItem, SummaryState
from summaries.verifier import VerifierReport, summary_verify

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
TRANSCRIPTS = Path(__file__).resolve().parents[2] / "bench" / "transcripts"


def _mission(seq: int, instruction: str, reply: str = "") -> FoldMission:
    return FoldMission(id=seq, seq=seq, at=AT, instruction=instruction, reply=reply)


def _verify(
    state: SummaryState, previous: SummaryState, missions: list[FoldMission], budget: int = 4_000
) -> VerifierReport:
    return summary_verify(
        state=state,
        previous=previous,
        folded=[(None, m.seq) for m in missions],
        budget_chars=budget,
        missions=missions,
    )


RESTATED = [
    pytest.param(
        "로고는 파란색으로 결정했어요.",
        "로고를 초록색으로 바꿨어요. 로고는 파란색 말고 초록색이에요.",
        id="ko-logo",
    ),
    pytest.param(
        "행사 장소는 강남으로 결정했어요.",
        "행사 장소는 이제 성수로 바꿨어요. 행사 장소는 강남 아니고 성수예요.",
        id="ko-venue",
    ),
    pytest.param(
        "We decided the price is $20.",
        "We changed the price to $25. So the price is $25, not $20.",
        id="en-price",
    ),
]


@pytest.mark.parametrize(("old", "new"), RESTATED)
def test_a_change_said_twice_in_one_mission_is_folded_and_the_old_value_retired(
    old: str, new: str
) -> None:
    # People say a change and then say it again the other way round. The two sentences
    # agree, but the contradiction rule reads "X, not Y" against "changed to X" as a
    # disagreement: the verifier refused the fold, and the channel's folds stopped.
    missions = [_mission(1, old), _mission(2, new)]
    state = extractive_fold(previous=SummaryState(), missions=missions, budget_chars=4_000)
    report = _verify(state, SummaryState(), missions)
    assert report.ok, report.findings
    [retired] = [d for d in state.decisions if d.superseded]
    assert retired.text == old and retired.superseded_by == [2]
    live = [d for d in state.decisions if not d.superseded]
    assert live and all(d.missions == [2] for d in live)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param("로고를 초록색으로 바꿨어요.", "로고는 파란색 말고 초록색이에요.", id="ko"),
        pytest.param("We changed the price to $25.", "So the price is $25, not $20.", id="en"),
    ],
)
def test_two_decisions_of_one_mission_are_two_things_it_says(first: str, second: str) -> None:
    mission = _mission(2, f"{first} {second}")
    one = SummaryState(
        decisions=[Decision(text=first, missions=[2]), Decision(text=second, missions=[2])]
    )
    assert _verify(one, SummaryState(), [mission]).ok
    # Said in two missions, the rule still asks for the older to be marked superseded.
    apart = one.model_copy(deep=True)
    apart.decisions[0].missions = [1]
    missions = [_mission(1, first), _mission(2, second)]
    report = _verify(apart, SummaryState(), missions)
    assert not report.ok
    assert any("two live decisions" in f for f in report.findings), report.findings


@pytest.mark.parametrize(
    ("person", "pasted"),
    [
        pytest.param("원두 1kg 가격은 21,000원이에요.", "원두 1kg 23,500원", id="ko"),
        pytest.param("The rent is $1,800 a month.", "Rent: $2,100 a month", id="en"),
    ],
)
def test_a_pasted_line_replaces_nothing_but_gives_way_to_the_persons_newer_value(
    person: str, pasted: str
) -> None:
    quote = MATERIAL_PREFIX + pasted
    # A vendor's newer quote is no change of the person's price: both stay live.
    later_quote = SummaryState(
        facts=[SummaryItem(text=person, missions=[1]), SummaryItem(text=quote, missions=[2])]
    )
    missions = [_mission(1, person), _mission(2, pasted)]
    assert _verify(later_quote, SummaryState(), missions).ok
    # The person's newer value is how things are: the older pasted line must give way.
    later_word = SummaryState(
        facts=[SummaryItem(text=quote, missions=[1]), SummaryItem(text=person, missions=[2])]
    )
    missions = [_mission(1, pasted), _mission(2, person)]
    report = _verify(later_word, SummaryState(), missions)
    assert not report.ok
    assert any("two live values" in f for f in report.findings), report.findings


def _conversation(name: str) -> list[FoldMission]:
    with (TRANSCRIPTS / f"{name}.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    return [_mission(seq, r["instruction"], r["reply"]) for seq, r in enumerate(rows, start=1)]


@pytest.mark.parametrize("name", ["launch_en", "launch_ko", "long_talk_en"])
def test_every_fold_of_a_long_conversation_passes_its_own_verifier(name: str) -> None:
    # Folded four missions at a time, as a channel folds them: price lists, schedules
    # and "X: I'll be out on Monday" lines give many values for one subject, which the
    # merge alone leaves live side by side.
    budget = summary_text_budget()
    missions = _conversation(name)
    previous = SummaryState()
    for start in range(0, len(missions), 4):
        batch = missions[start : start + 4]
        state = extractive_fold(previous=previous, missions=batch, budget_chars=budget)
        report = _verify(state, previous, batch, budget)
        assert report.ok, (batch[0].seq, report.findings)
        previous = state
    assert previous.decisions or previous.facts


@pytest.mark.parametrize("name", ["launch_en"])
def test_a_refold_in_blocks_of_a_long_conversation_passes_its_own_verifier(name: str) -> None:
    # A backlog or an admin's re-fold folds blocks apart and merges them: values two
    # blocks give for one subject meet only in the merge, which refused to commit, so the
    # backlog was queued again and failed again.
    budget = summary_text_budget()
    missions = _conversation(name)
    blocks = [
        extractive_fold(
            previous=SummaryState(),
            missions=missions[start : start + BLOCK_SIZE],
            budget_chars=budget,
        )
        for start in range(0, len(missions), BLOCK_SIZE)
    ]
    merged = merge_states(SummaryState(), blocks, budget)
    report = _verify(merged, SummaryState(), missions, budget)
    assert report.ok, report.findings
    assert len(blocks) > 2


@pytest.mark.parametrize(
    "run",
    [
        pytest.param("송장번호:" + "2" * 300, id="ko"),
        pytest.param("Tracking:" + "2" * 5_000, id="en"),
        pytest.param("2" * 300, id="digits-only"),
    ],
)
def test_a_long_run_of_digits_is_folded_and_passes(run: str) -> None:
    # Its digest is clipped for room: read as a value, the clipped run no longer matched
    # the mission's, and the evidence check refused the fold (and every later one).
    missions = [_mission(1, "가격은 2만원으로 결정했어요."), _mission(2, run)]
    state = extractive_fold(previous=SummaryState(), missions=missions, budget_chars=4_000)
    report = _verify(state, SummaryState(), missions)
    assert report.ok, report.findings
