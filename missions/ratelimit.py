"""Per-user limits on the missions instructions create, shared by the WebSocket and the
JSON API (through `missions.intake.instruction_accept`).

A fixed window per user in the cache (Redis in production, so every web process counts
together; process memory in the embedded default). An instruction costs one per mission
it creates: itself, each delegation, each meeting follow-up (a plan's synthesis is not
charged: it is the office summing up work already counted). Exactly `limit` missions are
accepted per window; an instruction that would pass it is refused with the seconds until
the window ends, and its cost is given back, since it created nothing.

If the cache cannot be reached (Redis down), the missions of the user's offices created in
the window are counted in the database instead: an outage of Redis never refuses, or
loses, an instruction, and the limit still holds."""

import logging
from datetime import UTC, datetime

from django.conf import settings

from config import throttle
from config.throttle import Verdict, Window, charge
from missions.models import Mission, MissionSource

logger = logging.getLogger(__name__)


def instruction_allowed(*, user_id: int, cost: int = 1) -> Verdict:
    """Whether `user_id` may create `cost` more missions now; if so, they are counted."""
    window = Window(
        "instruction", settings.INSTRUCTION_RATE_LIMIT, settings.INSTRUCTION_RATE_WINDOW
    )
    if window.limit <= 0:
        return Verdict(True)
    now = throttle.clock()
    try:
        used = charge(
            key=window.key(str(user_id), now=now),
            cost=cost,
            limit=window.limit,
            timeout=window.seconds + 5,
        )
    except Exception as exc:
        logger.warning(
            "rate-limit cache unreachable (%s); counting user %s's missions in the database",
            exc,
            user_id,
        )
        used = _created_since(user_id=user_id, start=window.start(now)) + cost
    if used <= window.limit:
        return Verdict(True)
    return Verdict(False, retry_after=window.retry_after(now))


def _created_since(*, user_id: int, start: float) -> int:
    """Missions created in the user's offices since `start` (a Unix time); a plan's
    synthesis is the office's own work, not one the person started."""
    return (
        Mission.objects.filter(
            channel__office__owner_id=user_id,
            created_at__gte=datetime.fromtimestamp(start, tz=UTC),
        )
        .exclude(source=MissionSource.SYNTHESIS)
        .count()
    )
