"""Search normalisation (language.analysis): the same terms for a fact and for the
question that asks about it, whatever the particles, endings and conjugation (Korean)
or word forms (English); stored terms rewritten when the analyser changes."""

import os
import subprocess
import sys
import threading

import pytest
from django.core.management import call_command
from django.test import override_settings

from context.models import Passage
from language import analysis
from language.analysis import normalised, query_terms, terms
from memory.models import MemoryItem
from memory.services import memory_item_create, memory_target
from sessions.services import session_get_or_open_current
from tests.factories import add_finished_missions, dm_channel, make_office, next_context


@pytest.mark.parametrize(
    ("fact", "question", "shared"),
    [
        # particles
        ("예산은 3천만 원입니다", "예산이 얼마였지?", "예산"),
        ("담당자는 김민지 팀장입니다", "담당자가 누구야?", "담당자"),
        # conjugation, irregular verbs included
        ("디자이너는 박서준으로 골랐습니다", "디자이너를 누구로 고르기로 했지?", "고르"),
        ("사무실을 판교로 옮겼어요", "사무실은 어디로 옮기기로 했어?", "옮기"),
        ("브랜드 색상을 틸로 바꿨다", "색상은 뭘로 바꾸기로 했지?", "바꾸"),
        ("출시일은 3월 14일로 정했습니다", "출시일을 언제로 정하기로 했더라?", "정하"),
        # a compound written as one word and as two
        ("브랜드색상은 틸입니다", "브랜드 색상이 뭐였지?", "색상"),
        # a name the analyser splits when a particle follows it
        ("카피는 김민지로 맡겼어요", "김민지가 맡은 일이 뭐야?", "김민지"),
    ],
)
def test_a_korean_question_shares_the_facts_terms(fact: str, question: str, shared: str) -> None:
    assert shared in terms(fact)
    assert shared in query_terms(question)


def test_question_words_and_endings_are_not_terms() -> None:
    asked = query_terms("예산은 얼마였지? 누가 언제 어떻게 알려줬어?")
    assert asked == ["예산"]


def test_english_words_are_stemmed_inside_korean_text_as_outside() -> None:
    # The amount also gives its value as one term ("29p99": the index splits on "." and "_").
    assert terms("Pro plans는 월 $29.99입니다") == ["pro", "plan", "월", "29", "99", "29p99"]
    assert terms("The Pro plans cost $29.99") == ["the", "pro", "plan", "cost", "29", "99", "29p99"]


def test_a_long_text_is_analysed_whole_across_its_pieces() -> None:
    filler = "온보딩 화면의 문구를 검토하고 개선안을 정리했습니다. " * 200  # ≈ 6,000 chars
    found = terms(filler + "마지막으로 사무실을 판교로 옮겼어요.")
    assert len(filler) > 2 * analysis._KIWI_CHUNK_CHARS
    assert found.count("화면") == found.count("문구") == found.count("검토") == 200
    assert found[-5:] == ["사무실", "사무", "무실", "판교", "옮기"]


