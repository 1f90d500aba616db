"""Text normalised for search, the same way for what is indexed and what is asked, so
that the form of a word does not decide whether it is found (DESIGN.md §3, recall).

- English (and other Latin-script words): lower-cased and stemmed (Snowball), so
  "launches", "launching" and "launch" are one term.
- Korean: particles and endings are stripped from each word ("예산은", "예산이",
  "예산을" → "예산"; "담당자가" → "담당자"), and every word also yields its character
  bigrams ("브랜드색상" → "브랜", "랜드", "드색", "색상"), Lucene's CJK approach, so
  compounds and spellings the stripper misses still share terms. No model is loaded:
  a morphological analyser (kiwipiepy) costs ≈ 0.4 GB of RSS per process; measured on
  the retention benchmark, this recalls the planted facts as well (README, Benchmarks).
- Numbers are kept as they are.

`terms()` is what the search index stores (space-separated, in `normalised()`);
`query_terms()` is what a question is matched by: the same, without stop words."""

import re
from functools import lru_cache

import snowballstemmer

from language.terms import STOPWORDS

# Numbers, runs of Hangul and runs of other letters are separate words ("30대" → "30",
# "대"; "3천만원" → "3", "천만원").
_TOKEN = re.compile(r"\d+|[\uac00-\ud7a3]+|[^\W\d_\uac00-\ud7a3]+", re.UNICODE)
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
MAX_QUERY_TERMS = 32
# Question words and pronouns: in a question they name nothing to look for.
_KOREAN_STOPWORDS_TEXT = """
누구 얼마 우리 이제 뭐 무엇 무슨 언제 어디 어떻게 어떤 왜 그 이 저 그리고 하지만 또 좀 다시 혹시
제 내 너 것 거 수 때 정도 관련 대해 대한 알려 말해 했 하 한 할 된 될 되 있 없 않 같
"""
KOREAN_STOPWORDS = frozenset(_KOREAN_STOPWORDS_TEXT.split())

# Particles (josa), the copula and common endings: what follows a Korean noun or verb
# stem and changes nothing about what a sentence is about. Longest are tried first.
_KOREAN_SUFFIXES_TEXT = """
은 는 이 가 을 를 의 에 에서 에게 께 께서 한테 으로 로 와 과 랑 이랑 하고 도 만 까지 부터
보다 처럼 마다 조차 이나 나 이며 며 에는 에서는 으로는 로는 과는 와는 에도 에서도 으로도
로도 이라고 라고 이라는 라는 이란 란
이다 다 이에요 예요 입니다 니다 이야 야 였다 이었다 였어 이었어 였지 이었지 였나 이었나 인가
인가요 일까 이지 지 이죠 죠 이고 고 인데 인지 이면 면 였더라 이었더라 더라
하다 한다 했다 합니다 했습니다 해요 했어요 하기로 하기 하는 해서 하면 할 한 했던 하자 해줘
해주세요 되다 된다 됐다 되었다 됩니다 되는 된 될 했어 했지 하지 해 했 요 습니다
"""
_KOREAN_SUFFIXES = sorted(set(_KOREAN_SUFFIXES_TEXT.split()), key=len, reverse=True)
_stemmer = snowballstemmer.stemmer("english")


def _korean_stem(word: str) -> str:
    """The word without one trailing particle or ending (at least one syllable kept)."""
    for suffix in _KOREAN_SUFFIXES:
        if len(word) > len(suffix) and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=50_000)
def _word_terms(word: str) -> tuple[str, ...]:
    if _HANGUL.match(word):
        stem = _korean_stem(word)
        out = [stem]
        if len(stem) >= 3:
            out += [stem[i : i + 2] for i in range(len(stem) - 1)]
        return tuple(dict.fromkeys(out))
    if word.isdigit():
        return (word,)
    return (str(_stemmer.stemWord(word)),)


def terms(text: str) -> list[str]:
    """Every normalised term of the text, in order (repeats kept: they weigh in ranking)."""
    out: list[str] = []
    for word in _TOKEN.findall(text.lower()):
        out.extend(_word_terms(word))
    return out


def normalised(text: str) -> str:
    """The text as the search index stores it."""
    return " ".join(terms(text))


def query_terms(text: str) -> list[str]:
    """Distinct normalised terms a question is matched by: no stop words, no one-letter
    Latin words, at most MAX_QUERY_TERMS."""
    seen: dict[str, None] = {}
    for word in _TOKEN.findall(text.lower()):
        if word in STOPWORDS or (len(word) < 2 and word.isascii() and not word.isdigit()):
            continue
        for term in _word_terms(word):
            if term in STOPWORDS or term in KOREAN_STOPWORDS:
                continue
            seen.setdefault(term, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)[:MAX_QUERY_TERMS]
