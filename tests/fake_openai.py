"""A local OpenAI-compatible chat completions server for tests and benchmarks.

Standard library only, on 127.0.0.1. Tests script it one step per request (`Reply`,
`Fail`, `Hang`, `Malformed`); with nothing scripted it answers deterministically with
"Echo: " and the last user message. Every request is recorded so tests can count attempts
and check what was sent.

A `Reply` may carry `tool_calls` (`ToolCallStep`: a function name and its arguments, as
an object or as raw text, which may be broken on purpose); streamed, each call's
arguments arrive in pieces, as OpenAI sends them. `enqueue_for(match, step)` scripts the
first request whose last user message contains `match`, whatever order requests arrive
in (for concurrent missions).

Run on its own for benchmarks:  python -m tests.fake_openai --port 8765 --delay-ms 50
`GET /_fake/stats` answers with the requests counted so far (kept even when requests are
not recorded): in total, being answered right now, and by kind (`stream` for a streamed
chat, the schema name of a structured-output request, `chat` for anything else).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import socket
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from llm.openai_provider import OpenAIProvider

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
STATS_PATH = "/_fake/stats"
FAKE_MODEL = "fake-model"
# What GET /models lists: the models this server offers.
FAKE_MODELS = (FAKE_MODEL, "fake-model-large", "fake-model-mini")
MODELS_PATHS = ("/v1/models", "/models")
FAKE_API_KEY = "sk-fake-test-key"


@dataclass
class ToolCallStep:
    """One tool call of a scripted reply: `arguments` as an object (sent as JSON) or as
    the raw text the model wrote (which need not be JSON)."""

    name: str
    arguments: dict[str, Any] | str


@dataclass
class Reply:
    """Answer with `text` (for a structured-output request: the JSON content).

    Token counts left as None are derived from the words of the request and the reply;
    `cached_tokens=None` leaves `prompt_tokens_details` out, as servers without prompt
    caching do. `chunks` fixes how a stream splits the text; `chunk_delay` stalls between
    stream chunks, `delay` before answering at all, `linger` after `[DONE]` before the
    stream's body ends. With `refusal` the model declines: `text` is then sent as the
    refusal instead of the content."""

    text: str
    chunks: list[str] | None = None
    prompt_tokens: int | None = None
    cached_tokens: int | None = 0
    completion_tokens: int | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0
    refusal: bool = False
    tool_calls: list[ToolCallStep] = field(default_factory=list)
    linger: float = 0.0


@dataclass
class Fail:
    """Answer with an HTTP status and `body` (None: an OpenAI-style error object).

    `retry_after` becomes a Retry-After header. A 200 with a `content_type` other than
    JSON imitates a proxy answering in the server's place."""

    status: int
    retry_after: float | None = None
    body: str | dict[str, Any] | None = None
    content_type: str = "application/json"


@dataclass
class StreamError:
    """A stream that starts, then sends an error event in place of the rest (as OpenAI
    does when it fails after the first bytes)."""

    message: str = "The server had an error while processing your request."


@dataclass
class Hang:
    """Say nothing for `seconds`, then drop the connection."""

    seconds: float


@dataclass
class Malformed:
    """200 with a body that is not valid JSON; for a stream, a broken chunk mid-way."""


Step = Reply | Fail | Hang | Malformed | StreamError


@dataclass
class RecordedRequest:
    """One request as received; header names are lower-cased."""

    path: str
    headers: dict[str, str]
    body: Any
    # time.monotonic() when the request arrived and when its answer was sent: which
    # requests the server was serving at the same time.
    received_at: float = 0.0
    answered_at: float | None = None
    # Events of its stream written so far (a test can wait for a reply to be under way).
    events_sent: int = 0

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []


@dataclass
class _State:
    steps: deque[Step] = field(default_factory=deque)
    # (text the last user message must contain, step): used before `steps`.
    matching: list[tuple[str, Step]] = field(default_factory=list)
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    default_delay: float = 0.0
    record: bool = True
    # Counted whether or not requests are recorded (benchmarks read them over HTTP).
    total: int = 0
    in_flight: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    # TCP connections accepted: a client that keeps its connections alive opens few.
    connections: int = 0

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": self.total,
                "in_flight": self.in_flight,
                "by_kind": dict(self.by_kind),
                "connections": self.connections,
            }


