"""The verifier checks evidence, not only pointers (docs/design.md §4): every number, date,
amount and name of an item occurs in the missions it cites (or in the previous state's
item it carries); an item citing nothing is rejected; two live decisions on one subject
are a contradiction. A model fold it rejects is retried once with the findings, then the
extractive fold takes over."""

from datetime import UTC, datetime
from typing import Any

import pytest

from llm.base import ChatMessages, ChatStream, Usage
from summaries.folding import fold_propose
from summaries.schemas import Decision, FoldMission, SummaryItem, SummaryState
from summaries.verifier import summary_verify

AT = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def _mission(seq: int, instruction: str, reply: str = "Noted.") -> FoldMission:
    return FoldMission(id=seq, seq=seq, at=AT, instruction=instruction, reply=reply)


def _verify(state: SummaryState, missions: list[FoldMission], previous: Any = None) -> Any:
    return summary_verify(
        state=state,
        previous=previous or SummaryState(),
        folded=[(None, m.seq) for m in missions],
        budget_chars=4_000,
        missions=missions,
    )


PRICES = [
    pytest.param("Our price is $29 per month.", "Our price is $39 per month.", "39", id="en"),
    pytest.param("가격은 월 29,000원이에요.", "가격은 월 39,000원이에요.", "39000", id="ko"),
]


@pytest.mark.parametrize(("said", "claimed", "wrong"), PRICES)
def test_it_rejects_an_amount_the_cited_mission_does_not_state(
    said: str, claimed: str, wrong: str
) -> None:
    missions = [_mission(1, said)]

    report = _verify(SummaryState(facts=[SummaryItem(text=claimed, missions=[1])]), missions)

    assert not report.ok and report.checks["evidence"] is False
    assert report.checks["coverage"] and report.checks["contradiction"]
    [finding] = report.findings
    assert finding.startswith("evidence:") and wrong in finding and "#1" in finding
    assert _verify(SummaryState(facts=[SummaryItem(text=said, missions=[1])]), missions).ok


@pytest.mark.parametrize(
    ("said", "claimed", "wrong"),
    [
        pytest.param(
            "The designer is Priya Raman; kickoff is March 3.",
            "The designer is Priya Raman; kickoff is March 4.",
            "4",
            id="en-date",
        ),
        pytest.param(
            "The designer is Priya Raman.", "The designer is Priya Chen.", "chen", id="en-name"
        ),
        pytest.param(
            "디자이너는 김서연 님이에요.", "디자이너는 김민지 님이에요.", "김민지", id="ko-name"
        ),
        pytest.param("We host on Fly.io.", "We host on Render.com.", "render.com", id="domain"),
    ],
)
def test_it_rejects_a_date_or_name_the_cited_mission_does_not_state(
    said: str, claimed: str, wrong: str
) -> None:
    missions = [_mission(1, said)]
    report = _verify(SummaryState(facts=[SummaryItem(text=claimed, missions=[1])]), missions)
    assert report.checks["evidence"] is False
    assert wrong in " ".join(report.findings)


def test_the_value_may_come_from_the_reply_of_the_cited_mission() -> None:
    missions = [_mission(1, "What did the venue quote?", "The venue quoted $4,800 for May 2.")]
    state = SummaryState(facts=[SummaryItem(text="Venue quote: $4800 for May 2", missions=[1])])
    assert _verify(state, missions).ok


def test_a_value_from_another_mission_of_the_fold_is_not_evidence() -> None:
    missions = [_mission(1, "Our price is $29."), _mission(2, "The waitlist has 1,240 sign-ups.")]
    state = SummaryState(
        facts=[
            SummaryItem(text="Our price is $29 and 1,240 people wait", missions=[1]),
            SummaryItem(text="The waitlist has 1,240 sign-ups.", missions=[2]),
        ]
    )
    report = _verify(state, missions)
    assert report.checks["evidence"] is False and "1240" in report.findings[0]


