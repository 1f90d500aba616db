"""Text normalised for search, the same way for what is indexed and what is asked, so
that the form of a word does not decide whether it is found (docs/design.md §3, recall).

- English (and other Latin-script words): lower-cased and stemmed (Snowball), so
  "launches", "launching" and "launch" are one term.
- Korean (`SEARCH_KOREAN_ANALYSER`):
  - "kiwi", the default: the morphological analyser kiwipiepy, whose model ships in
    the kiwipiepy-model package (nothing is downloaded). A word gives its content
    morphemes (nouns, verb and adjective stems, roots, adverbs): particles and endings
    do not matter ("예산은", "예산이" → "예산"), nor does conjugation, irregular
    verbs included ("골랐어", "고르기로" → "고르"; "옮겼다", "옮기기로" → "옮기"). Nouns
    that follow each other inside one word also give their compound ("브랜드색상" →
    "브랜드", "색상", "브랜드색상"; "요금제는" → "요금", "요금제"), so a name the
    analyser splits still matches whole. It is loaded once per process, by `warm_up()`
    when the web process or a worker starts, else on first use (≈ 1 to 2 s, ≈ 0.3 GB
    of RSS).
  - "rules": no model. One trailing particle or ending is stripped from each word
    ("담당자가" → "담당자") and every word of three syllables or more also yields its
    character bigrams (Lucene's CJK approach), so compounds and spellings the stripper
    misses still share terms. Conjugated verbs mostly do not match.
  The index holds terms of one analyser: after changing it, run
  `manage.py reindex_search`.
- Numbers are kept as they are, and every amount, date and percentage also gives its
  value as a term (language.values): "80만원" and "800,000원" share "800000", "3월 14일",
  "3/14" and "삼월 십사일" share "d0314".

`terms()` is what the search index stores (space-separated, in `normalised()`);
`query_terms()` is what a question is matched by: the same, without stop words, and with
a value asked for as its value only: not its digits ("80" of "80만원"), not its unit
("원", "%", "USD"), nor a counter right after a number ("3명", "10 hours"); a currency word
is never asked for on its own."""

import re
import threading
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import snowballstemmer
from django.conf import settings

from language.terms import COUNTERS, STOPWORDS, UNITS
from language.values import value_spans, value_terms, values_in

if TYPE_CHECKING:
    from kiwipiepy import Kiwi

# Numbers, runs of Hangul and runs of other letters are separate words ("30대" → "30",
# "대"; "3천만원" → "3", "천만원").
_TOKEN = re.compile(r"\d+|[\uac00-\ud7a3]+|[^\W\d_\uac00-\ud7a3]+", re.UNICODE)
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
MAX_QUERY_TERMS = 32
# Question words and pronouns: in a question they name nothing to look for.
_KOREAN_STOPWORDS_TEXT = """
누구 얼마 우리 이제 뭐 무엇 무슨 언제 어디 어떻게 어떤 왜 그 이 저 그리고 하지만 또 좀 다시 혹시
제 내 너 것 거 수 때 정도 관련 대해 대한 알려 말해 했 하 한 할 된 될 되 있 없 않 같
어떻 알리 말하 저희 나 그것 이것 무어 뭘 몇 대하 관하 주 보 좀더 지금 아까 그때 얼마나
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


# Morphemes a Korean word is about (kiwipiepy's Sejong tags, without the "-I"/"-R"
# irregular marks): common, proper and bound nouns, numerals, pronouns, roots, verb and
# adjective stems, adverbs, Chinese characters. Particles (J*), endings (E*), affixes,
# the copula and auxiliaries say nothing about what is asked.
_CONTENT_TAGS = frozenset({"NNG", "NNP", "NNB", "NR", "NP", "XR", "VV", "VA", "MAG", "SH"})
# What joins into a compound when it follows a noun inside one word ("요금" + "제").
_NOUN_TAGS = frozenset({"NNG", "NNP", "NNB", "NR", "XR", "XSN"})
# kiwipiepy is given at most this many chars at a time (cut at a space): its working
# memory grows with the input, and a passage or a question is far shorter.
_KIWI_CHUNK_CHARS = 2_000
# A run of Hangul longer than this is no word anyone writes (a paste without spaces, a key
# held down): kiwipiepy spends up to ≈ 0.1 ms a syllable on such a run, holding the GIL
# (measured: "가" × 2,000 in 0.2 s, 100,000 in 20 s), so it is read by the rules instead
# (its stem and its character bigrams), in time linear in it.
_KIWI_WORD_CHARS = 64

_kiwi_lock = threading.Lock()
_kiwi_instance: "Kiwi | None" = None


def analyser() -> str:
    """The Korean analyser in use (`SEARCH_KOREAN_ANALYSER`: "kiwi" or "rules")."""
    return str(getattr(settings, "SEARCH_KOREAN_ANALYSER", "kiwi"))


def _kiwi() -> "Kiwi":
    """The process's one analyser, loaded on first use (safe to share between threads:
    each call analyses on its caller's thread)."""
    global _kiwi_instance
    if _kiwi_instance is None:
        with _kiwi_lock:
            if _kiwi_instance is None:
                from kiwipiepy import Kiwi

                # No thread pool of its own (a call runs on its caller's thread); no
                # multi-word dictionary (≈ 40 % less memory, and search needs words).
                kiwi = Kiwi(num_workers=-1, load_multi_dict=False)
                # Its first analysis loads the rest of the model, holding the GIL about as
                # long again as the constructor (measured): done here, so that no text, and
                # no request beside it, waits for that.
                kiwi.tokenize("가")
                _kiwi_instance = kiwi
    return _kiwi_instance


