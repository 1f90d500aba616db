"""The detail window (docs/design.md §3): the last DETAIL_MISSIONS finished missions before a
mission are shown in full; everything older has left it and is folded into the summary.
This module is the one definition of which missions have left the window."""

from dataclasses import dataclass

from django.conf import settings

from config.prepared import prepared
from context.lines import pending_capacity
from missions.models import ANSWERED, Mission, MissionStatus
from sessions.models import ChatSession

# A session's finished missions are indexed for recall this many at a time (see
# `Progress.index_due`): one task and one write a batch, not one a mission.
INDEX_BATCH = 4


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


def fold_due(*, waiting: int) -> bool:
    """Whether enough missions wait to be folded: FOLD_BATCH of them, or as many as the
    pending section lists one by one under its cap (PENDING_BUDGET_CHARS), so that a fold
    is under way before the oldest of them would shrink to a range line. Folding in batches
    keeps the summary message byte-identical between folds, so provider prompt caches keep
    hitting."""
    return waiting >= min(settings.FOLD_BATCH, pending_capacity(settings.PENDING_BUDGET_CHARS))


_PROGRESS = prepared(
    lambda *, session_id: ChatSession.objects.filter(pk=session_id).values_list(
        "mission_count", "summary__folded_through_seq"
    )
)


@dataclass(frozen=True)
class Progress:
    """Where a session stands once a mission finished, read in one query: the missions
    it has counted and the seq its summary is folded through."""

    mission_count: int
    folded_through: int

    def fold_may_be_due(self) -> bool:
        """Whether a fold can be due, with no task: a fold waits for missions that left
        the window and are not folded, and at most `mission_count - DETAIL_MISSIONS -
        folded_through` can be (no seq is above the session's mission count, and the
        window holds the DETAIL_MISSIONS newest finished ones). So between two batches
        no fold check is queued at all."""
        return fold_due(waiting=self.mission_count - settings.DETAIL_MISSIONS - self.folded_through)

    def index_due(self, *, seq: int, chars: int = 0) -> bool:
        """Whether mission `seq` (of `chars` chars), just finished, should index the
        session's unindexed missions now. Recall reads missions outside the window, so
        they are indexed every INDEX_BATCH seqs: a mission then waits for at most
        INDEX_BATCH - 1 later ones, while `DETAIL_MISSIONS` must finish before it leaves
        the window. A mission close to leaving it or past it (one that finished late, a
        retry) indexes at once; so does one larger than its even share of the smallest
        detail cap, which the window may trim (what it leaves out is recalled from the
        next mission on). A batch that never came (its mission failed) is taken by the
        next, and the sweep takes what is still left."""
        close = self.mission_count - seq >= settings.DETAIL_MISSIONS - INDEX_BATCH
        share = min(settings.DETAIL_BUDGET_CHARS.values()) // settings.DETAIL_MISSIONS
        return seq % INDEX_BATCH == 0 or close or chars > share


def session_progress(*, session_id: int) -> Progress | None:
    """The session's progress (None: the session is gone)."""
    rows = _PROGRESS(session_id=session_id)
    if not rows:
        return None
    [(count, folded)] = rows
    return Progress(mission_count=count, folded_through=folded or 0)
