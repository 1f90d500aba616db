"""The offline provider: deterministic, no network, good enough to try the product.

It answers in the employee's voice from the context it was given (so the demo shows
that an employee knows the summary and the memory) and streams in pieces like a real
model. It has no structured output: folding and memory extraction use their own
deterministic paths when `structured_output` is false.

It answers in the language the system prompt names (`llm.base.language_line`: the office's
language), in English without one: a few words of an instruction ("ok", "#42 again")
cannot tell a language, and a Korean person's office is Korean whatever they type."""

import json
import re
from collections.abc import Iterator

from llm.base import ChatMessages, ChatStream, ProviderError, T, Tool, Usage, language_of

# How chars become tokens where no provider reports them: about four chars a token for
# English text (OpenAI's rule of thumb); only used for the offline provider's usage.
CHARS_PER_TOKEN = 4


DISCLAIMER = "(Offline demo reply: set OPENAI_API_KEY for a real model.)"
DISCLAIMER_KO = "(오프라인 데모 답변이에요. 실제 모델을 쓰려면 OPENAI_API_KEY를 설정하세요.)"

# What a reply says around what it quotes, per language. The prompt it reads is English
# whatever the language (its headers, labels and memory kinds); only the reply changes.
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "colleague": "your colleague",
        "opening": "{who} here. On it: \u201c{instruction}\u201d",
        "results": "{who} here. The team's results: {results}.",
        "summary": "From our earlier work I keep in mind: {line}",
        "memory": "I also remember: {line}",
        "recalled": "Looking back, {line}",
        "disclaimer": DISCLAIMER,
        "where": "mission #{seq}",
        "where_session": "mission #{seq} of session {session}",
        "in": "in {where} ({at}): \u201c{text}\u201d",
        "you_asked": "in {where} ({at}) you asked: \u201c{asked}\u201d",
        "office_asked": "in {where} ({at}) the office asked: \u201c{asked}\u201d",
        "answer": ", and the answer was: \u201c{answered}\u201d",
        "done": "done",
        "failed": "failed",
        "working": "still working, no result yet",
        "fact": "fact",
        "preference": "preference",
        "rule": "rule",
        "decision": "decision",
    },
    "ko": {
        "colleague": "동료",
        "opening": "{who}입니다. 맡을게요: \u201c{instruction}\u201d",
        "results": "{who}입니다. 팀의 결과예요: {results}.",
        "summary": "앞서 한 일에서 기억하고 있는 것: {line}",
        "memory": "이것도 기억하고 있어요: {line}",
        "recalled": "돌아보면, {line}",
        "disclaimer": DISCLAIMER_KO,
        "where": "미션 #{seq}",
        "where_session": "세션 {session}의 미션 #{seq}",
        "in": "{where}({at})에서: \u201c{text}\u201d",
        "you_asked": "{where}({at})에서 요청하신 것: \u201c{asked}\u201d",
        "office_asked": "{where}({at})에서 오피스가 요청한 것: \u201c{asked}\u201d",
        "answer": ", 그에 대한 답: \u201c{answered}\u201d",
        "done": "완료",
        "failed": "실패",
        "working": "아직 작업 중, 결과 없음",
        "fact": "사실",
        "preference": "선호",
        "rule": "규칙",
        "decision": "결정",
    },
}
_DISCLAIMERS = (DISCLAIMER, DISCLAIMER_KO)
# From the first character of a name only: from each character of a long word, the
# pattern would read the rest of the word each time (issue 42).
_OPENING = re.compile(
    r"(?<![\w.-])(?:[\w.-]+ here\. On it: \u201c|[\w.-]+입니다\. 맡을게요: \u201c)"
)


def _without_offline_replies(line: str) -> str:
    """The line with any earlier offline reply cut out, in either language. Recent
    missions and recalled passages bring those replies back; quoting them would nest each
    reply in the next ("On it: … Looking back: … On it: …"). A reply that was trimmed has
    no disclaimer left: everything from its opening goes."""
    start = _OPENING.search(line)
    if start is None:
        for disclaimer in _DISCLAIMERS:
            line = line.replace(disclaimer, "")
        return line.strip()
    end, disclaimer = max((line.rfind(d), d) for d in _DISCLAIMERS)
    tail = line[end + len(disclaimer) :] if end >= start.end() else ""
    return _without_offline_replies(f"{line[: start.start()].rstrip()} {tail.strip()}".strip())


