"""A summary over its budget loses what matters least first: a decision that was reversed
goes before any live item, whatever its words (summaries/extractive.py, compress_to_budget)."""

import pytest

from summaries.extractive import compress_to_budget
from summaries.render import render_summary
from summaries.schemas import Decision, SummaryItem, SummaryState

CASES = {
    "en": (
        "We decided the launch city is Lisbon, with the Zanzibar venue booked for March 14.",
        "We decided the launch city is Porto instead.",
        [
            "The beta has 40 users.",
            "Support answers within a day.",
            "The newsletter goes out on Mondays.",
        ],
    ),
    "ko": (
        "출시 도시는 리스본으로 정했고 잔지바르 행사장을 3월 14일로 예약했어요.",
        "출시 도시는 대신 포르투로 정했어요.",
        [
            "베타 사용자는 40명이에요.",
            "고객 지원은 하루 안에 답해요.",
            "뉴스레터는 월요일에 나가요.",
        ],
    ),
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_reversed_decision_is_evicted_before_any_live_item(language: str) -> None:
    old, new, facts = CASES[language]
    state = SummaryState(
        decisions=[
            # The reversed decision is the longest, most specific item: by its words alone
            # it would be the last to go.
            Decision(text=old, missions=[2], session=None, superseded=True, superseded_by=[9]),
            Decision(text=new, missions=[9], session=None),
        ],
        facts=[
            SummaryItem(text=text, missions=[n], session=None)
            for n, text in enumerate(facts, start=3)
        ],
    )
    full = len(render_summary(state))

    compress_to_budget(state, full - 1)

    assert [d.text for d in state.decisions] == [new]
    assert [f.text for f in state.facts] == facts
    # Let go on purpose, with a digest: the verifier sees why mission 2 is no longer cited.
    assert [d.mission for d in state.dropped] == [2]
    assert len(render_summary(state)) <= full - 1
