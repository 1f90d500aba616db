"""Which recalled excerpts quote a decision that was later reversed (issue 36): recall
brings back the original words, so an excerpt of a superseded decision is marked
"(superseded by #97)", the way the summary marks the decision itself. Pure functions,
no database.

Two sources: the summary's own record (a decision it marks superseded, a mission it
dropped as "superseded by #N"), and the person's later sentences that reverse an earlier
statement or give another value for its subject (language.supersession), folded or not:
in the detail window, the pending missions, the history shown whole, and the
instructions after the oldest mission recall quotes (context.loading): a summary that
left the old statement out for its budget keeps no record of its change."""

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from language.statements import (
    _HANGUL,
    conflicts,
    content_words,
    normalize,
    own_words,
    reverses,
    same_topic,
    split_sentences,
)
from language.supersession import changes_value, read, replacement
from summaries.render import Labels, Ref, ref_label
from summaries.schemas import SummaryState

# A dropped mission's reason as the extractive fold writes it when a newer statement
# retired the mission's item.
_DROPPED_SUPERSEDED = re.compile(r"^superseded by (?:s(\d+))?#(\d+)")
# Sentences of an excerpt compared with the reversals: enough for a few hundred chars.
MAX_SENTENCES = 40
# A sentence longer than this is a paste, a table or a paragraph run together, not a
# statement a person changes: it neither reverses nor is compared (the comparison's cost
# grows with the nouns of both).
MAX_STATEMENT_CHARS = 600
# Words too common to say two sentences share a subject (the cheap test run before the
# full comparison of a sentence with a reversal).
_COMMON = frozenset(
    [
        *("change", "changed", "decided", "instead", "plan", "that", "this", "with", "from"),
        *("have", "will", "were", "been", "they", "what", "when", "your", "ours", "there"),
    ]
)


# "Dana: …" at the start of a chat line names who speaks, not what the line is about: two
# lines of one speaker share no subject by that.
_SPEAKER = re.compile(r"^\s*[^\s:]{1,24}:\s+")


def _said(sentence: str) -> str:
    """A sentence without the speaker's label before it."""
    return _SPEAKER.sub("", sentence, count=1)


# A line that changes nothing: a question ("can we move it to Tuesday?"), or one that says
# nothing changed ("same as last year, no change", "변경 없음").
_NO_CHANGE = re.compile(
    r"[?？]\s*$|\bno (?:change|changes)\b|\bunchanged\b|변경\s*(?:없|안)|그대로", re.I
)


def _states(sentence: str) -> bool:
    """Whether a sentence states something (a question or a "no change" line does not)."""
    return not _NO_CHANGE.search(sentence)


def _words(text: str) -> frozenset[str]:
    """The words of a sentence that can name its subject or its value."""
    return frozenset(
        w for w in content_words(text) if w not in _COMMON and (len(w) >= 4 or not w.isascii())
    )


def _subject_script(sentence: str) -> str:
    """The script a sentence's subject is written in ("hangul", "latin"), "" for none."""
    about = " ".join(read(sentence).said_about)
    if not about:
        return ""
    return "hangul" if _HANGUL.search(about) else "latin"


@dataclass(frozen=True)
class Superseded:
    """A statement of mission `ref` that a later one reversed (`by`: its label)."""

    ref: Ref
    statement: str
    by: str


@dataclass(frozen=True)
class Reversal:
    """A sentence of mission #seq of this session that reverses an earlier statement."""

    seq: int
    sentence: str
    words: frozenset[str] = frozenset()
    # The number the person sees on that mission; blank: its seq.
    label: str = ""

    @property
    def unnamed(self) -> bool:
        """It names no thing of its own ("let's go with Mira instead")."""
        return not read(self.sentence).things

    @property
    def script(self) -> str:
        return _subject_script(self.sentence)


def recorded_refs(state: SummaryState, dropped: list[dict[str, Any]]) -> set[Ref]:
    """The missions `recorded` names as superseding others (to look their labels up)."""
    refs: set[Ref] = set()
    for decision in state.decisions:
        if decision.superseded:
            refs |= {(decision.session, s) for s in decision.superseded_by}
    for row in dropped:
        match = _DROPPED_SUPERSEDED.match(str(row.get("reason", "")))
        if match is not None:
            refs.add((int(match.group(1)) if match.group(1) else None, int(match.group(2))))
    return refs


def recorded(
    state: SummaryState, dropped: list[dict[str, Any]], labels: Labels | None = None
) -> dict[Ref, list[Superseded]]:
    """The summary's record of superseded statements, by the mission they came from:
    decisions marked superseded, and missions dropped because a newer statement retired
    their item (`dropped` as stored: a list of {"mission", "session", "reason"}). The
    missions that superseded them are named by `labels` (the numbers the person sees)."""
    out: dict[Ref, list[Superseded]] = {}
    for decision in state.decisions:
        if not decision.superseded:
            continue
        for seq in decision.missions:
            # Only a later mission supersedes this one's words (a decision cited from
            # several missions can be superseded by one of them).
            by = ", ".join(
                ref_label(decision.session, s, labels) for s in decision.superseded_by if s > seq
            )
            if not by:
                continue
            ref = (decision.session, seq)
            out.setdefault(ref, []).append(Superseded(ref, decision.text, by))
    for row in dropped:
        match = _DROPPED_SUPERSEDED.match(str(row.get("reason", "")))
        if match is None:
            continue
        ref = (row.get("session"), int(row["mission"]))
        digest = str(row["reason"]).split("digest:", 1)[-1].strip()
        by = ref_label(int(match.group(1)) if match.group(1) else None, int(match.group(2)), labels)
        out.setdefault(ref, []).append(Superseded(ref, digest, by))
    return out