def test_a_carried_item_is_checked_against_the_previous_state() -> None:
    previous = SummaryState(facts=[SummaryItem(text="Our price is $29.99.", missions=[2])])
    missions = [_mission(9, "Draft the newsletter.")]
    carried = SummaryState(
        facts=[
            SummaryItem(text="Our price is $29.99.", missions=[2]),
            SummaryItem(text="Newsletter drafted", missions=[9]),
        ]
    )
    assert _verify(carried, missions, previous).ok
    inflated = carried.model_copy(deep=True)
    inflated.facts[0].text = "Our price is $34.99."
    report = _verify(inflated, missions, previous)
    assert report.checks["evidence"] is False and "34.99" in report.findings[0]


@pytest.mark.parametrize("text", ["Budget is 60 k EUR", "예산은 6천만 원이에요"])
def test_it_rejects_an_item_citing_no_mission(text: str) -> None:
    missions = [_mission(1, "Budget? 60 k EUR. 예산은 6천만 원이에요.")]
    state = SummaryState(
        facts=[SummaryItem(text=text, missions=[]), SummaryItem(text="Budget asked", missions=[1])]
    )
    report = _verify(state, missions)
    assert report.checks["evidence"] is False
    assert "cites no mission" in report.findings[0] and text in report.findings[0]


LIVE_PAIRS = [
    pytest.param(
        "We decided the brand color is coral.",
        "We decided to drop coral; the brand color is now teal.",
        "brand color",
        id="en-subject",
    ),
    pytest.param(
        "We decided to host on Fly.io.",
        "Let's switch to Hetzner for hosting instead of Fly.io.",
        "Fly.io",
        id="en-replaced-value",
    ),
    pytest.param(
        "브랜드 색상은 코랄로 하기로 했다.",
        "브랜드 색상은 틸로 변경",
        "브랜드 색상",
        id="ko-subject",
    ),
    pytest.param(
        "호스팅은 Fly.io로 하기로 했다.",
        "Fly.io 대신 Hetzner로 호스팅을 옮기기로 했다.",
        "호스팅",
        id="ko-replaced-value",
    ),
]


@pytest.mark.parametrize(("older", "newer", "about"), LIVE_PAIRS)
def test_two_live_decisions_on_one_subject_are_a_contradiction(
    older: str, newer: str, about: str
) -> None:
    missions = [_mission(1, older), _mission(2, newer)]
    both_live = SummaryState(
        decisions=[Decision(text=older, missions=[1]), Decision(text=newer, missions=[2])]
    )

    report = _verify(both_live, missions)

    assert not report.ok and report.checks["contradiction"] is False
    assert about in " ".join(report.findings)
    resolved = both_live.model_copy(deep=True)
    resolved.decisions[0].superseded, resolved.decisions[0].superseded_by = True, [2]
    assert _verify(resolved, missions).ok


def test_unrelated_live_decisions_are_not_a_contradiction() -> None:
    missions = [
        _mission(1, "We decided the brand color is teal."),
        _mission(2, "We decided to host on Hetzner."),
        _mission(3, "출시일은 3월 14일로 확정했어요."),
        _mission(4, "가격은 월 29,900원으로 정했어요."),
    ]
    state = SummaryState(
        decisions=[Decision(text=m.instruction, missions=[m.seq]) for m in missions]
    )
    assert _verify(state, missions).ok


class ScriptedProvider:
    """A model that folds as told, recording the findings each call was given."""

    name = "scripted"
    structured_output = True
    calls_tools = False

    def __init__(self, *states: SummaryState) -> None:
        self.script = list(states)
        self.findings: list[list[str]] = []

    def stream_chat(
        self, *, messages: ChatMessages, model: str | None = None, tools: Any = None
    ) -> ChatStream:
        raise NotImplementedError

    def structured(
        self, *, messages: ChatMessages, schema: Any, model: str | None = None
    ) -> tuple[Any, Usage]:
        _, _, rejected = str(messages[-1]["content"]).partition("rejected by the verifier:\n")
        self.findings.append([line[2:] for line in rejected.splitlines() if line.startswith("- ")])
        return self.script.pop(0), Usage()