def _content(message: dict[str, object]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _first_line_after(text: str, heading: str, words: dict[str, str]) -> str:
    """The first line below the line that starts with `heading` that says something, read
    as a person would (see `_readable`)."""
    _, found, rest = text.partition(heading)
    if not found:
        return ""
    for line in rest.splitlines()[1:]:
        if line.startswith("## "):
            break  # the next section
        readable = _readable(line.strip(" -"), words)
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
    r"^\[(?:(?P<session>session \d+), )?mission #(?P<seq>\d+[a-z]*) · (?P<at>.+)\]$"
)
_TURNS = re.compile(
    r"^(?P<label>Instruction|Brief written by the office):\s*(?P<asked>.*?)"
    r"(?:\s*Reply:\s*(?P<answered>.*))?$",
    re.S,
)


def _plain(text: str) -> str:
    """One line of plain words: no line breaks, no earlier offline replies."""
    return " ".join(_without_offline_replies(text).split())


def _readable(line: str, words: dict[str, str]) -> str:
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
        kind = words.get(kind, kind) if kind in MEMORY_KINDS else kind
        text = _plain(stored)
        return f"\u201c{text}\u201d ({kind})" if kind and text else text
    seq, at = mission.group("seq"), mission.group("at")
    session = mission.group("session")
    where = (
        words["where_session"].format(seq=seq, session=session.removeprefix("session "))
        if session
        else words["where"].format(seq=seq)
    )
    turns = _TURNS.match(stored.strip())
    if turns is None:
        return words["in"].format(where=where, at=at, text=_plain(stored))
    asked, answered = _plain(turns.group("asked")), _plain(turns.group("answered") or "")
    who = "you_asked" if turns.group("label") == "Instruction" else "office_asked"
    said = words[who].format(where=where, at=at, asked=asked)
    if _has_words(answered):
        said += words["answer"].format(answered=answered[:200])
    return said if _has_words(asked) or _has_words(answered) else ""


# The memory kinds as the prompt names them ("(rule, id 7)"), said in the reply's words.
MEMORY_KINDS = ("fact", "preference", "rule", "decision")


# The heading under which a synthesis's prompt quotes the delegates' results.
RESULTS_HEADING = "## Results from your colleagues"


def _results(context: str, words: dict[str, str]) -> list[str]:
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
            lines.append(f"{who.split(' (')[0]} ({_state(state.split(' — ')[0], words)})")
        elif lines and line.strip() and not lines[-1].endswith("”"):
            lines[-1] += f": “{line.strip().strip(chr(34))[:160]}”"
    return lines


def _state(state: str, words: dict[str, str]) -> str:
    """A delegate's state as the synthesis prompt's header says it, in the reply's words."""
    if state == "done":
        return words["done"]
    if state.startswith("FAILED"):
        return words["failed"] + state[len("FAILED") :]
    if state.startswith("still working"):
        return words["working"]
    return state.lower()


def _sentence(text: str) -> str:
    """`text` ending as a sentence does."""
    text = text.strip()
    return text if text.endswith((".", "!", "?", "\u201d")) else text + "."


class OfflineProvider:
    name = "offline"
    structured_output = False
    calls_tools = False

    def __init__(self, *, piece_chars: int = 12) -> None:
        self.piece_chars = piece_chars

    def _compose_reply(self, messages: ChatMessages) -> str:
        system = _content(messages[0]) if messages else ""
        words = WORDS[language_of(system)]
        who = system.split(".", 1)[0].removeprefix("You are ").split(",", 1)[0].strip()
        who = who or words["colleague"]
        current = _content(messages[-1]) if messages else ""
        instruction = current.split("\n", 1)[-1].strip()
        context = "\n".join(_content(m) for m in messages[1:-1])
        results = _results(context, words)
        if results:
            # A synthesis: what each colleague did, then stop (the footer names what is
            # still open).
            said = words["results"].format(who=who, results="; ".join(results))
            return f"{said} {words['disclaimer']}"
        parts = [words["opening"].format(who=who, instruction=instruction[:200])]
        summary_line = _first_line_after(context, "Decisions:", words) or _first_line_after(
            context, "Facts:", words
        )
        if summary_line:
            parts.append(words["summary"].format(line=_sentence(summary_line)))
        memory_line = _first_line_after(context, "## Long-term memory", words)
        if memory_line:
            parts.append(words["memory"].format(line=_sentence(memory_line)))
        recalled = _first_line_after(context, "## Recalled from earlier", words)
        if recalled:
            parts.append(words["recalled"].format(line=_sentence(recalled[:400])))
        parts.append(words["disclaimer"])
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
