"""What a statement says, in Korean and English: its sentences, its normalised form, its
subject ("<subject> is <value>", "<주어>은/는 …"), the words naming its topic, the values
it carries (numbers, names, addresses), whether it is a question, and whether it reverses
or replaces something said before. Shared by folding, the verifier and long-term memory,
so a contradiction means the same thing everywhere."""

import math
import re
from collections.abc import Callable
from functools import lru_cache, wraps
from typing import TypeVar

from language.material import (
    before_set_apart_block,
    introduces_material,
    reported_speech,
    without_material,
)
from language.values import MONTH_NAMES, Value, values_in

# The readers below are pure functions of one sentence, and a prompt's reversal marks
# compare every recalled sentence with every later reversal (language/supersession.py,
# context/superseded.py): the same sentences are read again and again. Each keeps the
# readings of its last few thousand short texts; a long text (a pasted document) is read
# afresh, so that the caches never hold big strings.
MEMO_ENTRIES = 8_192
MEMO_MAX_CHARS = 2_000

_T = TypeVar("_T")


def _memo(function: Callable[[str], _T]) -> Callable[[str], _T]:
    cached = lru_cache(maxsize=MEMO_ENTRIES)(function)

    @wraps(function)
    def read(text: str) -> _T:
        return cached(text) if len(text) <= MEMO_MAX_CHARS else function(text)

    return read


_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "today",
    "tomorrow",
    "yesterday",
]
_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "our",
        "we",
        "us",
        "i",
        "you",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "to",
        "of",
        "for",
        "on",
        "in",
        "at",
        "by",
        "with",
        "and",
        "or",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "let",
        "let's",
        "lets",
        "go",
        "going",
        "decided",
        "decide",
        "decision",
        "agreed",
        "agree",
        "chose",
        "choose",
        "chosen",
        "approve",
        "approved",
        "final",
        "finally",
        "instead",
        "actually",
        "rather",
        "switch",
        "switched",
        "change",
        "changed",
        "now",
        "no",
        "longer",
        "not",
        "new",
        "old",
        "use",
        "using",
        "keep",
        "drop",
        "dropped",
        "has",
        "have",
        "had",
        "from",
        "than",
    ]
)
# Korean words that carry no topic: pronouns, connectives, and the vocabulary of deciding
# and changing (as stems: the endings that follow them vary).
_KO_FILLER = frozenset(
    [
        "우리",
        "저희",
        "나",
        "저",
        "제",
        "내",
        "너",
        "이제",
        "앞으로",
        "그리고",
        "그럼",
        "그래서",
        "참고로",
        "결국",
        "최종적으로",
        "이번",
        "이번에",
        "다시",
        "새로",
        "새",
        "일단",
        "또",
        "혹시",
        "사실",
        "지금",
        "오늘",
        "내일",
        "이",
        "그",
        "저것",
        "것",
        "거",
    ]
)
_KO_DECISION_STEMS = (
    "변경",
    "결정",
    "확정",
    "대신",
    "하기로",
    "하기",
    "했다",
    "했어",
    "했음",
    "합니다",
    "했습니다",
    "하자",
    "바꾸",
    "바꿔",
    "바꿨",
    "바꾼",
    "바뀌",
    "정했",
    "정하",
    "취소",
    "철회",
    "옮기",
    "옮겨",
    "전환",
    "교체",
    "말고",
    "아니라",
    "아니고",
    "기억해",
    "항상",
    "절대",
    "반드시",
)
# Particles and copula endings, longest first, stripped from the end of a Hangul word.
_KO_SUFFIXES = tuple(
    sorted(
        [
            "에서는",
            "으로는",
            "에게는",
            "한테는",
            "까지는",
            "부터는",
            "이라는",
            "이라고",
            "이에요",
            "입니다",
            "이었다",
            "이었어",
            "에서",
            "에게",
            "한테",
            "으로",
            "까지",
            "부터",
            "처럼",
            "보다",
            "라는",
            "라고",
            "이랑",
            "예요",
            "이야",
            "이다",
            "이고",
            "이며",
            "였다",
            "였어",
            "에는",
            "로는",
            "와",
            "과",
            "은",
            "는",
            "이",
            "가",
            "을",
            "를",
            "의",
            "에",
            "로",
            "도",
            "만",
            "랑",
            "야",
        ],
        key=len,
        reverse=True,
    )
)
_HANGUL = re.compile(r"[가-힣]")
_WORD = re.compile(r"[\w'’-]+")