def served_at_once(requests: list[RecordedRequest]) -> bool:
    """Whether every request arrived before any was answered: all were at the model at one
    moment."""
    return max(r.received_at for r in requests) < min(r.answered_at or 0 for r in requests)


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return _content_text(message.get("content"))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict) and "text" in part
        )
    return ""


def request_kind(body: Any) -> str:
    """`stream`, the schema name of a structured-output request, or `chat`."""
    if not isinstance(body, dict):
        return "invalid"
    if body.get("stream"):
        return "stream"
    response_format = body.get("response_format")
    if isinstance(response_format, dict):
        schema = response_format.get("json_schema")
        if isinstance(schema, dict) and schema.get("name"):
            return str(schema["name"])
        return str(response_format.get("type") or "structured")
    return "chat"


def split_chunks(text: str) -> list[str]:
    """Word-sized pieces that join back to exactly `text`."""
    return re.findall(r"\S+\s*|\s+", text) or [""]


def _word_count(text: str) -> int:
    return len(text.split())


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 keeps connections alive between requests, as a real server does, so a
    # benchmark measures the client and not TCP handshakes.
    protocol_version = "HTTP/1.1"
    # Headers, body and each stream event are separate small writes; with Nagle on, the
    # client's delayed ACK would add ~40 ms to each.
    disable_nagle_algorithm = True
    server: _Server
    _recorded: RecordedRequest

    def log_message(self, format: str, *args: Any) -> None:
        # Tests and benchmarks do not want a line per request on stderr.
        pass

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == STATS_PATH:
            self._send_json(200, self.server.state.stats())
        elif path in MODELS_PATHS:
            data = [{"id": name, "object": "model", "owned_by": "fake"} for name in FAKE_MODELS]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": "Not found.", "type": "invalid_request"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else {}
        except ValueError:
            body = raw.decode("utf-8", "replace")
        path = self.path.split("?", 1)[0]
        state = self.server.state
        recorded = RecordedRequest(
            path,
            {name.lower(): value for name, value in self.headers.items()},
            body,
            received_at=time.monotonic(),
        )
        with state.lock:
            if state.record:
                state.requests.append(recorded)
            scripted = _take_matching(state, body)
            if scripted is None and state.steps:
                scripted = state.steps.popleft()
            state.total += 1
            kind = request_kind(body)
            state.by_kind[kind] = state.by_kind.get(kind, 0) + 1
            state.in_flight += 1
        self._recorded = recorded
        try:
            self._answer(path, body, scripted, recorded)
        finally:
            with state.lock:
                state.in_flight -= 1

    def _answer(
        self, path: str, body: Any, scripted: Step | None, recorded: RecordedRequest
    ) -> None:
        state = self.server.state
        if path not in CHAT_PATHS:
            self._send_json(404, {"error": {"message": "Not found.", "type": "invalid_request"}})
            return
        if not isinstance(body, dict):
            self._send_json(400, {"error": {"message": "Body is not JSON.", "type": "invalid"}})
            return
        step: Step
        if scripted is None:
            step = self._default_reply(body)
            self._pause(state.default_delay)
        else:
            step = scripted
        self._perform(step, body)
        recorded.answered_at = time.monotonic()

    def _default_reply(self, body: dict[str, Any]) -> Reply:
        if _wants_json(body):
            # Every field of the app's schemas has a default, so an empty object is
            # the one deterministic answer that always validates.
            return Reply("{}")
        return Reply("Echo: " + last_user_text(body.get("messages", [])))

    def _perform(self, step: Step, body: dict[str, Any]) -> None:
        stream = bool(body.get("stream"))
        if isinstance(step, Hang):
            self._pause(step.seconds)
            self.close_connection = True
            return
        if isinstance(step, Fail):
            self._send_failure(step)
            return
        if isinstance(step, StreamError):
            self._send_stream(body, Reply("Partial answer"), error=step.message)
            return
        if isinstance(step, Malformed):
            if stream:
                self._send_stream(body, Reply("This reply breaks"), broken=True)
            else:
                self._send_raw(200, b'{"id": "chatcmpl-broken", "choices": [', "application/json")
            return
        self._pause(step.delay)
        if stream:
            self._send_stream(body, step)
        else:
            self._send_json(200, _completion(body, step))

    def _pause(self, seconds: float) -> None:
        # Wakes early when the server stops, so a Hang never holds up the test run.
        if seconds > 0:
            self.server.state.stopping.wait(seconds)

    def _send_failure(self, step: Fail) -> None:
        if step.body is None:
            payload: str | dict[str, Any] = {
                "error": {
                    "message": f"Scripted failure with status {step.status}.",
                    "type": "rate_limit_error" if step.status == 429 else "server_error",
                    "code": None,
                }
            }
        else:
            payload = step.body
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        extra = {} if step.retry_after is None else {"Retry-After": f"{step.retry_after:g}"}
        self._send_raw(step.status, data, step.content_type, extra)

    def _send_json(self, status: int, payload: Any) -> None:
        self._send_raw(status, json.dumps(payload).encode(), "application/json")

    def _send_raw(
        self, status: int, data: bytes, content_type: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", "req_" + uuid.uuid4().hex[:12])
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(
        self, body: dict[str, Any], reply: Reply, *, broken: bool = False, error: str = ""
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for index, event in enumerate(_stream_events(body, reply, broken=broken, error=error)):
                if index > 1:
                    self._pause(reply.chunk_delay)
                self._write_chunk(event)
                self._recorded.events_sent += 1
            self._pause(reply.linger)
            self._write_chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (its timeout, or it stopped reading); nothing to tell it.
            self.close_connection = True

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _take_matching(state: _State, body: Any) -> Step | None:
    if not state.matching or not isinstance(body, dict):
        return None
    text = last_user_text(body.get("messages", []))
    for index, (match, step) in enumerate(state.matching):
        if match in text:
            del state.matching[index]
            return step
    return None


def _call_id(index: int) -> str:
    return f"call_{index}_{uuid.uuid4().hex[:8]}"


def _arguments_text(call: ToolCallStep) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False)


def _wants_json(body: dict[str, Any]) -> bool:
    response_format = body.get("response_format")
    return isinstance(response_format, dict) and response_format.get("type") in (
        "json_schema",
        "json_object",
    )


def _usage(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    prompt = reply.prompt_tokens
    if prompt is None:
        prompt = sum(_word_count(_content_text(m.get("content"))) for m in body.get("messages", []))
    completion = reply.completion_tokens
    if completion is None:
        completion = _word_count(reply.text)
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }
    if reply.cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens, "audio_tokens": 0}
    return usage


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if reply.refusal or (reply.tool_calls and not reply.text) else reply.text,
        "refusal": reply.text if reply.refusal else None,
    }
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": _call_id(index),
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_text(call)},
            }
            for index, call in enumerate(reply.tool_calls)
        ]
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:24],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or FAKE_MODEL,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": _usage(body, reply),
    }


