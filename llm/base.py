"""The one interface every model provider implements."""

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T", bound=BaseModel)

ChatMessages = list[dict[str, Any]]


class ProviderError(Exception):
    """A model call failed in a way the user should be told about.

    `code` is stable (timeout, rate_limited, server_error, bad_output, ...); `message` is
    written for a person."""

    def __init__(self, code: str, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


@dataclass
class Usage:
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class Tool:
    """A function the model may call instead of (or beside) answering in text.
    `parameters` is its JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class ToolCall:
    """One call the model made: `arguments` is the JSON text as the model wrote it
    (it may not be valid JSON; the caller validates it)."""

    id: str
    name: str
    arguments: str


@dataclass
class ChatStream:
    """Iterate for the reply's text pieces; `usage` and `tool_calls` are filled in when
    it ends."""

    pieces: Iterator[str]
    usage: Usage = field(default_factory=Usage)
    tool_calls: list[ToolCall] = field(default_factory=list)

    def __iter__(self) -> Iterator[str]:
        return self.pieces


class Provider(Protocol):
    name: str
    # Whether `structured` works. Without it (the offline provider), domain code uses its
    # own deterministic fallbacks (the extractive fold, pattern-based memory extraction).
    structured_output: bool
    # Whether the model may call the tools `stream_chat` offers (the offline provider
    # answers in text only, so nothing offers it any).
    calls_tools: bool

    def stream_chat(
        self, *, messages: ChatMessages, model: str | None = None, tools: list[Tool] | None = None
    ) -> ChatStream:
        """Stream a reply. With `tools`, the model may call them: the calls are in
        `ChatStream.tool_calls` once the pieces are exhausted (a provider without tool
        calls ignores them and answers in text)."""
        ...

    def structured(
        self, *, messages: ChatMessages, schema: type[T], model: str | None = None
    ) -> tuple[T, Usage]: ...


def strict_json_schema(schema: dict[str, Any]) -> None:
    """Make a model's JSON schema one that OpenAI's strict structured output accepts:
    every property required, no `default` (strict mode rejects it; the Python side keeps
    its defaults), no other properties. The openai SDK adds `required` and
    `additionalProperties` itself but sends non-null defaults as they are."""
    properties = schema.get("properties", {})
    for prop in properties.values():
        prop.pop("default", None)
    schema["required"] = list(properties)
    schema["additionalProperties"] = False


# For every pydantic model a provider is asked to fill with `structured`.
STRICT_OUTPUT = ConfigDict(extra="forbid", json_schema_extra=strict_json_schema)


# The prompt is written in English; for a person who reads another language, one line of
# the system prompt names it. A model answers in it, and the offline provider, which
# cannot tell a language from a few words (an instruction may be "ok" or "#42"), reads
# the line to know which language to answer in.
LANGUAGE_NAMES = {"ko": "Korean"}
_LANGUAGE_LINE = "The person reads {name}: answer in {name} unless they write to you in another."


def language_line(language: str) -> str:
    """The system prompt's line for `language` ("" for English, the prompt's own)."""
    name = LANGUAGE_NAMES.get(language)
    return _LANGUAGE_LINE.format(name=name) if name else ""


def language_of(system_prompt: str) -> str:
    """The language the system prompt's language line names; "en" without one."""
    for code, name in LANGUAGE_NAMES.items():
        if _LANGUAGE_LINE.format(name=name) in system_prompt:
            return code
    return "en"
