"""OpenAIProvider through the real openai SDK against the local fake server (nothing mocked).

What the SDK was observed to do, which these tests pin down:
- It retries 408/409/429/5xx, connection errors and timeouts itself, `max_retries` times;
  each attempt carries `x-stainless-retry-count`.
- It waits exactly Retry-After when that is above 0 and at most 120 s; Retry-After: 0 is
  ignored in favour of its own backoff (about 0.5 s, then 1 s, less up to 25 % jitter).
- A 200 whose JSON body is cut off raises a bare json.JSONDecodeError (not an OpenAIError,
  and not retried); so does a broken event in the middle of a stream.
- A 200 that is not JSON at all makes the parse helper fail with AttributeError, and a
  stream read from it simply ends with no events.
"""

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from llm.base import ProviderError, Tool
from llm.openai_provider import OpenAIProvider
from memory.extraction import (
    MemoryCandidate,
    MemoryCandidates,
    extract_messages,
    propose_candidates,
)
from summaries.folding import fold_propose
from summaries.prompts import fold_messages
from summaries.schemas import FoldMission, SummaryItem, SummaryState
from tests.fake_openai import (
    FAKE_API_KEY,
    FAKE_MODEL,
    Fail,
    FakeOpenAI,
    Hang,
    Malformed,
    Reply,
    StreamError,
    ToolCallStep,
)

MESSAGES = [
    {"role": "system", "content": "You are the office's analyst."},
    {"role": "user", "content": "Summarise the Q3 numbers."},
]


@pytest.fixture
def provider_at(fake_openai: FakeOpenAI) -> Iterator[Any]:
    """Builds providers against the fake server and closes them after the test."""
    built: list[OpenAIProvider] = []

    def build(*, max_attempts: int = 1, timeout: float = 2.0) -> OpenAIProvider:
        provider = fake_openai.provider(max_attempts=max_attempts, timeout=timeout)
        built.append(provider)
        return provider

    yield build
    for provider in built:
        provider.close()


@pytest.fixture
def provider_from_settings(fake_openai: FakeOpenAI, settings: Any) -> Iterator[OpenAIProvider]:
    settings.OPENAI_API_KEY = FAKE_API_KEY
    settings.OPENAI_BASE_URL = fake_openai.base_url
    settings.OPENAI_MODEL = FAKE_MODEL
    settings.OPENAI_TIMEOUT = 0.5
    settings.OPENAI_MAX_ATTEMPTS = 3
    provider = OpenAIProvider.from_settings()
    yield provider
    provider.close()


def raised(call: Any) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        call()
    return caught.value


# --- streaming ---------------------------------------------------------------------------


def test_streamed_pieces_arrive_in_order_and_join_to_the_whole_reply(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Reply("Revenue rose 12 %.", chunks=["Revenue", " rose", " 12", " %."]))

    stream = provider_at().stream_chat(messages=MESSAGES)

    assert list(stream) == ["Revenue", " rose", " 12", " %."]


