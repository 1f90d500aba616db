"""A backlog folded in parallel blocks (an import, a queue that was down, a re-fold from
the admin) supersedes as one fold does: each block is folded from an empty state, so a
reversal in a later block meets the value it reverses only when the blocks are merged;
the merge retires it whatever section holds it (a decision reversed by a constraint or a
fact), in English and Korean, and the merged summary passes the verifier."""

from datetime import UTC, datetime

import pytest

from summaries.compaction import compaction_queue, merge_states
from summaries.extractive import extractive_fold
from summaries.models import RollingSummary
from summaries.schemas import FoldMission, SummaryState
from summaries.verifier import summary_verify
from tests.factories import add_finished_missions, dm_channel, make_office

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

REVERSED_ACROSS_BLOCKS = [
    pytest.param(
        "We decided to put our ads mainly into Instagram Reels.",
        "We'll move the ads budget off Reels.",
        id="en",
    ),
    pytest.param(
        "출시일은 3월 14일로 결정했어요.", "출시일은 반드시 3월 21일이어야 해요.", id="ko"
    ),
]


def _mission(seq: int, instruction: str) -> FoldMission:
    return FoldMission(id=seq, seq=seq, at=AT, instruction=instruction, reply="")


def _live(state: SummaryState) -> list[str]:
    live = [d.text for d in state.decisions if not d.superseded]
    return live + [i.text for i in state.constraints + state.facts]


@pytest.mark.parametrize(("old", "new"), REVERSED_ACROSS_BLOCKS)
def test_merging_blocks_retires_a_decision_a_later_blocks_constraint_reverses(
    old: str, new: str
) -> None:
    missions = [_mission(1, old), _mission(21, new)]
    blocks = [
        extractive_fold(previous=SummaryState(), missions=[m], budget_chars=4_000) for m in missions
    ]
    # Folded alone, the later block holds the reversal as a constraint, not a decision.
    assert blocks[1].constraints and not blocks[1].decisions
    merged = merge_states(SummaryState(), blocks, 4_000)
    assert not any(text.startswith(old[:12]) for text in _live(merged)), _live(merged)
    assert any(text.startswith(new[:12]) for text in _live(merged)), _live(merged)
    assert [d.superseded_by for d in merged.decisions if d.superseded] == [[21]]
    report = summary_verify(
        state=merged,
        previous=SummaryState(),
        folded=[(None, m.seq) for m in missions],
        budget_chars=4_000,
        missions=missions,
    )
    assert report.ok, report.findings


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("old", "new"), REVERSED_ACROSS_BLOCKS)
def test_a_refold_in_blocks_commits_with_the_reversal_live(old: str, new: str) -> None:
    def text(n: int) -> tuple[str, str]:
        if n == 2:
            return old, "Noted."
        if n == 30:
            return new, "Noted."
        return f"Mission {n}: tidy section {n} of the handbook.", f"Section {n} is tidy."

    channel = dm_channel(make_office())
    session = channel.sessions.get()
    add_finished_missions(session, 50, text=text)
    summary = RollingSummary.objects.get(session=session)
    before = summary.version
    compaction_queue(session_id=session.pk, from_scratch=True)
    summary.refresh_from_db()
    assert summary.version > before
    latest = summary.revisions.order_by("-version").first()
    assert latest is not None and latest.kind == "refold"
    state = SummaryState.model_validate(summary.state)
    assert not any(t.startswith(old[:12]) for t in _live(state)), _live(state)
    assert any(t.startswith(new[:12]) for t in _live(state)), _live(state)


@pytest.mark.parametrize(("old", "new"), REVERSED_ACROSS_BLOCKS)
def test_merging_leaves_the_summary_it_starts_from_as_it_was(old: str, new: str) -> None:
    # The merge's result is verified against the summary it started from: were that one
    # changed by the merge, the verifier would compare the new summary with itself.
    base = extractive_fold(previous=SummaryState(), missions=[_mission(1, old)], budget_chars=4_000)
    before = base.model_dump()
    block = extractive_fold(
        previous=SummaryState(), missions=[_mission(21, new)], budget_chars=4_000
    )

    merged = merge_states(base, [block], 4_000)

    assert base.model_dump() == before
    assert [d.superseded for d in base.decisions] == [False]
    assert [d.superseded_by for d in merged.decisions if d.superseded] == [[21]]
