"""Values as values: amounts, dates and percentages read from English and Korean text
into one comparable form, so that "29,900" is 29900, "80만원" is 800,000원, "만원" is
10,000원, "1,240만원" is 12,400,000원, "이만구천구백원" is 29,900원, and "3월 14일", "3/14",
"03-14", "March 14" and "삼월 십사일" are one date.

The verifier compares what a summary item states with what its missions said as values
(an amount must match in number and currency, a date in month and day, and year where
both give one), not as loose digits; search indexes each value as a term of its own
(`value_terms`), so a question finds a passage however either writes the value."""

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

# A number in digits: "29,900", "1240", "2.5".
_ARABIC = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_HANGUL_DIGITS = "일이삼사오육칠팔구"
_SMALL_UNITS = {"십": 10, "백": 100, "천": 1_000}
_BIG_UNITS = {"만": 10**4, "억": 10**8, "조": 10**12}
_HANGUL_NUMERAL = _HANGUL_DIGITS + "".join(_SMALL_UNITS) + "".join(_BIG_UNITS)
# Units that stand for one of them before a currency or a percentage ("만원" is 10,000원,
# "억원대" 100,000,000원). Not 조: "조원" is a team member, seldom a trillion won.
_UNITS_ALONE = ("십", "백", "천", "만", "억")
# A number as Korean writes it: digits, Hangul numerals and their units, a space allowed
# only after 만/억/조 before the next group ("1억 2천만", "3만 5천").
# A Hangul digit never follows a digit ("15일" is the 15th, not 15 and 1).
_ELEMENT = rf"{_ARABIC}|[십백천만억조]|(?<!\d)[{_HANGUL_DIGITS}]"
_NUMBER = rf"(?:{_ELEMENT})(?:{_ELEMENT}|(?<=[만억조])\s(?=[\d{_HANGUL_NUMERAL}]))*"

_CURRENCY_BEFORE = {"$": "usd", "us$": "usd", "₩": "krw", "€": "eur", "¥": "jpy", "£": "gbp"}
_CURRENCY_AFTER = {
    "원": "krw",
    "won": "krw",
    "krw": "krw",
    "달러": "usd",
    "불": "usd",
    "dollar": "usd",
    "dollars": "usd",
    "usd": "usd",
    "유로": "eur",
    "euro": "eur",
    "euros": "eur",
    "eur": "eur",
    "엔": "jpy",
    "yen": "jpy",
    "jpy": "jpy",
    "파운드": "gbp",
    "gbp": "gbp",
}
_PERCENT = ("%", "퍼센트", "프로", "percent", "per cent")

_MONTHS = {
    name: index + 1
    for index, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
MONTH_NAMES = tuple(_MONTHS)
_MONTH_NAME = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_PATTERNS = [
    # 2026-03-14, 2026.3.14, 2026/03/14
    re.compile(r"(?<![\w.])(?P<y>\d{4})[-./](?P<m>\d{1,2})[-./](?P<d>\d{1,2})(?![\d])"),
    # 2026년 3월 14일, 3월 14일, 삼월 십사일, 유월 십일
    re.compile(
        rf"(?<![가-힣\d])(?:(?P<y>\d{{4}})\s?년\s?)?"
        rf"(?P<m>\d{{1,2}}|[{_HANGUL_NUMERAL}]{{1,3}}|유|시)\s?월\s?"
        rf"(?P<d>\d{{1,2}}|[{_HANGUL_NUMERAL}]{{1,4}})\s?일(?!요일)"
        r"|(?<![가-힣\d])(?P<y2>\d{4})\s?년\s?(?P<m2>\d{1,2})\s?월\s?(?P<d2>\d{1,2})\s?일"
    ),
    # 3/14, 3/14/2026 (month first), 03-14
    re.compile(
        r"(?<![\w./-])(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:/(?P<y>\d{4}))?(?![\w/])"
        r"|(?<![\w./-])(?P<m2>0[1-9])-(?P<d2>\d{2})(?![\w-])"
    ),
    # March 14, Mar 14th, March 14, 2026
    re.compile(
        rf"\b(?P<mn>{_MONTH_NAME})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>\d{{4}}))?",
        re.IGNORECASE,
    ),
    # 14 March, 14th of March 2026
    re.compile(
        rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mn>{_MONTH_NAME})\b\.?(?:,?\s+(?P<y>\d{{4}}))?",
        re.IGNORECASE,
    ),
]

