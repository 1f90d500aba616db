"""The throttles' count in the database, for when the cache (Redis) cannot be reached: the
attempt is recorded first and the window counted after, so of attempts made at once, at
most the limit see themselves within it (each sees every attempt recorded before its own).
A refused attempt is taken back, as the cache's count does."""

from datetime import UTC, datetime, timedelta

from config.throttle import Window
from office.models import ThrottleHit


def attempts_recorded(window: Window, who: str, cost: int, now: float) -> int:
    """What `who` has used of `window` with `cost` more; recorded if it fits."""
    at = datetime.fromtimestamp(now, tz=UTC)
    since = at - timedelta(seconds=window.seconds)
    mine = ThrottleHit.objects.bulk_create(
        [ThrottleHit(scope=window.scope, who=who[:300], at=at) for _ in range(cost)]
    )
    rows = ThrottleHit.objects.filter(scope=window.scope, who=who[:300])
    used = rows.filter(at__gt=since).count()
    if used > window.limit:
        ThrottleHit.objects.filter(pk__in=[m.pk for m in mine]).delete()
    rows.filter(at__lte=since).delete()
    return used


def attempts_counted(window: Window, who: str, now: float) -> int:
    """What `who` has used of `window`, recording nothing."""
    since = datetime.fromtimestamp(now, tz=UTC) - timedelta(seconds=window.seconds)
    return ThrottleHit.objects.filter(scope=window.scope, who=who[:300], at__gt=since).count()
