"""Ranking a channel's history (context/search.py): each query term brings at most its
newest TERM_MATCHES matches into the ranking, so its cost does not grow with the history;
a term rarer than that brings every match, however old, and every term still weighs in
the score. In English and Korean (particles and word forms do not matter)."""

from typing import Any

import pytest
from django.db import connection
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext

from context import loading, search
from context.loading import recall_candidates
from context.models import Passage
from context.search import Candidates, candidate_fragments, rank_memory_items, rank_passages
from language.analysis import query_terms
from memory.models import MemoryKind, MemoryOrigin, MemoryScope
from memory.selectors import memory_in_scope, memory_rankable
from memory.services import memory_item_create, memory_target
from sessions.models import ChatSession
from sessions.services import session_get_or_open_current, session_start_new
from summaries.schemas import SummaryState
from tests.factories import add_finished_missions, dm_channel, make_office

pytestmark = pytest.mark.django_db(transaction=True)

POOL = 3  # TERM_MATCHES for these tests: a few missions show what many would

# Per language: a word many missions share, a second one, a rare one, and questions that
# name them in other forms.
WORDS = {
    "en": {
        "common": "Checked the harbour schedule again.",
        "other": "Walked the piers with the crew.",
        "both": "Checked the harbour and walked the piers.",
        "rare": "The quokka mascot is approved.",
        "rare_and_common": "The quokka mascot is approved for the harbour.",
        "ask_common_other": "What about the harbours and the pier?",
        "ask_rare_common": "Is the quokkas' mascot ready for the harbours?",
        "ask_common": "Anything new on the harbours?",
        "neutral": "Sent the weekly report to the board.",
    },
    "ko": {
        "common": "항구 일정을 다시 확인했습니다.",
        "other": "부두를 직원들과 함께 점검했습니다.",
        "both": "항구를 확인하고 부두도 점검했습니다.",
        "rare": "쿼카 마스코트가 승인되었습니다.",
        "rare_and_common": "쿼카 마스코트를 항구 행사에 쓰기로 승인했습니다.",
        "ask_common_other": "항구와 부두는 어떻게 됐어?",
        "ask_rare_common": "쿼카는 항구에서 쓸 수 있어?",
        "ask_common": "항구는 어때?",
        "neutral": "주간 보고서를 이사회에 보냈습니다.",
    },
}


@pytest.fixture(autouse=True)
def _small_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "TERM_MATCHES", POOL)
    # Each test counts its channels' term statistics afresh.
    monkeypatch.setattr(search, "_STATS", {})


def _history(instructions: list[str]) -> ChatSession:
    """One finished mission per instruction (seq 1, 2, …), one passage each."""
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, len(instructions), text=lambda n: (instructions[n - 1], "OK."))
    return session


def _ranked_seqs(session: ChatSession, question: str) -> list[int]:
    ids = rank_passages(
        candidates=recall_candidates(
            channel_id=session.channel_id,
            session_id=session.pk,
            window_start=session.mission_count + 1,
        ),
        text=question,
        limit=50,
        channel_id=session.channel_id,
    )
    seq = dict(Passage.objects.filter(pk__in=ids).values_list("id", "seq"))
    return [seq[i] for i in ids]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_rare_terms_oldest_passage_is_ranked_and_common_terms_still_weigh(lang: str) -> None:
    words = WORDS[lang]
    # #1 holds the rare word and the common one, #2 the rare word only; the common word
    # then holds in more passages than its pool takes (#1 is not among its newest), and
    # missions about other things follow (BM25 gives a word in half the passages no weight).
    session = _history(
        [words["rare_and_common"], words["rare"]]
        + [words["common"]] * (POOL + 2)
        + [words["neutral"]] * (POOL + 6)
    )
    ranked = _ranked_seqs(session, words["ask_rare_common"])
    assert ranked[:2] == [1, 2]
    # The common word brought only its newest matches.
    assert sorted(ranked[2:]) == list(range(5, POOL + 5))  # #3…#(POOL + 4) hold it


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_two_frequent_words_do_not_outrank_one_rare_word(lang: str) -> None:
    words = WORDS[lang]
    # #1 holds the rare word only; thirty later missions hold both frequent words. Each
    # term's pool holds few matches (POOL), so only a weight over the whole channel knows
    # how frequent the two words are: counted over the pool alone, the two outweigh it.
    session = _history([words["rare"]] + [words["both"]] * 30)
    question = {"en": "Is the quokka at the harbour pier?", "ko": "쿼카는 항구와 부두에 있어?"}
    ranked = _ranked_seqs(session, question[lang])
    assert ranked[0] == 1
    assert sorted(ranked[1:]) == list(range(31 - POOL + 1, 32))