_AMOUNT = re.compile(
    r"(?P<before>us\$|[$₩€¥£])?\s?"
    # Digits start after anything but a letter or digit; Hangul numerals after no Hangul.
    rf"(?P<n>(?<![A-Za-z0-9_.,])(?=\d)|(?<![가-힣A-Za-z0-9])(?=[{_HANGUL_NUMERAL}]))(?P<num>{_NUMBER})"
    r"(?:\s?(?P<scale>thousand|million|billion|bn|k)(?![A-Za-z]))?"
    r"(?:\s?(?P<percent>%|퍼센트|프로|percent\b|per cent\b)"
    r"|\s?(?P<after>원|달러|불|유로|엔|파운드|(?:won|krw|dollars?|usd|euros?|eur|yen|jpy|gbp)\b))?",
    re.IGNORECASE,
)
_SCALES = {"thousand": 10**3, "k": 10**3, "million": 10**6, "billion": 10**9, "bn": 10**9}
# A number written with more digits than this is an identifier (an account or tracking
# number, a run of digits pasted or typed), not an amount anyone states: read as a value,
# its digits beyond Decimal's precision turned to zeros, and a copy clipped for room no
# longer gave the same value, so the fold's evidence check refused its own digest.
MAX_VALUE_DIGITS = 18
_MISSION_REF = re.compile(r"\[?(?:\bs\d+)?#\d+[a-z]{0,2}\b\]?")


@dataclass(frozen=True, order=True)
class Value:
    """One value of a text. `kind`: "amount" (with a `unit`: a currency code, or "" for
    a plain number), "percent" or "date" (`number` is MMDD; `year` where the text gives
    one)."""

    kind: str
    number: str
    unit: str = ""
    year: str = ""

    def label(self) -> str:
        if self.kind == "date":
            month, day = int(self.number[:2]), int(self.number[2:])
            return f"{self.year + '-' if self.year else ''}{month:02d}-{day:02d}"
        if self.kind == "percent":
            return f"{self.number}%"
        return f"{self.number}{' ' + self.unit.upper() if self.unit else ''}"


def _plain(number: Decimal) -> str:
    text = format(number.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def parse_number(raw: str) -> Decimal | None:
    """The value of a number written in digits, Hangul numerals or both ("1,240만" →
    12400000, "이만구천구백" → 29900, "1억 2천만" → 120000000); None if it is not one."""
    tokens = re.findall(rf"{_ARABIC}|[{_HANGUL_NUMERAL}]", raw)
    if not tokens:
        return None
    total = Decimal(0)
    group = Decimal(0)
    current: Decimal | None = None
    for token in tokens:
        if token in _SMALL_UNITS:
            group += (current if current is not None else Decimal(1)) * _SMALL_UNITS[token]
            current = None
        elif token in _BIG_UNITS:
            group += current if current is not None else Decimal(0)
            total += (group or Decimal(1)) * _BIG_UNITS[token]
            group = Decimal(0)
            current = None
        else:
            if current is not None:
                return None  # two numbers in a row ("1 2"): not one number
            if token in _HANGUL_DIGITS:
                current = Decimal(_HANGUL_DIGITS.index(token) + 1)
            else:
                try:
                    current = Decimal(token.replace(",", ""))
                except InvalidOperation:
                    return None
    return total + group + (current if current is not None else Decimal(0))


def _is_hangul_numeral(raw: str) -> bool:
    return bool(raw) and all(ch in _HANGUL_NUMERAL or ch == " " for ch in raw)


def _month(raw: str) -> int | None:
    if raw in ("유", "시"):
        return {"유": 6, "시": 10}[raw]
    number = parse_number(raw)
    if number is None or number != int(number) or not 1 <= number <= 12:
        return None
    return int(number)


def _day(raw: str) -> int | None:
    number = parse_number(raw)
    if number is None or number != int(number) or not 1 <= number <= 31:
        return None
    return int(number)


def _dates(text: str) -> tuple[list[Value], list[tuple[int, int]]]:
    found: list[Value] = []
    spans: list[tuple[int, int]] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end in spans):
                continue
            groups = {k: v for k, v in match.groupdict().items() if v}
            month_name = groups.get("mn")
            month = _MONTHS[month_name.lower()] if month_name else None
            if month is None:
                raw_month = groups.get("m") or groups.get("m2") or ""
                month = _month(raw_month)
                # "이월" and "일월" alone are words too (carried over, January): a Hangul
                # month counts only with its day, which this pattern requires anyway.
            day = _day(groups.get("d") or groups.get("d2") or "")
            if month is None or day is None:
                continue
            year = groups.get("y") or groups.get("y2") or ""
            found.append(Value("date", f"{month:02d}{day:02d}", year=year))
            spans.append(match.span())
    return found, spans


def values_in(text: str) -> set[Value]:
    """Every amount, percentage and date of a text, and every other number as a plain
    amount (mission references like "#12" are not values)."""
    return _read(text)[0]


def value_spans(text: str) -> list[tuple[int, int]]:
    """Where the text states its values (`values_in`), as (start, end) offsets: the
    number with its unit, currency or percent sign ("80만원", "$29.99", "3월 14일")."""
    return sorted(_read(text)[1])


