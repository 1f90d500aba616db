"""Whether a sentence in the person's own voice sets a standing rule: something to hold
for every later mission, not for this one. Read from how long it is meant to hold, not
from what it is about: "from now on", "going forward", "always", "never", "every Friday",
"make sure to", "as a rule"; "앞으로", "이제부터", "항상", "매번", "매주", "반드시",
"무조건", "절대"; and a prohibition tied to a recurring situation ("리뷰 답글에서는 가격
얘기 하지 말아 주세요", "when you write to suppliers, don't …"). Shared by memory
extraction (the rule is remembered and in force: docs/design.md §5) and the extractive
fold (the rule ranks with the constraints: docs/design.md §4).

Whose voice it is, is language.material's question; whether it asks rather than states,
language.statements.is_question's. Every pattern is a plain alternation or a run of at
most a fixed length after a fixed word: linear in the text."""

import re

_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend"
_EN_STANDING = (
    r"\b(?:always|never|from now on|going forward|moving forward|from here on(?: out)?|"
    r"henceforth|as a rule|from today on|every time|each time|whenever|"
    r"make sure (?:to|that|you|we|it)|be sure to|don'?t ever|do not ever|no exceptions?|"
    r"without exception|at all times|in (?:the )?future)\b"
)
# "앞으로" is "from now on", but "앞으로 3일" is "in three days".
_KO_STANDING = (
    r"앞으로(?!\s?(?:\d|한|두|세|네|몇|며칠|일주일|이틀|사흘|보름))|이제부터|다음부터|이후로는|"
    r"항상|언제나|매번|절대|반드시|무조건|예외\s?없이|원칙적으로|(?<![가-힣])늘(?=\s)"
)
STANDING = re.compile(f"{_EN_STANDING}|{_KO_STANDING}", re.IGNORECASE)
# A recurring time ("every Friday", "매주 월요일"): a rule when it is asked for ("Every
# Friday, send me …", "매주 … 보고해 줘") or stands with no figure; "340 clinics, 212 of
# them active every week" is a count.
_RECURRING = re.compile(
    rf"\b(?:every|each) (?:day|morning|evening|night|week|month|quarter|year|{_WEEKDAYS})s?\b"
    r"|매일|매주|매달|매월|매년",
    re.IGNORECASE,
)
_FRONTED = re.compile(r"^(?:every|each)\b|^매(?:일|주|달|월|년)", re.IGNORECASE)
_KO_ASKED_FOR = re.compile(r"(?:줘|주세요|하세요|해요|합시다|하자|할게요|할 것|하기|해)[.!~\s]*$")
# A prohibition tied to a situation that recurs: "<when/where>는 … 하지 마(세요)".
_KO_SITUATION_PROHIBITION = re.compile(
    r"(?:때는|때에는|에서는|에는|할 땐)\s.{0,80}?(?:하지\s?마|하지\s?말|말아\s?주|금지)"
)
_EN_SITUATION_PROHIBITION = re.compile(
    r"^(?:when|whenever|if|in|on|for)\b[^,]{0,80},\s*(?:please\s+)?(?:don'?t|do not|never)\b",
    re.IGNORECASE,
)


def states_a_rule(sentence: str) -> bool:
    """Whether a (non-question) sentence sets a rule meant to hold from now on."""
    sentence = sentence.strip()
    if STANDING.search(sentence) or _KO_SITUATION_PROHIBITION.search(sentence):
        return True
    if _EN_SITUATION_PROHIBITION.search(sentence):
        return True
    return bool(_RECURRING.search(sentence)) and (
        not any(c.isdigit() for c in sentence)
        or bool(_FRONTED.search(sentence))
        or bool(_KO_ASKED_FOR.search(sentence))
    )