def reversals(
    missions: list[tuple[int, str]], labels: dict[int, str] | None = None, *, named: bool = False
) -> list[Reversal]:
    """The sentences of the person's instructions (seq, text) that reverse something;
    `labels`: seq → the number the person sees; `named`: only those that name their thing."""
    return [
        Reversal(seq, said, words, (labels or {}).get(seq, ""))
        for seq, text in missions
        for said, words, has_things in _changing_sentences(text)
        if has_things or not named
    ]


# Instructions of at most this many chars have their reading remembered (the same missions
# are read for every prompt of a session); a longer one is read each time.
_MEMO_CHARS = 20_000


def _changing_sentences(text: str) -> tuple[tuple[str, frozenset[str], bool], ...]:
    """The sentences of an instruction that can change something: the person's own words
    only (a pasted quote or a forwarded message reverses nothing they said, issue 43), each
    with its words and whether it names its thing."""
    if len(text) <= _MEMO_CHARS:
        return _changing_sentences_memo(text)
    return _read_changing_sentences(text)


def _read_changing_sentences(text: str) -> tuple[tuple[str, frozenset[str], bool], ...]:
    return tuple(
        (said, _words(said), bool(read(said).things))
        for said in (_said(s) for s in split_sentences(own_words(text)))
        if len(said) <= MAX_STATEMENT_CHARS
        and _states(said)
        and (reverses(said) or _gives_a_value(said))
    )


_changing_sentences_memo = lru_cache(maxsize=2_048)(_read_changing_sentences)


def _gives_a_value(sentence: str) -> bool:
    """Whether a sentence gives a value that could replace an earlier one (anything but
    a bare yes or no): "가격 올렸어요, 이제 23,500원", "let's go with Mira instead"."""
    return any(kind != "yesno" for kind in read(sentence).values)


def _holds(text: str, statement: str) -> bool:
    """Whether an excerpt states `statement` (its words, or a sentence on its subject)."""
    key = normalize(statement.rstrip("…"))
    if key and key in normalize(text):
        return True
    return any(same_topic(s, statement) for s in split_sentences(text)[:MAX_SENTENCES])


def superseded_by(
    ref: Ref,
    text: str,
    *,
    record: dict[Ref, list[Superseded]],
    later: list[Reversal],
    with_values: bool = False,
) -> list[str]:
    """The labels of the missions that superseded what excerpt `text` of mission `ref`
    (session number or None for this session, seq) says; empty when nothing did."""
    labels: list[str] = []
    for item in record.get(ref, []):
        if item.by and item.by not in labels and _holds(text, item.statement):
            labels.append(item.by)
    session, seq = ref
    newer = [r for r in later if session is not None or r.seq > seq]
    if newer:
        # Only a sentence that shares a word with a reversal is compared with it in full.
        sentences = _statements(text)
        said_words = frozenset().union(*(words for _, words, _ in sentences))
        scripts = {own for _, _, own in sentences if own}
        for reversal in newer:
            # A reversal that names no thing of its own ("let's go with Mira instead") is
            # compared with every sentence; the others with those sharing a word, or whose
            # subject is written in the other script ("배송비는 …" after "The shipping
            # fee is …": one thing in two languages shares no word).
            unnamed, script = reversal.unnamed, reversal.script
            across = bool(script and scripts - {script})
            if not (unnamed or across or reversal.words & said_words):
                continue  # no sentence of the excerpt can be compared with it
            label = f"#{reversal.label}" if reversal.label else ref_label(None, reversal.seq)
            if any(x.split(":")[0] == label for x in labels):
                continue
            for sentence, words, own in sentences:
                across = bool(script and own and script != own)
                if not (unnamed or across or words & reversal.words):
                    continue
                value = _replaced(reversal.sentence, sentence)
                if value is not None:
                    value = value if with_values else ""
                    labels.append(f"{label}: {value}" if value else label)
                    break
    return labels


# Pairs of sentences whose comparison is remembered: the prompts of a session compare the
# same summary lines and excerpts with the same later sentences, prompt after prompt
# (at most this many pairs: a few MB of the sentences they hold).
_PAIRS_REMEMBERED = 8_192


def _statements(text: str) -> tuple[tuple[str, frozenset[str], str], ...]:
    """The sentences of an excerpt that state something, each with its words and the
    script its subject is written in; remembered for an excerpt of at most _MEMO_CHARS
    (the same excerpts and summary lines are read for every prompt of a session)."""
    if len(text) <= _MEMO_CHARS:
        return _statements_memo(text)
    return _read_statements(text)


def _read_statements(text: str) -> tuple[tuple[str, frozenset[str], str], ...]:
    said = [
        _said(s)
        for s in split_sentences(text)[:MAX_SENTENCES]
        if len(s) <= MAX_STATEMENT_CHARS * 2 and _states(s)
    ]
    return tuple((s, _words(s), _subject_script(s)) for s in said)


_statements_memo = lru_cache(maxsize=_PAIRS_REMEMBERED // 4)(_read_statements)


@lru_cache(maxsize=_PAIRS_REMEMBERED)
def _replaced(new: str, old: str) -> str | None:
    """How `new` writes the value that replaces `old`'s ("" when it reverses it without
    one), or None when it replaces nothing of it."""
    if conflicts(new, old) or changes_value(new, old):
        return replacement(new, old)
    return None


def marker(labels: list[str]) -> str:
    return f"(superseded by {', '.join(labels)})" if labels else ""
