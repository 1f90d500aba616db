"""Splitting a mission into passages (pure): a few hundred chars each, cut on turns and
paragraphs, each knowing where in the mission's text it starts."""

import re
from dataclasses import dataclass

PASSAGE_MIN_CHARS = 300
PASSAGE_MAX_CHARS = 800
_PARAGRAPH = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)")
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|(?<=[다요죠])\.\s+")


@dataclass(frozen=True)
class Piece:
    start: int
    text: str


# The label of an instruction the office wrote (a synthesis, a delegated brief): recalled,
# it is never read as the person's words.
OFFICE_BRIEF_LABEL = "Brief written by the office"


# How a passage of a file given with a mission starts: recalled, it names the file.
ATTACHMENT_LABEL = "Attached file"


def attachment_passage(name: str, text: str) -> str:
    return f"{ATTACHMENT_LABEL} «{name}»: {text}"


def mission_text(instruction: str, reply: str, *, generated: bool = False) -> str:
    """The text passages are cut from: the person's turn (or the office's brief), then the
    employee's."""
    label = OFFICE_BRIEF_LABEL if generated else "Instruction"
    return f"{label}: {instruction.strip()}\n\nReply: {reply.strip()}"


def _paragraphs(text: str) -> list[Piece]:
    pieces, start = [], 0
    for match in _PARAGRAPH.finditer(text):
        if text[start : match.start()].strip():
            pieces.append(Piece(start, text[start : match.start()]))
        start = match.end()
    if text[start:].strip():
        pieces.append(Piece(start, text[start:]))
    return pieces


def _split_long(piece: Piece) -> list[Piece]:
    """A paragraph over the maximum, cut at sentence ends (else hard) into parts."""
    out: list[Piece] = []
    text, offset = piece.text, piece.start
    while len(text) > PASSAGE_MAX_CHARS:
        window = text[:PASSAGE_MAX_CHARS]
        cuts = [m.end() for m in _SENTENCE_END.finditer(window) if m.end() >= PASSAGE_MIN_CHARS]
        cut = cuts[-1] if cuts else (window.rfind(" ", PASSAGE_MIN_CHARS) + 1 or PASSAGE_MAX_CHARS)
        out.append(Piece(offset, text[:cut]))
        text, offset = text[cut:], offset + cut
    if text.strip():
        out.append(Piece(offset, text))
    return out


def split_passages(text: str) -> list[Piece]:
    """Paragraphs joined up to PASSAGE_MIN_CHARS, long ones cut, none over the maximum."""
    passages: list[Piece] = []
    current: Piece | None = None
    for paragraph in _paragraphs(text):
        for part in _split_long(paragraph):
            if current is None:
                current = part
                continue
            joined_len = part.start + len(part.text) - current.start
            if len(current.text) < PASSAGE_MIN_CHARS and joined_len <= PASSAGE_MAX_CHARS:
                current = Piece(current.start, text[current.start : part.start + len(part.text)])
            else:
                passages.append(current)
                current = part
    if current is not None:
        passages.append(current)
    return [
        Piece(p.start + len(p.text) - len(p.text.lstrip()), p.text.strip())
        for p in passages
        if p.text.strip()
    ]