def _stream_events(
    body: dict[str, Any], reply: Reply, *, broken: bool, error: str = ""
) -> Iterator[bytes]:
    base = {
        "id": "chatcmpl-" + uuid.uuid4().hex[:24],
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model") or FAKE_MODEL,
    }
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and bool(options.get("include_usage"))

    def event(choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> bytes:
        chunk: dict[str, Any] = {**base, "choices": choices}
        if include_usage:
            # OpenAI sends `usage: null` on every chunk but the last when asked for usage.
            chunk["usage"] = usage
        return b"data: " + json.dumps(chunk).encode() + b"\n\n"

    def delta(content: dict[str, Any], finish: str | None = None) -> list[dict[str, Any]]:
        return [{"index": 0, "delta": content, "logprobs": None, "finish_reason": finish}]

    yield event(delta({"role": "assistant", "content": ""}))
    pieces = reply.chunks if reply.chunks is not None else split_chunks(reply.text)
    if reply.tool_calls and not reply.text and reply.chunks is None:
        pieces = []
    for number, piece in enumerate(pieces):
        if broken and number == 1:
            yield b'data: {"id": "chatcmpl-broken", "choices": [{"delta": \n\n'
            return
        if error and number == 1:
            failure = {"error": {"message": error, "type": "server_error", "code": None}}
            yield b"data: " + json.dumps(failure).encode() + b"\n\n"
            return
        yield event(delta({"refusal" if reply.refusal else "content": piece}))
    for index, call in enumerate(reply.tool_calls):
        # As OpenAI streams a call: id and name first, then the arguments in pieces.
        yield event(
            delta(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": _call_id(index),
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        arguments = _arguments_text(call)
        for start in range(0, len(arguments), 16):
            part = {"index": index, "function": {"arguments": arguments[start : start + 16]}}
            yield event(delta({"tool_calls": [part]}))
    yield event(delta({}, "tool_calls" if reply.tool_calls else "stop"))
    if include_usage:
        yield event([], _usage(body, reply))
    yield b"data: [DONE]\n\n"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # The listen backlog: socketserver's default of 5 refuses a burst of new connections (64
    # replies reaching the model at once), where a real model server queues them.
    request_queue_size = 1024
    # A handler stuck in a Hang must not make stop() wait for it.
    block_on_close = False

    def __init__(self, address: tuple[str, int], state: _State) -> None:
        self.state = state
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.state.lock:
            self.state.connections += 1
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is part of the script, not a server bug.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def drop_connections(self) -> None:
        # Keep-alive handler threads otherwise sit in a blocking read until the client
        # goes away, which for a pooled client may be never.
        with self.connections_lock:
            connections = list(self.connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class FakeOpenAI:
    """The server and its script. Use the `fake_openai` fixture, or `start()`/`stop()`."""

    def __init__(self, *, port: int = 0, default_delay: float = 0.0, record: bool = True) -> None:
        # `record=False` is for long benchmark runs, where keeping every prompt would grow
        # the server's memory without bound.
        self._state = _State(default_delay=default_delay, record=record)
        self._server = _Server(("127.0.0.1", port), self._state)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    def stats(self) -> dict[str, Any]:
        """Requests counted so far: total, in flight, by kind (see the module's docstring)."""
        return self._state.stats()

    @property
    def default_delay(self) -> float:
        return self._state.default_delay

    @default_delay.setter
    def default_delay(self, seconds: float) -> None:
        self._state.default_delay = seconds

    def enqueue(self, *steps: Step) -> None:
        """Script the next requests, one step each; afterwards the default reply resumes."""
        with self._state.lock:
            self._state.steps.extend(steps)

    def enqueue_for(self, match: str, step: Step) -> None:
        """Script the first request whose last user message contains `match` (taken
        before the ordered script), however concurrent requests interleave."""
        with self._state.lock:
            self._state.matching.append((match, step))

    def wait_streamed(self, match: str, events: int, timeout: float = 30.0) -> None:
        """Wait until the stream answering the request whose last user message contains
        `match` has written `events` events (a reply under way, whatever the load)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(
                match in last_user_text(r.messages) and r.events_sent >= events
                for r in self.requests
            ):
                return
            time.sleep(0.02)
        raise TimeoutError(f"no stream for {match!r} wrote {events} events in {timeout} s")

    def reset(self) -> None:
        """Forget the script and the recorded requests."""
        with self._state.lock:
            self._state.steps.clear()
            self._state.matching.clear()
            self._state.requests.clear()
            self._state.total = 0
            self._state.by_kind.clear()

    def start(self) -> FakeOpenAI:
        self._thread = threading.Thread(
            # shutdown() waits for the next poll; the default half second would be most of
            # a fast test's runtime.
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fake-openai",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._state.stopping.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.drop_connections()
        self._server.server_close()

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (the command-line entry)."""
        try:
            self._server.serve_forever()
        finally:
            self._state.stopping.set()
            self._server.drop_connections()
            self._server.server_close()

    def provider(self, *, max_attempts: int = 1, timeout: float = 2.0) -> OpenAIProvider:
        """An OpenAIProvider talking to this server, through the real SDK."""
        from llm.openai_provider import OpenAIProvider

        return OpenAIProvider(
            api_key=FAKE_API_KEY,
            model=FAKE_MODEL,
            base_url=self.base_url,
            timeout=timeout,
            max_attempts=max_attempts,
        )


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument(
        "--delay-ms", type=float, default=0.0, help="wait before each answer, in milliseconds"
    )
    args = parser.parse_args(argv)
    server = FakeOpenAI(port=args.port, default_delay=args.delay_ms / 1000, record=False)
    print(server.base_url, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
