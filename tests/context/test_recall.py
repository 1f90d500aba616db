"""Recall v2 (docs/design.md §3): passages of every mission outside the detail window, matched
on normalised text (Korean particles and English word forms do not matter), within what
the envelope leaves; nothing is ever invisible."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from context.loading import RECALL_SHORT_HIT, _with_neighbours
from context.models import Passage
from memory.services import memory_item_create, memory_target
from missions.intake import mission_create
from missions.models import Mission, MissionSource, MissionStatus
from sessions.services import session_get_or_open_current, session_start_new
from summaries import tasks
from summaries.models import RollingSummary
from summaries.services import summary_sweep_lagging
from tests.factories import add_finished_missions, dm_channel, long_text, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

KOREAN_FACTS = {
    2: (
        "이번 분기 마케팅 예산은 3천만 원으로 확정했습니다. 담당자는 김민지 팀장입니다.",
        "네, 예산 3천만 원과 담당자 김민지 팀장으로 정리했습니다.",
    ),
    3: (
        "우리 타깃 고객은 30대 직장인입니다. 출시일은 3월 14일로 잡았어요.",
        "알겠습니다. 타깃 고객 30대 직장인, 출시일 3월 14일로 기록했습니다.",
    ),
}


def _korean(n: int) -> tuple[str, str]:
    if n in KOREAN_FACTS:
        return KOREAN_FACTS[n]
    return (
        f"작업 {n}: 온보딩 화면의 문구를 검토하고 개선안을 정리해 주세요.",
        f"작업 {n} 검토 결과입니다. " + "문장을 짧게 다듬고 버튼 문구를 통일했습니다. " * 70,
    )


def _session():
    return session_get_or_open_current(channel=dm_channel(make_office()))


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("예산은 얼마로 정했지?", "3천만 원"),  # the words of the fact
        ("예산이 얼마였지?", "3천만 원"),  # another particle
        ("담당자가 누구야?", "김민지"),
        ("타깃이 누구였더라?", "30대 직장인"),
        ("고객이 누구였지?", "30대 직장인"),
    ],
)
def test_a_korean_question_finds_its_fact_whatever_the_particles(
    question: str, answer: str
) -> None:
    session = _session()
    add_finished_missions(session, 40, text=_korean)
    recall = next_context(channel=session.channel, instruction=question).section("recall")
    assert answer in recall.text
    assert recall.chars <= recall.budget  # type: ignore[operator]


def test_an_english_question_finds_a_fact_in_other_word_forms() -> None:
    session = _session()

    def text(n: int) -> tuple[str, str]:
        if n == 2:
            return ("Pricing: the Pro plan costs $29 per month, billed yearly.", "Noted.")
        return long_text(n)

    add_finished_missions(session, 30, text=text)
    recall = next_context(
        channel=session.channel, instruction="What price did we set for the Pro plans?"
    ).section("recall")
    assert "$29" in recall.text
    assert 2 in recall.mission_seqs


def test_recall_quotes_the_passage_that_matches_not_the_start_of_the_mission() -> None:
    session = _session()
    filler = "We walked through the onboarding copy line by line and agreed on tone. " * 30

    def text(n: int) -> tuple[str, str]:
        if n == 2:
            return ("Review the pricing page draft.", filler + "\n\nFinal: the Pro plan is $29.")
        return long_text(n)

    add_finished_missions(session, 30, text=text)
    assert len(Mission.objects.get(session=session, seq=2).reply) > 2_000
    recall = next_context(channel=session.channel, instruction="How much is the Pro plan?").section(
        "recall"
    )
    assert "Final: the Pro plan is $29." in recall.text


def test_a_mission_named_by_its_number_is_recalled_first() -> None:
    session = _session()
    add_finished_missions(session, 30, text=long_text)
    context = next_context(channel=session.channel, instruction="Go back to #7 please")
    recall = context.section("recall")
    assert recall.mission_seqs[0] == 7
    assert "Mission 7: draft section 7" in recall.text


def test_recall_gets_what_the_envelope_leaves_and_the_total_stays_within_it() -> None:
    session = _session()

    def text(n: int) -> tuple[str, str]:
        return (f"Offsite planning note {n}: the venue shortlist.", "Venue note. " * 300)

    add_finished_missions(session, 40, text=text)
    context = next_context(channel=session.channel, instruction="Which venue shortlist?")
    recall = context.section("recall")
    assert recall.budget is not None and recall.budget > settings.RECALL_BUDGET_CHARS
    assert recall.chars > settings.RECALL_BUDGET_CHARS
    assert context.total_chars <= settings.CONTEXT_BUDGET_CHARS["dm"]


def test_no_mission_is_invisible_behind_one_stuck_running(monkeypatch: pytest.MonkeyPatch) -> None:
    session = _session()
    add_finished_missions(session, 4, text=long_text)
    stuck, _ = mission_create(
        session=session,
        assignee=session.channel.employee,
        source=MissionSource.DM,
        instruction="A reply that never ends",
    )
    Mission.objects.filter(pk=stuck.pk).update(status=MissionStatus.RUNNING)
    add_finished_missions(session, 30, text=long_text)
    context = next_context(channel=session.channel, instruction="Where are we?")
    summary = RollingSummary.objects.filter(session=session).first()
    folded = set(context.section("summary").mission_seqs) if summary else set()
    shown = folded | {
        seq
        for name in ("recent", "pending", "recall")
        for seq in context.section(name).mission_seqs
    }
    finished = set(
        Mission.objects.filter(session=session, status=MissionStatus.DONE).values_list(
            "seq", flat=True
        )
    )
    assert finished <= shown, sorted(finished - shown)
    assert context.section("pending").chars <= settings.PENDING_BUDGET_CHARS


def test_while_a_session_fits_the_prompt_is_never_dearer_than_its_history() -> None:
    session = _session()
    add_finished_missions(session, 25)  # short missions: the whole session fits
    context = next_context(channel=session.channel, instruction="Summarise where we are")
    missions = Mission.objects.filter(session=session)
    history = sum(len(m.instruction) + len(m.reply) for m in missions)
    overhead = context.section("system").chars + context.section("current").chars
    per_mission = 120  # a header and quoting per mission
    assert context.total_chars <= history + overhead + per_mission * missions.count()
    assert context.section("summary").text == ""  # nothing repeated
    shown = set(context.section("recent").mission_seqs) | set(
        context.section("recall").mission_seqs
    )
    assert shown == set(range(1, 26))


def test_the_report_names_the_missions_the_summary_cites() -> None:
    session = _session()
    add_finished_missions(session, 20, text=long_text)
    summary = next_context(channel=session.channel, instruction="next").section("summary")
    assert summary.text
    assert set(summary.mission_seqs) == set(range(1, 13))
    assert all(f"#{seq}" in summary.mission_refs for seq in summary.mission_seqs)


def test_a_lost_carry_over_is_queued_again_by_the_sweeper(monkeypatch: pytest.MonkeyPatch) -> None:
    session = _session()
    add_finished_missions(session, 10, text=long_text)
    with monkeypatch.context() as patch:
        patch.setattr(tasks.summary_carry_over, "delay_on_commit", lambda *a, **k: None)
        new = session_start_new(channel=session.channel, expected_session_id=session.pk)
    summary = RollingSummary.objects.get(session=new)
    assert summary.carry_over_pending
    assert summary_sweep_lagging() == 0  # too early to call it lost
    RollingSummary.objects.filter(pk=summary.pk).update(
        updated_at=timezone.now() - timedelta(minutes=10)
    )
    summary_sweep_lagging()  # runs the carry-over inline in tests
    summary.refresh_from_db()
    assert not summary.carry_over_pending and summary.version == 1


@pytest.mark.parametrize(
    ("fact", "question"),
    [
        ("우리 마케팅 예산은 3천만 원으로 정했다", "예산이 얼마였지?"),
        ("담당자는 김민지 팀장이다", "담당자가 누구야?"),
        (
            "Our designers prefer teal accents on every launch page",
            "Which accent does the designer prefer?",
        ),
    ],
)
def test_long_term_memory_is_ranked_on_normalised_text(fact: str, question: str) -> None:
    office = make_office()
    target = memory_target(office=office, scope="office")
    memory_item_create(target=target, kind="fact", text=fact, origin="user")
    for n in range(5):
        memory_item_create(
            target=target,
            kind="fact",
            text=f"Office plant {n} is watered on Fridays",
            origin="user",
        )
    memory = next_context(channel=dm_channel(office), instruction=question).section("memory")
    assert fact in memory.text
    assert "Office plant" not in memory.text


@pytest.mark.parametrize("language", ["en", "ko"])
def test_only_a_hit_too_short_to_stand_alone_brings_the_passage_after_it(language: str) -> None:
    # A one-line question is a passage of its own (the answer after it is too long to join
    # it), the answer the passage after it. A hit long enough to read alone brings no
    # neighbour: recall's room goes to other hits.
    question = {"en": "Where did the swag boxes end up?", "ko": "기념품 상자는 어디로 갔어요?"}
    answer = {
        "en": "They are in Room 4B, the key is at reception. " * 17,
        "ko": "4B호실에 있어요, 열쇠는 안내데스크에 있어요. " * 29,
    }
    later = {
        "en": "Printing takes a week, so we order the signs early. " * 14,
        "ko": "인쇄는 일주일 걸려서 안내판은 미리 주문해요. " * 25,
    }
    session = _session()
    add_finished_missions(
        session,
        1,
        text=lambda n: (question[language], answer[language] + "\n\n" + later[language]),
    )
    passages = list(Passage.objects.filter(session=session).order_by("position"))
    assert len(passages) >= 3 and len(passages[0].text) < RECALL_SHORT_HIT
    assert all(len(p.text) >= RECALL_SHORT_HIT for p in passages[1:])

    short = _with_neighbours([passages[0].pk])
    assert [p.id for p in short] == [passages[0].pk, passages[1].pk]
    long = _with_neighbours([passages[1].pk])
    assert [p.id for p in long] == [passages[1].pk]
