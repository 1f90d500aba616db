"""When a fold is due (docs/design.md §4): the one answer, read by the mission that has just
finished (whether to queue a fold at all), by the fold itself (whether to run) and by the
sweeper (whether a session lags). Which missions have left the window is the window's
own definition (context.window)."""

from django.conf import settings

from context.lines import pending_capacity
from context.window import window_left_through
from missions.models import ANSWERED, Mission


def fold_due(*, waiting: int) -> bool:
    """Whether enough missions wait to be folded: FOLD_BATCH of them, or as many as the
    pending section lists one by one under its cap (PENDING_BUDGET_CHARS), so that a fold
    is under way before the oldest of them would shrink to a range line. Folding in batches
    keeps the summary message byte-identical between folds, so provider prompt caches keep
    hitting."""
    return waiting >= min(settings.FOLD_BATCH, pending_capacity(settings.PENDING_BUDGET_CHARS))


def fold_waiting(*, session_id: int, folded_through: int, cutoff: int | None = None) -> int:
    """How many finished missions have left the window (up to `cutoff`, the window's
    edge, read here when not given) and are not folded yet."""
    if cutoff is None:
        cutoff = window_left_through(session_id=session_id)
    return Mission.objects.filter(
        session_id=session_id, status__in=ANSWERED, seq__gt=folded_through, seq__lte=cutoff
    ).count()


def fold_may_be_due(*, mission_count: int, folded_through: int) -> bool:
    """Whether a fold can be due, with no query: a fold waits for missions that left the
    window and are not folded, and at most `mission_count - DETAIL_MISSIONS -
    folded_through` can be (no seq is above the session's mission count, and the window
    holds the DETAIL_MISSIONS newest finished ones). So between two batches no fold check
    is queued at all."""
    return fold_due(waiting=mission_count - settings.DETAIL_MISSIONS - folded_through)
