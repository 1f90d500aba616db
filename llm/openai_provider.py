"""The model provider for OpenAI and any server that speaks its chat completions API.

Retries belong to the SDK alone: it already backs off, honours Retry-After and retries only
what is safe to retry, so a loop of our own on top would multiply the attempt bound.

Requests go through the SDK's client (`post`: auth, retries, timeouts, errors) with bodies
built here, and answers are read as the JSON the server sent. The SDK's typed layer walks
every message of the request through its TypedDicts and builds a model object for every
streamed chunk: measured on the mission path, that was about a fifth of the CPU of a reply
and its memory extraction, for bodies that are already plain JSON in the chat-completions
shape (docs/design.md §8: many replies share one process)."""

from __future__ import annotations

import contextlib
import email.utils
import functools
import json
import logging
import math
import time
from collections.abc import Iterator, Mapping
from typing import Any, cast

import openai
import pydantic
from django.conf import settings
from django.utils.translation import gettext_noop
from openai.lib._parsing._completions import type_to_response_format_param

from llm.base import ChatMessages, ChatStream, ProviderError, T, Tool, ToolCall, Usage

log = logging.getLogger(__name__)

# A server that cannot even accept the connection within a few seconds is down; there is
# no point waiting the whole read timeout for it.
CONNECT_TIMEOUT_CAP = 5.0
COMPLETIONS = "/chat/completions"
SHAPE = gettext_noop("The model server sent a response in an unknown shape.")


class _ReusingStream(openai.Stream[object]):
    """The SDK's synchronous event stream, but the rest of the body is read after
    `[DONE]` (as the SDK's async stream does on HTTP/1.1). The SDK's sync stream stops
    reading there and closes the response unread, and a connection with unread body cannot
    go back to the pool: every reply opened a new connection (with a hosted provider, a
    new TLS handshake). Chunks are the JSON objects as sent."""

    def __stream__(self) -> Iterator[object]:
        events = self._iter_events()
        try:
            for sse in events:
                if sse.data.startswith("[DONE]"):
                    if self.response.http_version == "HTTP/1.1":
                        # Only the body's end is left. The reply is whole: a server that
                        # never ends the body costs its connection, not the reply.
                        with contextlib.suppress(Exception):
                            for _ in events:
                                pass
                    return
                data = sse.json()
                if isinstance(data, dict) and data.get("error"):
                    error = data["error"]
                    message = error.get("message") if isinstance(error, dict) else None
                    raise openai.APIError(
                        message=message
                        if isinstance(message, str) and message
                        else "An error occurred during streaming",
                        request=self.response.request,
                        body=error,
                    )
                yield data
        finally:
            self.response.close()


