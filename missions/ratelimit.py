"""Per-user limits on instructions, shared by the WebSocket and the JSON API.

A fixed window per user in the cache (Redis in production, so every web process counts
together; process memory in the embedded default): exactly `limit` instructions are
accepted per window, the next is refused with the seconds until the window ends."""

import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

# Replaced in tests by a controlled clock.
clock: Callable[[], float] = time.time


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    retry_after: int = 0


def instruction_allowed(*, user_id: int) -> Verdict:
    limit, window = settings.INSTRUCTION_RATE_LIMIT, settings.INSTRUCTION_RATE_WINDOW
    if limit <= 0:
        return Verdict(True)
    now = clock()
    index = int(now // window)
    key = f"ratelimit:instruction:{user_id}:{index}"
    # add() then incr() is atomic on Redis and on the local-memory cache alike.
    cache.add(key, 0, timeout=window + 5)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window + 5)
        count = 1
    if count <= limit:
        return Verdict(True)
    return Verdict(False, retry_after=max(1, int((index + 1) * window - now + 0.999)))
