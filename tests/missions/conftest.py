from collections.abc import Iterator

import pytest

from llm.gateway import set_provider_override
from tests.fake_openai import FakeOpenAI


@pytest.fixture
def model(fake_openai: FakeOpenAI) -> Iterator[FakeOpenAI]:
    """Every reply goes through the real OpenAI SDK to the local fake server."""
    set_provider_override(fake_openai.provider(max_attempts=2, timeout=1.0))
    try:
        yield fake_openai
    finally:
        set_provider_override(None)