_REVERSAL = re.compile(
    r"\b(instead|no longer|switch(?:ed|ing)? (?:to|from)|chang(?:e|ed|ing)|rather than|"
    r"actually|scrap(?:ped)?|cancel(?:led|ed)?|revers(?:e|ed)|replac(?:e|ed|ing)|"
    r"move[sd]? (?:it )?to|postpone[sd]?|not anymore|drop(?:s|ped|ping)?|ditch(?:ed)?|"
    r"(?:is|are) now|no more)\b"
    r"|대신|변경|바꾸|바꿔|바꿨|바꾼|바뀌|바뀐|취소|철회|번복|교체|전환|옮기|옮겨|이전하|"
    r"더 이상|말고|아니라|아니고|(?:으로|로) 수정|연기|미루|미뤄|뒤집",
    re.IGNORECASE,
)
# Words of changing, not of what is changed ("move", "off", "instead"): never a new value.
_REVERSAL_WORDS = frozenset(
    [
        "instead",
        "longer",
        "switch",
        "switched",
        "switching",
        "change",
        "changed",
        "changing",
        "rather",
        "actually",
        "scrap",
        "scrapped",
        "cancel",
        "cancelled",
        "canceled",
        "reverse",
        "reversed",
        "replace",
        "replaced",
        "replacing",
        "move",
        "moved",
        "moves",
        "moving",
        "postpone",
        "postponed",
        "drop",
        "dropped",
        "dropping",
        "ditch",
        "ditched",
        "now",
        "more",
        "off",
        "away",
        "out",
        "stop",
        "stopped",
        "take",
        "taking",
        "took",
        "pull",
        "pulled",
        "shift",
        "shifted",
        "anymore",
        "we'll",
        "we're",
        "let's",
    ]
)
# "must be", "has to be" state a value as "is" does: "The launch date must be March 21".
_COPULA = re.compile(
    r"^(.{2,60}?)\s+(?:is|are|will be|should be|must be|has to be|have to be|needs? to be|"
    r"stays|remains|=)\s",
    re.IGNORECASE,
)
# "We're raising the monthly ads budget to $1,000", "let's push the launch to Friday": a
# change of a named thing to a value names its subject as "<subject> is <value>" does.
_CHANGED_TO = re.compile(
    r"^(?:we(?:'re| are|'ll| will)?\s+|i(?:'m| am|'ll| will)?\s+)?(?:going to\s+)?"
    r"(?:rais|lower|cut|increas|reduc|bump|push|mov|chang|set|extend|shift|drop)\w*\s+"
    r"(?:the|our)\s+(?P<s>[\w'’ -]{2,40}?)\s+(?:(?:up|down|back)\s+)?(?:from\s+\S+\s+)?to\s+"
    r"(?=\S*\d|(?-i:[A-Z])|(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"^(?:(?:so|ok(?:ay)?|note|also|and|but|update|fyi|please note|change of plan),?:?\s+)*"
    r"(?:(?:we(?:'ve| have)? (?:decided|agreed)(?: that| to)?|let'?s|we(?:'ll| will) go with|"
    r"i think|remember(?: that)?|the final|final(?:ly)?,?)\s+)?",
    re.IGNORECASE,
)
_DETERMINERS = frozenset(
    ["the", "our", "a", "an", "my", "your", "their", "its", "this", "that", "new", "current"]
)
_NOT_A_SUBJECT = frozenset(
    [
        *("it", "this", "that", "there", "here", "he", "she", "they", "we", "i", "you"),
        *("what", "which", "who", "how", "why", "where", "when"),
        *("everything", "nothing", "something"),
    ]
)
# A dash clause starts where its whitespace does (the lookbehind): tried from every space of
# a long run of spaces, the pattern would read the rest of the run each time.
_CLAUSES = re.compile(r";\s*|(?<!\s)\s+[—–-]\s+|,\s+(?:and|but)\s+|\.\s+")
_KO_VERB_STEM_ENDS = ("하", "되", "있", "없", "않", "같", "좋", "많", "적", "작", "높", "낮")
# Last syllables of a word that is not a bare noun (a particle, an ending, an adnominal).
_KO_NOT_BARE = tuple("운된던될의에로와과도만서고며면은는을를이가한인할")
_KO_ADVERBIAL_TOPIC = ("에는", "에서는", "으로는", "로는", "까지는", "부터는", "에게는", "한테는")
_KO_PRONOUN_SUBJECTS = frozenset(
    ["내가", "제가", "네가", "우리가", "저희가", "우리는", "저는", "나는", "저희는", "우리도"]
)


# --- sentences ---------------------------------------------------------------------------

