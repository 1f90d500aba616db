import threading
from typing import Any

from llm import gateway


def test_threads_that_ask_at_once_share_one_model_client(settings: Any) -> None:
    """Twenty first missions at once used to build twenty clients (a TLS context each)."""
    settings.LLM_PROVIDER = "openai"
    settings.OPENAI_API_KEY = "sk-gateway"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"  # never called
    gateway._openai_provider.cache_clear()
    start = threading.Barrier(20)
    providers: list[object] = []

    def first_mission() -> None:
        start.wait(10)
        providers.append(gateway.get_provider())

    threads = [threading.Thread(target=first_mission) for _ in range(20)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert len(providers) == 20
        assert len({id(provider) for provider in providers}) == 1
    finally:
        gateway._openai_provider.cache_clear()
