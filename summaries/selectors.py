"""Reads of rolling summaries."""

from dataclasses import dataclass

from django.db.models import Q

from config.prepared import prepared
from missions.models import Mission
from sessions.models import ChatSession
from summaries.models import RollingSummary
from summaries.render import Labels, Ref, state_refs
from summaries.schemas import SummaryState


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


@dataclass(frozen=True)
class Pointed:
    """The mission an evidence pointer points at: its id, and the number a person sees."""

    id: int
    label: str


def summary_seq_index(*, session: ChatSession) -> dict[tuple[int | None, int], Pointed]:
    """(session number, or None for this one; seq) → the mission: where evidence points."""
    index: dict[tuple[int | None, int], Pointed] = {}
    rows = Mission.objects.filter(
        channel_id=session.channel_id, session__number__lte=session.number
    )
    for pk, seq, number, label in rows.values_list("id", "seq", "session__number", "label"):
        index[(None if number == session.number else number, seq)] = Pointed(pk, label)
    return index


def summary_labels(refs: set[Ref], *, channel_id: int, session_id: int) -> Labels:
    """The numbers the person sees (Mission.label) of the missions a summary cites that
    differ from their seq: `refs` are (session number, or None for session `session_id`;
    seq); a ref missing from the result is labelled by its seq (`ref_label`).

    A label differs from its seq only in a session that has had a synthesis (before the
    first, a person's missions are numbered as they come: missions.labels), so the
    channel's sessions with one are read first, and the missions only of those: one query
    in a channel without delegations, whatever the summary cites (a long session's summary
    cites hundreds of missions, and binding them all cost more than the assembly)."""
    if not refs:
        return {}
    with_syntheses = dict(
        ChatSession.objects.filter(channel_id=channel_id, synthesis_count__gt=0).values_list(
            "number", "id"
        )
    )
    if not with_syntheses:
        return {}
    this = sorted(
        {seq for number, seq in refs if number is None}
        if session_id in with_syntheses.values()
        else set()
    )
    others: dict[int, list[int]] = {}
    for number, seq in refs:
        if number is not None and number in with_syntheses:
            others.setdefault(number, []).append(seq)
    condition = Q(session_id=session_id, seq__in=this) if this else None
    for number, seqs in sorted(others.items()):
        one = Q(session_id=with_syntheses[number], seq__in=sorted(seqs))
        condition = one if condition is None else condition | one
    if condition is None:
        return {}
    rows = Mission.objects.filter(condition).values_list(
        "session_id", "session__number", "seq", "label"
    )
    labels: Labels = {}
    for row_session, number, seq, label in rows:
        if row_session == session_id:
            labels[(None, seq)] = label
        labels[(number, seq)] = label
    return labels


def summary_shown_labels(*, shown: ShownSummary, channel_id: int) -> Labels:
    """The numbers the person sees of every mission the shown summary cites (one query;
    none when nothing is shown)."""
    if shown.shown is None:
        return {}
    state = shown.shown.state or {}
    refs = state_refs(SummaryState.model_validate({**state, "dropped": []}))
    refs |= {(d.get("session"), d["mission"]) for d in state.get("dropped", [])}
    return summary_labels(refs, channel_id=channel_id, session_id=shown.shown.session_id)