# Possessive, and only from the first mark of a run: "....x" is no boundary however it is
# split, so trying every shorter run of marks again only costs time (quadratic in the run).
_BOUNDARY = re.compile(r"(?<![.!?。？！])[.!?。？！]++[\"'”’)\]]*+(?=\s|$)|\n+")
_ABBREVIATIONS = frozenset(
    [
        *("e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "inc", "ltd", "co"),
        *("no", "approx", "st", "jr", "sr", "fig", "cf", "al"),
    ]
)


_LAST_WORD_CHARS = 64


def split_sentences(text: str) -> list[str]:
    """Sentences of a text, without breaking "$29.99", "7.5%", "jane.doe@example.com",
    "https://x.io/a.b", "Fly.io" or "e.g." apart."""
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        if match.group().startswith(".") and match.end() < len(text):
            # Only the last word counts, and no abbreviation is this long: reading from
            # `start` each time would be quadratic in a run of abbreviations ("e.g. e.g.").
            before = text[max(start, match.start() - _LAST_WORD_CHARS) : match.start()].split()
            last = before[-1].lower() if before else ""
            if (
                last in _ABBREVIATIONS
                or re.fullmatch(r"[a-z]", last)
                or re.fullmatch(r"(?:[a-z]\.)+[a-z]", last)
            ):
                continue
        sentences.append(text[start : match.end()])
        start = match.end()
    sentences.append(text[start:])
    return [s.strip() for s in sentences if s.strip()]


_EN_QUESTION_START = re.compile(
    r"^(?:(?:what|when|where|who|whom|whose|why|how|which)\b.*\b(?:is|are|was|were|do|does|"
    r"did|can|could|should|would|will|much|many)\b"
    r"|(?:do|does|did|can|could|should|would|will|is|are|am|was|were)\s+(?:you|we|i|it|they|"
    r"he|she|our|the|this|that|there)\b)",
    re.IGNORECASE,
)
_KO_QUESTION_END = re.compile(r"(?:까요|나요|가요|습니까|니까|을까|ㄹ까|는지|냐|니|할까|될까)$")
_KO_QUESTION_WORD = re.compile(r"얼마|언제|어디|누구|무엇|뭐|뭘|어떻게|어떤|왜|몇|어느")


def is_question(sentence: str) -> bool:
    """Whether a sentence asks rather than states ("What is our price?", "가격이 얼마지")."""
    text = sentence.strip().rstrip(".!~ ")
    if text.endswith(("?", "？")):
        return True
    if _EN_QUESTION_START.match(text):
        return True
    if _KO_QUESTION_END.search(text):
        return True
    return bool(_KO_QUESTION_WORD.search(text)) and text.endswith(("지", "요", "야", "죠", "래"))


# --- words -------------------------------------------------------------------------------


@_memo
def normalize(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _strip_korean(word: str) -> str:
    """A Hangul word without its particle or copula ending ("색상은" → "색상")."""
    if not _HANGUL.search(word[-1:]):
        # A foreign word with a Korean particle: "Hetzner로", "Fly.io에서".
        return word
    for suffix in _KO_SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix):
            if suffix == "가" and len(word) == 2:
                return word  # 단가, 휴가, 평가: the 가 is part of the noun
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> list[str]:
    """The words of a text, lower-cased, Korean particles and endings stripped: the unit of
    comparison for values and topics ("코랄로" and "코랄" are the same word)."""
    return list(_content_words(text))


@_memo
def _content_words(text: str) -> tuple[str, ...]:
    words: list[str] = []
    for token in re.findall(r"\w+", text.lower()):
        match = re.match(r"^([a-z0-9_]+)([가-힣]+)$", token)
        if match:  # "hetzner로": the foreign word and a particle
            words.append(match.group(1))
            continue
        words.append(_strip_korean(token) if _HANGUL.search(token) else token)
    return tuple(words)


# How long a rule holds, not what it is about: two rules that both say "always" share
# no topic ("Always use Stripe for payments", "Always send reports in French").
_STANDING_WORDS = frozenset(["always", "never", "ever", "forever", "whenever"])


def topic_words(text: str) -> set[str]:
    """The words naming what a statement is about: no values (numbers, dates, proper
    names), no decision or reversal vocabulary, no Korean particles."""
    words: set[str] = set()
    for position, word in enumerate(_WORD.findall(text)):
        lowered = word.lower()
        if lowered in _FILLER or lowered in _STANDING_WORDS:
            continue
        if lowered in _MONTHS or any(ch.isdigit() for ch in word):
            continue
        foreign = re.match(r"^([a-z0-9_]+)[가-힣]+$", lowered)
        if foreign:  # "Hetzner로": a name with a particle, a value
            continue
        if _HANGUL.search(word):
            stem = _strip_korean(lowered)
            if stem in _KO_FILLER or stem.startswith(_KO_DECISION_STEMS) or len(stem) < 2:
                continue
            words.add(stem)
            continue
        if position > 0 and word[:1].isupper():
            continue
        if len(lowered) < 3:
            continue
        words.add(lowered)
    return words


# --- subjects ----------------------------------------------------------------------------


# "Cream for the gift set box", "Navy for our packaging": a value for a named thing.
_VALUE_FOR = re.compile(
    r"^(?:let'?s\s+(?:do|go with|use)\s+)?[\w'’ -]{2,30}?\s+for\s+(?:the|our)\s+"
    r"(?P<s>[\w'’ -]{2,40}?)(?:\s+instead(?:\s+of\s+.+)?)?$",
    re.IGNORECASE,
)


def _english_subject(clause: str) -> str:
    stripped = _LEAD_IN.sub("", clause.strip(" \t-*•\"'“”"), count=1)
    match = _COPULA.match(stripped) or _CHANGED_TO.match(stripped)
    if not match:
        value_for = _VALUE_FOR.match(stripped.rstrip(".!"))
        if value_for and len(stripped.split()) <= 10:
            return normalize(value_for.group("s"))
        return ""
    words = [w for w in re.findall(r"[\w'’]+", match.group(1).lower())]
    while words and words[0] in _DETERMINERS:
        words = words[1:]
    if not words or len(words) > 6 or " ".join(words) in _NOT_A_SUBJECT:
        return ""
    return " ".join(words)


def _korean_subject(clause: str) -> str:
    """The noun phrase marked as topic (은/는), else as subject or object (이/가/을/를),
    with up to two bare nouns before it: "브랜드 색상은 틸로 변경" → "브랜드 색상"."""
    words = [w.strip(".,!?~:;\"'“”()") for w in clause.split()]
    for particles in (("은", "는"), ("이", "가", "을", "를")):
        for index, word in enumerate(words):
            if not word or not _HANGUL.search(word[-1]) or not word.endswith(particles):
                continue
            if word.endswith(_KO_ADVERBIAL_TOPIC) or word in _KO_PRONOUN_SUBJECTS:
                continue
            if word.endswith("가") and len(word) == 2:
                continue
            stem = word[:-1]
            if not stem or stem in _KO_FILLER or stem.endswith(_KO_VERB_STEM_ENDS):
                continue
            phrase = [stem]
            for before in reversed(words[max(0, index - 2) : index]):
                noun_in_ga = len(before) == 2 and before.endswith("가")  # 휴가, 단가
                if (
                    not before
                    or before in _KO_FILLER
                    or (before.endswith(_KO_NOT_BARE) and not noun_in_ga)
                    or not re.fullmatch(r"[\w]+", before)
                ):
                    break
                phrase.insert(0, before)
            return normalize(" ".join(phrase))
    return ""


# "Decision: …", "Note: …" label a kind of statement, not what it is about.
_GENERIC_LABELS = frozenset(
    [
        *("change of plan", "note", "notes", "update", "fyi", "ps", "tip", "idea", "asked"),
        *("decision", "decisions", "action item", "action items", "next step", "next steps"),
        *("todo", "to do", "question", "answer", "summary", "reminder", "reply", "status"),
        *("result", "noted", "ok", "okay", "sure", "done", "important", "reason", "why"),
        *("결정", "메모", "참고", "요약", "질문", "답변", "할 일", "다음 단계", "업데이트"),
    ]
)


# A speaker label: a name of one or two capitalised words ("Dana", "Mara Lee"), or a
# Korean name of two to four syllables with no particle ("서연", "남궁현아").
_SPEAKER_HEAD = re.compile(r"[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*)?|[가-힣]{2,4}")
_SPEAKER_UTTERANCE_WORDS = 4


def _is_speaker(head: str, rest: str) -> bool:
    """Whether `head: rest` is a line of chat: a name before an utterance of several words
    ("Dana: we go with the quote Jun got"), not a label before its value ("Budget:
    $18,500", "예산: 80만원")."""
    head = head.strip()
    return (
        bool(_SPEAKER_HEAD.fullmatch(head))
        and head[-1] not in _KO_PARTICLE_ENDS | {"은", "이"}
        and len(rest.split()) >= _SPEAKER_UTTERANCE_WORDS
    )


@_memo
def subject_of(text: str) -> str:
    """What a statement is about: "the brand color" in "We decided to drop coral; the brand
    color is now teal", "브랜드 색상" in "브랜드 색상은 틸로 변경"; "" when it has none."""
    clauses = [c for c in _CLAUSES.split(text.strip()) if c.strip()]
    # A chat line's speaker ("Dana: let's not overthink the budget") is who said it, not
    # what it is about: two lines of one speaker are not one subject.
    head, colon, rest = clauses[0].partition(": ") if clauses else ("", "", "")
    if colon and _is_speaker(head, rest):
        clauses[0] = rest
    labelled = ""
    for clause in clauses:
        head, colon, rest = clause.partition(": ")
        for candidate in (rest, clause) if colon else (clause,):
            subject = _english_subject(candidate)
            if subject:
                return subject
        if colon and not labelled and 0 < len(head.split()) <= 4:
            labelled = normalize(head)
    for clause in clauses:
        if _HANGUL.search(clause):
            subject = _korean_subject(clause)
            if subject:
                return subject
    if labelled and labelled not in _GENERIC_LABELS:
        return " ".join(w for w in labelled.split() if w not in _DETERMINERS)
    return ""


# --- values ------------------------------------------------------------------------------

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
# An address starts where its run of address characters does: tried from every character
# of a long run without "@", the pattern would read the rest of the run each time.
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://\S+|www\.\S+")
# A label of a domain name has at most 63 characters (RFC 1035): the bound keeps "a-a-a-…",
# tried from every letter after a dash, from reading the rest of the run each time.
_DOTTED = re.compile(
    r"(?<![\w.])[A-Za-z][A-Za-z0-9-]{0,62}(?:\.[A-Za-z][A-Za-z0-9-]{0,62})+(?![A-Za-z0-9-])"
)
_PROPER = re.compile(
    r"(?<![\w.&])(?:[A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z]{2,}[a-z]?|[A-Z][a-z’']+)(?!\w|\.\w|&)"
)
_SENTENCE_MARKS = frozenset(".!?:;")
_LINE_MARKS = frozenset('•*-–—("“')
# Month and day names are capitalised but are dates (language.values checks those).
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_CALENDAR_WORDS = [name.capitalize() for name in MONTH_NAMES] + _WEEKDAYS
_NOT_NAMES = frozenset(
    ["I", "I'm", "I'll", "I've", "I'd", "OK", "AM", "PM", "TODO", "FYI", *_CALENDAR_WORDS]
)
# Titles and honorifics that follow a Korean name; each may take 님 ("작가님", "실장님").
_KO_TITLES = (
    "님|씨|군|양|대표|사장|팀장|매니저|부장|과장|차장|실장|이사|상무|전무|사원|주임|대리|"
    "디자이너|개발자|마케터|선생|교수|박사|작가|기자|변호사|세무사|회계사|원장|감독|PD|피디"
)
# A Korean name: a common surname and a two-syllable given name (or a two-syllable
# surname and a given name of one or two), before a title.
_KO_SURNAMES = (
    "김이박최정강조윤장임한오서신권황안송류전홍고문양손배백허유남심노하곽성"
    "차주우구민진나지엄채원천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국"
)
# Two-syllable surnames ("남궁현아"), tried first.
_KO_DOUBLE_SURNAMES = "남궁|황보|제갈|선우|독고|사공|서문"
# What may follow a Korean name with its title: a particle or an ending, or no Hangul.
_KO_AFTER = (
    r"(?=$|[^가-힣]|이|가|은|는|을|를|과|와|의|에게|에|께|한테|도|께서|랑|하고|만|로|으로|부터|까지"
    r"|요|예요|이에요|입니다|였|이었|죠)"
)
_KO_NAME = re.compile(
    rf"(?<![가-힣])((?:{_KO_DOUBLE_SURNAMES})[가-힣]{{1,2}}|[{_KO_SURNAMES}][가-힣]{{2}})"
    rf"\s?(?:{_KO_TITLES})(?:님)?{_KO_AFTER}"
)
# Particles that end a word before a spaced title: no given name ends with them.
_KO_PARTICLE_ENDS = frozenset("는를을의에가도와과로")
# The titles that stand for a post ("대표", "작가"), not the honorifics a given name takes.
_KO_POSTS = frozenset(_KO_TITLES.split("|")) - {"님", "씨", "군", "양"}
# A surname and a post ("김 대표님", "정대표님"): a person named by their post. A post
# alone ("대표님", "작가님") names no one: it is how the person spoken to is addressed
# ("대표님, 초안 올렸습니다") or the post's holders in general ("매장 사장님").
_KO_SURNAME_POST = re.compile(
    rf"(?<![가-힣])([{_KO_SURNAMES}])\s?({'|'.join(sorted(_KO_POSTS, key=len, reverse=True))})"
    rf"(?:님)?{_KO_AFTER}"
)
# A given name with 님 or 씨 ("서연님", "민지 씨"); the words before them that are not
# names ("고객님", "아저씨", "호박씨") are left out.
_KO_GIVEN = re.compile(rf"(?<![가-힣])([가-힣]{{2}})\s?(?:님|씨){_KO_AFTER}")
# fmt: off
_KO_NOT_GIVEN = frozenset([
    "고객", "손님", "선생", "부모", "하느", "하나", "아버", "어머", "아드", "임금", "공주",
    "왕자", "도련", "서방", "주인", "회원", "환자", "여러", "사모", "형수", "아저", "아가",
    "마음", "아줌", "아주", "스승", "사부", "조상", "부처", "신랑", "신부", "우리", "당신",
    "말솜", "글솜", "호박", "수박", "참외", "사과", "포도", "고추", "배추", "상추", "해님",
    "달님", "별님", "그분", "이분", "저분",
])
# fmt: on
_MISSION_REF = re.compile(r"\[?(?:\bs\d+)?#\d+[a-z]{0,2}\b\]?")


def _number_key(raw: str) -> str:
    digits = raw.replace(",", "")
    whole, dot, fraction = digits.partition(".")
    return (whole.lstrip("0") or "0") + (dot + fraction if fraction else "")


def numbers_in(text: str) -> set[str]:
    """The numbers of a text as comparable keys: "$1,240" and "1240" are one number,
    "$29.99" is not "$29"."""
    return {_number_key(m.group()) for m in _NUMBER.finditer(_MISSION_REF.sub(" ", text))}


def _starts_sentence(text: str, index: int) -> bool:
    """Whether `text[index]` starts a sentence, a line or a bullet: the text before it is
    empty, or ends with ".!?:;" and whitespace, or with a newline, a bullet, a dash or an
    opening bracket or quote and any whitespace. Read back from `index` (not by a search of
    all the text before it, once per capitalised word: quadratic)."""
    before = index
    while before > 0 and text[before - 1].isspace():
        if text[before - 1] == "\n":
            return True
        before -= 1
    if index == 0:
        return True
    if before == 0:
        return False
    mark = text[before - 1]
    return (mark in _SENTENCE_MARKS and before < index) or mark in _LINE_MARKS


def names_in(text: str) -> set[str]:
    """Proper names, e-mail addresses, URLs and dotted names ("Fly.io") of a text,
    lower-cased: capitalised words that do not start a sentence, CamelCase and ALLCAPS
    words, and Korean names followed by a title ("김서연 님"), people named by a surname
    and their post ("김 대표님" as 김대표) or by a given name with 님 or 씨 ("서연님")."""
    text = _MISSION_REF.sub(" ", text)
    found: set[str] = set()

    # What is read as one kind of name is blanked out for the next kinds, in one pass (not
    # a `replace` over the whole text per name found: quadratic in a long list of names).
    def blank(match: re.Match[str]) -> str:
        found.add(match.group().rstrip(".,;:)").lower())
        return " "

    for pattern in (_EMAIL, _URL):
        text = pattern.sub(blank, text)
    for match in _DOTTED.finditer(text):
        if "." in match.group() and not re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]?", match.group()):
            found.add(match.group().lower())
    for match in _PROPER.finditer(text):
        word = match.group()
        if word in _NOT_NAMES or _starts_sentence(text, match.start()):
            continue
        found.add(word.lower())

    def korean_name(match: re.Match[str]) -> str:
        name, given = match.group(1), match.group(1)[1:]
        if given in _KO_POSTS:
            return match.group()  # "정대표님": a surname and a post, read below
        if name[-1] in _KO_PARTICLE_ENDS and match.group()[len(name)].isspace():
            return match.group()  # "표지는 작가님": a word and its particle, then a post alone
        found.add(name)
        return " "

    def surname_and_post(match: re.Match[str]) -> str:
        found.add(match.group(1) + match.group(2))
        return " "

    text = _KO_NAME.sub(korean_name, text)
    text = _KO_SURNAME_POST.sub(surname_and_post, text)
    for match in _KO_GIVEN.finditer(text):
        if match.group(1) not in _KO_NOT_GIVEN and match.group(1) not in _KO_POSTS:
            found.add(match.group(1))
    return found


