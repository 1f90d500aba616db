"""Supersession by subject, not by phrase (issue 43): a later statement replaces an earlier
one when both are about the same thing and give another value of the same kind (an
amount in one currency, a date, a time, a count, a percentage, a colour, a name, yes or
no), whatever words say so: "가격 올렸어요, 이제 23,500원" after "원두 1kg 21,000원",
"let's go with Mira instead" after "Jonas will shoot the photos", "5/9로 밀렸대요" after
"런칭 5월 2일".

Two questions, kept apart:
- *Which values* a statement gives, by kind (`read`): amounts and dates as
  language.values reads them, times ("3pm", "오후 3시"), spans of days ("이틀 전",
  "3일 전", "2 weeks"), counts (a plain number),
  percentages, colours, names (proper names, Korean names with a title or 님/씨, a Latin
  word in Korean text), and for a statement with no other value, yes or no. A value the
  statement itself drops ("from 21,000원 to 23,500원", "5월 2일에서 5월 9일로", "instead
  of Jonas") is not one it gives as current.
- *Whether two statements are about the same thing* (`same_subject`): the nouns naming
  each statement's thing (values, verbs, particles and the vocabulary of changing left
  out) overlap, or their subjects share a head; or the later one names no thing of its
  own ("let's go with Mira instead", "이제 23,500원") and says that something changed (an
  earlier one that names none only when the later says so too); or, written in two
  scripts with no word in common, their subjects are close in meaning
  (language.meaning.same_thing).

All patterns read their text in linear time (docs/design.md §8)."""

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from language import meaning
from language.analysis import ends_a_clause, is_noun
from language.statements import (
    _HANGUL,
    _strip_korean,
    is_question,
    names_in,
    normalize,
    own_words,
    replaced_values,
    topic_words,
)
from language.statements import supersedes as statements_supersedes
from language.values import MONTH_NAMES, values_in

