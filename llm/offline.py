"""The offline provider: deterministic, no network, good enough to try the product.

It answers in the employee's voice from the context it was given (so the demo shows
that an employee knows the summary and the memory) and streams in pieces like a real
model. It has no structured output: folding and memory extraction use their own
deterministic paths when `structured_output` is false."""

import json
import re
from collections.abc import Iterator

from llm.base import ChatMessages, ChatStream, ProviderError, T, Tool, Usage

# How chars become tokens where no provider reports them: about four chars a token for
# English text (OpenAI's rule of thumb); only used for the offline provider's usage.
CHARS_PER_TOKEN = 4


DISCLAIMER = "(Offline demo reply: set OPENAI_API_KEY for a real model.)"
_OPENING = re.compile(r"[\w.-]+ here\. On it: \u201c")


def _without_offline_replies(line: str) -> str:
    """The line with any earlier offline reply cut out. Recent missions and recalled
    passages bring those replies back; quoting them would nest each reply in the next
    ("On it: … Looking back: … On it: …"). A reply that was trimmed has no disclaimer
    left: everything from its opening goes."""
    start = _OPENING.search(line)
    if start is None:
        return line.replace(DISCLAIMER, "").strip()
    end = line.rfind(DISCLAIMER)
    tail = line[end + len(DISCLAIMER) :] if end >= start.end() else ""
    return _without_offline_replies(f"{line[: start.start()].rstrip()} {tail.strip()}".strip())


