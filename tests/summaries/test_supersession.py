"""A reversal supersedes by subject whatever section holds the old value (decision,
constraint, fact), in English and Korean; a topic match alone never retires an unrelated
item: the newer statement must name the same subject and a new value (issue: decisions
that change)."""

from datetime import UTC, datetime

import pytest

from language.statements import conflicts, supersedes
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
    pytest.param(
        "We decided to launch on March 14.",
        "The launch date must be March 21 at the latest.",
        id="en-must-be-date",
    ),
    pytest.param(
        "3월 14일에 출시하기로 했어요.",
        "출시일은 늦어도 3월 21일이어야 해요.",
        id="ko-must-be-date",
    ),
    pytest.param(
        "We decided to put our ads mainly into Instagram Reels.",
        "The ads budget must go to TikTok, not Reels.",
        id="en-x-not-y",
    ),
    pytest.param(
        "We decided to put our ads mainly into Instagram Reels.",
        "The ads budget goes not to Reels but to TikTok.",
        id="en-not-y-but-x",
    ),
    pytest.param(
        "광고는 주로 인스타그램 릴스에 넣기로 했어요.",
        "광고 예산은 릴스 말고 틱톡으로.",
        id="ko-x-not-y",
    ),
    pytest.param(
        "The monthly ads budget is $800.",
        "We're raising the monthly ads budget to $1,000.",
        id="en-raising-to",
    ),
    pytest.param(
        "The monthly ads budget is $800.",
        "Let's cut the monthly ads budget to $600.",
        id="en-cutting-to",
    ),
    pytest.param(
        "월 광고 예산은 80만원이에요.", "월 광고 예산을 100만원으로 올려요.", id="ko-raising-to"
    ),
]

UNRELATED = [
    pytest.param("월 광고 예산은 80만원이에요.", "예산을 옮기기로 했어요.", id="ko-topic-only"),
    pytest.param(
        "The ads budget is $800 a month.", "We decided to move the budget meeting.", id="en-topic"
    ),
    # Two lines of one speaker in a chat are not one subject.
    pytest.param(
        "Dana: oh and our contact at Harbor & Pine is Wen Okafor now, she signs off.",
        "Dana: priority for Tuesday: the summit budget, then the coffee breaks",
        id="en-one-speaker",
    ),
    pytest.param(
        "Priya: the hotel finally confirmed the main hall for September 24.",
        "Priya: I'll be out on Thursday, Lena can cover",
        id="en-one-speaker-value",
    ),
    pytest.param(
        "서연: 참, 한빛상사 쪽 담당자는 이제 오가은 과장님이에요.",
        "서연: 금요일 우선순위는 안건 초안이고 그다음 명찰이에요.",
        id="ko-one-speaker",
    ),
    pytest.param(
        "We decided to launch on March 14.",
        "The launch party venue must be booked by March 10.",
        id="en-other-subject-same-kind",
    ),
    pytest.param(
        "We decided to launch on March 14.",
        "The newsletter must be out by March 21.",
        id="en-date-other-subject",
    ),
    pytest.param(
        "3월 14일에 출시하기로 했어요.",
        "뉴스레터는 늦어도 3월 21일이어야 해요.",
        id="ko-date-other-subject",
    ),
    pytest.param(
        "The monthly ads budget is $800.",
        "We're raising the ads budget question at Friday's meeting.",
        id="en-raising-no-value",
    ),
    pytest.param(
        "We decided to put our ads mainly into Instagram Reels.",
        "We sell online, not only in stores.",
        id="en-not-only",
    ),
    pytest.param(
        "프로 요금제는 매장당 월 19,900원이고, 연간 결제하면 두 달 무료예요.",
        "무료 요금제는 적립 고객 300명까지로 유지하고요.",
        id="ko-another-plan",
    ),
]

# A reversal in a chat line is still one: the subject is read from what is said.
SPOKEN_REVERSALS = [
    pytest.param(
        "Theo: the gala dinner caterer is Saltwater Table, booked for the 24th.",
        "Dana: change of plan, the gala dinner caterer is Ember & Oak now.",
        id="en-spoken",
    ),
    pytest.param(
        "서연: 갈라 디너 케이터링은 바다식탁으로 예약했어요.",
        "지훈: 갈라 디너 건 변경이에요, 바다식탁 말고 온담케이터링으로 바꿔요.",
        id="ko-spoken",
    ),
]


