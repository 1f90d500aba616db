"""Sliding-window counters in Django's cache (Redis in production, so every process counts
together; process memory in the embedded default), for the limits on instructions,
log-ins, sign-ups, hires and new sessions.

A window of `seconds` is counted in `SLICES` slices: a charge adds to the current slice
(one atomic INCR) and then reads the slices that make up the window (one MGET), so at most
`limit` charges are accepted in any `seconds` (a fixed window let twice the limit through
across its boundary). The count is taken before the thing it guards is done: two callers
at once can never both see the last free place.

A charge that cannot reach its cache goes to the caller's `fallback` (a count in the
database) if it has one, else fails open with a log line: a Redis outage never locks
people out."""

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.core.cache import cache

logger = logging.getLogger(__name__)

# Replaced in tests by a controlled clock.
clock: Callable[[], float] = time.time

# How finely a window slides: it covers between `seconds` and `seconds` plus one slice.
SLICES = 30


def cache_key(*parts: str) -> str:
    """The one place the throttles name their keys in the shared cache."""
    return ":".join(parts)


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    retry_after: int = 0
    # The cache key the accepted charge went to (to give it back); empty if none.
    charged: str = ""


@dataclass(frozen=True)
class Window:
    """`limit` per `seconds`; the key names what is counted (a user, an address…)."""

    scope: str
    limit: int
    seconds: int

    @property
    def slice_seconds(self) -> float:
        return self.seconds / SLICES

    def slice_index(self, now: float) -> int:
        return int(now // self.slice_seconds)

    def start(self, now: float) -> float:
        """Where the window that ends at `now` begins (a Unix time)."""
        return now - self.seconds

    def slice_key(self, who: str, index: int) -> str:
        return cache_key("throttle", self.scope, who, str(index))

    def keys(self, who: str, now: float) -> list[str]:
        """The current slice's key first, then the older slices' keys, newest first."""
        current = self.slice_index(now)
        return [self.slice_key(who, current - back) for back in range(SLICES + 1)]

    def retry_after(self, now: float, counts: list[int], cost: int) -> int:
        """Seconds until `cost` more fits, given the slices' counts (newest first)."""
        current = self.slice_index(now)
        over = sum(counts) + cost - self.limit
        for back in range(SLICES, -1, -1):
            over -= counts[back]
            if over <= 0:
                # That slice leaves the window when the current index passes it by SLICES.
                leaves = (current - back + SLICES + 1) * self.slice_seconds
                return max(1, math.ceil(leaves - now))
        return self.seconds


# A database count for when the cache is down: (window, who, cost, now) → what is used,
# `cost` included (and recorded when it fits).
Fallback = Callable[[Window, str, int, float], int]


def _charge(window: Window, who: str, cost: int, now: float) -> tuple[int, list[int], str]:
    keys = window.keys(who, now)
    current = keys[0]
    # add() then incr() is atomic on Redis and on the local-memory cache alike.
    cache.add(current, 0, timeout=window.seconds + int(window.slice_seconds) + 5)
    try:
        mine = int(cache.incr(current, cost))
    except ValueError:  # expired between add and incr
        cache.set(current, cost, timeout=window.seconds + int(window.slice_seconds) + 5)
        mine = cost
    older = cache.get_many(keys[1:])
    counts = [mine, *(int(older.get(k) or 0) for k in keys[1:])]
    used = sum(counts)
    if used > window.limit:
        # Refused: it created nothing, so it is given back.
        cache.decr(current, cost)
        counts[0] -= cost
    return used, counts, current


def throttle_hit(
    window: Window, who: str, *, cost: int = 1, fallback: Fallback | None = None
) -> Verdict:
    """Count `cost` for `who` if the window allows it; refuse (and count nothing) if not."""
    if window.limit <= 0:
        return Verdict(True)
    now = clock()
    try:
        used, counts, key = _charge(window, who, cost, now)
    except Exception as exc:
        if fallback is None:
            logger.warning("throttle %s: cache unreachable (%s); allowing", window.scope, exc)
            return Verdict(True)
        logger.warning(
            "throttle %s: rate-limit cache unreachable (%s); counting in the database",
            window.scope,
            exc,
        )
        used = fallback(window, who, cost, now)
        if used <= window.limit:
            return Verdict(True)
        return Verdict(False, retry_after=window.seconds)
    if used <= window.limit:
        return Verdict(True, charged=key)
    return Verdict(False, retry_after=window.retry_after(now, counts, cost))


def throttle_refund(verdict: Verdict, *, cost: int = 1) -> None:
    """Give an accepted charge back (a log-in that turned out right)."""
    if not verdict.charged:
        return
    try:
        cache.decr(verdict.charged, cost)
    except Exception as exc:  # expired, or the cache went away: nothing to give back
        logger.info("throttle: could not give back %s (%s)", verdict.charged, exc)
