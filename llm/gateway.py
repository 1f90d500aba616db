"""Which provider runs: chosen by settings, overridable in tests."""

import functools
import logging
import threading
import time

from django.conf import settings

from llm.base import Provider, ProviderError
from llm.offline import OfflineProvider
from llm.openai_provider import OpenAIProvider

log = logging.getLogger(__name__)

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


# The server's model list is asked for at most this often (the office page shows it).
MODELS_SECONDS = 600
_models: dict[int, tuple[float, list[str]]] = {}


def available_models() -> list[str]:
    """The models an employee may be given: what the configured server lists (kept
    MODELS_SECONDS), or [] when the provider lists none (offline) or the server did not
    answer; then any name is accepted."""
    provider = get_provider()
    listing = getattr(provider, "list_models", None)
    if listing is None:
        return []
    now = time.monotonic()
    kept = _models.get(id(provider))
    if kept is not None and now - kept[0] < MODELS_SECONDS:
        return kept[1]
    try:
        models = list(listing())
    except ProviderError as exc:
        log.warning("the model server listed no models: %s", exc.code)
        models = []
    _models[id(provider)] = (now, models)
    return models


def default_model() -> str:
    """The model an employee without one of their own answers with."""
    provider = get_provider()
    return str(getattr(provider, "model", "") or provider.name)
