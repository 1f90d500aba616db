"""Recall and memory by meaning (docs/design.md §3; docs/meaning.md): a question in other
words than the fact, or in the other language, brings the passage or the memory item that
answers it, beside a near-miss that shares the question's words; with the meaning layer
off (`MEANING_MODEL=off`) only the words decide, and the paraphrase is missed."""

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from context import dense
from context.models import Passage, PassageVector
from context.vectors import memory_embed, passages_embed, vectors_sweep
from language import meaning
from memory.models import MemoryVector
from memory.services import memory_item_create, memory_item_edit, memory_target
from sessions.services import session_get_or_open_current
from tests.factories import add_finished_missions, dm_channel, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)


def _filler(n: int) -> tuple[str, str]:
    return (
        f"작업 {n}: 온보딩 화면 문구를 검토해 주세요. Review the onboarding copy, part {n}.",
        f"검토 {n} 결과입니다. 문장을 짧게 다듬고 버튼 문구를 통일했습니다. "
        f"Shortened the sentences and unified the button labels of part {n}. " * 12,
    )


# (the fact's mission, a near-miss that shares the question's words, the question, what
# only the fact says)
Case = tuple[tuple[str, str], tuple[str, str], str, str]
_CASES: list[tuple[str, Case]] = [
    (
        "ko",
        (
            (
                "원두 납품 일정 정리해 주세요. 원두 납품은 매주 화요일 오전에 들어옵니다.",
                "네, 화요일 오전 납품으로 정리했습니다.",
            ),
            (
                "배송 포장재 단가가 이번 달부터 올랐어요. 정리해 주세요.",
                "포장재 인상분을 정리했습니다.",
            ),
            "커피콩은 언제 배송돼요?",
            "화요일 오전",
        ),
    ),
    (
        "en",
        (
            (
                "Headlines are set in Inter and body copy in Source Serif, per the brand guide.",
                "Noted the fonts.",
            ),
            ("We use the old title slide template for decks.", "Noted, the old template."),
            "What typeface do we use for titles?",
            "Source Serif",
        ),
    ),
    (
        "ko→en",
        (
            (
                "Note the photo shoot budget: the fee agreed with Mira is $1,800 for a half day.",
                "Noted: $1,800 for the half-day shoot.",
            ),
            ("촬영 장소는 성수동 스튜디오로 잡았어요.", "성수동 스튜디오로 예약했습니다."),
            "촬영 비용이 얼마예요?",
            "1,800",
        ),
    ),
]
CASES = [pytest.param(*case, id=ident) for ident, case in _CASES]


def _session_with(fact: tuple[str, str], near_miss: tuple[str, str]):
    session = session_get_or_open_current(channel=dm_channel(make_office()))

    def text(n: int) -> tuple[str, str]:
        if n == 3:
            return fact
        if n == 6:
            return near_miss
        return _filler(n)

    add_finished_missions(session, 30, text=text)
    vectors_sweep()
    return session


def _recall(session, question: str) -> str:
    return next_context(channel=session.channel, instruction=question).section("recall").text


@pytest.mark.parametrize(("fact", "near_miss", "question", "answer"), CASES)
def test_a_paraphrased_question_recalls_the_fact_beside_a_near_miss(
    fact: tuple[str, str], near_miss: tuple[str, str], question: str, answer: str
) -> None:
    session = _session_with(fact, near_miss)
    recall = next_context(channel=session.channel, instruction=question).section("recall")
    assert answer in recall.text
    assert recall.chars <= recall.budget  # type: ignore[operator]


@pytest.mark.parametrize(("fact", "near_miss", "question", "answer"), CASES)
def test_off_the_words_alone_miss_the_paraphrase(
    fact: tuple[str, str],
    near_miss: tuple[str, str],
    question: str,
    answer: str,
    settings: Any,
) -> None:
    session = _session_with(fact, near_miss)
    settings.MEANING_MODEL = "off"
    recall = next_context(channel=session.channel, instruction=question).section("recall")
    assert answer not in recall.text


def test_passages_without_vectors_are_ranked_by_their_terms() -> None:
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    fact, _, question, answer = _CASES[0][1]
    add_finished_missions(session, 30, text=lambda n: fact if n == 3 else _filler(n))
    PassageVector.objects.all().delete()
    # Nothing embedded yet: the question in other words finds nothing, and nothing fails.
    assert answer not in _recall(session, question)
    # The term ranking still works for a question in the fact's words.
    assert answer in _recall(session, "원두 납품은 언제?")
    assert passages_embed() == Passage.objects.count()
    assert answer in _recall(session, question)


