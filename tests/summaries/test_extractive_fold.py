"""The offline fold (docs/design.md §4), also the fallback of the model fold: salience, not age,
decides what stays; the person's words over the assistant's; never the provider's
boilerplate; near-duplicates collapse; every folded mission keeps a digest; reversals
retire what they replace, in Korean and English, in the summary and in memory.

The long scenarios run through the real intake with the offline provider, so the replies
are its echoes of the instruction, the summary and recall, as in the embedded default."""

from datetime import UTC, datetime
from typing import Any

import pytest

from llm.offline import OfflineProvider
from memory.models import MemoryItem, MemoryProposal
from memory.services import memory_proposal_confirm
from missions.intake import instruction_accept
from office.models import Channel
from summaries.extractive import DIGEST_PREFIX, MAX_CITES, extractive_fold
from summaries.models import RollingSummary, SummaryRevision
from summaries.render import render_summary, state_refs
from summaries.schemas import FoldMission, SummaryState
from summaries.verifier import summary_verify
from tests.factories import channel_of, dm_channel, make_office

pytestmark = pytest.mark.django_db(transaction=True)

AT = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)

# Missions 2–9 each state something the rest of the session depends on; the others are
# routine work. Values: what the summary must still hold after 60 missions.
PLANTED = {
    "en": {
        2: ("Our price is $29.99 per month.", ["$29.99"]),
        3: ("The designer is Priya Raman.", ["Priya Raman"]),
        4: (
            "The launch date is March 14 and the beta opens on February 20.",
            ["March 14", "February 20"],
        ),
        5: ("We will host on Hetzner in Falkenstein.", ["Hetzner", "Falkenstein"]),
        6: ("The waitlist has 1,240 sign-ups.", ["1,240"]),
        7: (
            "Our Korea manager is Kim Seo-yeon, and the Korea budget is ₩8,000,000.",
            ["Kim Seo-yeon", "₩8,000,000"],
        ),
        8: ("Our tagline is “Coffee that remembers you”.", ["Coffee that remembers you"]),
        9: (
            "Our Korean target customers are office workers in their 30s in Seoul.",
            ["30s", "Seoul"],
        ),
    },
    "ko": {
        2: ("가격은 월 29,900원으로 정했어요.", ["29,900원"]),
        3: ("디자이너는 박지훈 님이에요.", ["박지훈"]),
        4: ("출시일은 3월 14일이고 베타는 2월 20일에 열어요.", ["3월 14일", "2월 20일"]),
        5: ("서버는 Hetzner 팔켄슈타인 리전에 올려요.", ["Hetzner"]),
        6: ("대기자 명단은 1,240명이에요.", ["1,240명"]),
        7: ("한국 매니저는 김서연 님이고, 한국 예산은 800만 원이에요.", ["김서연", "800만 원"]),
        8: ("태그라인은 “당신을 기억하는 커피”로 할게요.", ["당신을 기억하는 커피"]),
        9: ("한국 타깃 고객은 서울의 30대 직장인이에요.", ["30대 직장인"]),
    },
}


# Plain statements, each different (no template to collapse), enough of them to overflow
# the summary budget: what must be evicted first, ahead of the planted facts.
WORDS = {
    "en": (
        "kitchen printer lobby parking badge locker shuttle coffee plant mail courier laptop "
        "monitor chair whiteboard projector heater router camera speaker cable drawer shelf",
        "blue green grey orange purple yellow silver brown black white golden pink red",
        "quarterly weekly yearly monthly spring autumn winter summer holiday safety cleaning",
        "onboarding hiring supplier travel insurance furniture catering security recycling",
    ),
    "ko": (
        "주방 프린터 로비 주차장 출입증 사물함 셔틀 커피머신 화분 우편함 택배함 노트북 모니터 "
        "의자 화이트보드 프로젝터 난방기 공유기 카메라 스피커 케이블 서랍 선반",
        "파란 초록 회색 주황 보라 노란 은색 갈색 검은 흰 금색 분홍 빨간",
        "분기 주간 연간 월간 봄 가을 겨울 여름 휴가 안전 청소",
        "온보딩 채용 협력사 출장 보험 가구 케이터링 보안 재활용",
    ),
}


def filler(language: str, n: int) -> str:
    """Routine work: every sixth a request, the others a distinct plain statement."""
    if n % 6 == 0:
        return routine(language, n)
    a, b, c, d = (words.split()[n % len(words.split())] for words in WORDS[language])
    if language == "ko":
        team = ["총무팀", "인사팀", "재무팀", "개발팀", "디자인팀", "영업팀", "운영팀"][n % 7]
        paper = ["청구서", "계약서", "견적서", "회의록", "교육자료", "설문지", "매뉴얼"][n % 7]
        return (
            f"{a} {c} 체크리스트는 {b} 폴더 안 예전 {d} 메모 옆에 있고, {team}에서 관련 "
            f"{paper} 사본도 같은 칸에 모아 두었어요. 쓰고 나면 제자리에 꽂아 주세요."
        )
    return f"The {a} checklist for the {c} review is in the {b} folder, next to the old {d} notes."