@pytest.mark.parametrize(("said", "claimed", "wrong"), PRICES)
def test_an_invented_amount_is_sent_back_once_then_the_extractive_fold_takes_over(
    said: str, claimed: str, wrong: str
) -> None:
    missions = [_mission(1, said)]
    invented = SummaryState(facts=[SummaryItem(text=claimed, missions=[1])])
    provider = ScriptedProvider(invented, invented)

    state, report, producer, attempts = fold_propose(
        provider=provider,
        previous=SummaryState(),
        missions=missions,
        budget=4_000,
        session_number=None,
    )

    assert provider.findings[0] == []
    assert any(wrong in f for f in provider.findings[1])
    assert [a["provider"] for a in attempts] == ["scripted", "scripted", "extractive"]
    assert producer == "extractive" and report.ok
    assert said.rstrip(".") in " ".join(item.text for _, item in state.items())


def test_a_corrected_second_attempt_is_accepted() -> None:
    missions = [_mission(1, "Our price is $29 per month.")]
    provider = ScriptedProvider(
        SummaryState(facts=[SummaryItem(text="Price: $39/month", missions=[1])]),
        SummaryState(facts=[SummaryItem(text="Price: $29/month", missions=[1])]),
    )
    state, report, producer, _ = fold_propose(
        provider=provider,
        previous=SummaryState(),
        missions=missions,
        budget=4_000,
        session_number=None,
    )
    assert (producer, report.ok, state.facts[0].text) == ("scripted", True, "Price: $29/month")


@pytest.mark.parametrize(
    ("said", "claimed", "wrong"),
    [
        pytest.param("출시는 3월 14일, 인원은 4명이에요.", "출시는 3월 4일", "03-04", id="ko-date"),
        pytest.param("샘플은 3천 원, 3개 보내요.", "샘플은 3만 원", "30000 KRW", id="ko-man"),
        pytest.param("가격은 29,900원이에요.", "가격은 29,900달러", "29900 USD", id="ko-unit"),
        pytest.param("가격은 19,900원이에요.", "이만구천구백원", "29900 KRW", id="ko-hangul"),
        pytest.param("Launch: March 14, for 4 people.", "Launch: March 4", "03-04", id="en-date"),
        pytest.param("출시는 3월 14일이에요.", "출시는 4월 14일", "04-14", id="ko-month"),
        pytest.param("Launch: March 14, for 4 people.", "Launch: April 14", "04-14", id="en-month"),
        pytest.param(
            "표지는 이하나 작가님이 맡아요.", "표지: 김서연 작가님", "김서연", id="ko-title"
        ),
        # People named by a surname and their post, or their given name, are names too.
        pytest.param("검토는 김 대표님이 해요.", "검토는 박대표님", "박대표", id="ko-surname-post"),
        pytest.param("정리는 서연님이 해요.", "정리는 민지 씨가 해요", "민지", id="ko-given"),
    ],
)
def test_it_checks_values_as_values_not_as_loose_digits(
    said: str, claimed: str, wrong: str
) -> None:
    missions = [_mission(1, said)]
    report = _verify(SummaryState(facts=[SummaryItem(text=claimed, missions=[1])]), missions)
    assert report.checks["evidence"] is False
    assert wrong in " ".join(report.findings)


@pytest.mark.parametrize(
    ("said", "claimed"),
    [
        pytest.param("월 광고 예산은 800,000원이에요.", "월 광고 예산 80만원", id="ko-man"),
        pytest.param("매출은 1240만원.", "매출 1,240만원", id="ko-comma"),
        pytest.param("출시는 삼월 십사일이에요.", "출시 3/14", id="ko-hangul-date"),
        pytest.param("Kickoff on 2026-03-14.", "Kickoff on March 14", id="en-date"),
        pytest.param("표지는 김서연 작가님이 맡아요.", "표지: 김서연 작가", id="ko-title"),
        pytest.param("검토는 김 대표님이 해요.", "검토: 김대표님", id="ko-surname-post"),
        pytest.param("정리는 서연 님이 해요.", "정리: 서연님", id="ko-given"),
        pytest.param("고객님께 안내해요.", "고객님 안내, 아저씨 연락", id="ko-not-names"),
    ],
)
def test_a_value_written_another_way_is_evidence(said: str, claimed: str) -> None:
    missions = [_mission(1, said)]
    assert _verify(SummaryState(facts=[SummaryItem(text=claimed, missions=[1])]), missions).ok