def test_finished_missions_are_embedded_in_the_background_lane() -> None:
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, 3)
    # The index task queued the embedding after the passages' commit (inline in tests).
    embedded = set(PassageVector.objects.values_list("passage_id", flat=True))
    assert embedded == set(Passage.objects.values_list("id", flat=True))
    assert set(PassageVector.objects.values_list("model", flat=True)) == {meaning.model_name()}
    assert passages_embed() == 0  # each passage once


def test_a_memory_item_in_other_words_is_ranked_for_the_instruction() -> None:
    office = make_office()
    session = session_get_or_open_current(channel=dm_channel(office))
    target = memory_target(office=office, scope="office")
    for text in [
        "매장 월세 계약 만료일은 내년 3월 말이에요.",
        "가게 간판 조명 교체는 다음 달에 해요.",
        "The shop sign's lights end up flickering at night.",
        "Our bookkeeping software renewal is due in May.",
        "The team lunch is on Thursdays.",
    ]:
        memory_item_create(target=target, kind="fact", text=text, origin="user")
    memory_embed()
    # In English, of a Korean item, with no word in common; the near-miss shares "shop".
    memory = next_context(
        channel=session.channel, instruction="When does our shop lease end?"
    ).section("memory")
    assert "3월 말" in memory.text


def test_off_a_memory_item_in_other_words_is_not_shown(settings: Any) -> None:
    office = make_office()
    session = session_get_or_open_current(channel=dm_channel(office))
    target = memory_target(office=office, scope="office")
    memory_item_create(
        target=target, kind="fact", text="매장 월세 계약 만료일은 내년 3월 말이에요.", origin="user"
    )
    memory_embed()
    settings.MEANING_MODEL = "off"
    memory = next_context(
        channel=session.channel, instruction="When does our shop lease end?"
    ).section("memory")
    assert "3월 말" not in memory.text


def test_an_edited_item_is_embedded_again_and_ranked_by_its_new_words() -> None:
    office = make_office()
    session = session_get_or_open_current(channel=dm_channel(office))
    target = memory_target(office=office, scope="office")
    item = memory_item_create(
        target=target, kind="fact", text="The team lunch is on Thursdays.", origin="user"
    )
    memory_item_create(
        target=target, kind="fact", text="Invoices go out on the 1st.", origin="user"
    )
    memory_embed()
    before = MemoryVector.objects.get(item=item).vector
    memory_item_edit(item=item, text="Mira is our photographer; her fee is $1,800.")
    memory_embed()
    assert bytes(MemoryVector.objects.get(item=item).vector) != bytes(before)
    memory = next_context(
        channel=session.channel, instruction="Who takes the pictures for us?"
    ).section("memory")
    assert "Mira" in memory.text


def _kept(channel_id: int) -> set[int]:
    """The passages whose vectors this process keeps for the channel."""
    return {
        int(i)
        for key, scope in dense._scopes.items()
        if key[1] == "context_passagevector" and key[3] == channel_id
        for i in scope.ids
    }


def test_a_process_keeps_a_channels_vectors_and_reads_only_what_changed() -> None:
    fact, near_miss, question, _ = _CASES[1][1]
    session = _session_with(fact, near_miss)
    channel = session.channel
    next_context(channel=channel, instruction=question)
    assert _kept(channel.pk) == set(PassageVector.objects.values_list("passage_id", flat=True))
    with CaptureQueriesContext(connection) as queries:
        next_context(channel=channel, instruction=question)
    assert sum("context_passagevector" in q["sql"] for q in queries) == 1
    # A new mission's passages are read by the next assembly, alone.
    add_finished_missions(
        session, 1, text=lambda n: ("Mira also shoots the spring video.", "Noted.")
    )
    next_context(channel=channel, instruction=question)
    assert _kept(channel.pk) == set(PassageVector.objects.values_list("passage_id", flat=True))
    # A passage that went (its mission indexed again) is not kept: the channel is read again.
    gone = Passage.objects.filter(channel=channel).order_by("id").first()
    assert gone is not None
    gone.delete()
    next_context(channel=channel, instruction=question)
    assert gone.pk not in _kept(channel.pk)
    assert _kept(channel.pk) == set(PassageVector.objects.values_list("passage_id", flat=True))
