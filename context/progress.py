"""Where a session stands once one of its missions finished, and whether that mission
should index the session's unindexed missions for recall now."""

from dataclasses import dataclass

from config.prepared import prepared
from context.budget import PromptBudget, prompt_budget
from sessions.models import ChatSession

# A session's finished missions are indexed for recall this many at a time (see
# `Progress.index_due`): one task and one write a batch, not one a mission.
INDEX_BATCH = 4

_PROGRESS = prepared(
    lambda *, session_id: ChatSession.objects.filter(pk=session_id).values_list(
        "mission_count",
        "summary__folded_through_seq",
        "channel__kind",
        "channel__detail_budget_chars",
    )
)


@dataclass(frozen=True)
class Progress:
    """Where a session stands once a mission finished, read in one query: the missions
    it has counted, the seq its summary is folded through and its channel's budget."""

    mission_count: int
    folded_through: int
    budget: PromptBudget

    def index_due(self, *, seq: int, chars: int = 0) -> bool:
        """Whether mission `seq` (of `chars` chars), just finished, should index the
        session's unindexed missions now. Recall reads missions outside the window, so
        they are indexed every INDEX_BATCH seqs: a mission then waits for at most
        INDEX_BATCH - 1 later ones, while `DETAIL_MISSIONS` must finish before it leaves
        the window. A mission close to leaving it or past it (one that finished late, a
        retry) indexes at once; so does one larger than its even share of the channel's
        detail cap, which the window may trim (what it leaves out is recalled from the
        next mission on). A batch that never came (its mission failed) is taken by the
        next, and the sweep takes what is still left."""
        close = self.mission_count - seq >= self.budget.detail_missions - INDEX_BATCH
        return seq % INDEX_BATCH == 0 or close or chars > self.budget.detail_share


def session_progress(*, session_id: int) -> Progress | None:
    """The session's progress (None: the session is gone)."""
    rows = _PROGRESS(session_id=session_id)
    if not rows:
        return None
    [(count, folded, kind, detail)] = rows
    return Progress(
        mission_count=count,
        folded_through=folded or 0,
        budget=prompt_budget(kind, detail_override=detail),
    )
