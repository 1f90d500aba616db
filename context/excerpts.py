"""Choosing what of a long text a prompt keeps (pure, deterministic): the text is cut into
units (its lines; a line over UNIT_MAX_CHARS into sentences, then into pieces), units are
scored for the current instruction, and the best ones are kept in their order, with a
marker naming what was left out between them.

Scoring is lexical and cheap (no analyser call per unit): a unit holds a query term when
its lower-cased text contains the term (the instruction's terms are normalised stems and
Korean morphemes, so "registrations" holds "registr", "보관해요" holds "보관"). A term
weighs by how rare it is among the units being scored (ln(1 + n / units holding it)), so
words every line shares weigh little."""

import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

UNIT_MAX_CHARS = 400
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|(?<=[다요죠])\.\s+")


@dataclass(frozen=True)
class Unit:
    start: int
    end: int


def units(text: str) -> list[Unit]:
    """Contiguous spans covering the text: each line with its newline; a long line cut at
    sentence ends, and a long sentence at spaces (else hard) into UNIT_MAX_CHARS pieces."""
    spans: list[Unit] = []
    start = 0
    for line in text.splitlines(keepends=True):
        end = start + len(line)
        if len(line) <= UNIT_MAX_CHARS:
            spans.append(Unit(start, end))
        else:
            spans += _cut(text, start, end)
        start = end
    return spans


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
        holding = sum(1 for t in folded if term in t)
        if holding:
            weights[term] = math.log(1 + n / holding)
    return weights


def score(text: str, weights: dict[str, float]) -> float:
    folded = text.lower()
    return sum(w for term, w in weights.items() if term in folded)


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
    order += [i for i in relevant if i not in order]
    must = len(order)
    taken = set(order)
    order += sorted((i for i in range(len(spans)) if i not in taken), key=lambda i: (-extra[i], -i))
    kept: set[int] = set()
    kept_chars = 0
    for position, index in enumerate(order):
        size = spans[index].end - spans[index].start
        if kept_chars + size > limit:
            continue  # cannot fit, markers aside
        if position >= must and kept_chars + size > fill_to:
            continue
        trial = kept | {index}
        if len(render(text, spans, trial, label)) <= limit:
            kept, kept_chars = trial, kept_chars + size
    if not kept:
        return "", []
    return render(text, spans, kept, label), sorted(kept)