@pytest.mark.postgres
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_channels_term_statistics_are_counted_once_until_it_grows(lang: str) -> None:
    words = WORDS[lang]
    session = _history([words["rare"]] + [words["both"]] * 10)

    def statements(question: str) -> list[str]:
        with CaptureQueriesContext(connection) as queries:
            _ranked_seqs(session, question)
        return [q["sql"] for q in queries if "pool" in q["sql"]]

    passages = 'SELECT count(*) FROM "context_passage"'  # the channel's
    holding = 'SELECT count(*) FROM (SELECT 1 FROM "context_passage"'  # holding a term
    first = statements(words["ask_rare_common"])[0]
    assert passages in first and holding in first
    # The same terms again: nothing is counted; a new term is counted, alone.
    again = statements(words["ask_rare_common"])[0]
    assert passages not in again and holding not in again
    new_term = statements(words["ask_common_other"])[0]
    assert passages not in new_term and new_term.count(holding) == 1
    # A tenth more passages in the channel: counted again.
    add_finished_missions(session, 2, text=lambda n: (words["neutral"], "OK."))
    assert passages in statements(words["ask_rare_common"])[0]


@pytest.mark.postgres
def test_a_channels_ranking_is_planned_for_its_terms_not_prepared() -> None:
    # A prepared statement gets one generic plan after a few runs, whatever its terms:
    # the channel's ranking is sent unprepared every time; other statements still are.
    words = WORDS["en"]
    session = _history([words["rare"]] + [words["both"]] * 4)
    db = connection.connection
    threshold = db.prepare_threshold
    for _ in range(6):
        _ranked_seqs(session, words["ask_rare_common"])
    assert db.prepare_threshold == threshold
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    # The channel's BM25 statement (its lengths' average, "avgdl"); the ranking among a
    # few candidates (evidence, search) may be prepared, and earlier tests on this
    # connection do prepare it.
    assert not [sql for sql in prepared if "WITH pool" in sql and "avgdl" in sql]
    if threshold is not None:
        assert any("context_passage" in sql for sql in prepared)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_term_in_more_passages_than_its_pool_brings_only_its_newest(lang: str) -> None:
    words = WORDS[lang]
    # #1 holds both words of the question; each word then holds in POOL newer passages,
    # so #1 is among neither word's newest POOL matches: it is not ranked at all.
    session = _history([words["both"]] + [words["common"]] * POOL + [words["other"]] * POOL)
    ranked = _ranked_seqs(session, words["ask_common_other"])
    assert sorted(ranked) == list(range(2, 2 * POOL + 2))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_another_channels_newer_matches_do_not_crowd_a_channels_own(lang: str) -> None:
    words = WORDS[lang]
    session = _history([words["common"], words["common"]])
    other = session_get_or_open_current(channel=dm_channel(session.channel.office, "Iris"))
    add_finished_missions(other, POOL + 3, text=lambda n: (words["common"], "OK."))
    assert _ranked_seqs(session, words["ask_common"]) == [2, 1]
    assert sorted(_ranked_seqs(other, words["ask_common"])) == list(range(4, POOL + 4))


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("history", [False, True])
def test_the_compiled_recall_candidates_rank_what_the_queryset_ranks(
    lang: str, history: bool, settings: Any
) -> None:
    settings.COMPILED_QUERIES = True
    words = WORDS[lang]
    earlier = _history([words["rare"], words["common"], words["neutral"]])
    # A new session of the same channel: its own missions and the last one's.
    session = session_start_new(channel=earlier.channel, expected_session_id=earlier.pk)
    add_finished_missions(
        session,
        4,
        text=lambda n: (
            [words["both"], words["other"], words["rare_and_common"], words["neutral"]][n - 1],
            "OK.",
        ),
    )
    for window_start in (1, 3, 5):
        queryset = loading._recall_passages(
            history, channel_id=session.channel_id, session_id=session.pk, window_start=window_start
        )
        bound = loading._RECALL(
            history,
            channel_id=session.channel_id,
            session_id=session.pk,
            window_start=window_start,
        )
        assert bound == candidate_fragments(queryset)
        for question in (words["ask_rare_common"], words["ask_common_other"]):
            through: dict[str, QuerySet[Passage] | Candidates] = {
                "queryset": queryset,
                "compiled": Candidates.of(bound),
            }
            ranked = {
                name: rank_passages(
                    candidates=candidates, text=question, limit=50, channel_id=session.channel_id
                )
                for name, candidates in through.items()
            }
            assert ranked["compiled"] == ranked["queryset"]
            assert ranked["compiled"]  # the question finds something


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_compiled_memory_candidates_rank_what_the_queryset_ranks(
    lang: str, settings: Any
) -> None:
    settings.COMPILED_QUERIES = True
    office = make_office()
    channel = dm_channel(office)
    employee = channel.employee
    assert employee is not None
    other_channel = office.channels.exclude(pk=channel.pk).first()
    assert other_channel is not None
    words = WORDS[lang]
    targets = [
        (words["rare"], memory_target(office=office, scope=MemoryScope.OFFICE)),
        (
            words["common"],
            memory_target(office=office, scope=MemoryScope.EMPLOYEE, employee=employee),
        ),
        (words["both"], memory_target(office=office, scope=MemoryScope.CHANNEL, channel=channel)),
        (
            words["rare_and_common"],
            memory_target(office=office, scope=MemoryScope.CHANNEL, channel=other_channel),
        ),
    ]
    items = [
        memory_item_create(target=target, kind=MemoryKind.FACT, text=text, origin=MemoryOrigin.USER)
        for text, target in targets
    ]
    queryset = memory_rankable(
        memory_in_scope(office_id=office.pk, employee_id=employee.pk, channel_id=channel.pk)
    )
    bound = loading._RANKABLE_MEMORY(
        office_id=office.pk, employee_id=employee.pk, channel_id=channel.pk
    )
    assert bound == candidate_fragments(queryset)
    question = words["ask_rare_common"]
    ranked = rank_memory_items(candidates=Candidates.of(bound), text=question, limit=10)
    assert ranked == rank_memory_items(candidates=queryset, text=question, limit=10)
    # Every item in scope that shares a word; the other channel's is not this mission's.
    assert sorted(ranked) == sorted(item.pk for item in items[:3])


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("history", [False, True])
def test_the_loaders_recall_ranks_what_the_candidates_queryset_ranks(
    lang: str, history: bool, settings: Any
) -> None:
    # The term ranking alone (the meaning layer fuses its own: tests/context/
    # test_recall_meaning.py).
    settings.MEANING_MODEL = "off"
    # context_load's recall (loading._recall_load) ranks the candidates the detail window
    # leaves it, and brings the hits back first, in their order (neighbours after them).
    words = WORDS[lang]
    earlier = _history([words["rare"], words["common"], words["neutral"]])
    # A new session of the same channel: its own missions and the last one's.
    session = session_start_new(channel=earlier.channel, expected_session_id=earlier.pk)
    add_finished_missions(
        session,
        4,
        text=lambda n: (
            [words["both"], words["other"], words["rare_and_common"], words["neutral"]][n - 1],
            "OK.",
        ),
    )
    for window_start in (1, 3, 5):
        queryset = recall_candidates(
            channel_id=session.channel_id, session_id=session.pk, window_start=window_start
        )
        if history:
            queryset = queryset.exclude(session_id=session.pk)
        for question in (words["ask_rare_common"], words["ask_common_other"]):
            ranked = rank_passages(
                candidates=queryset, text=question, limit=50, channel_id=session.channel_id
            )
            assert ranked  # the question finds something
            pinned, recalled, _ = loading._recall_load(
                instruction=question,
                terms=query_terms(question),
                state=SummaryState(),
                session=session,
                channel=session.channel,
                history=history,
                recall_start=window_start,
            )
            assert pinned == []
            assert [p.id for p in recalled][: len(ranked)] == ranked


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_loaders_memory_ranks_what_the_candidates_queryset_ranks(lang: str) -> None:
    office = make_office()
    channel = dm_channel(office)
    employee = channel.employee
    assert employee is not None
    other_channel = office.channels.exclude(pk=channel.pk).first()
    assert other_channel is not None
    words = WORDS[lang]
    targets = [
        (words["rare"], memory_target(office=office, scope=MemoryScope.OFFICE)),
        (
            words["common"],
            memory_target(office=office, scope=MemoryScope.EMPLOYEE, employee=employee),
        ),
        (words["both"], memory_target(office=office, scope=MemoryScope.CHANNEL, channel=channel)),
        (
            words["rare_and_common"],
            memory_target(office=office, scope=MemoryScope.CHANNEL, channel=other_channel),
        ),
    ]
    items = [
        memory_item_create(target=target, kind=MemoryKind.FACT, text=text, origin=MemoryOrigin.USER)
        for text, target in targets
    ]
    queryset = memory_rankable(
        memory_in_scope(office_id=office.pk, employee_id=employee.pk, channel_id=channel.pk)
    )
    question = words["ask_rare_common"]
    ranked = rank_memory_items(candidates=queryset, text=question, limit=10)
    _, loaded = loading._memory_load(
        office=office,
        employee=employee,
        channel=channel,
        instruction=question,
        terms=query_terms(question),
    )
    assert [item.pk for item in loaded] == ranked
    # Every item in scope that shares a word; the other channel's is not this mission's.
    assert sorted(ranked) == sorted(item.pk for item in items[:3])
