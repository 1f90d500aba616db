"""The detail window (DESIGN.md §3): the last DETAIL_MISSIONS finished missions before a
mission are shown in full; everything older has left it and is folded into the summary.
This module is the one definition of which missions have left the window."""

from django.conf import settings

from config.prepared import prepared
from missions.models import Mission, MissionStatus
from sessions.models import ChatSession

# Missions that left the window but are not folded yet are shown as excerpts, at most
# this many (a fold is due before more would wait).
PENDING_MAX_LISTED = 12


_WINDOW = prepared(
    lambda size, *, session_id, before_seq: Mission.objects.filter(
        session_id=session_id, status=MissionStatus.DONE, seq__lt=before_seq
    ).order_by("-seq")[:size]
)


def window_missions(*, session_id: int, before_seq: int) -> list[Mission]:
    """The finished missions in the detail window of mission `before_seq`, newest first."""
    return _WINDOW(settings.DETAIL_MISSIONS, session_id=session_id, before_seq=before_seq)


def window_left_through(*, session_id: int) -> int:
    """The highest seq that has left the window of the session's next mission: every
    finished mission up to it may be folded (0: none has left).

    A mission still queued or running holds this below itself, so a late finisher is
    never skipped by a fold."""
    window = settings.DETAIL_MISSIONS
    beyond = list(
        Mission.objects.filter(session_id=session_id, status=MissionStatus.DONE)
        .order_by("-seq")
        .values_list("seq", flat=True)[window : window + 1]
    )
    if not beyond:
        return 0
    unfinished = (
        Mission.objects.filter(
            session_id=session_id, status__in=[MissionStatus.QUEUED, MissionStatus.RUNNING]
        )
        .order_by("seq")
        .values_list("seq", flat=True)
        .first()
    )
    if unfinished is not None:
        return min(beyond[0], unfinished - 1)
    return beyond[0]


def fold_due(*, waiting: int) -> bool:
    """Whether enough missions wait to be folded: FOLD_BATCH of them, or as many as the
    pending section can list. Folding in batches keeps the summary message byte-identical
    between folds, so provider prompt caches keep hitting."""
    return waiting >= min(settings.FOLD_BATCH, PENDING_MAX_LISTED)


_FOLD_INPUTS = prepared(
    lambda *, session_id: ChatSession.objects.filter(pk=session_id).values_list(
        "mission_count", "summary__folded_through_seq"
    )
)


def fold_may_be_due(*, session_id: int) -> bool:
    """Whether a fold can be due in the session, in one query and no task: a fold waits
    for missions that left the window and are not folded, and at most `mission_count -
    DETAIL_MISSIONS - folded_through_seq` can be (no seq is above the session's mission
    count, and the window holds the DETAIL_MISSIONS newest finished ones). So between two
    batches no fold check is queued at all."""
    rows = _FOLD_INPUTS(session_id=session_id)
    if not rows:
        return False
    [(count, folded)] = rows
    return fold_due(waiting=count - settings.DETAIL_MISSIONS - (folded or 0))