def _same_value(wanted: Value, stated: Value) -> bool:
    """Whether `stated` is the value `wanted` names: of its kind and number, in its
    currency when it names one ("$20" is not the 20 of "brief 20", nor 20원), a date on
    the same day (and year, where both give one)."""
    if (wanted.kind, wanted.number) != (stated.kind, stated.number):
        return False
    if wanted.kind == "date":
        return not (wanted.year and stated.year) or wanted.year == stated.year
    return not wanted.unit or wanted.unit == stated.unit


def _mentions(value: str, text: str) -> bool:
    """Whether `text` names `value`: as values when it is one (an amount, a date, a
    percentage: compared by `_same_value`, however written), else as a whole-word
    sequence, particles aside."""
    wanted = values_in(value)
    if wanted:
        stated = values_in(text)
        return all(any(_same_value(w, s) for s in stated) for w in wanted)
    needle = content_words(value)
    haystack = content_words(text)
    if not needle:
        return False
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


# --- reversals ---------------------------------------------------------------------------

# Every pattern here reads in time linear in its text (issue 42): a value that ends at a
# terminator ends where its last word does (`_VALUE_END`'s lookbehind: tried from each
# space of a long run of spaces, it would read the rest of the run each time); what is
# read up to a later word ("replace X with") stops after `_VALUE_CHARS`; a Korean value is
# a whole word (`_KO_VALUE`: from every syllable of a long word without spaces, the
# pattern would read the rest of the word each time, quadratic in it).
_VALUE = r"(?P<v>[^,;:()]+?)"
_VALUE_END = r"(?<!\s)(?=\s*(?:[,;:()]|\.(?:\s|$)|$|\s+(?:and|but|for|as|because|since|from|on)\b))"
# A value is at most four words (replaced_values drops longer ones): far under this.
_VALUE_CHARS = 80
_BOUNDED_VALUE = rf"(?P<v>.{{1,{_VALUE_CHARS}}}?)"
_KO_VALUE = r"(?<![^\s,;])(?P<v>[^\s,;]+?)"
# What follows "not" that hedges rather than names a dropped value.
_NOT_HEDGE = (
    r"(?:only|just|yet|sure|too|so|that|very|much|a lot|always|necessarily|exactly|really|"
    r"quite|all|every|everyone|everything|even|ever|now|later|before|after|until|more|less|"
    r"enough|be|been|being|have|do|to be)\b"
)
_REPLACED = [
    re.compile(rf"\binstead of\s+(?:using\s+|the\s+|our\s+)?{_VALUE}{_VALUE_END}", re.I),
    re.compile(rf"\brather than\s+(?:using\s+|the\s+)?{_VALUE}{_VALUE_END}", re.I),
    re.compile(
        rf"\b(?:drop|ditch|scrap)(?:s|ped|ping)?\s+(?:the\s+|our\s+)?{_VALUE}{_VALUE_END}", re.I
    ),
    re.compile(rf"\bno longer\s+(?:use\s+|using\s+|on\s+|with\s+)?{_VALUE}{_VALUE_END}", re.I),
    re.compile(
        rf"\b(?:switch|mov)(?:e|es|ed|ing)?\s+(?:away\s+)?from\s+{_BOUNDED_VALUE}\s++to\b", re.I
    ),
    # "move the ads budget off Reels", "take the launch off Friday", "pull spend out of X"
    re.compile(
        rf"\b(?:mov|tak|pull|shift)(?:e|es|ed|ing|s)?\b[^,;.]{{0,{_VALUE_CHARS}}}?\s"
        r"(?:off|out of|away from)\s+"
        rf"(?:of\s+)?(?:the\s+|our\s+)?{_VALUE}{_VALUE_END}",
        re.I,
    ),
    re.compile(
        rf"\bstop(?:s|ped|ping)?\s+(?:using|running|buying|posting on|doing)\s+(?:the\s+)?"
        rf"{_VALUE}{_VALUE_END}",
        re.I,
    ),
    re.compile(rf"\breplac(?:e|es|ed|ing)\s+(?:the\s+)?{_BOUNDED_VALUE}\s++with\b", re.I),
    re.compile(r"\bnot\s+(?P<v>\S+)\s+anymore\b", re.I),
    # "must go to TikTok, not Reels", "goes not to Reels but to TikTok"; not "online, not
    # only in stores", "not yet", "not sure"
    re.compile(
        rf",\s*(?:and\s+)?not\s+(?!{_NOT_HEDGE})(?:on\s+|in\s+|into\s+|to\s+|with\s+|"
        rf"the\s+|our\s+)?{_VALUE}{_VALUE_END}",
        re.I,
    ),
    re.compile(
        rf"\bnot\s+(?!{_NOT_HEDGE})(?:on\s+|in\s+|into\s+|to\s+|with\s+|the\s+|our\s+)?"
        r"(?P<v>[\w.'’ -]{1,30}?)(?:\s*+,)?\s++but\b",
        re.I,
    ),
    # "코랄 대신", "코랄을 대신" (instead of coral); not "태오가 대신 봐줄" (Teo covers for me)
    re.compile(rf"{_KO_VALUE}(?<!가)(?<!께서)(?:을|를)?\s*대신"),
    re.compile(rf"{_KO_VALUE}(?:은|는|을|를)?\s*(?:취소|폐기|철회|빼기로|빼고|제외)"),
    re.compile(rf"{_KO_VALUE}에서\s+\S+?(?:으로|로)\s*(?:변경|바꾸|바꿔|바꿨|전환|옮기|옮겨|이전)"),
    # "예산을 릴스에서 빼기로", "광고를 릴스에서 내리기로" (the word between is a word: a
    # bound, or "에서에서…" would read the rest of the text from each 에서)
    re.compile(
        rf"{_KO_VALUE}에서\s*(?:\S{{1,{_VALUE_CHARS}}}\s+)?(?:빼|뺄|뺐|제외|철수|내리|내렸)"
    ),
    re.compile(rf"{_KO_VALUE}(?:이|가)?\s*아니라"),
    re.compile(rf"{_KO_VALUE}\s*말고"),
]
_NOT_VALUES = frozenset(["it", "that", "this", "them", "the plan", "plan", "그거", "이거", "그것"])
# Korean dependent nouns: "말한 것 말고는" (apart from what was said) replaces no value.
_KO_BOUND_NOUNS = frozenset(["것", "거", "게", "수", "데", "바", "줄", "뿐", "무엇", "뭐"])


