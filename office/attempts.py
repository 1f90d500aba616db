"""The throttles' count in the database, for when the cache (Redis) cannot be reached: the
attempt is recorded first and the window counted after, so of attempts made at once, at
most the limit see themselves within it (each sees every attempt recorded before its own).
A refused attempt is taken back, as the cache's count does.

Why that holds: an attempt's row is committed before it counts, so of the attempts
accepted, the one recorded last sees every other accepted one (rows are only taken back
by attempts that were refused). The caller must not be inside a transaction, or its row
is not seen by the others until it commits."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.db.models import Count, Min

from config.throttle import Window
from office.models import ThrottleHit


def attempts_recorded(
    window: Window,
    who: str,
    cost: int,
    now: float,
    *,
    earlier: Callable[[datetime], int] | None = None,
) -> int:
    """What `who` has used of `window` with `cost` more; recorded if it fits. `earlier`
    adds what was used before the first attempt recorded in the window (given its time):
    work the cache counted before it went away, found in the database."""
    at = datetime.fromtimestamp(now, tz=UTC)
    since = at - timedelta(seconds=window.seconds)
    mine = ThrottleHit.objects.bulk_create(
        [ThrottleHit(scope=window.scope, who=who[:300], at=at) for _ in range(cost)]
    )
    rows = ThrottleHit.objects.filter(scope=window.scope, who=who[:300])
    recorded = rows.filter(at__gt=since).aggregate(used=Count("id"), first=Min("at"))
    used = int(recorded["used"])
    if earlier is not None:
        used += earlier(recorded["first"] or at)
    if used > window.limit:
        ThrottleHit.objects.filter(pk__in=[m.pk for m in mine]).delete()
    rows.filter(at__lte=since).delete()
    return used
