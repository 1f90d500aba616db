"""Which provider runs: chosen by settings, overridable in tests."""

from django.conf import settings

from llm.base import Provider

_override: Provider | None = None


def get_provider() -> Provider:
    if _override is not None:
        return _override
    if settings.LLM_PROVIDER == "openai":
        from llm.openai_provider import OpenAIProvider

        return OpenAIProvider.from_settings()
    from llm.offline import OfflineProvider

    return OfflineProvider()


def set_provider_override(provider: Provider | None) -> None:
    """Tests and commands swap the provider for the whole process."""
    global _override
    _override = provider