# Words naming the kind of a value rather than the thing it is of ("the price", "출시일"):
# a statement that names only these names no thing of its own.
_KIND_WORDS = frozenset(
    [
        *("price", "prices", "cost", "costs", "amount", "fee", "fees", "rate", "rates"),
        *("date", "day", "time", "deadline", "number", "count", "total", "percent"),
        *("colour", "color", "name", "vendor", "supplier", "place", "venue", "location"),
        *("가격", "금액", "비용", "요금", "단가", "날짜", "일자", "일정", "시간", "시각", "마감"),
        *("기한", "색", "색상", "컬러", "이름", "업체", "장소", "위치", "개수", "수량", "비율"),
    ]
)
# Words of a statement that are no part of its thing: hedges, time adverbs, and verbs of
# saying, changing and doing (English verbs are many; these are the ones that recur in
# reversals and would otherwise join two unrelated statements).
_NOT_THING = frozenset(
    [
        *("heads", "came", "back", "landed", "moved", "move", "pushed", "push", "after"),
        *("all", "still", "also", "just", "really", "going", "taking", "take", "takes"),
        *("handles", "handle", "handling", "holding", "hold", "goes", "went", "felt"),
        *("make", "makes", "made", "get", "gets", "got", "put", "set", "cap", "per"),
        *("raised", "raise", "lowered", "lower", "bumped", "today", "week", "month"),
        *("this", "next", "last", "about", "around", "more", "less", "said", "says"),
        *("till", "until"),
        *("요즘", "이번", "이번주", "다음", "부터", "까지", "다시", "아예", "그냥", "좀"),
    ]
)
# Endings of a Hangul word that is a predicate, not a noun ("올렸어요", "밀렸대요", "해요").
_KO_PREDICATE_END = re.compile(
    r"(?:요|다|죠|네|지|까|고|서|면|며|게|음|함|됨|해|했|돼|됐|어|아|자|래|대|니|세|군|걸|데|든)$"
)
# That something changed, for a statement that names no thing of its own.
_CHANGE_CUE = re.compile(
    r"\b(?:instead|now|anymore|any more|after all|actually|moved|pushed|bumped|raised|"
    r"lowered|went up|went down|switch\w*|chang\w*|go(?:ing)? with|rather|no longer)\b"
    r"|이제|대신|말고|올렸|올려|내렸|내려|밀렸|밀려|미뤄|미뤘|당겨|당겼|바뀌|바뀐|바꿔|바꿨|"
    r"변경|인상|인하|로 가|으로 가|로 해|으로 해|로 할|으로 할|됐|되었",
    re.IGNORECASE,
)
# A time of day: "3pm", "4:30 pm", "15:00", "오후 3시", "9시 반", "3시 30분".
_TIME = re.compile(
    r"(?<![\d:])(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s?(?P<ap>a\.?m\.?|p\.?m\.?)(?![a-z])"
    r"|(?<![\d:])(?P<h2>\d{1,2}):(?P<m2>\d{2})(?![\d:])"
    r"|(?:(?P<ko>오전|오후|아침|저녁|밤)\s?)?(?<!\d)(?P<h3>\d{1,2})\s?시(?:\s?(?P<m3>\d{1,2})\s?분|\s?(?P<half>반))?",
    re.IGNORECASE,
)
_COLOURS = {
    **dict.fromkeys(["red", "빨강", "빨간", "빨간색", "레드"], "red"),
    **dict.fromkeys(["green", "초록", "초록색", "녹색", "그린"], "green"),
    **dict.fromkeys(["blue", "파랑", "파란", "파란색", "블루"], "blue"),
    **dict.fromkeys(["navy", "남색", "네이비"], "navy"),
    **dict.fromkeys(["cream", "크림", "크림색"], "cream"),
    **dict.fromkeys(["teal", "틸", "청록", "청록색"], "teal"),
    **dict.fromkeys(["coral", "코랄"], "coral"),
    **dict.fromkeys(["burgundy", "버건디", "와인색"], "burgundy"),
    **dict.fromkeys(["black", "검정", "검은색", "검정색", "블랙"], "black"),
    **dict.fromkeys(["white", "흰색", "하얀색", "화이트"], "white"),
    **dict.fromkeys(["beige", "베이지"], "beige"),
    **dict.fromkeys(["ivory", "아이보리"], "ivory"),
    **dict.fromkeys(["pink", "분홍", "분홍색", "핑크"], "pink"),
    **dict.fromkeys(["purple", "보라", "보라색", "퍼플"], "purple"),
    **dict.fromkeys(["orange", "주황", "주황색", "오렌지"], "orange"),
    **dict.fromkeys(["yellow", "노랑", "노란색", "옐로"], "yellow"),
    **dict.fromkeys(["gold", "금색", "골드"], "gold"),
    **dict.fromkeys(["silver", "은색", "실버"], "silver"),
    **dict.fromkeys(["grey", "gray", "회색", "그레이"], "grey"),
    **dict.fromkeys(["brown", "갈색", "브라운"], "brown"),
    **dict.fromkeys(["mint", "민트"], "mint"),
    **dict.fromkeys(["olive", "올리브"], "olive"),
}
_NEGATION = re.compile(
    r"\b(?:not|no|don'?t|doesn'?t|won'?t|isn'?t|aren'?t|never|no longer|without|cancel\w*)\b"
    r"|(?:^|\s)안\s|않|없|못\s|말자|취소|중단",
    re.IGNORECASE,
)
# "from X to Y", "X → Y", "X에서 Y로", "X 말고 Y": X is dropped, Y given.
_FROM_TO = re.compile(
    r"\bfrom\s+(?P<a>\S{1,40})\s+to\b|(?P<b>\S{1,40})\s*(?:→|->)"
    r"|(?P<c>\S{1,40}?)에서\s+\S{1,40}?(?:으로|로)(?:\s|$|[,.])",
    re.IGNORECASE,
)
# Words capitalised at a sentence's start that name no one.
_OPENERS = frozenset(
    [
        *("the", "we", "we're", "we'll", "our", "let's", "lets", "heads", "please", "so"),
        *("ok", "okay", "also", "and", "but", "maybe", "actually", "it", "it's", "this"),
        *("that", "there", "here", "here's", "they", "i", "i'm", "you", "a", "an", "my"),
        *("maximum", "minimum", "max", "min", "every", "each", "all", "no", "yes", "now"),
        *("update", "note", "fyi", "today", "tomorrow", "next", "last", "is", "are", "can"),
        *("could", "would", "will", "should", "do", "does", "what", "when", "where", "who"),
        *("how", "why", "which", "send", "make", "use", "cap", "switch", "go", "move"),
    ]
)
# What follows a name that opens a sentence ("Jonas will", "Priya is", "Hale came"), not
# a noun that does ("Newsletter goes", "Team lunch").
_NAME_VERBS = (
    "will|is|was|has|had|can|could|should|would|came|comes|said|says|and|handles|takes|"
    "took|shoots|signs|leads|runs|owns|does|did|wants|asked|agreed|confirmed|sent|told"
)
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9.&'-]{1,30}")
_IDENTIFIER = re.compile(
    r"(?<![A-Za-z])([A-Za-z]{2,20}\s+)\d{1,6}(?![\d%]|[,.:/]\d|\s?(?:[월년시분원만천억]|달러))"
)
# "작업 2: …", "Step 3: …": a number before a colon labels what follows; it counts nothing.
_LABEL_NUMBER = re.compile(r"(?<!\d)(\w{1,20}\s?)\d{1,6}(?=:(?!\d))")
# "3번째 절", "2회차", "2호점": an ordinal names which one, it counts nothing either.
_ORDINAL = re.compile(r"(?<![\d,.])\d{1,6}\s?(?=번째|회차|호점|호실|차시)")
# Words after which a number counts something ("cap revisions at 3", "make it 350").
_BEFORE_COUNT = frozenset(
    w
    for w in (
        *("at", "to", "it", "is", "are", "was", "be", "of", "for", "by", "about", "around"),
        *("only", "max", "maximum", "min", "minimum", "print", "make", "order", "need"),
        *("than", "with", "now", "just", "up", "down", "over", "under", "from", "and", "or"),
    )
)
# Words before a number that keep it a value: a count's words and the months of a date.
_NUMBERED = _BEFORE_COUNT | frozenset(MONTH_NAMES)
_KINDS_WITH_ORDER = (
    *("amount", "date", "time", "days", "percent", "count", "colour", "name", "yesno"),
)
# A span of days: Korean's own numerals for them ("이틀 전까지", "사흘", "보름"), a number of
# days or weeks before a word of time ("3일 전", "2주 안에"), and "14 days", "2 weeks".
_NATIVE_DAYS = {
    **{"하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6},
    **{"이레": 7, "여드레": 8, "아흐레": 9, "열흘": 10, "보름": 15},
}
_DAYS = re.compile(
    r"(?<![가-힣])(?P<native>" + "|".join(_NATIVE_DAYS) + r")(?!달|씩)"
    r"|(?<![\d,.])(?P<n>\d{1,3})\s?(?P<unit>일|주)(?=\s?(?:전|후|뒤|이내|안|간|동안|만에|째))"
    r"|(?<![\d,.])(?P<en>\d{1,3})\s(?:business\s|working\s|calendar\s)?(?P<enunit>days?|weeks?)\b",
    re.IGNORECASE,
)


def _days(text: str) -> tuple[dict[str, str], str]:
    """Spans of days (keys: the number of days) with how they were written, and the text
    without them (so their digits are no counts or dates)."""
    found: dict[str, str] = {}

    def take(match: re.Match[str]) -> str:
        if match.group("native"):
            days = _NATIVE_DAYS[match.group("native")]
        elif match.group("n"):
            days = int(match.group("n")) * (7 if match.group("unit") == "주" else 1)
        else:
            weeks = match.group("enunit").lower().startswith("week")
            days = int(match.group("en")) * (7 if weeks else 1)
        found.setdefault(str(days), match.group().strip())
        return " "

    return found, _DAYS.sub(take, text)


@dataclass(frozen=True)
class Reading:
    """What a statement says: the nouns naming its thing, the values it gives as current
    by kind (a key per value, comparable across languages), how each was written, and
    whether it says that something changed."""

    things: frozenset[str]
    values: dict[str, frozenset[str]] = field(default_factory=dict)
    shown: dict[str, str] = field(default_factory=dict)
    changes: bool = False
    # The thing nouns as the text groups them: runs of adjacent nouns ("launch party
    # venue", "주말 파트 시급"), a Korean particle ending one ("버터값이 … 소금빵 가격").
    runs: tuple[frozenset[str], ...] = ()
    # What the statement is about, in order ("주말 파트 시급" of "주말 파트 시급은
    # 11,000원으로…", "hire deposit" of "the hire deposit is £200"): the words its one
    # topic or subject particle ends in Korean, the noun phrase opening a clause before a
    # verb in English (`_subject`); empty when there is none or more than one (a list:
    # "소금빵은 …, 크루아상은 …").
    subject: tuple[str, ...] = ()
    # The subject as written, its kind words kept ("shipping fee", "출시일"): what
    # `_same_across_languages` compares by meaning.
    said_about: tuple[str, ...] = ()


def _times(text: str) -> tuple[dict[str, str], str]:
    """Times of day as "HH:MM" (keys) with how they were written, and the text without
    them (so their digits are no counts)."""
    found: dict[str, str] = {}

    def take(match: re.Match[str]) -> str:
        hour = int(match.group("h") or match.group("h2") or match.group("h3"))
        minute = int(match.group("m") or match.group("m2") or match.group("m3") or 0)
        if match.group("half"):
            minute = 30
        marker = (match.group("ap") or "").lower().replace(".", "")
        if marker == "pm" or match.group("ko") in ("오후", "저녁", "밤"):
            hour = hour + 12 if hour < 12 else hour
        if marker == "am" and hour == 12:
            hour = 0
        if hour <= 24 and minute < 60:
            found.setdefault(f"{hour:02d}:{minute:02d}", match.group().strip())
        return " "

    return found, _TIME.sub(take, text)


def _latin_in_korean(text: str) -> set[str]:
    """Capitalised Latin words in a Korean sentence: brand, vendor and product names
    ("Lotte", "Glow Serum", "CJ대한통운"); not one that opens an English noun phrase of
    lower-case words ("Packaging box는", "Mug wholesale price"): a capital there is the
    sentence's, not a name's."""
    if not _HANGUL.search(text):
        return set()
    return {
        m.group().lower().rstrip(".")
        for m in _LATIN_WORD.finditer(text)
        if m.group()[0].isupper() and not _opens_a_phrase(text, m.end())
    }


def _opens_a_phrase(text: str, end: int) -> bool:
    """Whether a lower-case Latin word follows the word ending at `end`."""
    after = _LATIN_WORD.match(text, end + 1) if text[end : end + 1] == " " else None
    return after is not None and after.group()[0].islower()


def _latin_things(text: str) -> frozenset[str]:
    """The other Latin words of a Korean sentence name its thing ("뉴스레터 newsletter",
    "cupping 클래스", "Packaging box")."""
    if not _HANGUL.search(text):
        return frozenset()
    return frozenset(
        _singular(m.group().lower())
        for m in _LATIN_WORD.finditer(text)
        if (m.group()[0].islower() or _opens_a_phrase(text, m.end()))
        and m.group().lower() not in _KIND_WORDS | _NOT_THING
    )


def _opening_name(text: str) -> set[str]:
    """A capitalised word that opens an English sentence and is no common opener: a name
    ("Jonas will shoot the photos", "Priya is taking it")."""
    match = re.match(r"\s*([A-Z][a-z]{1,20})(?:'s)?\s+(?:" + _NAME_VERBS + r")\b", text)
    if match and match.group(1).lower() not in _OPENERS and not _HANGUL.search(text):
        return {match.group(1).lower()}
    return set()


def _colours(words: list[str]) -> set[str]:
    found = set()
    for word in words:
        colour = _COLOURS.get(word) or _COLOURS.get(_strip_korean(word))
        if colour is None and _HANGUL.search(word) and word.endswith("색"):
            colour = _COLOURS.get(word[:-1])
        if colour:
            found.add(colour)
    return found


def _thing_words(text: str, values: set[str]) -> frozenset[str]:
    """The nouns naming what a statement is about: its topic words without values, kind
    words, predicates and the vocabulary of changing; English plurals as their singular."""
    things: set[str] = set()
    for word in topic_words(text):
        if word in values or word in _KIND_WORDS or word in _NOT_THING:
            continue
        if _HANGUL.search(word):
            if word in _COLOURS or word.endswith("색"):
                continue
            if _KO_PREDICATE_END.search(word) and not is_noun(word):
                continue  # "올렸어요", "가고"; not "광고", "로고"
            things.add(word)
            continue
        if word in _COLOURS or not word.isalpha():
            continue
        things.add(_singular(word))
    return frozenset(things)


@dataclass(frozen=True)
class _Run:
    words: tuple[str, ...]
    # What ended it: the particle of its last Korean word, or the next word ("is").
    ending: str
    # The word before it ("광고의" of "광고의 예산은"), "" at the start of a clause.
    before: str
    # Whether it is the first run of its clause.
    first: bool


def _ordered_runs(text: str, things: frozenset[str]) -> list[_Run]:
    """The runs of thing nouns in order (punctuation ends one too)."""
    runs: list[_Run] = []
    run: list[str] = []
    before = previous = ""
    in_clause = 0
    for token in re.findall(r"\w+|[,;:.!?—]", text.lower()):
        punctuation = not token[0].isalnum() and token[0] != "_"
        stem = token if punctuation or not _HANGUL.search(token) else _strip_korean(token)
        key = ""
        if not punctuation:
            key = stem if stem in things else stem[:-1] if stem[:-1] in things else ""
        if key:
            if not run:
                before = previous
            run.append(key)
        if run and (not key or stem != token):
            ending = token[len(stem) :] if key else token
            runs.append(_Run(tuple(run), ending, before, in_clause == 0))
            in_clause += 1
            run = []
        previous = "" if punctuation else token
        in_clause = 0 if punctuation else in_clause
    if run:
        runs.append(_Run(tuple(run), "", before, in_clause == 0))
    return runs


def _runs(text: str, things: frozenset[str]) -> tuple[frozenset[str], ...]:
    """The thing nouns of `text` in runs of adjacent words: a word that is no thing noun
    ends a run, and so does a Korean particle ("시급은", "버터값이")."""
    return tuple(frozenset(run.words) for run in _ordered_runs(text, things))


# What ends the run a Korean statement is about: a topic particle (은/는), else a subject
# particle (이/가).
_TOPIC_ENDINGS = ("은", "는")
_SUBJECT_ENDINGS = ("이", "가")
# Words that open an English noun phrase without naming anything.
_DETERMINERS = frozenset(["", "the", "our", "a", "an", "this", "that", "their", "my", "your"])
# What follows an English noun phrase that is no verb: prepositions, conjunctions, the
# end of its clause ("the checklist for …", "Spring sale: …").
_NOT_A_VERB = frozenset(
    [
        *("", ",", ";", ":", ".", "!", "?", "—", "for", "of", "in", "at", "on", "to", "with"),
        *("from", "by", "about", "and", "or", "per", "than", "as", "into", "over", "under"),
        *("after", "before", "till", "until", "between", "without", "within", "like"),
    ]
)


def _without_kind(subject: tuple[str, ...]) -> tuple[str, ...]:
    """A subject (`_marked_subject`) less the words after it that name the kind of its
    value ("소금빵 가격은" is about 소금빵, "the box colour is" about the box)."""
    while len(subject) > 1 and subject[-1] in _KIND_WORDS:
        subject = subject[:-1]
    return subject


def _marked_subject(text: str, things: frozenset[str]) -> tuple[str, ...]:
    """The one run `text` marks as what it is about (Reading.subject), or (): in Korean the
    run its topic (else subject) particle ends, one only; in English the noun phrase that
    opens a clause before a verb ("After two keys went missing, the locker deposit is …",
    "The spring sale got pushed …"), else a heading before a colon ("Spring sale: it
    starts May 9"). A run that another word qualifies ("광고의 예산은", "the checklist for
    the weekly review is") is only part of what the sentence is about."""
    if _HANGUL.search(text):
        return _korean_subject(text)
    runs = _ordered_runs(text, things)
    opening = [
        run
        for run in runs
        if run.first and run.before in _DETERMINERS and run.ending not in _NOT_A_VERB
    ]
    if opening:
        return opening[0].words if len(opening) == 1 else ()
    heading = runs[0] if runs and runs[0].ending == ":" and not runs[0].before else None
    return heading.words if heading else ()


def _korean_subject(text: str) -> tuple[str, ...]:
    """The words a Korean statement's one topic particle (else subject particle) ends,
    with the bare words before it: all of them, known nouns or not ("사물함 주간
    체크리스트는"); () for none, for several, or for one a genitive qualifies."""
    tokens = re.findall(r"\w+|[,;:.!?—]", text.lower())
    for endings in (_TOPIC_ENDINGS, _SUBJECT_ENDINGS):
        marked = []
        for index, token in enumerate(tokens):
            stem = _strip_korean(token) if _HANGUL.search(token) else token
            if stem == token or token[len(stem) :] not in endings or stem.isdigit():
                continue
            words = [_singular(stem)]
            before = index - 1
            while before >= 0 and len(words) < _SUBJECT_WORDS:
                word = tokens[before]
                bare = word[0].isalpha() and _strip_korean(word) == word
                ends_a_predicate = _KO_PREDICATE_END.search(word) and not is_noun(word)
                if not bare or word in _NOT_THING or ends_a_predicate:
                    break
                words.insert(0, _singular(word))
                before -= 1
            qualified = before >= 0 and tokens[before].endswith("의") and tokens[before] != "의"
            marked.append(() if qualified else tuple(words))
        if len(marked) > 1:
            return ()
        if marked:
            return marked[0]
    return ()


def _singular(word: str) -> str:
    """An English plural as its singular, as the thing nouns are ("boxes" → "box")."""
    return word[:-1] if word.isascii() and len(word) > 4 and word.endswith("s") else word


# The words of a subject, at most (a longer run of bare words is a list or a title).
_SUBJECT_WORDS = 5


def _dropped(text: str) -> dict[str, set[str]]:
    """Values the statement itself drops: "from X to Y", "X에서 Y로", "instead of X"."""
    spans = [m.group("a") or m.group("b") or m.group("c") or "" for m in _FROM_TO.finditer(text)]
    spans += replaced_values(text)
    out: dict[str, set[str]] = {}
    for span in spans:
        reading = _values(span)
        for kind, keys in reading[0].items():
            out.setdefault(kind, set()).update(keys)
    return out


def _values(text: str) -> tuple[dict[str, set[str]], dict[str, str]]:
    values: dict[str, set[str]] = {}
    shown: dict[str, str] = {}

    def add(kind: str, key: str, written: str) -> None:
        values.setdefault(kind, set()).add(key)
        shown.setdefault(f"{kind}={key}", written)

    times, rest = _times(text)
    spans, rest = _days(rest)
    for key, written in spans.items():
        add("days", key, written)
    # "Step 2", "part 4", "batch 3": a number named by the word before it is an
    # identifier, not a count ("May 16" is a date).
    rest = _IDENTIFIER.sub(
        lambda m: m.group() if m.group(1).split()[0].lower() in _NUMBERED else m.group(1),
        rest,
    )
    rest = _ORDINAL.sub("", _LABEL_NUMBER.sub(r"\1", rest))
    # "5/9로": a date written before a particle is still a date.
    rest = re.sub(r"(\d/\d{1,2})(?=[가-힣])", r"\1 ", rest)
    for key, written in times.items():
        add("time", key, written)
    for value in values_in(rest):
        if value.kind == "date":
            add("date", value.number, value.label())
        elif value.kind == "percent":
            add("percent", value.number, value.label())
        elif value.unit:
            add(f"amount:{value.unit}", value.number, value.label())
        else:
            add("count", value.number, value.number)
    words = [w.lower() for w in re.findall(r"\w+", text)]
    for colour in sorted(_colours(words)):
        add("colour", colour, colour)
    lowered = text.lower()
    for name in sorted(names_in(text) | _opening_name(text) | _latin_in_korean(text)):
        at = lowered.find(name)
        add("name", name, text[at : at + len(name)] if at >= 0 else name)
    return values, shown


def _reading(text: str, dropped: dict[str, set[str]]) -> Reading:
    """What `text` gives as current (its values less `dropped`) and the nouns naming its
    thing; no yes or no of its own."""
    values, shown = _values(text)
    current = {
        kind: frozenset(keys - dropped.get(kind, set()))
        for kind, keys in values.items()
        if keys - dropped.get(kind, set())
    }
    value_words = {w for keys in values.values() for w in keys}
    value_words |= {w.lower() for written in shown.values() for w in written.split()}
    things = _thing_words(text, value_words) | _latin_things(text)
    subject = _without_kind(_marked_subject(text, things))
    said_about = _marked_subject(text, things | _KIND_WORDS) if subject else ()
    # A name that is the statement's subject ("Glaze는 계속 Mayco 걸로") is its thing as
    # well as a name it gives (two statements naming it share it either way).
    things |= current.get("name", frozenset()) & set(subject)
    return Reading(
        things=things,
        values=current,
        shown={
            kind: shown.get(f"{kind}={key}", key)
            for kind, keys in current.items()
            for key in sorted(keys)
        },
        changes=bool(_CHANGE_CUE.search(text)),
        runs=_runs(text, things),
        subject=subject,
        said_about=said_about,
    )


@lru_cache(maxsize=4_096)
def read(text: str) -> Reading:
    """What `text` states as current, by kind, and the nouns naming its thing."""
    reading = _reading(text, _dropped(text))
    if reading.values:
        return reading
    # A statement with no other value says yes or no about its thing.
    return replace(
        reading, values={"yesno": frozenset(["no" if _NEGATION.search(text) else "yes"])}
    )


def _same_word(x: str, y: str) -> bool:
    if x == y:
        return True
    if _HANGUL.search(x) and _HANGUL.search(y) and min(len(x), len(y)) >= 2:
        return x.startswith(y) or y.startswith(x)  # 출시 / 출시일
    return False


def _matched(words: frozenset[str], other: frozenset[str]) -> set[str]:
    """The words of `words` that name a word of `other` (`_same_word`): the same word, or
    one Hangul word the start of the other. Linear: a prefix match shares its first two
    syllables, so only words of one such bucket are compared."""
    found = set(words & other)
    buckets: dict[str, list[str]] = {}
    for y in other - found:
        if len(y) >= 2 and _HANGUL.search(y):
            buckets.setdefault(y[:2], []).append(y)
    for x in words - found:
        if len(x) >= 2 and any(_same_word(x, y) for y in buckets.get(x[:2], ())):
            found.add(x)
    return found


def _shares_a_thing(a: Reading, b: Reading, *, heads: bool = True) -> bool:
    """Whether `a` (the newer statement) and `b` name one thing."""
    in_b = _matched(a.things, b.things)
    shared = len(in_b)
    # One names the thing at least as fully as the other, with one word more at most
    # ("the launch" is not "the launch party venue"); when each names something the
    # other does not, they are two things of a kind ("the printer checklist for the
    # weekly review", "the kitchen checklist for the weekly review").
    own_a = a.things - in_b
    own_b = b.things - _matched(b.things, a.things)
    if shared and heads and _same_head(a, b):
        return True
    if not shared or (own_a and own_b):
        return False
    if max(len(own_a), len(own_b)) <= 1:
        return True
    # More words in the newer statement are its context, not its thing, when it also names
    # the older one's whole thing in a run of its own ("버터값이 너무 올라서 소금빵 가격
    # 올렸어요" after "소금빵은 3,500원"); in one run they name another thing ("the launch
    # party venue"). More words in the older one are a list that goes on standing.
    if not own_a or len(b.things) > CLAUSE_THINGS * 4:
        return False  # (a "thing" of many nouns is a paragraph: nothing to find in a run)
    longer, shorter = a, b
    return any(
        all(any(_same_word(x, y) for y in shorter.things) for x in run)
        and all(any(_same_word(x, y) for x in run) for y in shorter.things)
        for run in longer.runs
    )


def _same_head(a: Reading, b: Reading) -> bool:
    """Whether both statements are about one run of nouns, the shorter the end of the
    longer: the head noun and what the shorter one says of it ("시급은 10,500원" and "주말
    파트 시급은 11,000원으로", "the deposit is £150" and "the hire deposit is now £200"),
    whatever else each sentence names around it. Two heads told apart by their first words
    ("주말 시급", "평일 시급") are two things; so is a paragraph of many nouns."""
    if not (a.subject and b.subject) or max(len(a.things), len(b.things)) > CLAUSE_THINGS * 6:
        return False
    if _a_list(a) or _a_list(b):
        return False  # several prices or dates: a list of things, each item its own
    longer, shorter = (
        (a.subject, b.subject) if len(a.subject) >= len(b.subject) else (b.subject, a.subject)
    )
    tail = longer[len(longer) - len(shorter) :]
    return all(_same_word(x, y) for x, y in zip(tail, shorter, strict=True))


def _a_list(reading: Reading) -> bool:
    """Whether a reading gives several values of one kind (times aside: "from 9 till 3")."""
    return any(len(keys) > 1 for kind, keys in reading.values.items() if kind != "time")


def same_subject(new: str, old: str) -> bool:
    """Whether two statements are about the same thing: the one decision of meaning in
    supersession (see the module's docstring); the value kinds are compared by
    `changes_value`. That the other one said "change" ties nothing to it: "업체 FAQ
    붙여요" is no new courier because an earlier "배송은 CJ대한통운으로 바꿔요" was a
    change."""
    return _same_subject(read(new), read(old))


def _same_subject(a: Reading, b: Reading, *, heads: bool = True) -> bool:
    if a.things and b.things:
        if _matched(a.things, b.things):
            return _shares_a_thing(a, b, heads=heads)
        return _same_across_languages(a, b)
    if a.things:
        # An earlier statement that names no thing ("Changed on Google", "let's go with
        # Mira instead") is tied to a later one only when that one says it changes too.
        return b.changes and a.changes
    if b.things:
        return a.changes
    return a.changes or b.changes


def _same_across_languages(a: Reading, b: Reading) -> bool:
    """Whether two statements that share no word are about one thing said in two languages
    ("The shipping fee is $5" and "배송비는 이제 7달러"): where words cannot be compared,
    their subjects are, by meaning (language.meaning.same_thing). Two subjects in one
    script that share no word are two things ("포장비", "배송비")."""
    if not (a.said_about and b.said_about):
        return False
    x, y = " ".join(a.said_about), " ".join(b.said_about)
    if bool(_HANGUL.search(x)) == bool(_HANGUL.search(y)):
        return False
    return meaning.same_thing(x, y)


# Where a sentence's clauses part: a comma, semicolon or ideographic comma before a space
# (not the comma of "3,500"). "소금빵은 3,500원으로 가고, 크루아상은 4,200원": each value belongs
# to the nouns of its own clause.
_CLAUSE_BREAK = re.compile(r"[,;，、]\s+")
# A Korean clause also ends in a connective ending of reason, sequence or contrast before a
# space ("결제 심사가 늦어져서 store launch 6월 17일로 밀렸대요": the launch is the second
# clause's thing, not the review's). The last syllables find the candidates; the analyser
# decides (language.analysis.ends_a_clause: "보고서" ends none).
_KO_CONNECTIVE = re.compile(r"[가-힣]{1,20}(?:서|까|데|만)(?=\s)")


def _korean_clauses(part: str) -> list[str]:
    """`part` cut after each word that ends its Korean clause."""
    pieces: list[str] = []
    start = 0
    for match in _KO_CONNECTIVE.finditer(part):
        if ends_a_clause(match.group()):
            pieces.append(part[start : match.end()])
            start = match.end()
    pieces.append(part[start:])
    return pieces


# Clauses read of one sentence, at most: a longer list is a table, not a statement.
MAX_CLAUSES = 8
# A clause is read alone when it is an item of a list, naming its thing in this many nouns
# at most ("크루아상은 4,200원", "basic tune-up £40"); a longer clause is a statement whose
# other clauses say which thing it is about ("…체크리스트는 금색 폴더 안에 있고, 총무팀에서 …").
CLAUSE_THINGS = 2


@lru_cache(maxsize=4_096)
def clauses(text: str) -> tuple[Reading, ...]:
    """The clauses of a statement that give values as items of a list, each read alone: its
    own values (less those the whole sentence drops) and its own thing nouns, or, when it
    names none ("…, 이제 3,800원이에요"), those of the clause before it. Empty for a one-clause
    statement."""
    parts = [
        piece
        for part in _CLAUSE_BREAK.split(text, maxsplit=MAX_CLAUSES)
        for piece in (_korean_clauses(part) if _HANGUL.search(part) else [part])
        if piece.strip()
    ]
    if len(parts) < 2:
        return ()
    dropped = _dropped(text)
    found: list[Reading] = []
    before: Reading | None = None
    for part in parts[:MAX_CLAUSES]:
        reading = _reading(part, dropped)
        if not reading.things and before is not None:
            reading = replace(
                reading, things=before.things, runs=before.runs, subject=before.subject
            )
        before = reading
        # A clause that marks its own subject ("수선 접수는 방문 나흘 전까지 받고") says
        # which thing its value is of, in a few more nouns.
        limit = CLAUSE_THINGS * 2 if reading.subject else CLAUSE_THINGS
        if reading.values and len(reading.things) <= limit:
            found.append(reading)
    return tuple(found)


def _value_changed(a: Reading, b: Reading) -> str:
    """The kind of value both give and on which they disagree entirely ("" for none):
    yes/no only when neither gives any other value."""
    for kind in _KINDS_WITH_ORDER:
        for key in sorted(a.values):
            if key.split(":")[0] != kind or key not in b.values:
                continue
            if not a.values[key] & b.values[key]:
                return key
            if kind == "name" and a.values[key] - b.values[key] and b.values[key] - a.values[key]:
                return key  # a name both give is their subject; each gives another
    return ""


def _changed_kind(a: Reading, b: Reading, *, heads: bool = True) -> str:
    """The kind of value on which reading `a` replaces reading `b` of the same thing ("" for
    none)."""
    kind = _value_changed(a, b)
    if not kind:
        return ""
    if kind == "yesno" and not (a.things and b.things):
        return ""  # "no" about nothing named is no reversal of anything
    if kind != "name" and a.values.get("name", frozenset()) & b.values.get("name", frozenset()):
        return kind  # one product, person or place named by both ("Glow Serum … 35,000원")
    return kind if _same_subject(a, b, heads=heads) else ""


def _changed_pair(new: str, old: str, *, by_clause: bool = True) -> tuple[Reading, str] | None:
    """The reading of `new` that replaces a value of `old`, and its kind: the statements
    whole, else (`by_clause`) clause by clause (a clause gives no yes or no of its own)."""
    if normalize(new) == normalize(old) or is_question(new) or is_question(old):
        return None
    a = read(new)
    # What retires a statement (not `by_clause`) takes its subject's head for the whole of
    # it only when it is one clause: "the deposit is £150, ID required, helmets free" is
    # marked where shown when the deposit changes, and its other rules stand.
    kind = _changed_kind(a, read(old), heads=by_clause or not clauses(old))
    if kind:
        return a, kind
    if not by_clause:
        return None
    b = read(old)
    for x in (*clauses(new), a):
        for y in (*clauses(old), b):
            if x is a and y is b:
                continue  # compared above
            kind = _changed_kind(x, y)
            if kind and kind != "yesno":
                return x, kind
    return None


def changes_value(new: str, old: str, *, by_clause: bool = True) -> bool:
    """Whether `new` gives another value of a kind `old` gives, for the same thing (never
    a question, nor the same statement again), the sentences whole or clause by clause.
    Symmetric but for the text compared. `by_clause=False`: whole sentences only, for what
    retires a statement (one item of a list changed leaves the other items standing: the
    list is marked where it is shown, not taken out)."""
    return _changed_pair(new, old, by_clause=by_clause) is not None


def replacement(new: str, old: str) -> str:
    """How `new` writes the value that replaces `old`'s ("23,500 KRW", "Mira", "05-09"),
    for a mark such as "(superseded by #12: 23,500 KRW)"; "" when it replaces none."""
    pair = _changed_pair(new, old)
    if pair is None:
        # Another value of a kind both give, whatever decided that `new` replaces `old`
        # ("쇼핑백은 남색으로 가요" after "쇼핑백은 크림색이에요": an explicit change).
        reading = read(new)
        kind = _value_changed(reading, read(old))
        if not kind:
            return ""
    else:
        reading, kind = pair
    if kind == "yesno":
        return "no" if "no" in reading.values[kind] else "yes"
    return reading.shown.get(kind, "")


@lru_cache(maxsize=4_096)
def _own(text: str) -> str:
    """The person's own words of a message (language.statements.own_words): what they
    paste, forward or quote changes nothing they said."""
    if "\n" not in text and not any(mark in text for mark in '"“”‘’「」『』>`'):
        return text  # one plain sentence: nothing set apart to leave out
    return own_words(text)


def supersedes(new: str, old: str) -> bool:
    """Whether a later statement retires an earlier one: an explicit reversal
    (language.statements.supersedes: "instead of", "변경", "X, not Y"), or another value
    of the same kind for the same thing (`changes_value`, the sentences whole), said in
    the person's own words (pasted or quoted material supersedes nothing)."""
    said = _own(new)
    if not said.strip():
        return False
    return statements_supersedes(said, old) or changes_value(said, old, by_clause=False)