class OpenAIProvider:
    name = "openai"
    structured_output = True
    calls_tools = True

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_attempts: int = 3,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.model = model
        self.timeout = timeout
        self.max_attempts = max_attempts
        try:
            self._client = openai.OpenAI(
                api_key=api_key,
                # An empty base URL means "the real OpenAI"; passing None (not "") lets the
                # SDK pick its default.
                base_url=base_url or None,
                # httpx timeouts bound each connect and each read, not the whole call: a
                # stream that keeps producing tokens is never cut off, a stalled one is.
                timeout=openai.Timeout(timeout, connect=min(CONNECT_TIMEOUT_CAP, timeout)),
                # The SDK counts retries, the setting counts attempts.
                max_retries=max_attempts - 1,
            )
        except openai.OpenAIError:
            # With the arguments above only a missing key gets here; the SDK's text names
            # environment variables the person never set, ours says what to fix.
            raise ProviderError(
                "auth", gettext_noop("No API key is configured for the model server.")
            ) from None

    @classmethod
    def from_settings(cls) -> OpenAIProvider:
        return cls(
            api_key=settings.OPENAI_API_KEY,
            model=settings.OPENAI_MODEL,
            base_url=settings.OPENAI_BASE_URL or None,
            timeout=settings.OPENAI_TIMEOUT,
            max_attempts=settings.OPENAI_MAX_ATTEMPTS,
        )

    def close(self) -> None:
        """Release the pooled connections; the provider is unusable afterwards."""
        self._client.close()

    def list_models(self) -> list[str]:
        """The model ids the server offers (GET /models), sorted; raises ProviderError."""
        try:
            # A page waits for this list: one short try, not the replies' patience.
            client = self._client.with_options(
                timeout=min(CONNECT_TIMEOUT_CAP, self.timeout), max_retries=0
            )
            listing = client.get("/models", cast_to=object)
        except Exception as exc:
            raise self._provider_error(exc) from None
        data = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(data, list):
            raise ProviderError("bad_output", SHAPE)
        return sorted({str(m["id"]) for m in data if isinstance(m, dict) and m.get("id")})

    def stream_chat(
        self, *, messages: ChatMessages, model: str | None = None, tools: list[Tool] | None = None
    ) -> ChatStream:
        body: dict[str, Any] = {
            "model": model or self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = [_sdk_tool(t) for t in tools]
        # The request is sent here, not on first iteration, so that failures before the
        # first byte (which the SDK retries) surface at the call site.
        try:
            stream = self._client.post(
                COMPLETIONS,
                body=body,
                cast_to=object,
                stream=True,
                stream_cls=_ReusingStream,
            )
        except Exception as exc:
            raise self._provider_error(exc) from None
        result = ChatStream(pieces=iter(()))
        result.pieces = self._pieces(stream, result)
        return result

    def _pieces(self, stream: openai.Stream[object], result: ChatStream) -> Iterator[str]:
        # Failures once text has flowed are not retried by the SDK (nor could they be:
        # the caller has already shown part of the reply), so they only need translating.
        chunks = 0
        # Tool calls arrive in pieces: the first delta of a call carries its index, id and
        # name, later ones more of its arguments.
        calls: dict[int, ToolCall] = {}
        try:
            with stream:
                for chunk in stream:
                    if not isinstance(chunk, dict):
                        raise ProviderError("bad_output", SHAPE)
                    chunks += 1
                    usage = chunk.get("usage")
                    if usage:
                        _fill_usage(result.usage, usage)
                    for choice in chunk.get("choices") or ():
                        delta = choice.get("delta") or {}
                        for piece in delta.get("tool_calls") or ():
                            index = int(piece.get("index", 0))
                            call = calls.setdefault(index, ToolCall("", "", ""))
                            if piece.get("id"):
                                call.id = piece["id"]
                            function = piece.get("function") or {}
                            call.name += function.get("name") or ""
                            call.arguments += function.get("arguments") or ""
                        # A refusal is the reply the person gets to read, so it streams
                        # like content rather than ending in an empty answer.
                        text = delta.get("content") or delta.get("refusal")
                        if text:
                            yield str(text)
        except ProviderError:
            raise
        except Exception as exc:
            raise self._provider_error(exc) from None
        if chunks == 0:
            # A 200 that is not an event stream (a proxy's HTML page, say) reads as a
            # stream with no events; a real reply always has at least one chunk.
            raise ProviderError("bad_output", gettext_noop("The model server sent no reply."))
        result.tool_calls = [calls[i] for i in sorted(calls)]

    def structured(
        self, *, messages: ChatMessages, schema: type[T], model: str | None = None
    ) -> tuple[T, Usage]:
        body = {
            "model": model or self.model,
            "messages": messages,
            "response_format": response_format(schema),
        }
        try:
            completion = self._client.post(COMPLETIONS, body=body, cast_to=object)
        except Exception as exc:
            raise self._provider_error(exc) from None
        if not isinstance(completion, dict):
            raise ProviderError("bad_output", SHAPE)
        usage = Usage()
        if completion.get("usage"):
            _fill_usage(usage, completion["usage"])
        choices = completion.get("choices")
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise ProviderError("bad_output", gettext_noop("The model returned no answer."))
        choice = choices[0]
        finish = choice.get("finish_reason")
        if finish == "length":
            raise ProviderError(
                "bad_output", "The model's answer was cut off before it was complete."
            )
        if finish == "content_filter":
            raise ProviderError(
                "bad_output", "The model's answer was withheld by its content filter."
            )
        message = choice.get("message") or {}
        if message.get("refusal"):
            raise ProviderError("bad_output", gettext_noop("The model refused to answer."))
        content = message.get("content")
        if not content or not isinstance(content, str):
            raise ProviderError("bad_output", gettext_noop("The model returned an empty answer."))
        try:
            return schema.model_validate_json(content), usage
        except pydantic.ValidationError as exc:
            raise self._provider_error(exc) from None

    def _provider_error(self, exc: Exception) -> ProviderError:
        error = _translate(exc, timeout=self.timeout)
        if error is None:
            # Not a failure the SDK documents, e.g. the AttributeError its parse helper
            # raises on a 200 whose body is not JSON. The person learns the answer was
            # unusable; the traceback goes to the log in case the bug is ours.
            log.error("openai call failed unexpectedly", exc_info=exc)
            return ProviderError(
                "bad_output", gettext_noop("The model server sent an unusable response.")
            )
        # The log keeps what an operator needs to correlate with the server (status, request
        # id) but never the response body, which can echo the prompt or part of the key.
        log.warning(
            "openai call failed: code=%s sdk_error=%s status=%s request_id=%s",
            error.code,
            type(exc).__name__,
            getattr(exc, "status_code", None),
            getattr(exc, "request_id", None),
        )
        return error


@functools.cache
def response_format(schema: type[pydantic.BaseModel]) -> dict[str, Any]:
    """The `response_format` the SDK's parse helper would send for `schema` (strict JSON
    schema, named after the model), built once per schema rather than on every call."""
    return cast(dict[str, Any], type_to_response_format_param(schema))


def _sdk_tool(tool: Tool) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def _fill_usage(usage: Usage, reported: Any) -> None:
    if not isinstance(reported, dict):
        return
    usage.prompt_tokens = int(reported.get("prompt_tokens") or 0)
    usage.completion_tokens = int(reported.get("completion_tokens") or 0)
    details = reported.get("prompt_tokens_details")
    # Servers without prompt caching leave the details (or the count) out entirely.
    usage.cached_tokens = int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0


def _translate(exc: Exception, *, timeout: float) -> ProviderError | None:
    # Order matters: APITimeoutError is an APIConnectionError, RateLimitError an
    # APIStatusError.
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError("timeout", f"The model server did not answer within {timeout:g} s.")
    if isinstance(exc, openai.APIConnectionError):
        return ProviderError("connection", gettext_noop("Could not reach the model server."))
    if isinstance(exc, openai.APIStatusError):
        return _translate_status(exc)
    if isinstance(exc, openai.LengthFinishReasonError):
        return ProviderError(
            "bad_output", gettext_noop("The model's answer was cut off before it was complete.")
        )
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return ProviderError(
            "bad_output", gettext_noop("The model's answer was withheld by its content filter.")
        )
    if isinstance(exc, openai.APIResponseValidationError):
        return ProviderError("bad_output", SHAPE)
    if isinstance(exc, pydantic.ValidationError):
        # Raised by the parse helper when the content is not JSON or does not fit the schema.
        return ProviderError(
            "bad_output", gettext_noop("The model's answer did not match the expected format.")
        )
    if isinstance(exc, json.JSONDecodeError):
        # The SDK decodes response bodies and stream events with the json module and lets
        # its errors through unwrapped.
        return ProviderError(
            "bad_output", gettext_noop("The model server sent a response that is not JSON.")
        )
    if isinstance(exc, openai.APIError):
        # An error event in the middle of a stream: the server gave up after starting.
        return ProviderError(
            "server_error", gettext_noop("The model server failed while answering.")
        )
    if isinstance(exc, openai.OpenAIError):
        return ProviderError("server_error", gettext_noop("The model call failed."))
    return None


def _translate_status(exc: openai.APIStatusError) -> ProviderError:
    status = exc.status_code
    if status == 429:
        retry_after = _retry_after(exc.response.headers)
        wait = f" Try again in {math.ceil(retry_after)} s." if retry_after else ""
        return ProviderError(
            "rate_limited",
            f"The model server is limiting requests.{wait}",
            retry_after=retry_after,
        )
    if status in (401, 403):
        return ProviderError("auth", f"The model server refused the credentials (HTTP {status}).")
    if status >= 500:
        return ProviderError("server_error", f"The model server failed (HTTP {status}).")
    return ProviderError("bad_request", f"The model server rejected the request (HTTP {status}).")


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asked us to wait, from Retry-After (seconds or an HTTP date)."""
    value = headers.get("retry-after")
    if value is not None:
        try:
            seconds = float(value)
        except ValueError:
            parsed = email.utils.parsedate_tz(value)
            if parsed is not None:
                return max(0.0, email.utils.mktime_tz(parsed) - time.time())
        else:
            if math.isfinite(seconds) and seconds >= 0:
                return seconds
    # OpenAI itself sends the finer-grained, non-standard form as well.
    value_ms = headers.get("retry-after-ms")
    if value_ms is not None:
        try:
            milliseconds = float(value_ms)
        except ValueError:
            return None
        if math.isfinite(milliseconds) and milliseconds >= 0:
            return milliseconds / 1000
    return None