def test_threads_share_one_analyser_and_get_what_one_thread_gets() -> None:
    texts = [f"작업 {n}: 디자이너는 박서준으로 골랐고 예산은 {n}천만 원입니다." for n in range(80)]
    expected = [terms(text) for text in texts]
    got: list[list[str]] = [[] for _ in texts]

    def work(part: range) -> None:
        for n in part:
            got[n] = terms(texts[n])

    threads = [threading.Thread(target=work, args=(range(k, 80, 8),)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == expected


@override_settings(SEARCH_KOREAN_ANALYSER="rules")
def test_the_rules_analyser_strips_particles_without_a_model() -> None:
    assert terms("담당자가") == ["담당자", "담당", "당자"]
    assert "예산" in query_terms("예산이 얼마였지?")
    assert terms("사무실을 판교로 옮겼어요")[:3] == ["사무실", "사무", "무실"]


def _moved_office(n: int) -> tuple[str, str]:
    """Forty long missions about the office; the second one says where it moved."""
    work = "사무실 청소 일정과 비품 목록을 확인하고 정리했습니다. " * 40
    if n == 2:
        return ("사무실 이전 건 정리해 주세요.", work + "\n\n결론: 사무실을 판교로 옮겼습니다.")
    return (f"작업 {n}: 사무실 비품 점검 결과를 정리해 주세요.", work)


@pytest.mark.django_db(transaction=True)
def test_recall_finds_a_fact_asked_about_in_another_conjugation() -> None:
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, 40, text=_moved_office)
    recall = next_context(
        channel=session.channel, instruction="사무실은 어디로 옮기기로 했지?"
    ).section("recall")
    assert "판교로 옮겼습니다" in recall.text
    assert recall.mission_seqs[0] == 2


@pytest.mark.django_db(transaction=True)
def test_reindex_search_rewrites_what_another_analyser_stored() -> None:
    office = make_office()
    with override_settings(SEARCH_KOREAN_ANALYSER="rules"):
        session = session_get_or_open_current(channel=dm_channel(office))
        add_finished_missions(session, 40, text=_moved_office)
        memory_item_create(
            target=memory_target(office=office, scope="office"),
            kind="fact",
            text="사무실을 판교로 옮겼다",
            origin="user",
        )
    stale = Passage.objects.filter(text__contains="판교").get()
    assert "옮기" not in stale.terms.split()
    english = memory_item_create(
        target=memory_target(office=office, scope="office"),
        kind="fact",
        text="We moved to Pangyo",
        origin="user",
    )
    MemoryItem.objects.filter(pk=english.pk).update(terms="hand written")

    call_command("reindex_search", stdout=open("/dev/null", "w"))  # noqa: SIM115

    assert Passage.objects.get(pk=stale.pk).terms == normalised(stale.text)
    item = MemoryItem.objects.get(text="사무실을 판교로 옮겼다")
    assert item.terms.split() == ["사무실", "사무", "무실", "판교", "옮기"]
    assert MemoryItem.objects.get(pk=english.pk).terms == "hand written"  # no Hangul: not read
    recall = next_context(
        channel=session.channel, instruction="사무실은 어디로 옮기기로 했지?"
    ).section("recall")
    assert "판교로 옮겼습니다" in recall.text


@pytest.mark.parametrize(("setting", "loaded"), [("kiwi", "True"), ("rules", "False")])
def test_the_web_process_loads_the_analyser_before_it_serves(setting: str, loaded: str) -> None:
    # Loading holds the GIL for a second or two: done by the served process's warm-up
    # (config/warmup.py), before /healthz says ready, never later beside the running event
    # loop on a first Korean mission, and never by a mere import of the ASGI app.
    probe = (
        "import config.asgi; from language import analysis; "
        "print(analysis._kiwi_instance is not None); "
        'from config import warmup; dict(warmup.STEPS)["analysers"](); '
        "print(analysis._kiwi_instance is not None)"
    )
    env = {**os.environ, "SEARCH_KOREAN_ANALYSER": setting, "TASK_RUNNER": "inline"}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-2:] == ["False", loaded]


@pytest.mark.parametrize(
    ("long_word", "kept"),
    [("ㅋ" * 600, True), ("ㅋ" * 700, False), ("a" * 1_990, True), ("뷁" * 1_000, False)],
)
def test_a_term_no_full_text_index_could_hold_is_not_asked_for(long_word: str, kept: bool) -> None:
    """PostgreSQL keeps no word over 2,047 bytes in its index and refuses one in a query:
    a run without spaces that long (a Hangul syllable is 3 bytes) is not asked for, and the
    question's other words still are."""
    terms_asked = query_terms(f"예산 budget {long_word}")
    assert (long_word in terms_asked) is kept
    assert "예산" in terms_asked and "budget" in terms_asked
    assert all(len(t.encode()) <= 2_047 for t in terms_asked)


@pytest.mark.parametrize(
    ("question", "asked", "never"),
    [
        ("80만원 든 게 뭐였지?", {"800000"}, {"80", "원", "만원", "만"}),
        ("29,900원짜리 구독", {"29900", "구독"}, {"29", "900", "원"}),
        ("3명이 온다는 그 회의", {"3", "회의"}, {"명"}),
        ("예산 5 퍼센트", {"pct5", "예산"}, {"퍼센트", "5"}),
        ("What cost $800?", {"800", "cost"}, {"usd", "dollar"}),
        ("the 800 dollars quote", {"800", "quot"}, {"dollar"}),
        ("10 hours of work", {"10", "work"}, {"hour"}),
        ("원 단위로 반올림", {"단위", "반올림"}, {"원"}),
    ],
)
def test_a_question_asks_for_a_value_never_for_its_unit_or_digits_alone(
    question: str, asked: set[str], never: set[str]
) -> None:
    terms = set(query_terms(question))
    assert asked <= terms, terms
    assert not never & terms, terms


def test_a_counter_word_away_from_a_number_is_still_a_word() -> None:
    assert "hour" in query_terms("office hours for the launch")
    assert "시간" in query_terms("시간 관리 요령")
    assert "시간" not in query_terms("3시간 걸린 회의")