def replaced_values(text: str) -> list[str]:
    """What a statement says is replaced or dropped: "Fly.io" in "switch to Hetzner
    instead of Fly.io", "코랄" in "코랄 대신 틸로"."""
    return list(_replaced_values(text))


@_memo
def _replaced_values(text: str) -> tuple[str, ...]:
    values: list[str] = []
    for pattern in _REPLACED:
        for match in pattern.finditer(text):
            value = match.group("v").strip(" \"'“”‘’.")
            words = value.split()
            if not words or len(words) > 4:
                continue
            if _HANGUL.search(value[-1:]):
                value = _strip_korean(value)
            if value.lower() in _NOT_VALUES or not content_words(value):
                continue
            if value.split()[-1] in _KO_BOUND_NOUNS:
                continue
            values.append(value)
    return tuple(values)


# What a short "<value> for the <thing>" is not: thanks, apologies, wishes, and requests
# ("Translate this for the vendor", "Thanks for the update").
_NOT_A_CHOICE = re.compile(
    r"^(?:thanks?|thank you|sorry|apologies|good luck|congrat\w*|cheers|ready|time|room|"
    r"space|ideas?|options?|plans?|notes?|drafts?|something|anything|nothing|more|any|some|"
    r"all|help|questions?|same|just|only|please|pls|can|could|would|will|do|does|is|are|"
    r"translate|write|draft|send|check|make|prepare|summari[sz]e|create|update|review|find|"
    r"list|tell|give|show|add|remove|fix|plan|schedule|book|call|email|ask|compare|research|"
    r"look|outline|collect|gather|read|forward|proofread|rewrite|reply|respond|wait|thanks)\b",
    re.IGNORECASE,
)
# "We'll move the ads budget off Reels", "we're taking the launch out of March".
_WE_MOVE_OFF = re.compile(
    r"^(?:so\s+|ok(?:ay)?,?\s+)?we(?:'ll| will|'re| are)?\s+(?:going to\s+)?"
    r"(?:mov|shift|tak|pull)\w*\s+(?:the\s+|our\s+)?\w[^,;.]*?\s(?:off|out of|away from)\s+\S",
    re.IGNORECASE,
)
# "박스는 남색으로 바꿔요", "예산을 100만원으로 올려요", "박스는 크림색으로 해요".
_KO_SET_TO = re.compile(
    r"(?:으로|로)\s*(?:바꿔|바꾸|바꿀|바꿉|바꿨|변경|전환|교체|옮겨|옮기|옮길|올려|올리|올릴|"
    r"내려|내리|내릴|줄여|줄이|줄일|늘려|늘리|늘릴|낮춰|낮추|높여|높이|미뤄|미룰|당겨|당길|"
    r"해요|해\s*$|하자|할게|할께|합시다|합니다|하겠|갈게|가요|가자|갑시다|정해|정할|정합|통일)"
)
# "The ads budget must go to TikTok, not Reels": where a named thing goes.
_GOES_TO = re.compile(
    r"^(?:the|our)\s+[\w'’ -]{2,40}?\s+(?:must|should|will|has to|needs to|is going to)\s+"
    r"(?:go|move|shift|switch)\s+(?:in)?to\b",
    re.IGNORECASE,
)
_KO_MUST_BE = re.compile(r"(?:이어야|여야|어야|아야)\s*(?:해|합니다|돼|됩니다|한다|함)")
# "부탁드립니다": an ending of a few syllables after 부탁 (unbounded, "부탁부탁…" would be
# read to its end from each 부탁).
_KO_REQUEST_END = re.compile(
    r"(?:줘|주세요|줄래|주실래요|주시겠어요|주실|봐|봐요|볼래|부탁\S{0,20})[.!~\s]*$"
)
_MUST_BE = re.compile(r"\b(?:must|has to|have to|needs? to)\s+be\b", re.IGNORECASE)


