"""Choosing what of a long text a prompt keeps (pure, deterministic): the text is cut into
units (its lines; a line over UNIT_MAX_CHARS into sentences, then into pieces), units are
scored for the current instruction, and the best ones are kept in their order, with a
marker naming what was left out between them.

Scoring is lexical and cheap (no analyser call per unit): a unit holds a query term when
its lower-cased text contains the term (the instruction's terms are normalised stems and
Korean morphemes, so "registrations" holds "registr", "보관해요" holds "보관"). A term
weighs by how rare it is among the units being scored (ln(1 + n / units holding it)), so
words every line shares weigh little."""

import bisect
import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

UNIT_MAX_CHARS = 400
_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|(?<=[다요죠])\.\s+")


@dataclass(frozen=True)
class Unit:
    start: int
    end: int


# Texts longer than this are cut anew each time (a file's text, up to 200,000 chars): the
# memo keeps up to 4,096 texts, which must stay small.
UNITS_REMEMBERED_MAX_CHARS = 40_000


def units(text: str) -> list[Unit]:
    """Contiguous spans covering the text: each line with its newline; a long line cut at
    sentence ends, and a long sentence at spaces (else hard) into UNIT_MAX_CHARS pieces.
    Remembered per text: the window's missions and the recalled passages come back in
    the next missions' prompts."""
    if len(text) > UNITS_REMEMBERED_MAX_CHARS:
        return list(_units.__wrapped__(text))
    return list(_units(text))


@lru_cache(maxsize=4_096)
def _units(text: str) -> tuple[Unit, ...]:
    spans: list[Unit] = []
    start = 0
    for line in text.splitlines(keepends=True):
        end = start + len(line)
        if len(line) <= UNIT_MAX_CHARS:
            spans.append(Unit(start, end))
        else:
            spans += _cut(text, start, end)
        start = end
    return tuple(spans)


