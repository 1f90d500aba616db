"""The offline provider: deterministic, no network, good enough to try the product.

It answers in the employee's voice from the context it was given (so the demo shows
that an employee knows the summary and the memory) and streams in pieces like a real
model. It has no structured output: folding and memory extraction use their own
deterministic paths when `structured_output` is false."""

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
    """The first non-empty line below the line that starts with `heading`."""
    _, found, rest = text.partition(heading)
    if not found:
        return ""
    for line in rest.splitlines()[1:]:
        if line.startswith("## "):
            break  # the next section
        line = _without_offline_replies(line).strip(" -")
        if _has_words(line):
            return line
    return ""


def _has_words(line: str) -> bool:
    """More than a mission's header and the labels of an emptied excerpt."""
    rest = re.sub(r"^\[[^\]]*\]", " ", line)
    rest = re.sub(r'Instruction:|Reply:|\\n|["\s\\]+', " ", rest)
    return bool(re.search(r"\w{2,}", rest))


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
            parts.append(f"From our earlier work I keep in mind: {summary_line}")
        memory_line = _first_line_after(context, "## Long-term memory")
        if memory_line:
            parts.append(f"I also remember: {memory_line}")
        recalled = _first_line_after(context, "## Recalled from earlier")
        if recalled:
            parts.append(f"Looking back: {recalled[:300]}")
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