def _content(message: dict[str, object]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _first_line_after(text: str, heading: str) -> str:
    """The first line below the line that starts with `heading` that says something, read
    as a person would (see `_readable`)."""
    _, found, rest = text.partition(heading)
    if not found:
        return ""
    for line in rest.splitlines()[1:]:
        if line.startswith("## "):
            break  # the next section
        readable = _readable(line.strip(" -"))
        if _has_words(readable):
            return readable
    return ""


def _has_words(line: str) -> bool:
    """More than a mission's header and the labels of an emptied excerpt."""
    rest = re.sub(r"^\[[^\]]*\]", " ", line)
    rest = re.sub(r"Instruction:|Reply:|\\n|[\"\s\\]+", " ", rest)
    return bool(re.search(r"\w{2,}", rest))


# A line of the prompt: an optional header ("[mission #3 · …]", "(rule, id 7)") and the
# stored text, quoted as a JSON string (context.rendering quotes every stored text so).
_QUOTED_LINE = re.compile(r'^(?P<header>\[[^\]]*\]|\([^)]*\))?\s*(?P<quoted>".*")\s*$')
_MISSION_HEADER = re.compile(
    r"^\[(?:(?P<session>session \d+), )?mission #(?P<seq>\d+) · (?P<at>.+)\]$"
)
_TURNS = re.compile(
    r"^(?P<label>Instruction|Brief written by the office):\s*(?P<asked>.*?)"
    r"(?:\s*Reply:\s*(?P<answered>.*))?$",
    re.S,
)


def _plain(text: str) -> str:
    """One line of plain words: no line breaks, no earlier offline replies."""
    return " ".join(_without_offline_replies(text).split())


def _readable(line: str) -> str:
    """A line of the prompt as a sentence a person reads: the stored text unquoted (no
    JSON escapes such as a literal backslash-n), a mission's turns said as who asked
    and who answered, a memory item's kind in words."""
    found = _QUOTED_LINE.match(line)
    if found is None:
        return _plain(line)
    try:
        stored = json.loads(found.group("quoted"))
    except ValueError:
        return _plain(line)
    if not isinstance(stored, str):
        return _plain(line)
    header = found.group("header") or ""
    mission = _MISSION_HEADER.match(header)
    if mission is None:
        kind = header.strip("()").split(",", 1)[0].strip()
        text = _plain(stored)
        return f"\u201c{text}\u201d ({kind})" if kind and text else text
    where = f"mission #{mission.group('seq')}"
    if mission.group("session"):
        where += f" of {mission.group('session')}"
    turns = _TURNS.match(stored.strip())
    if turns is None:
        return f"in {where} ({mission.group('at')}): \u201c{_plain(stored)}\u201d"
    asked, answered = _plain(turns.group("asked")), _plain(turns.group("answered") or "")
    who = "you asked" if turns.group("label") == "Instruction" else "the office asked"
    said = f"in {where} ({mission.group('at')}) {who}: \u201c{asked}\u201d"
    if _has_words(answered):
        said += f", and the answer was: \u201c{answered[:200]}\u201d"
    return said if _has_words(asked) or _has_words(answered) else ""


# The heading under which a synthesis's prompt quotes the delegates' results.
RESULTS_HEADING = "## Results from your colleagues"


def _results(context: str) -> list[str]:
    """One line per delegate of a synthesis: "Iris (done): first words of the reply"."""
    _, found, rest = context.partition(RESULTS_HEADING)
    if not found:
        return []
    lines: list[str] = []
    for line in rest.splitlines()[1:]:
        if line.startswith("## "):
            break
        if line.startswith("### "):
            who, _, state = line[4:].partition(" — ")
            lines.append(f"{who.split(' (')[0]} ({state.split(' — ')[0].lower()})")
        elif lines and line.strip() and not lines[-1].endswith("”"):
            lines[-1] += f": “{line.strip().strip(chr(34))[:160]}”"
    return lines


def _sentence(text: str) -> str:
    """`text` ending as a sentence does."""
    text = text.strip()
    return text if text.endswith((".", "!", "?", "\u201d")) else text + "."


class OfflineProvider:
    name = "offline"
    structured_output = False

    def __init__(self, *, piece_chars: int = 12) -> None:
        self.piece_chars = piece_chars

    def _compose_reply(self, messages: ChatMessages) -> str:
        system = _content(messages[0]) if messages else ""
        who = system.split(".", 1)[0].removeprefix("You are ").split(",", 1)[0].strip()
        who = who or "your colleague"
        current = _content(messages[-1]) if messages else ""
        instruction = current.split("\n", 1)[-1].strip()
        context = "\n".join(_content(m) for m in messages[1:-1])
        results = _results(context)
        if results:
            # A synthesis: what each colleague did, then stop (the footer names what is
            # still open).
            summary = "; ".join(results)
            return (
                f"{who} here. The team's results: {summary}. "
                "(Offline demo reply: set OPENAI_API_KEY for a real model.)"
            )
        parts = [f"{who} here. On it: \u201c{instruction[:200]}\u201d"]
        summary_line = _first_line_after(context, "Decisions:") or _first_line_after(
            context, "Facts:"
        )
        if summary_line:
            parts.append(f"From our earlier work I keep in mind: {_sentence(summary_line)}")
        memory_line = _first_line_after(context, "## Long-term memory")
        if memory_line:
            parts.append(f"I also remember: {_sentence(memory_line)}")
        recalled = _first_line_after(context, "## Recalled from earlier")
        if recalled:
            parts.append(f"Looking back, {_sentence(recalled[:400])}")
        parts.append(DISCLAIMER)
        return " ".join(parts)

    def stream_chat(
        self, *, messages: ChatMessages, model: str | None = None, tools: list[Tool] | None = None
    ) -> ChatStream:
        # No tool calls offline: the office plans deterministically from @mentions instead.
        reply = self._compose_reply(messages)
        prompt_chars = sum(len(_content(m)) for m in messages)
        stream = ChatStream(pieces=iter(()))

        def pieces() -> Iterator[str]:
            for start in range(0, len(reply), self.piece_chars):
                yield reply[start : start + self.piece_chars]
            stream.usage = Usage(
                prompt_tokens=prompt_chars // CHARS_PER_TOKEN,
                completion_tokens=len(reply) // CHARS_PER_TOKEN,
            )

        stream.pieces = pieces()
        return stream

    def structured(
        self, *, messages: ChatMessages, schema: type[T], model: str | None = None
    ) -> tuple[T, Usage]:
        raise ProviderError(
            "unsupported",
            "The offline provider has no structured output.",
        )