def _cut(text: str, start: int, end: int) -> list[Unit]:
    pieces: list[Unit] = []
    cuts = [start] + [start + m.end() for m in _SENTENCE_END.finditer(text[start:end])] + [end]
    for a, b in itertools.pairwise(cuts):
        while b - a > UNIT_MAX_CHARS:
            space = text.rfind(" ", a + UNIT_MAX_CHARS // 2, a + UNIT_MAX_CHARS)
            cut = space + 1 if space > a else a + UNIT_MAX_CHARS
            pieces.append(Unit(a, cut))
            a = cut
        if b > a:
            pieces.append(Unit(a, b))
    return pieces


def term_weights(terms: Iterable[str], texts: Iterable[str]) -> dict[str, float]:
    """Each term's weight over `texts` (lower-cased): ln(1 + n / texts holding it); a term
    no text holds weighs nothing."""
    folded = [t.lower() for t in texts]
    n = len(folded)
    weights: dict[str, float] = {}
    for term in dict.fromkeys(terms):
        holding = sum(1 for t in folded if _holds(t, term))
        if holding:
            weights[term] = math.log(1 + n / holding)
    return weights


def score(text: str, weights: dict[str, float]) -> float:
    folded = text.lower()
    return sum(w for term, w in weights.items() if _holds(folded, term))


# What may follow a one-syllable Korean word: a particle or the copula's first syllable.
_PARTICLE_START = "이가은는을를의에도만과와로랑께요입였"


@lru_cache(maxsize=1_024)
def _syllable_word(term: str) -> re.Pattern[str] | None:
    """For a term of one Hangul syllable, the pattern of it as a word of its own: after a
    digit (a counter: "218명") or a non-Hangul character, and before a non-Hangul
    character or a particle ("명이", "쪽은"). Held as a plain substring it is inside other
    words and names ("서" of 서나요 is in every line 서연 speaks, "명" in 명찰)."""
    if len(term) != 1 or not _SYLLABLE.match(term):
        return None
    return re.compile(rf"(?<![\uac00-\ud7a3]){term}(?=$|[^\uac00-\ud7a3]|[{_PARTICLE_START}])")


def _holds(folded: str, term: str) -> bool:
    if term not in folded:
        return False
    word = _syllable_word(term)
    return word is None or word.search(folded) is not None


def marker(label: str, chars: int, count: int) -> str:
    if not label:
        return f"[… {chars:,} chars left out …]\n"
    things = "line" if count == 1 else "lines"
    return f"[… {label}: {chars:,} chars ({count} {things}) left out …]\n"


def render(
    text: str,
    spans: list[Unit],
    kept: set[int],
    label: str,
) -> str:
    """(An empty label gives the short marker, for excerpts under a header that names
    the mission already.)"""
    """The kept units in their order, each run of left-out units replaced by a marker."""
    out: list[str] = []
    gap_chars = gap_count = 0
    for index, span in enumerate(spans):
        if index in kept:
            if gap_count:
                out.append(marker(label, gap_chars, gap_count))
                gap_chars = gap_count = 0
            piece = text[span.start : span.end]
            out.append(piece)
        else:
            gap_chars += span.end - span.start
            gap_count += 1
    if gap_count:
        out.append(marker(label, gap_chars, gap_count))
    rendered = "".join(out)
    return rendered[:-1] if rendered.endswith("\n") else rendered


class Growing:
    """A rendering (see `render`) whose length is kept up to date as units are added: a
    unit splits the gap it falls in, whose marker becomes up to two. With `quoted`, the
    length is that of the rendering as a JSON string (escapes are per character, so
    lengths add up). No rendering per trial."""

    def __init__(self, text: str, spans: list[Unit], label: str, *, quoted: bool = False):
        self.text, self.spans, self.label, self.quoted = text, spans, label, quoted
        self.before = [0]
        self.sizes: list[int] = []
        for span in spans:
            piece = text[span.start : span.end]
            self.before.append(self.before[-1] + len(piece))
            self.sizes.append(_quoted_len(piece) if quoted else len(piece))
        # A marker's only escapes, quoted: its label's and its final newline's.
        self.marker_escapes = _quoted_len(label) - len(label) + 1 if quoted else 0
        self.kept: list[int] = []
        self.body = self._gap(0, len(spans) - 1)
        # No marker is longer than the one standing for the whole text (with the plural).
        self.longest_marker = len(marker(label, len(text), 2)) + self.marker_escapes

    def _gap(self, first: int, last: int) -> int:
        if first > last:
            return 0
        text = marker(self.label, self.before[last + 1] - self.before[first], last - first + 1)
        return len(text) + self.marker_escapes

    def _grown(self, index: int) -> tuple[int, int]:
        at = bisect.bisect_left(self.kept, index)
        previous = self.kept[at - 1] if at else -1
        following = self.kept[at] if at < len(self.kept) else len(self.spans)
        body = (
            self.body
            + self.sizes[index]
            - self._gap(previous + 1, following - 1)
            + self._gap(previous + 1, index - 1)
            + self._gap(index + 1, following - 1)
        )
        return at, body

    def _length(self, body: int, last: int) -> int:
        """The rendering's length: its final newline is dropped."""
        n = len(self.spans)
        ends = last < n - 1 or self.text[self.spans[last].end - 1 : self.spans[last].end] == "\n"
        newline = 2 if self.quoted else 1
        return body - (newline if ends else 0) + (2 if self.quoted else 0)

    def length(self) -> int:
        """The rendering's length as it stands (once a unit is kept)."""
        return self._length(self.body, self.kept[-1])

    def length_with(self, index: int) -> int:
        _, body = self._grown(index)
        return self._length(body, max(index, self.kept[-1] if self.kept else -1))

    def add(self, index: int) -> None:
        at, self.body = self._grown(index)
        self.kept.insert(at, index)

    def gaps(self) -> list[tuple[int, int]]:
        """The runs of units left out (first, last), each standing for one marker."""
        bounds = [-1, *self.kept, len(self.spans)]
        return [(a + 1, b - 1) for a, b in itertools.pairwise(bounds) if b - a > 1]

    def _filled(self, first: int, last: int) -> int:
        return self.body - self._gap(first, last) + sum(self.sizes[first : last + 1])

    def length_filled(self, first: int, last: int) -> int:
        """The length with the whole gap `first`..`last` (one of `gaps`) put back: its
        marker goes, and no other comes."""
        last_kept = max(last, self.kept[-1] if self.kept else -1)
        return self._length(self._filled(first, last), last_kept)

    def fill(self, first: int, last: int) -> None:
        self.body = self._filled(first, last)
        self.kept = sorted({*self.kept, *range(first, last + 1)})

    def render(self) -> str:
        return render(self.text, self.spans, set(self.kept), self.label)


# What JSON quoting escapes (json.dumps with ensure_ascii=False): the quote, the
# backslash and control characters; five of those in two chars, the others in six.
_ESCAPED = re.compile(r'[\x00-\x1f\\"]')
_SHORT_ESCAPES = frozenset('\\"\n\r\t\b\f')


def _quoted_len(text: str) -> int:
    """len(json.dumps(text, ensure_ascii=False)) - 2, without building the quoted text."""
    length = len(text)
    for char in _ESCAPED.findall(text):
        length += 1 if char in _SHORT_ESCAPES else 5
    return length


def select(
    text: str,
    limit: int,
    *,
    weights: dict[str, float],
    label: str,
    required: Iterable[int] = (),
    secondary: dict[str, float] | None = None,
    fill_to: int | None = None,
) -> tuple[str, list[int]]:
    """The text within `limit` chars: whole if it fits; else the `required` units (in the
    given order of priority, while they fit), then every unit that holds a term of
    `weights`, best first (`secondary` counts a tenth as much; ties to the later unit),
    then other units, those that score for `secondary` first, then from the end, while
    the kept text is under `fill_to` (default: the limit). Returns the rendering and the
    kept unit indexes."""
    if len(text) <= limit:
        return text, list(range(len(units(text))))
    spans = units(text)
    secondary = secondary or {}
    fill_to = limit if fill_to is None else fill_to
    pieces = [text[s.start : s.end] for s in spans]
    primary = [score(p, weights) for p in pieces]
    extra = [score(p, secondary) for p in pieces]
    order: list[int] = []
    for index in required:
        if 0 <= index < len(spans) and index not in order:
            order.append(index)
    relevant = sorted(
        (i for i in range(len(spans)) if primary[i] > 0),
        key=lambda i: (-(primary[i] + extra[i] / 10), -i),
    )
    required_set = set(order)
    order += [i for i in relevant if i not in required_set]
    must = len(order)
    taken = set(order)
    order += sorted((i for i in range(len(spans)) if i not in taken), key=lambda i: (-extra[i], -i))
    growing = Growing(text, spans, label)
    kept_chars = 0
    for position, index in enumerate(order):
        size = spans[index].end - spans[index].start
        if kept_chars + size > limit:
            continue  # cannot fit, markers aside
        if position >= must and kept_chars + size > fill_to:
            continue
        if growing.length_with(index) <= limit:
            growing.add(index)
            kept_chars += size
    kept_sorted = growing.kept
    if not kept_sorted:
        return "", []
    return render(text, spans, set(kept_sorted), label), kept_sorted
