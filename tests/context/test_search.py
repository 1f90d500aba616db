"""Ranking a channel's history (context/search.py): each query term brings at most its
newest TERM_MATCHES matches into the ranking, so its cost does not grow with the history;
a term rarer than that brings every match, however old, and every term still weighs in
the score. In English and Korean (particles and word forms do not matter)."""

import pytest

from context import search
from context.loading import recall_candidates
from context.models import Passage
from context.search import rank_passages
from sessions.models import ChatSession
from sessions.services import session_get_or_open_current
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