def _read(text: str) -> tuple[set[Value], list[tuple[int, int]]]:
    # A mission reference is no value; blanked to as many spaces, so offsets stay the text's.
    text = _MISSION_REF.sub(lambda ref: " " * len(ref.group()), text)
    dates, spans = _dates(text)
    found: set[Value] = set(dates)
    for match in _AMOUNT.finditer(text):
        start, end = match.span("num")
        if any(s < end and start < e for s, e in spans):
            continue
        raw = match.group("num").strip()
        if sum(c.isdigit() for c in raw) > MAX_VALUE_DIGITS:
            continue
        unit = ""
        if match.group("before"):
            unit = _CURRENCY_BEFORE[match.group("before").lower()]
        elif match.group("after"):
            unit = _CURRENCY_AFTER[match.group("after").lower()]
        percent = bool(match.group("percent"))
        if _is_hangul_numeral(raw):
            # Hangul numerals are words as well ("이", "일", "만", "천"): a value only with
            # a unit after them, and more than one syllable ("이만구천구백원", "삼십 퍼센트")
            # unless it is a unit alone, one of it ("만원", "천 원", "억원대", "백프로").
            if not (match.group("after") or percent):
                continue
            if len(raw) < 2 and raw not in _UNITS_ALONE:
                continue
        number = parse_number(raw)
        if number is None:
            continue
        if match.group("scale"):
            number *= _SCALES[match.group("scale").lower()]
        if percent:
            found.add(Value("percent", _plain(number)))
        else:
            found.add(Value("amount", _plain(number), unit))
        spans.append(match.span())
    return found, spans


def without_values(text: str) -> str:
    """The text with every amount, percentage and date taken out: what it says of what,
    whatever the value ("라떼 가격은 6,500원" → "라떼 가격은"; mission references go too)."""
    text = _MISSION_REF.sub(" ", text)
    _, spans = _read(text)
    kept, start = [], 0
    for begin, end in sorted(spans):
        if begin >= start:
            kept.append(text[start:begin])
            start = end
    kept.append(text[start:])
    return " ".join(" ".join(kept).split())


def supported(value: Value, source: set[Value]) -> bool:
    """Whether `source` states `value`: an amount with the same number and currency (a
    plain number of the source stands for any currency; a plain number of the text is
    matched by any value of the source holding it), a percentage as a percentage or a
    plain number, a date by month and day, and by year where both give one."""
    if value.kind == "date":
        return any(
            s.kind == "date"
            and s.number == value.number
            and (not s.year or not value.year or s.year == value.year)
            for s in source
        )
    if value.kind == "percent":
        return any(
            s.number == value.number and (s.kind == "percent" or (s.kind, s.unit) == ("amount", ""))
            for s in source
        )
    if value.unit:
        return any(
            s.kind == "amount" and s.number == value.number and s.unit in ("", value.unit)
            for s in source
        )
    return any(s.number == value.number for s in source) or any(
        value.number in _date_parts(s) for s in source if s.kind == "date"
    )


def _date_parts(value: Value) -> set[str]:
    parts = {str(int(value.number[:2])), str(int(value.number[2:]))}
    if value.year:
        parts.add(value.year)
    return parts


def unsupported(text: str, source: str) -> list[str]:
    """The values of `text` that `source` does not state, labelled for a person."""
    source_values = values_in(source)
    return sorted(v.label() for v in values_in(text) if not supported(v, source_values))


def value_terms(text: str) -> list[str]:
    """Search terms for the values of a text: an amount as its plain number (so "80만원"
    and "800,000원" share "800000"), a date as "d" + MMDD (and + YYYYMMDD with its year),
    a percentage as "pct" + number. Written the same for what is indexed and asked."""
    out: list[str] = []
    for value in sorted(values_in(text)):
        if value.kind == "date":
            out.append(f"d{value.number}")
            if value.year:
                out.append(f"d{value.year}{value.number}")
        elif value.kind == "percent":
            out.append(f"pct{value.number.replace('.', 'p')}")
        else:
            out.append(value.number.replace(".", "p"))
    return out


def closeness(asked: Value, stated: Value) -> float:
    """How near a value a text states is to one a question asks for, from 1 (the same
    value however written: "800,000원" for "80만원") down towards 0 as they part
    ("79만원" ≈ 0.99, "8만원" 0.1): the smaller over the larger. Values of another kind or
    another currency are 0 (a plain number stands for any currency, as in `supported`); a
    date is the same date or none."""
    if asked.kind == "date" or stated.kind == "date":
        return 1.0 if supported(asked, {stated}) and asked.kind == stated.kind else 0.0
    if asked.kind != stated.kind or (asked.unit and stated.unit and asked.unit != stated.unit):
        return 0.0
    a, b = abs(Decimal(asked.number)), abs(Decimal(stated.number))
    if a == b:
        return 1.0
    return float(min(a, b) / max(a, b))
