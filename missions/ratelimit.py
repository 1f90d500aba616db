"""Per-user limits on the missions instructions create, shared by the WebSocket and the
JSON API (through `missions.intake.instruction_accept`), and on retries of failed ones.

A sliding window per user in the cache (Redis in production, so every web process counts
together; process memory in the embedded default; config.throttle). An instruction costs
one per mission it creates: itself, each delegation, each meeting follow-up (a plan's
synthesis is not charged: it is the office summing up work already counted); a retry
costs one, as it runs the model again. Exactly `limit` are accepted in any window; one
that would pass it is refused with the seconds until it fits, and its cost is given
back, since it created nothing.

If the cache cannot be reached (Redis down), each charge is recorded in the database
before it is counted (office.attempts: of 40 sent at once, at most the limit see
themselves within it), and the missions of the user's offices created in the window before
the first of those charges — what the cache counted before it went away — are added: an
outage of Redis never refuses, or loses, an instruction, and the limit still holds. (The
missions themselves cannot be the count: those accepted at once are not created yet when
the others count; that let 34 of 40 through a limit of 30.)"""

import logging
from datetime import UTC, datetime

from django.conf import settings
from django.db.models import Q
from django.utils.translation import gettext

from config.throttle import Verdict, Window, throttle_hit
from missions.models import Mission, MissionSource
from office.attempts import attempts_recorded

logger = logging.getLogger(__name__)


class InstructionRejected(Exception):
    """An instruction that cannot be accepted; `code` is stable, `message` is for a person."""

    retry_after: int | None = None

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RateLimited(InstructionRejected):
    """Over the per-user limit: nothing was saved; `retry_after` is in seconds."""

    def __init__(self, *, retry_after: int, cost: int) -> None:
        message = gettext("Too many instructions; try again in {seconds} s.").format(
            seconds=retry_after
        )
        if cost > 1:
            message += " " + gettext("This one would start {count} missions.").format(count=cost)
        super().__init__("rate_limited", message)
        self.retry_after = retry_after


def _window() -> Window:
    return Window("instruction", settings.INSTRUCTION_RATE_LIMIT, settings.INSTRUCTION_RATE_WINDOW)


def instruction_allowed(*, user_id: int, cost: int = 1, retry: bool = False) -> Verdict:
    """Whether `user_id` may create `cost` more missions now (or retry one, `retry`: a
    retry runs the model again and is charged as one); if so, they are counted."""

    def in_database(window: Window, who: str, cost: int, now: float) -> int:
        def before_the_outage(first: datetime) -> int:
            return _created_since(user_id=user_id, start=window.start(now), before=first)

        return attempts_recorded(window, who, cost, now, earlier=before_the_outage)

    return throttle_hit(_window(), str(user_id), cost=cost, fallback=in_database)


def _created_since(*, user_id: int, start: float, before: datetime) -> int:
    """Missions the user asked for from `start` (a Unix time) to `before` (those of no
    one, made before offices held several people, count as their office owner's); a
    plan's synthesis is the office's own work, not one the person started."""
    return (
        Mission.objects.filter(
            Q(requested_by_id=user_id)
            | Q(requested_by__isnull=True, channel__office__owner_id=user_id),
            created_at__gte=datetime.fromtimestamp(start, tz=UTC),
            created_at__lt=before,
        )
        .exclude(source=MissionSource.SYNTHESIS)
        .count()
    )