def test_the_default_reply_echoes_the_last_user_message_in_several_pieces(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    pieces = list(provider_at().stream_chat(messages=MESSAGES))

    assert len(pieces) > 1
    assert "".join(pieces) == "Echo: Summarise the Q3 numbers."


def test_a_finished_stream_reports_its_usage_with_cached_tokens(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Reply("Done.", prompt_tokens=1200, cached_tokens=1024, completion_tokens=7))

    stream = provider_at().stream_chat(messages=MESSAGES)
    assert stream.usage.prompt_tokens == 0  # nothing is known before the stream ends
    list(stream)

    assert (stream.usage.prompt_tokens, stream.usage.cached_tokens) == (1200, 1024)
    assert stream.usage.completion_tokens == 7


def test_cached_tokens_are_zero_when_the_server_reports_no_prompt_details(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Reply("Done.", prompt_tokens=40, cached_tokens=None, completion_tokens=2))

    stream = provider_at().stream_chat(messages=MESSAGES)
    list(stream)

    assert (stream.usage.prompt_tokens, stream.usage.cached_tokens) == (40, 0)


def test_the_stream_request_carries_the_model_the_messages_and_asks_for_usage(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    list(provider_at().stream_chat(messages=MESSAGES))
    list(provider_at().stream_chat(messages=MESSAGES, model="other-model"))

    first, second = fake_openai.requests
    assert first.path == "/v1/chat/completions"
    assert first.body["model"] == FAKE_MODEL
    assert second.body["model"] == "other-model"
    assert first.messages == MESSAGES
    assert first.body["stream"] is True
    assert first.body["stream_options"] == {"include_usage": True}
    assert first.headers["authorization"] == f"Bearer {FAKE_API_KEY}"


def test_a_refusal_streams_as_the_reply_text(fake_openai: FakeOpenAI, provider_at: Any) -> None:
    fake_openai.enqueue(Reply("I can't help with that.", refusal=True))

    assert "".join(provider_at().stream_chat(messages=MESSAGES)) == "I can't help with that."


def test_a_broken_chunk_mid_stream_raises_bad_output_while_iterating(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Malformed())
    stream = provider_at().stream_chat(messages=MESSAGES)
    received: list[str] = []

    error = raised(lambda: received.extend(stream))

    assert error.code == "bad_output"
    assert received == ["This "]  # what came before the break was delivered


def test_an_error_event_mid_stream_raises_server_error_after_what_came_before(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(StreamError("The server had an error while processing your request."))
    stream = provider_at().stream_chat(messages=MESSAGES)
    received: list[str] = []

    error = raised(lambda: received.extend(stream))

    assert error.code == "server_error"
    assert "processing your request" not in error.message  # the server's words stay out
    assert received == ["Partial "]


@pytest.mark.parametrize("tools", [False, True])
def test_streamed_replies_and_structured_calls_reuse_one_connection(
    fake_openai: FakeOpenAI, provider_at: Any, tools: bool
) -> None:
    # A response closed with unread body cannot go back to the pool: with a hosted
    # provider every reply would pay a new TLS handshake.
    provider = provider_at()
    tool = [Tool(name="delegate", description="Hand a task over.", parameters={"type": "object"})]
    for n in range(5):
        stream = provider.stream_chat(
            messages=[*MESSAGES[:1], {"role": "user", "content": f"Question {n}"}],
            tools=tool if tools else None,
        )
        assert "".join(stream) == f"Echo: Question {n}"
    state, _ = provider.structured(messages=MESSAGES, schema=SummaryState)
    assert state == SummaryState()
    stats = fake_openai.stats()
    assert stats["requests"] == 6
    assert stats["connections"] == 1


def test_a_server_that_does_not_end_the_body_after_done_still_gives_the_whole_reply(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Reply("All done.", chunks=["All", " done."], linger=5.0))

    stream = provider_at(timeout=0.5).stream_chat(messages=MESSAGES)
    started = time.monotonic()

    assert list(stream) == ["All", " done."]
    assert time.monotonic() - started < 3  # the read timeout, not the server's linger


def test_a_stream_that_stalls_after_it_started_raises_timeout_while_iterating(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Reply("one two three", chunk_delay=3.0))
    stream = provider_at(max_attempts=3, timeout=0.5).stream_chat(messages=MESSAGES)

    error = raised(lambda: list(stream))

    assert error.code == "timeout"
    assert error.message == "The model server did not answer within 0.5 s."
    assert len(fake_openai.requests) == 1  # text had already flowed: never retried


def test_a_stream_from_a_server_that_answers_with_a_web_page_raises_bad_output(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Fail(200, body="<html>Gateway login</html>", content_type="text/html"))
    stream = provider_at().stream_chat(messages=MESSAGES)

    assert raised(lambda: list(stream)).code == "bad_output"


# --- structured output -------------------------------------------------------------------


def test_structured_output_returns_a_validated_summary_state_and_its_usage(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    state = SummaryState(
        goal="Close Q3 books",
        goal_missions=[1],
        facts=[SummaryItem(text="Revenue was 4.2 M EUR.", missions=[2])],
    )
    fake_openai.enqueue(
        Reply(state.model_dump_json(), prompt_tokens=900, cached_tokens=512, completion_tokens=60)
    )

    result, usage = provider_at().structured(messages=MESSAGES, schema=SummaryState)

    assert result == state
    assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (900, 512, 60)


def test_the_structured_request_carries_the_model_the_messages_and_the_json_schema(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    provider_at().structured(messages=MESSAGES, schema=MemoryCandidates, model="other-model")

    (request,) = fake_openai.requests
    assert request.body["model"] == "other-model"
    assert request.messages == MESSAGES
    response_format = request.body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "MemoryCandidates"
    assert response_format["json_schema"]["strict"] is True


def test_a_fold_through_the_sdk_sends_the_fold_prompt_and_keeps_the_verified_state(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    previous = SummaryState(goal="Hire a designer")
    missions = [
        FoldMission(
            id=7,
            seq=3,
            at=datetime(2025, 3, 1, 9, 30, tzinfo=UTC),
            instruction="Budget?",
            reply="Up to 60 k EUR.",
        )
    ]
    folded = SummaryState(
        goal="Hire a designer", facts=[SummaryItem(text="Budget is 60 k EUR.", missions=[3])]
    )
    fake_openai.enqueue(Reply(folded.model_dump_json()))

    result, report, producer, _ = fold_propose(
        provider=provider_at(),
        previous=previous,
        missions=missions,
        budget=1500,
        session_number=None,
    )

    assert (result, report.ok, producer) == (folded, True, "openai")
    assert fake_openai.requests[0].messages == fold_messages(
        previous=previous, missions=missions, budget_chars=1500, findings=[]
    )


def test_extraction_through_the_sdk_sends_the_extraction_prompt_and_returns_the_candidates(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    candidates = MemoryCandidates(
        items=[MemoryCandidate(kind="preference", text="Reports go out in English.")]
    )
    fake_openai.enqueue(Reply(candidates.model_dump_json()))

    result = propose_candidates(
        provider=provider_at(), instruction="Write it in English.", reply="Done."
    )

    assert result == candidates
    assert fake_openai.requests[0].messages == extract_messages(
        instruction="Write it in English.", reply="Done."
    )


def test_a_structured_reply_that_does_not_match_the_schema_raises_bad_output(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Reply('{"items": [{"kind": "fact"}]}'))  # no text

    error = raised(lambda: provider_at().structured(messages=MESSAGES, schema=MemoryCandidates))

    assert error.code == "bad_output"


def test_a_structured_reply_that_is_not_json_raises_bad_output(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Reply("Sure! Here is the summary you asked for."))

    error = raised(lambda: provider_at().structured(messages=MESSAGES, schema=SummaryState))

    assert error.code == "bad_output"


def test_an_empty_structured_reply_raises_bad_output(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Reply(""))

    error = raised(lambda: provider_at().structured(messages=MESSAGES, schema=SummaryState))

    assert (error.code, error.message) == ("bad_output", "The model returned an empty answer.")


def test_a_structured_refusal_raises_bad_output(fake_openai: FakeOpenAI, provider_at: Any) -> None:
    fake_openai.enqueue(Reply("I can't help with that.", refusal=True))

    error = raised(lambda: provider_at().structured(messages=MESSAGES, schema=SummaryState))

    assert (error.code, error.message) == ("bad_output", "The model refused to answer.")


def test_a_response_body_cut_off_mid_json_raises_bad_output_without_retrying(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    # Observed: the SDK lets json.JSONDecodeError through and does not retry it, so the
    # provider can tell it apart from a server error.
    fake_openai.enqueue(Malformed())

    error = raised(
        lambda: provider_at(max_attempts=3).structured(messages=MESSAGES, schema=SummaryState)
    )

    assert error.code == "bad_output"
    assert len(fake_openai.requests) == 1


def test_a_web_page_instead_of_a_completion_raises_bad_output(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Fail(200, body="<html>Gateway login</html>", content_type="text/html"))

    error = raised(lambda: provider_at().structured(messages=MESSAGES, schema=SummaryState))

    assert error.code == "bad_output"


# --- retries and failures ------------------------------------------------------------------


def test_a_server_error_is_retried_and_the_call_succeeds_within_the_bound(
    fake_openai: FakeOpenAI, provider_from_settings: OpenAIProvider
) -> None:
    fake_openai.enqueue(Fail(500), Reply("Recovered."))

    assert "".join(provider_from_settings.stream_chat(messages=MESSAGES)) == "Recovered."
    assert [r.headers["x-stainless-retry-count"] for r in fake_openai.requests] == ["0", "1"]


def test_it_stops_after_the_attempt_bound_when_the_server_keeps_failing(
    fake_openai: FakeOpenAI, provider_from_settings: OpenAIProvider
) -> None:
    fake_openai.enqueue(*[Fail(500)] * 10)

    error = raised(
        lambda: provider_from_settings.structured(messages=MESSAGES, schema=SummaryState)
    )

    assert error.code == "server_error"
    assert error.message == "The model server failed (HTTP 500)."
    assert len(fake_openai.requests) == 3  # OPENAI_MAX_ATTEMPTS, not 3 retries on top


def test_a_rate_limit_reports_retry_after_and_honours_the_bound(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(*[Fail(429, retry_after=1)] * 5)
    started = time.monotonic()

    error = raised(lambda: provider_at(max_attempts=2).stream_chat(messages=MESSAGES))

    assert error.code == "rate_limited"
    assert error.retry_after == 1.0
    assert error.message == "The model server is limiting requests. Try again in 1 s."
    assert len(fake_openai.requests) == 2
    assert time.monotonic() - started >= 0.95  # the SDK waited the Retry-After in between


def test_a_rate_limit_with_retry_after_zero_is_retried_on_the_sdk_backoff(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Fail(429, retry_after=0), Reply("Fine now."))

    stream = provider_at(max_attempts=2).stream_chat(messages=MESSAGES)

    assert "".join(stream) == "Fine now."
    assert len(fake_openai.requests) == 2


def test_a_server_that_hangs_past_the_timeout_gives_timeout_after_every_attempt(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Hang(5), Hang(5))

    error = raised(
        lambda: provider_at(max_attempts=2, timeout=0.5).structured(
            messages=MESSAGES, schema=SummaryState
        )
    )

    assert error.code == "timeout"
    assert error.message == "The model server did not answer within 0.5 s."
    assert len(fake_openai.requests) == 2


@pytest.mark.parametrize(("status", "code"), [(401, "auth"), (403, "auth"), (400, "bad_request")])
def test_client_errors_are_reported_at_once_without_retrying(
    fake_openai: FakeOpenAI, provider_at: Any, status: int, code: str
) -> None:
    fake_openai.enqueue(Fail(status))

    error = raised(lambda: provider_at(max_attempts=3).stream_chat(messages=MESSAGES))

    assert error.code == code
    assert len(fake_openai.requests) == 1


def test_an_unreachable_server_gives_connection() -> None:
    server = FakeOpenAI().start()
    server.stop()  # the port is now closed
    provider = server.provider(max_attempts=1)

    try:
        error = raised(lambda: provider.stream_chat(messages=MESSAGES))
    finally:
        provider.close()

    assert (error.code, error.message) == ("connection", "Could not reach the model server.")


def test_error_messages_never_reveal_the_api_key_or_the_server_text(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(Fail(401, body={"error": {"message": f"Incorrect API key {FAKE_API_KEY}"}}))

    error = raised(lambda: provider_at().structured(messages=MESSAGES, schema=SummaryState))

    assert FAKE_API_KEY not in str(error)
    assert error.message == "The model server refused the credentials (HTTP 401)."


def test_a_missing_api_key_is_reported_as_auth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    error = raised(lambda: OpenAIProvider(api_key="", model=FAKE_MODEL))

    assert (error.code, error.message) == ("auth", "No API key is configured for the model server.")


def test_from_settings_builds_the_openai_provider(
    provider_from_settings: OpenAIProvider,
) -> None:
    assert provider_from_settings.name == "openai"
    assert provider_from_settings.model == FAKE_MODEL
    assert (provider_from_settings.timeout, provider_from_settings.max_attempts) == (0.5, 3)


# --- tool calls ----------------------------------------------------------------------------

TOOL = Tool(
    name="delegate",
    description="Hand a part to a colleague.",
    parameters={
        "type": "object",
        "properties": {"employee": {"type": "string"}, "task": {"type": "string"}},
        "required": ["employee", "task"],
    },
)


def test_a_streamed_reply_hands_over_its_tool_calls_whole(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    fake_openai.enqueue(
        Reply(
            "Splitting it up.",
            tool_calls=[
                ToolCallStep("delegate", {"employee": "Iris", "task": "배너 시안을 만들어 주세요"}),
                ToolCallStep("delegate", '{"employee": "Theo", "task": "Build the landing page'),
            ],
        )
    )
    stream = provider_at().stream_chat(messages=MESSAGES, tools=[TOOL])
    assert "".join(stream) == "Splitting it up."
    [sent] = fake_openai.requests
    assert sent.body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "delegate",
                "description": "Hand a part to a colleague.",
                "parameters": TOOL.parameters,
            },
        }
    ]
    # The arguments came in 16-character pieces and are joined in order, as written
    # (the second one is broken on purpose: validating it is the caller's job).
    assert [(c.name, c.arguments) for c in stream.tool_calls] == [
        ("delegate", '{"employee": "Iris", "task": "배너 시안을 만들어 주세요"}'),
        ("delegate", '{"employee": "Theo", "task": "Build the landing page'),
    ]
    assert all(c.id.startswith("call_") for c in stream.tool_calls)
    assert stream.usage.completion_tokens > 0


def test_without_tools_no_tool_is_sent_and_no_call_comes_back(
    fake_openai: FakeOpenAI, provider_at: Any
) -> None:
    stream = provider_at().stream_chat(messages=MESSAGES)
    assert "".join(stream).startswith("Echo: ")
    assert "tools" not in fake_openai.requests[0].body and stream.tool_calls == []


def test_the_fake_server_answers_tool_calls_without_streaming_too(
    fake_openai: FakeOpenAI,
) -> None:
    import openai

    fake_openai.enqueue(
        Reply("", tool_calls=[ToolCallStep("delegate", {"employee": "Iris", "task": "Banner"})])
    )
    client = openai.OpenAI(api_key=FAKE_API_KEY, base_url=fake_openai.base_url, max_retries=0)
    try:
        completion = client.chat.completions.create(
            model=FAKE_MODEL,
            messages=[{"role": "user", "content": "Plan it"}],
            tools=[{"type": "function", "function": {"name": "delegate", "parameters": {}}}],
        )
    finally:
        client.close()
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    [call] = choice.message.tool_calls or []
    assert call.type == "function" and call.function.name == "delegate"
    assert call.function.arguments == '{"employee": "Iris", "task": "Banner"}'
