"""The detail window (docs/design.md §3): the last DETAIL_MISSIONS finished missions before a
mission are shown in full; everything older has left it and is folded into the summary.
This module is the one definition of which missions have left the window."""

from django.conf import settings

from config.prepared import prepared
from missions.models import ANSWERED, Mission, MissionStatus

_WINDOW = prepared(
    lambda size, *, session_id, before_seq: Mission.objects.filter(
        session_id=session_id, status__in=ANSWERED, seq__lt=before_seq
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
        Mission.objects.filter(session_id=session_id, status__in=ANSWERED)
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