def routine(language: str, n: int) -> str:
    if language == "ko":
        return [
            f"팀 주간 업데이트 {n}편 초안을 짧게 써줘.",
            f"{n}번째 싱크 회의 메모를 세 줄로 요약해줘.",
            f"{n}번 배치의 열린 티켓을 확인하고 막힌 걸 알려줘.",
        ][n % 3]
    return [
        f"Draft the weekly update for the team, part {n}. Keep it short.",
        f"Summarise the notes from sync number {n} in three bullets.",
        f"Check the open tickets in batch {n} and tell me what is blocked.",
    ][n % 3]


def _send(channel: Channel, texts: list[str]) -> None:
    for text in texts:
        instruction_accept(channel=channel, text=text)


def _summary(channel: Channel) -> tuple[RollingSummary, SummaryState]:
    summary = RollingSummary.objects.get(session=channel.sessions.get())
    return summary, SummaryState.model_validate(summary.state)


def _assert_every_folded_mission_has_a_digest(channel: Channel, summary: RollingSummary) -> None:
    state = SummaryState.model_validate(summary.state)
    cited = {seq for session, seq in state_refs(state) if session is None}
    reasons = {d.mission: d.reason for d in state.dropped if d.session is None}
    missions = channel.sessions.get().missions.filter(seq__lte=summary.folded_through_seq)
    for mission in missions:
        assert mission.seq in cited or mission.seq in reasons, mission.seq
        if mission.seq in reasons:
            _, found, digest = reasons[mission.seq].partition("digest: ")
            assert found and 20 <= len(digest) <= 100, reasons[mission.seq]
            # A digest of what the person asked, not of the assistant's echo.
            assert digest[:15] in mission.instruction or digest[:15] in summary.text, digest


# Korean says as much in about half the characters: at 4,000 its sixty missions fit
# without evicting anything, so it runs at a budget where they do not.
@pytest.mark.parametrize(("language", "budget"), [("en", 4_000), ("ko", 2_000)])
def test_facts_of_missions_2_to_9_survive_sixty_missions(
    language: str, budget: int, settings: Any
) -> None:
    settings.FOLD_BATCH = 8
    settings.SUMMARY_BUDGET_CHARS = budget
    channel = dm_channel(make_office())
    planted = PLANTED[language]
    _send(channel, [planted[n][0] if n in planted else filler(language, n) for n in range(1, 61)])

    summary, state = _summary(channel)
    assert summary.folded_through_seq >= 48
    for n, (_, values) in planted.items():
        for value in values:
            holders = [item for _, item in state.items() if value in item.text]
            assert holders, f"#{n} {value!r} is gone:\n{summary.text}"
            assert all(n in item.missions for item in holders)
    for echo in ("Offline demo reply", "On it:", "From our earlier work", "Looking back"):
        assert echo not in summary.text
    assert len(summary.text) <= settings.SUMMARY_BUDGET_CHARS
    # The budget was tight: the routine statements made way, the planted facts did not.
    assert any(d.reason.startswith("over the summary budget") for d in state.dropped)
    _assert_every_folded_mission_has_a_digest(channel, summary)
    assert all(r.verifier_report["ok"] for r in SummaryRevision.objects.filter(summary=summary))


@pytest.mark.parametrize(
    ("language", "deadline", "value"),
    [
        ("en", "The launch deadline is March 14.", "March 14"),
        ("ko", "출시 마감일은 3월 14일이에요.", "3월 14일"),
    ],
)
@pytest.mark.slow(25)
def test_a_deadline_from_mission_3_is_in_a_section_after_120_missions_in_the_master_channel(
    language: str, deadline: str, value: str, settings: Any
) -> None:
    settings.FOLD_BATCH = 8
    channel = channel_of(make_office(), "master")
    _send(channel, [deadline if n == 3 else filler(language, n) for n in range(1, 121)])

    summary, state = _summary(channel)
    assert summary.folded_through_seq >= 104
    sections = [name for name, item in state.items() if value in item.text and 3 in item.missions]
    assert sections, summary.text
    assert any(d.reason.startswith("over the summary budget") for d in state.dropped)
    _assert_every_folded_mission_has_a_digest(channel, summary)


