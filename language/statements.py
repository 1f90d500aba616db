"""What a statement says: its normalised form, its subject ("<subject> is <value>"), the
words naming its topic, and whether it reverses something. Shared by folding, the
verifier and long-term memory, so a contradiction means the same thing everywhere."""

import re

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
    ]
)
_REVERSAL = re.compile(
    r"\b(instead|no longer|switch(?:ed|ing)? to|chang(?:e|ed|ing)|rather than|actually|"
    r"scrap|cancel(?:led|ed)?|revers(?:e|ed)|replac(?:e|ed|ing)|move[sd]? (?:it )?to|"
    r"postpone[sd]?|not anymore)\b",
    re.IGNORECASE,
)
_COPULA = re.compile(r"^(.{2,60}?)\s+(?:is|are|will be|should be|=|:)\s", re.IGNORECASE)
_LEAD_IN = re.compile(
    r"^(?:so |ok(?:ay)?,? |note:? |also,? |and )?(?:we(?:'ve| have)? (?:decided|agreed)"
    r"(?: that| to)?|let'?s|we(?:'ll| will) go with|the final|final(?:ly)?,?|our)\s+",
    re.IGNORECASE,
)


def normalize(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def subject_of(text: str) -> str:
    """What a statement is about when it has the form "<subject> is <value>"; "" if not."""
    stripped = _LEAD_IN.sub("", text.strip())
    match = _COPULA.match(stripped)
    if not match:
        return ""
    return normalize(match.group(1))


def topic_words(text: str) -> set[str]:
    """The words naming what a statement is about: no values (numbers, dates, proper
    names) and no decision or reversal vocabulary."""
    words: set[str] = set()
    for position, word in enumerate(re.findall(r"[\w'’-]+", text)):
        lowered = word.lower()
        if lowered in _FILLER or lowered in _MONTHS or any(ch.isdigit() for ch in word):
            continue
        if position > 0 and word[:1].isupper():
            continue
        if len(lowered) < 3:
            continue
        words.add(lowered)
    return words


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
