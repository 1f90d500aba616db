"""Which provider runs: chosen by settings, overridable in tests."""

import functools
import threading

from django.conf import settings

from llm.base import Provider
from llm.offline import OfflineProvider
from llm.openai_provider import OpenAIProvider

_override: Provider | None = None
# lru_cache does not stop threads that miss at once from each building a client: twenty
# first missions made twenty clients (each a TLS context, ~15 ms of CPU), kept one.
_building = threading.Lock()


def get_provider() -> Provider:
    if _override is not None:
        return _override
    if settings.LLM_PROVIDER == "openai":
        key = (
            settings.OPENAI_API_KEY,
            settings.OPENAI_BASE_URL,
            settings.OPENAI_MODEL,
            settings.OPENAI_TIMEOUT,
            settings.OPENAI_MAX_ATTEMPTS,
        )
        with _building:
            return _openai_provider(*key)
    return OfflineProvider()


@functools.lru_cache(maxsize=4)
def _openai_provider(*key: object) -> Provider:
    """One client (and its connection pool) per configuration, for the whole process."""
    return OpenAIProvider.from_settings()


def set_provider_override(provider: Provider | None) -> None:
    """Tests and commands swap the provider for the whole process."""
    global _override
    _override = provider