REVERSALS = [
    pytest.param(
        "We decided the brand color is coral.",
        "We decided to drop coral; the brand color is now teal.",
        "coral",
        "teal",
        id="en-coral-to-teal",
    ),
    pytest.param(
        "We decided to host on Fly.io.",
        "Let's switch to Hetzner for hosting instead of Fly.io.",
        "Fly.io",
        "Hetzner",
        id="en-fly-to-hetzner",
    ),
    pytest.param(
        "브랜드 색상은 코랄로 하기로 했다.",
        "브랜드 색상은 코랄 대신 틸로 변경하기로 했다.",
        "코랄로",
        "틸로",
        id="ko-coral-to-teal",
    ),
    pytest.param(
        "호스팅은 Fly.io로 하기로 했다.",
        "Fly.io 대신 Hetzner로 호스팅을 옮기기로 했다.",
        "Fly.io로",
        "Hetzner",
        id="ko-fly-to-hetzner",
    ),
]


@pytest.mark.parametrize(("first", "reversal", "old", "new"), REVERSALS)
def test_a_reversal_leaves_one_live_decision_and_retires_the_old_memory(
    first: str, reversal: str, old: str, new: str
) -> None:
    office = make_office()
    channel = dm_channel(office)
    _send(channel, [first, routine("en", 2), reversal, *(routine("en", n) for n in range(4, 13))])

    summary, state = _summary(channel)
    assert summary.folded_through_seq >= 3
    about = [d for d in state.decisions if old in d.text or new in d.text]
    live = [d for d in about if not d.superseded]
    assert [d.missions for d in live] == [[3]], summary.text
    assert new in live[0].text
    retired = [d for d in about if d.superseded]
    assert [(d.missions, d.superseded_by) for d in retired] == [([1], [3])]
    # The old decision says what replaced it (issue 43): "(superseded by #3: teal)".
    assert "(superseded by #3: " in summary.text and first.rstrip(".") in summary.text

    # Long-term memory: both decisions are the person's own words, so the reversal waits
    # for their confirmation (issue 42), then retires the old decision.
    [proposal] = MemoryProposal.objects.filter(office=office, state="pending")
    assert new in proposal.text and [old in i.text for i in proposal.replaces.all()] == [True]
    memory_proposal_confirm(proposal=proposal, user=office.owner)
    items = MemoryItem.objects.filter(office=office)
    [active] = [i for i in items if i.active and (old in i.text or new in i.text)]
    assert new in active.text and active.kind == "decision"
    [gone] = [i for i in items if not i.active]
    assert old in gone.text and gone.superseded_by_id == active.pk


def _mission(seq: int, instruction: str, reply: str = "") -> FoldMission:
    return FoldMission(id=seq, seq=seq, at=AT, instruction=instruction, reply=reply)


def _offline_reply(instruction: str, context: str = "") -> str:
    messages = [{"role": "system", "content": "You are Theo, the analyst. Be brief."}]
    if context:
        messages.append({"role": "user", "content": context})
    messages.append({"role": "user", "content": f"Mission #1\n{instruction}"})
    return "".join(OfflineProvider().stream_chat(messages=messages))


@pytest.mark.parametrize(
    ("instruction", "value"),
    [
        ("The venue is Pier 39 in San Francisco.", "Pier 39"),
        ("행사장은 부산 해운대 그랜드홀이에요.", "그랜드홀"),
    ],
)
def test_the_offline_providers_echoes_never_reach_the_summary(instruction: str, value: str) -> None:
    earlier = "## Summary of this conversation so far\nDecisions:\n- We decided X is Y [#1]"
    reply = _offline_reply(instruction, context=earlier)
    assert "From our earlier work" in reply and "On it:" in reply  # what it looks like

    state = extractive_fold(
        previous=SummaryState(), missions=[_mission(2, instruction, reply)], budget_chars=4_000
    )

    texts = [item.text for _, item in state.items()]
    assert texts == [instruction.rstrip(".")] or texts == [instruction]
    assert value in texts[0]
    assert "We decided X is Y" not in render_summary(state)


@pytest.mark.parametrize(
    ("instruction", "reply", "restated", "added"),
    [
        (
            "The launch date is March 14.",
            "Noted, the launch date is March 14. Understood, we launch on March 14 then. "
            "I also booked the venue at Pier 39 for 200 guests. Let me know if you need "
            "anything else.",
            ["Noted", "Understood", "Let me know"],
            "Pier 39",
        ),
        (
            "출시일은 3월 14일이에요.",
            "네, 출시일은 3월 14일이에요. 그럼 3월 14일 출시로 일정 잡아둘게요. "
            "행사장은 벡스코 2홀로 200명 규모 예약했어요.",
            ["네,", "일정 잡아둘게요"],
            "벡스코 2홀",
        ),
    ],
)
def test_the_persons_words_win_over_the_assistants_restatement(
    instruction: str, reply: str, restated: list[str], added: str
) -> None:
    state = extractive_fold(
        previous=SummaryState(), missions=[_mission(1, instruction, reply)], budget_chars=4_000
    )
    texts = [item.text for _, item in state.items()]
    assert instruction in texts
    assert not any(phrase in t for t in texts for phrase in restated), texts
    assert any(added in t for t in texts)  # what the reply adds is kept


