"""Emptying the cache between tests without touching other test workers' keys."""

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache


def clear_cache() -> None:
    """Empty this worker's cache. Django's Redis cache clears by flushing the whole Redis
    database, which the other pytest-xdist workers share (their throttle counters, their
    task queues): only the keys under this worker's prefix go."""
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        backend.clear()
        return
    client = backend._cache.get_client(write=True)
    keys = list(client.scan_iter(match=f"{backend.key_prefix}:*", count=1000))
    if keys:
        client.delete(*keys)