def warm_up() -> None:
    """Load the analyser now, when a process starts serving, so that the first Korean
    text it meets does not wait for it. Loading holds the GIL for its whole second or
    two (measured): the web server does it in its warm-up, before /healthz says it is
    ready (config/warmup.py), and a worker before its first task. Nothing to do with the
    "rules" analyser."""
    if analyser() == "kiwi":
        _kiwi()


def _chunks(text: str) -> Iterator[tuple[int, str]]:
    start = 0
    while start < len(text):
        end = len(text)
        if end - start > _KIWI_CHUNK_CHARS:
            cut = text.rfind(" ", start + _KIWI_CHUNK_CHARS // 2, start + _KIWI_CHUNK_CHARS)
            end = cut + 1 if cut > 0 else start + _KIWI_CHUNK_CHARS
        yield start, text[start:end]
        start = end


def _morphemes(text: str) -> Iterator[tuple[int, int, str, str]]:
    """(start, end, form, tag) of each morpheme of the text, offsets into the text."""
    kiwi = _kiwi()
    for offset, chunk in _chunks(text):
        token: Any
        for token in kiwi.tokenize(chunk):
            start = offset + token.start
            yield start, start + token.len, token.form, token.tag.split("-")[0]


def _kiwi_words(text: str, spans: list[tuple[int, int]]) -> list[list[str]]:
    """The terms of each Hangul word of the text (`spans`, in order), from one analysis
    of the whole text (context decides how an ambiguous word is read)."""
    found: list[list[str]] = [[] for _ in spans]
    nouns: list[list[tuple[int, int, str]]] = [[] for _ in spans]
    index = 0
    for start, end, form, tag in _morphemes(text):
        while index < len(spans) and start >= spans[index][1]:
            index += 1
        if index == len(spans):
            break
        if start < spans[index][0]:
            continue
        if tag in _CONTENT_TAGS:
            found[index].append(form)
        if tag in _NOUN_TAGS:
            nouns[index].append((start, end, form))
    for index, run in enumerate(nouns):
        # Nouns that touch each other make one compound ("브랜드" + "색상"); a noun or a
        # compound of three syllables or more also gives its character bigrams, so that
        # "담당자" still meets "담당" and a name read two ways meets itself.
        group: list[tuple[int, int, str]] = []
        for piece in [*run, (-1, -1, "")]:
            if group and piece[0] != group[-1][1]:
                whole = "".join(form for _, _, form in group)
                if len(group) > 1:
                    found[index].append(whole)
                if len(whole) >= 3:
                    found[index] += [whole[i : i + 2] for i in range(len(whole) - 1)]
                group = []
            if piece[2]:
                group.append(piece)
    return [list(dict.fromkeys(words)) for words in found]


@lru_cache(maxsize=50_000)
def _rules_korean(word: str) -> tuple[str, ...]:
    stem = _korean_stem(word)
    out = [stem]
    if len(stem) >= 3:
        out += [stem[i : i + 2] for i in range(len(stem) - 1)]
    return tuple(dict.fromkeys(out))


@lru_cache(maxsize=50_000)
def _other_word(word: str) -> str:
    return word if word.isdigit() else str(_stemmer.stemWord(word))


def _words(text: str) -> Iterator[tuple[str, list[str]]]:
    """Each word of the (lower-cased) text with its normalised terms."""
    for match, found in _tokens(text):
        yield match.group(), found


def _tokens(text: str) -> Iterator[tuple[re.Match[str], list[str]]]:
    """Each word of the (lower-cased) text, where it stands, with its normalised terms."""
    matches = list(_TOKEN.finditer(text))
    korean: list[list[str]] = []
    if analyser() == "kiwi":
        spans = [m.span() for m in matches if _kiwi_reads(m.group())]
        if spans:
            long_runs = [m.span() for m in matches if len(m.group()) > _KIWI_WORD_CHARS]
            korean = _kiwi_words(_blanked(text, long_runs), spans)
    next_korean = iter(korean)
    for match in matches:
        word = match.group()
        if not _HANGUL.match(word):
            yield match, [_other_word(word)]
        elif korean and _kiwi_reads(word):
            yield match, next(next_korean)
        else:
            yield match, list(_rules_korean(word))


def _kiwi_reads(word: str) -> bool:
    return len(word) <= _KIWI_WORD_CHARS and _HANGUL.match(word) is not None


def is_noun(word: str) -> bool:
    """Whether the Korean analyser reads a Hangul word as nouns only: "광고", "로고" and
    "창고" are, "가고" and "올리고" (a verb and its ending) are not. Never with the "rules"
    analyser, which cannot tell."""
    return _is_noun(analyser(), word)


@lru_cache(maxsize=20_000)
def _is_noun(analyser_in_use: str, word: str) -> bool:
    if analyser_in_use != "kiwi" or not _kiwi_reads(word):
        return False
    tags = [token.tag for token in _kiwi().tokenize(word)]
    return bool(tags) and all(tag.startswith(("NN", "NR", "XSN")) for tag in tags)


# Connective endings after which a Korean sentence goes on with another clause: reason,
# sequence, background, contrast ("늦어져서", "금요일이라서", "보내는데", "좋지만").
_CLAUSE_ENDINGS = frozenset(
    ["어서", "아서", "라서", "서", "니까", "으니까", "는데", "ᆫ데", "은데", "지만"]
)


def ends_a_clause(word: str) -> bool:
    """Whether a Hangul word ends its clause with a connective ending (the analyser's last
    morpheme: "늦어져서" is 늦 + 어 + 지 + 어서), not a noun that ends alike ("보고서").
    Never with the "rules" analyser."""
    return _ends_a_clause(analyser(), word)


@lru_cache(maxsize=20_000)
def _ends_a_clause(analyser_in_use: str, word: str) -> bool:
    if analyser_in_use != "kiwi" or not _kiwi_reads(word):
        return False
    tokens = _kiwi().tokenize(word)
    return bool(tokens) and tokens[-1].tag == "EC" and tokens[-1].form in _CLAUSE_ENDINGS


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with the spans written as spaces (offsets kept)."""
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces += [text[last:start], " " * (end - start)]
        last = end
    return "".join(pieces) + text[last:]


def terms(text: str) -> list[str]:
    """Every normalised term of the text, in order (repeats kept: they weigh in ranking)."""
    return [term for _, found in _words(text.lower()) for term in found] + value_terms(text)


def normalised(text: str) -> str:
    """The text as the search index stores it."""
    return " ".join(terms(text))


def query_terms(text: str) -> list[str]:
    """Distinct normalised terms a question is matched by: no stop words, no one-letter
    Latin words, at most MAX_QUERY_TERMS. Remembered per text (the summary's items are
    matched against every instruction until the next fold)."""
    return list(_query_terms(analyser(), text))


# PostgreSQL's full-text search keeps no word longer than this many bytes in its index,
# and refuses one in a query ("word is too long in tsquery"): such a term matches nothing
# anywhere and is not asked for (a run of 100K chars without spaces is one word).
MAX_TERM_BYTES = 2_047


def _askable(term: str) -> bool:
    return len(term) * 4 <= MAX_TERM_BYTES or len(term.encode()) <= MAX_TERM_BYTES


# Units as the index holds them: English ones stemmed, as every English word is.
_UNIT_TERMS = frozenset(UNITS | {_other_word(u) for u in UNITS})
_COUNTER_TERMS = frozenset(COUNTERS | {_other_word(c) for c in COUNTERS})


@lru_cache(maxsize=4_096)
def _query_terms(analyser_in_use: str, text: str) -> tuple[str, ...]:
    # A value the question names is the most precise thing it asks for: its terms first.
    seen: dict[str, None] = dict.fromkeys(
        t for t in value_terms(text[:_KIWI_CHUNK_CHARS]) if _askable(t)
    )
    lowered = text[:_KIWI_CHUNK_CHARS].lower()
    # A value is asked for as a value: the digits and units it is written with are not
    # words of the question ("80만원" asks for 800000, never for "80" or "원"), nor is a
    # counter right after a number ("3명", "10 hours"), nor a currency anywhere.
    in_value = bytearray(len(lowered) + 1)
    value_ends: set[int] = set()
    for start, end in value_spans(lowered):
        in_value[start:end] = b"\x01" * (end - start)
        value_ends.add(end)
    for match, found in _tokens(lowered):
        word, start, end = match.group(), match.start(), match.end()
        if word in STOPWORDS or (len(word) < 2 and word.isascii() and not word.isdigit()):
            continue
        if in_value[start] and in_value[end - 1]:
            continue
        by_a_value = (
            in_value[start]
            or in_value[end - 1]
            or start in value_ends
            or (start - 1 in value_ends and lowered[start - 1].isspace())
        )
        for term in found:
            if term in STOPWORDS or term in KOREAN_STOPWORDS or not _askable(term):
                continue
            if term in _UNIT_TERMS or (by_a_value and term in _COUNTER_TERMS):
                continue
            seen.setdefault(term, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return tuple(seen)[:MAX_QUERY_TERMS]


# What a question asks for when it asks for a number, an amount, a size or a date: its
# answer is a line that states one (the extractive fold and recall weigh such lines more).
# By kind, so that a line stating a value of the kind asked for ranks among the hits even
# when it shares no word with the question ("AV 장비 견적이 얼마였죠?" is answered by
# "업체가 이틀에 294만 원 달래요").
_ASKS_FOR = {
    "amount": r"\bhow much\b|\b(?:cost|costs|price|priced|budget|quote|quoted|fee|fees)\b"
    r"|얼마|비용|가격|예산|견적|금액",
    "count": r"\bhow (?:many|much|big|large|long|old|far|often|soon)\b|\bwhat(?:'s| is)? (?:the )?"
    r"(?:size|number|headcount)\b|\bsize of\b|\bnumber of\b|\bheadcount\b"
    r"|몇(?! ?[월일%])|얼마나|크기|규모",
    "date": r"\bwhen\b|\bwhat (?:date|day|year|month)\b|\bwhich (?:date|day)\b|\bdeadline\b"
    r"|\bdue\b|언제|며칠|몇 ?[월일]|날짜|기한",
    "percent": r"\bpercent(?:age)?\b|\bwhat (?:share|rate)\b|퍼센트|비율|몇 ?%",
    "any": r"\bwhat time\b|몇 ?시",
    "person": r"\bwho(?:'s|m|se)?\b|누구|누가",
}
_ASKS_FOR_KIND = {kind: re.compile(pattern, re.IGNORECASE) for kind, pattern in _ASKS_FOR.items()}
_STATES_A_VALUE = re.compile(r"\d")


def asked_values(question: str) -> frozenset[str]:
    """The kinds of value a question asks for: "amount" (of money), "count" (a number or a
    size), "date", "percent", "any" (a time: any number), or "person" (a name)."""
    return frozenset(k for k, pattern in _ASKS_FOR_KIND.items() if pattern.search(question))


def asks_for_value(question: str) -> bool:
    """Whether the question asks for a number, an amount, a size or a date."""
    return bool(asked_values(question))


def states_a_value(text: str) -> bool:
    """Whether the text states a number (digits: amounts, counts, dates, times)."""
    return _STATES_A_VALUE.search(text) is not None


def value_fit(text: str, kinds: frozenset[str]) -> float:
    """How well the text states a value of one of `kinds` (see `asked_values`): 1 for a sum
    of money in a currency, a date or a percentage asked for; 0.5 for a plain number or a
    time (a count asked for, or "any"), the commonest and least telling; 0 for none."""
    if not kinds or (not states_a_value(text) and not _has_hangul_numeral_date(text)):
        return 0.0
    fit = 0.5 if "any" in kinds else 0.0
    for value in values_in(text):
        if value.kind == "amount":
            if value.unit and "amount" in kinds:
                return 1.0
            if not value.unit and "count" in kinds:
                fit = 0.5
        elif value.kind in kinds:
            return 1.0
    return fit


def _has_hangul_numeral_date(text: str) -> bool:
    return "월" in text and "일" in text