@pytest.mark.parametrize(
    "template",
    [
        "Prepare the brief for Client {n} by March {n}; the budget is ${n}00.",
        "고객사 {n} 브리프를 3월 {n}일까지 준비해 주세요. 예산은 {n}00만 원이에요.",
    ],
)
def test_near_duplicate_template_sentences_collapse_into_one_item(template: str) -> None:
    missions = [_mission(n, template.format(n=n)) for n in range(1, 21)]
    state = extractive_fold(previous=SummaryState(), missions=missions, budget_chars=4_000)

    items = [(name, item) for name, item in state.items()]
    # One item per distinct sentence shape, citing the latest repetitions.
    shapes = len(template.split(". "))
    assert len(items) == shapes, render_summary(state)
    for _, item in items:
        assert item.missions == list(range(21 - MAX_CITES, 21))
        assert "20" in item.text
    cited = {seq for _, seq in state_refs(state)}
    dropped = {d.mission: d.reason for d in state.dropped}
    assert set(range(1, 21)) <= cited | set(dropped)
    assert all("digest: " in reason for reason in dropped.values())
    report = summary_verify(
        state=state,
        previous=SummaryState(),
        folded=[(None, m.seq) for m in missions],
        budget_chars=4_000,
        missions=missions,
    )
    assert report.ok, report.findings


@pytest.mark.parametrize(
    ("language", "early", "value"),
    [
        ("en", "Our price is $29.99 per month.", "$29.99"),
        ("ko", "가격은 월 29,900원이에요.", "29,900원"),
    ],
)
def test_salience_not_age_decides_what_is_evicted(language: str, early: str, value: str) -> None:
    later = [n for n in range(3, 60) if n % 6][:38]
    missions = [
        _mission(1, routine(language, 1)),  # the goal: not where the fact may hide
        _mission(2, early),
        *(_mission(n, filler(language, n)) for n in later),
    ]
    previous = SummaryState()
    for start in range(0, len(missions), 8):  # folds land in batches, as in a session
        batch = missions[start : start + 8]
        state = extractive_fold(previous=previous, missions=batch, budget_chars=700)
        report = summary_verify(
            state=state,
            previous=previous,
            folded=[(None, m.seq) for m in batch],
            budget_chars=700,
            missions=batch,
        )
        assert report.ok, report.findings
        previous = state

    assert len(render_summary(previous)) <= 700
    assert [item.missions for _, item in previous.items() if value in item.text] == [[2]]
    # The plain statements made way, not the oldest mission.
    assert any(d.reason.startswith("over the summary budget") for d in previous.dropped)


def test_a_mission_with_nothing_durable_is_still_named_by_a_digest() -> None:
    missions = [_mission(1, "Plan the offsite."), _mission(2, "오늘 회의 메모를 정리해줘.")]
    state = extractive_fold(previous=SummaryState(), missions=missions, budget_chars=4_000)
    text = render_summary(state)
    assert f"{DIGEST_PREFIX}오늘 회의 메모를 정리해줘. [#2]" in text

    tight = extractive_fold(previous=SummaryState(), missions=missions, budget_chars=60)
    assert DIGEST_PREFIX not in render_summary(tight)
    [dropped] = [d for d in tight.dropped if d.mission == 2]
    assert dropped.reason.endswith("digest: 오늘 회의 메모를 정리해줘.")


@pytest.mark.parametrize(
    ("goal", "other", "later"),
    [
        (
            "We decided the launch city is Lisbon.",
            "Task 2: prepare brief 2 for Client Alpha by May 2.",
            "Change of plan: the launch city is Porto instead.",
        ),
        (
            "원두 단가는 kg당 23,000원으로 정했어요.",
            "메뉴판 인쇄비는 15,000원이에요.",
            "원두 단가를 kg당 25,000원으로 올렸어요.",
        ),
    ],
)
def test_a_goal_is_marked_only_by_a_later_value_for_the_same_thing(
    goal: str, other: str, later: str
) -> None:
    """A later value of the same kind for another thing ("Client Alpha" is no launch
    city, a menu's printing is not the beans) replaces nothing in the goal; the later
    value for the same thing does."""
    from summaries.schemas import SummaryItem

    state = SummaryState(
        goal=goal, goal_missions=[1], facts=[SummaryItem(text=other, missions=[2])]
    )
    assert render_summary(state).splitlines()[0] == f"Goal: {goal} [#1]"

    state.facts.append(SummaryItem(text=later, missions=[3]))
    first = render_summary(state).splitlines()[0]
    assert first.startswith(f"Goal: {goal} (superseded by #3: ")
    assert first.endswith(("Porto) [#1]", "25000 KRW) [#1]"))