def sets_a_value(sentence: str) -> str:
    """Whether a sentence in the person's own voice sets or changes the value of a named
    thing, and how: "decision" for "Cream for the gift set box", "We'll move the ads
    budget off Reels", "The ads budget must go to TikTok, not Reels", "We're raising the
    monthly ads budget to $1,000", "선물세트 박스는 남색으로 바꿔요", "광고 예산은 릴스 말고
    틱톡으로"; "rule" for a value it must have ("The launch date must be March 21 at the
    latest", "출시일은 늦어도 3월 21일이어야 해요"); "" for anything else (a request, a
    question, a subject without a value)."""
    text = sentence.strip().rstrip(" .!~")
    if not text or is_question(text):
        return ""
    if _HANGUL.search(text):
        if _KO_REQUEST_END.search(text) or not _korean_subject(text):
            return ""
        if replaced_values(text) or _KO_SET_TO.search(text):
            return "decision"
        if _KO_MUST_BE.search(text) and (values_in(text) or names_in(text)):
            return "rule"
        return ""
    stripped = _LEAD_IN.sub("", text, count=1)
    if _WE_MOVE_OFF.match(text) and replaced_values(text):
        return "decision"
    value_for = _VALUE_FOR.match(stripped)
    if (
        value_for
        and len(stripped.split()) <= 10
        and len(stripped.split(" for ", 1)[0].split()) <= 3
        and not _NOT_A_CHOICE.match(stripped)
    ):
        return "decision"
    if _GOES_TO.match(stripped) and replaced_values(text):
        return "decision"
    subject = _english_subject(text)
    if not subject:
        return ""
    if _CHANGED_TO.match(stripped) or replaced_values(text):
        return "decision"
    if _MUST_BE.search(text) and (values_in(text) or names_in(text)):
        return "rule"
    return ""