@pytest.mark.parametrize(("old", "new"), SPOKEN_REVERSALS)
def test_a_reversal_said_in_a_chat_line_supersedes(old: str, new: str) -> None:
    assert supersedes(new, old)


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
        *(p for p in REVERSALS if p.id in {"en-must-be-date", "ko-must-be-date", "en-x-not-y"}),
        pytest.param(
            "광고는 주로 인스타그램 릴스에 넣기로 했어요.",
            "광고 예산은 릴스 말고 틱톡으로.",
            id="ko-x-not-y",
        ),
        pytest.param(
            "We decided the monthly ads budget is $800.",
            "We're raising the monthly ads budget to $1,000.",
            id="en-raising-to",
        ),
        pytest.param(
            "월 광고 예산은 80만원으로 결정.",
            "월 광고 예산을 100만원으로 올려요.",
            id="ko-raising-to",
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


@pytest.mark.parametrize(
    ("instruction", "draft"),
    [
        pytest.param(
            "Draft three Instagram captions for the spring gift set.",
            "Bloom into spring with our gift set, now 29,900 won! "
            "The perfect present is just a tap away.",
            id="en",
        ),
        pytest.param(
            "봄 선물세트 인스타 캡션 초안 세 개 써줘.",
            "봄을 담은 선물세트, 지금 29,900원에 만나보세요! "
            "가장 따뜻한 선물은 바로 여기에 있어요.",
            id="ko",
        ),
    ],
)
def test_the_employees_draft_copy_is_not_kept_as_how_things_are(
    instruction: str, draft: str
) -> None:
    mission = FoldMission(id=1, seq=1, at=AT, instruction=instruction, reply=draft)
    state = extractive_fold(previous=SummaryState(), missions=[mission], budget_chars=4_000)
    kept = " ".join(item.text for _, item in state.items())
    assert "29,900" not in kept and "29900" not in kept
    assert instruction[:10] in kept  # what the person asked stays, as a digest


@pytest.mark.parametrize(
    ("first", "goal", "later_goal"),
    [
        pytest.param(
            "Hey! Just saying hi before the week starts.",
            "Our goal is to sell 500 gift sets before Chuseok.",
            "Our new goal is 800 gift sets, the stores asked for more.",
            id="en",
        ),
        pytest.param(
            "안녕하세요! 이번 주도 잘 부탁해요.",
            "이번 분기 목표는 추석 전에 선물세트 500개 판매예요.",
            "목표를 800개로 올릴게요. 매장에서 더 요청했어요.",
            id="ko",
        ),
    ],
)
def test_the_goal_follows_the_latest_stated_goal(first: str, goal: str, later_goal: str) -> None:
    missions = [_mission(1, first), _mission(2, goal), _mission(3, "Send the weekly report.")]
    state = extractive_fold(previous=SummaryState(), missions=missions, budget_chars=4_000)
    assert state.goal.startswith(goal[:12]) and state.goal_missions == [2]
    assert _verify(state, SummaryState(), missions)

    later = [_mission(4, later_goal)]
    newer = extractive_fold(previous=state, missions=later, budget_chars=4_000)
    assert newer.goal.startswith(later_goal[:10]) and newer.goal_missions == [4]
    assert _verify(newer, state, later)


@pytest.mark.parametrize(
    ("decision", "reason"),
    [
        pytest.param(
            "So we decided to switch the main brand colour to teal instead of coral.",
            "Iris ran the accessibility check, and coral fails the contrast bar for buttons "
            "on white.",
            id="en",
        ),
        pytest.param(
            "그래서 브랜드 메인 색상을 코랄 대신 틸(#0F9D9A)로 바꾸기로 했어요.",
            "Iris가 접근성 검사를 해 봤는데, 코랄은 흰 배경에서 버튼이랑 작은 글씨 대비가 "
            "기준에 못 미치고 앱 안의 오류 표시랑도 헷갈린대요.",
            id="ko",
        ),
    ],
)
def test_a_decision_and_its_reason_in_one_mission_are_folded_and_pass(
    decision: str, reason: str
) -> None:
    # The contradiction check reads them as disagreeing (the reason speaks ill of the
    # colour the decision drops); said in one mission, they are two things it says.
    assert conflicts(decision, reason)
    missions = [_mission(3, f"{reason} {decision} 로고 시안도 틸로 다시 뽑아 주세요.")]
    both = SummaryState(
        decisions=[Decision(text=decision, missions=[3])],
        facts=[SummaryItem(text=reason, missions=[3])],
    )
    assert _verify(both, SummaryState(), missions)
    # Said in two missions, the older reason must give way, as before.
    apart = both.model_copy(deep=True)
    apart.facts[0].missions = [2]
    missions = [_mission(2, reason), _mission(3, decision)]
    assert not _verify(apart, SummaryState(), missions)
    # And the fold of such a mission passes (in Korean it keeps the reason as a fact
    # beside the decision, which failed the whole fold, and every fold after it).
    mission = _mission(3, f"{reason} {decision}")
    folded = extractive_fold(previous=SummaryState(), missions=[mission], budget_chars=4_000)
    assert [d.text for d in folded.decisions] == [decision]
    assert _verify(folded, SummaryState(), [mission])
