"""Reads of rolling summaries."""

from dataclasses import dataclass

from config.prepared import prepared
from missions.models import Mission
from sessions.models import ChatSession
from summaries.models import RollingSummary


@dataclass(frozen=True)
class ShownSummary:
    """The summary a session's prompt shows. While a new session's carry-over is being
    folded, that is the previous session's summary, and the missions still pending are
    the previous session's unfolded tail."""

    summary: RollingSummary | None
    shown: RollingSummary | None
    carried_from_number: int | None
    pending_session_id: int
    pending_after_seq: int

    @property
    def text(self) -> str:
        return self.shown.text if self.shown else ""

    @property
    def watermark(self) -> int:
        return self.summary.folded_through_seq if self.summary else 0


_SUMMARY = prepared(
    lambda *, session_id: RollingSummary.objects.filter(session_id=session_id).order_by("pk")[:1]
)


def summary_shown(*, session: ChatSession) -> ShownSummary:
    """The one definition of which summary a session shows (carry-over rule)."""
    summary = _SUMMARY.first(session_id=session.pk)
    watermark = summary.folded_through_seq if summary else 0
    if summary is not None and summary.carry_over_pending and session.carried_over_from_id:
        previous = (
            RollingSummary.objects.filter(session_id=session.carried_over_from_id)
            .select_related("session")
            .first()
        )
        return ShownSummary(
            summary=summary,
            shown=previous,
            carried_from_number=previous.session.number if previous else None,
            pending_session_id=session.carried_over_from_id,
            pending_after_seq=previous.folded_through_seq if previous else 0,
        )
    return ShownSummary(
        summary=summary,
        shown=summary,
        carried_from_number=None,
        pending_session_id=session.pk,
        pending_after_seq=watermark,
    )


def summary_seq_index(*, session: ChatSession) -> dict[tuple[int | None, int], int]:
    """(session number, or None for this one; seq) → mission id: where evidence points."""
    index: dict[tuple[int | None, int], int] = {}
    rows = Mission.objects.filter(
        channel_id=session.channel_id, session__number__lte=session.number
    )
    for pk, seq, number in rows.values_list("id", "seq", "session__number"):
        index[(None if number == session.number else number, seq)] = pk
    return index
