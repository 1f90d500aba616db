"""Fixed-window counters in Django's cache (Redis in production, so every process counts
together; process memory in the embedded default), for the limits on instructions,
log-ins, sign-ups and new sessions.

A counter that cannot reach its cache fails open with a log line: a Redis outage never
locks people out. (The instruction limit has its own fallback: it counts missions in the
database, missions.ratelimit.)"""

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.core.cache import cache

logger = logging.getLogger(__name__)

# Replaced in tests by a controlled clock.
clock: Callable[[], float] = time.time


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    retry_after: int = 0


@dataclass(frozen=True)
class Window:
    """`limit` per `seconds`; the key names what is counted (a user, an address…)."""

    scope: str
    limit: int
    seconds: int

    def start(self, now: float) -> float:
        """When the window holding `now` began (a Unix time)."""
        return int(now // self.seconds) * self.seconds

    def key(self, who: str, *, now: float | None = None) -> str:
        index = int((clock() if now is None else now) // self.seconds)
        return f"throttle:{self.scope}:{who}:{index}"

    def retry_after(self, now: float) -> int:
        return max(1, int(self.start(now) + self.seconds - now + 0.999))


def charge(*, key: str, cost: int, limit: int, timeout: int) -> int:
    """The window's count with `cost` added; a refused charge is taken back. Raises
    when the cache cannot be reached (callers decide how to fail)."""
    # add() then incr() is atomic on Redis and on the local-memory cache alike.
    cache.add(key, 0, timeout=timeout)
    try:
        used = int(cache.incr(key, cost))
    except ValueError:  # expired between add and incr
        cache.set(key, cost, timeout=timeout)
        used = cost
    if used > limit:
        cache.decr(key, cost)
    return used


def throttle_hit(window: Window, who: str, *, cost: int = 1) -> Verdict:
    """Count `cost` for `who` if the window allows it; refuse (and count nothing) if not."""
    if window.limit <= 0:
        return Verdict(True)
    now = clock()
    try:
        used = charge(
            key=window.key(who, now=now), cost=cost, limit=window.limit, timeout=window.seconds + 5
        )
    except Exception as exc:
        logger.warning("throttle %s: cache unreachable (%s); allowing", window.scope, exc)
        return Verdict(True)
    if used <= window.limit:
        return Verdict(True)
    return Verdict(False, retry_after=window.retry_after(now))


def throttle_check(window: Window, who: str) -> Verdict:
    """Whether `who` is over the window's limit, without counting anything."""
    if window.limit <= 0:
        return Verdict(True)
    now = clock()
    try:
        used = int(cache.get(window.key(who, now=now)) or 0)
    except Exception as exc:
        logger.warning("throttle %s: cache unreachable (%s); allowing", window.scope, exc)
        return Verdict(True)
    if used < window.limit:
        return Verdict(True)
    return Verdict(False, retry_after=window.retry_after(now))


def throttle_count(window: Window, who: str) -> None:
    """Count one more for `who` (a failed log-in), whatever the limit."""
    if window.limit <= 0:
        return
    key = window.key(who)
    try:
        cache.add(key, 0, timeout=window.seconds + 5)
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=window.seconds + 5)
    except Exception as exc:
        logger.warning("throttle %s: cache unreachable (%s); not counted", window.scope, exc)