def reverses(text: str) -> bool:
    return bool(_REVERSAL.search(text))


def same_topic(new: str, old: str) -> bool:
    """Whether two statements are about the same thing (so the newer may replace the older)."""
    new_subject, old_subject = subject_of(new), subject_of(old)
    if new_subject and new_subject == old_subject:
        return True
    a, b = topic_words(new), topic_words(old)
    if not a or not b:
        return False
    overlap = len(a & b)
    return overlap >= 1 and overlap / min(len(a), len(b)) >= 0.5


def stated_values(text: str) -> set[str]:
    """What a statement says beyond its subject and its verbs: its topic words, values
    (amounts, dates, percentages: language.values) and names, comparable across texts."""
    words = {
        word
        for word in content_words(text)
        if word not in _FILLER
        and word not in _KO_FILLER
        and word not in _REVERSAL_WORDS
        and not word.isdigit()
        and (_HANGUL.search(word) or len(word) >= 3)
        and not word.startswith(_KO_DECISION_STEMS)
    }
    return words | {v.label() for v in values_in(text)} | names_in(text)


def states_a_new_value(new: str, old: str) -> bool:
    """Whether `new` says something about its subject that `old` does not: "예산을
    옮기기로" names no value (only the subject and a verb), so it replaces nothing."""
    subject = set(subject_of(new).split()) | set(subject_of(old).split())
    return bool(stated_values(new) - stated_values(old) - subject)


# Nouns naming the kind of a value, not the thing it is of: "the launch date" is about the
# launch ("we decided to launch on March 14").
_KIND_NOUNS = frozenset(
    [
        *("date", "day", "deadline", "time", "price", "cost", "amount", "fee", "rate", "figure"),
        *("number", "total", "sum", "level", "cap", "limit"),
        *("날짜", "일자", "일정", "가격", "금액", "비용", "기한", "마감", "시간", "요금"),
    ]
)
# A Korean noun ending in one of these is "the day of" what precedes it (출시일, 마감일).
_KO_DAY_ENDS = ("일", "날")


def _thing_words(subject: str) -> list[str]:
    """The words of a subject that name the thing, not the kind of its value: "launch"
    of "launch date", "출시" of "출시일"."""
    words: list[str] = []
    for word in content_words(subject):
        if word in _KIND_NOUNS:
            continue
        if _HANGUL.search(word) and len(word) > 2 and word.endswith(_KO_DAY_ENDS):
            word = word[:-1]
        words.append(word)
    return words


def _names_the_thing(word: str, old_words: list[str]) -> bool:
    if _HANGUL.search(word):
        return any(w.startswith(word) for w in old_words)  # 출시 in 출시하기로
    return any(w == word or (len(word) >= 4 and w.startswith(word)) for w in old_words)


def _new_value_of_its_kind(new: str, old: str) -> bool:
    """Whether `new`, naming a subject ("The launch date must be March 21"), gives another
    value of the kind `old` gives for that thing without naming it as a subject ("We
    decided to launch on March 14"): both carry a date (an amount in one currency, a
    percentage), the old one's is dropped and the new one's is new. An older statement
    with a subject of its own is compared by subject (conflicts), not here: "무료 요금제는
    300명까지" says nothing of "프로 요금제는 월 19,900원"; plain numbers are no kind."""
    subject = subject_of(new)
    if not subject or subject_of(old):
        return False
    thing = _thing_words(subject)
    old_words = content_words(old)
    if not thing or not all(_names_the_thing(word, old_words) for word in thing):
        return False
    new_values = {v for v in values_in(new) if v.kind != "amount" or v.unit}
    old_values = {v for v in values_in(old) if v.kind != "amount" or v.unit}
    for kind in {(v.kind, v.unit) for v in new_values} & {(v.kind, v.unit) for v in old_values}:
        new_labels = {v.label() for v in new_values if (v.kind, v.unit) == kind}
        old_labels = {v.label() for v in old_values if (v.kind, v.unit) == kind}
        if not new_labels <= old_labels and not old_labels <= new_labels:
            return True
    return False


def conflicts(new: str, old: str) -> bool:
    """Whether both cannot hold at once: another value for the same subject, or a
    statement that explicitly replaces a value the older one states. Strict (no topic
    guessing): this is what the verifier calls a contradiction."""
    if normalize(new) == normalize(old):
        return False
    subject = subject_of(new)
    if subject and subject == subject_of(old) and states_a_new_value(new, old):
        return True
    if _new_value_of_its_kind(new, old):
        return True
    dropped_by_old = {normalize(v) for v in replaced_values(old)}
    return any(
        _mentions(value, old) and normalize(value) not in dropped_by_old
        for value in replaced_values(new)
    )


def supersedes(new: str, old: str) -> bool:
    """Whether a newer statement retires an older one: a conflict, or an explicit change
    ("instead", "변경", …) of something on the same topic that states a new value. A
    topic match alone never retires an item: "예산을 옮기기로" leaves "월 광고 예산은
    80만원" alone."""
    if normalize(new) == normalize(old):
        return False
    return conflicts(new, old) or (
        reverses(new) and same_topic(new, old) and states_a_new_value(new, old)
    )


def rarity(words: list[str], document_frequency: dict[str, int], documents: int) -> float:
    """How unusual the rarest few words of a statement are in a collection (inverse
    document frequency of its three rarest content words, averaged)."""
    scores = sorted(
        (math.log((documents + 1) / (document_frequency.get(w, 0) + 0.5)) for w in set(words)),
        reverse=True,
    )[:3]
    return sum(scores) / 3 if scores else 0.0


# Material the person hands over rather than says: fenced code, block quotes, long quoted
# spans, and what they ask to have translated, summarised, forwarded or answered.
_FENCED = re.compile(r"```.*?```", re.S)
_BLOCK_QUOTE = re.compile(r"^[ \t]*>.*$", re.M)
# A span ends before the next opening mark: from each of many marks never closed, the
# pattern would read the rest of the text each time.
_QUOTED_SPAN = re.compile(
    r'"[^"\n]{20,}"|“[^“”]{20,}”|‘[^‘’]{20,}’|「[^「」]{8,}」|『[^『』]{8,}』'
)
_MATERIAL_REQUEST = re.compile(
    r"^(?:please\s+|pls\s+|could you\s+|can you\s+|would you\s+)?(?:translate|summari[sz]e|"
    r"forward|proofread|rewrite|paraphrase|polish|reply to|respond to|tl;?dr)\b"
    r"|(?:번역|요약|전달|교정|답장|회신)\s?(?:해|하여|해서|해줘|해 줘|해주세요|부탁)",
    re.I,
)
# Material introduced rather than asked about: "Here is what the vendor wrote -", "Fix the
# typos in:", "Forwarded message", "업체가 보낸 내용", "아래 메일", "다음 글의 오타". All that
# follows is someone else's text (or text to work on), whatever rules it states.
_MATERIAL_INTRO = re.compile(
    r"^(?:here(?:'s| is| are)\b.*\b(?:wrote|writes|said|says|sent|send|message|e-?mail|mail|"
    r"text|note|reply|response|post|draft|letter|copy)\b"
    r"|.*\b(?:wrote|writes|sent us|said)\s*+[-–—:]*+\s*+$"
    r"|(?:please\s+|can you\s+|could you\s+)?(?:fix|correct|check|proofread|edit|clean up)\b.*"
    r"\b(?:typos?|grammar|spelling|wording|punctuation)\b"
    r"|.*\b(?:forwarded message|original message|begin forwarded)\b"
    r"|(?:the )?(?:vendor|customer|client|supplier|partner|they)\b.*\b(?:wrote|said|sent)\b)"
    r"|(?:업체|고객|거래처|상대방|협력사|벤더|그쪽|상대)\S{0,8}\s?(?:가|이|에서)?\s?(?:보낸|보내온|쓴|작성한|전한)"
    r"|(?:아래|다음|밑의|첨부)\s?(?:의\s?)?(?:메일|이메일|내용|글|메시지|문서|편지|답장)"
    r"|(?:보낸|받은|전달된|전달받은)\s?(?:메일|이메일|내용|글|메시지)"
    r"|오타|맞춤법|전달된 메시지|원본 메시지",
    re.I,
)
# A pasted e-mail: its headers and all after them are the sender's words.
_MAIL_HEADER = re.compile(
    r"^[ \t]*(?:from|to|cc|bcc|subject|date|sent|reply-to|보낸\s?사람|받는\s?사람|참조|제목|"
    r"날짜|보낸\s?날짜)[ \t]*:",
    re.I | re.M,
)
_STANDING_MARKER = re.compile(r"\b(?:always|never)\b|항상|절대|반드시|무조건", re.I)
_REFERS_BACK = re.compile(
    r"\b(?:above|previous|preceding)\b|위\s?(?:의|에|내용|글|메일)|앞의", re.I
)


def _request_part(sentence: str) -> str:
    # "Here is what the agency wrote - <their text>": the dash ends the request too.
    return re.split(r"[:：\n]|\s[-–—]+\s", sentence, maxsplit=1)[0]


def _asks_about_material(request: str, rest: str = "") -> bool:
    request = request.strip()
    if _MATERIAL_INTRO.search(request) or introduces_material(request, rest):
        return True
    return bool(_MATERIAL_REQUEST.search(request)) and not _STANDING_MARKER.search(request)


def _without_pasted_mail(text: str) -> str:
    """The text before a pasted e-mail's headers (two header lines, or a From: line)."""
    headers = list(_MAIL_HEADER.finditer(text))
    starts_with_from = any(h.group().strip().lower().startswith(("from", "보낸")) for h in headers)
    if len(headers) >= 2 or starts_with_from:
        return text[: headers[0].start()]
    return text


def own_words(text: str) -> str:
    """What the person says in their own voice, for memory extraction: not the quoted,
    fenced or block-quoted text, not a pasted e-mail (from its headers on), not what they
    introduce as someone else's ("Here is what the vendor wrote -", "업체가 보낸 내용") and
    not the material they ask to have translated, summarised, forwarded, answered or
    corrected ("Translate this e-mail: Always send …", "Fix the typos in: we decided …"
    teach nothing). "Always translate e-mails into Korean" is their own rule, and stays."""
    text = _QUOTED_SPAN.sub("“…”", _BLOCK_QUOTE.sub("", _FENCED.sub(" ", text)))
    # Blocks pasted or forwarded, by their shape (language.material), in any request; the
    # older reading (a mail's headers, a block after a short request) where none is found.
    own, _material = without_material(text)
    text = own if own != text else before_set_apart_block(_without_pasted_mail(text))
    sentences = split_sentences(text)
    kept: list[str] = []
    for index, sentence in enumerate(sentences):
        request = _request_part(sentence)
        if not _asks_about_material(request, sentence[len(request) :]):
            if not reported_speech(sentence):
                # "The agency says …", "대행사가 … 보내 달래요": not theirs to state.
                kept.append(sentence)
            continue
        if index == len(sentences) - 1 and _REFERS_BACK.search(request):
            kept = []  # "Translate the above": all before it was the material
        if not reported_speech(request):
            kept.append(request.strip())
        break  # the material follows the request
    # One sentence a line: the lines of a list stay apart ("1. …", "- …").
    return "\n".join(kept)
