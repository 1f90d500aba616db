"""Loading what a prompt needs (DESIGN.md §3), in a constant number of queries whatever
the session's length. Rendering it is context.rendering's job."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min, QuerySet

from context.search import rank_memory_items, rank_missions
from context.window import PENDING_MAX_LISTED, window_missions
from language.terms import search_terms
from memory.models import MemoryItem
from memory.selectors import memory_in_scope, memory_rankable, memory_standing
from missions.models import Mission, MissionStatus
from office.models import Channel, Employee, Office
from sessions.models import ChatSession
from summaries.selectors import summary_shown

RECALL_CANDIDATES = 8
MEMORY_CANDIDATES = 40


@dataclass
class ContextInputs:
    office: Office
    employee: Employee
    colleagues: list[Employee]
    pinned: list[MemoryItem]
    summary_text: str
    # The earlier session whose summary is shown while a carry-over is being folded.
    carried_from: int | None
    pending: list[Mission]
    pending_total: int
    pending_first_seq: int | None
    recent: list[Mission]
    detail_budget: int
    ranked_memory: list[MemoryItem]
    recalled: list[Mission]
    terms: list[str]
    instruction: str
    seq: int
    at: datetime


def recall_candidates(
    *, channel_id: int, session_id: int, folded_through_seq: int
) -> QuerySet[Mission]:
    """The channel's missions recall may bring back: finished, and folded (earlier
    sessions, and this session's up to the fold watermark), so never one that is still
    in the detail window."""
    return Mission.objects.filter(channel_id=channel_id, status=MissionStatus.DONE).exclude(
        session_id=session_id, seq__gt=folded_through_seq
    )


def context_load(
    *,
    session: ChatSession,
    channel: Channel,
    employee: Employee,
    instruction: str,
    seq: int,
    at: datetime,
) -> ContextInputs:
    office = channel.office
    shown = summary_shown(session=session)
    recent = window_missions(session_id=session.pk, before_seq=seq)
    oldest_recent = min((m.seq for m in recent), default=seq)

    # Missions out of the window whose fold has not landed: shown as excerpts.
    pending_qs = Mission.objects.filter(
        session_id=shown.pending_session_id,
        status=MissionStatus.DONE,
        seq__gt=shown.pending_after_seq,
    )
    if shown.carried_from_number is None:
        pending_qs = pending_qs.filter(seq__lt=oldest_recent)
    pending_stats = pending_qs.aggregate(total=Count("id"), first=Min("seq"))
    pending = list(pending_qs.order_by("-seq")[:PENDING_MAX_LISTED])

    terms = search_terms(instruction)
    recalled: list[Mission] = []
    if terms:
        recall_ids = rank_missions(
            candidates=recall_candidates(
                channel_id=channel.pk, session_id=session.pk, folded_through_seq=shown.watermark
            ),
            text=instruction,
            limit=RECALL_CANDIDATES,
        )
        if recall_ids:
            rows = Mission.objects.filter(pk__in=recall_ids).select_related("session")
            by_id = {m.pk: m for m in rows}
            recalled = [by_id[i] for i in recall_ids if i in by_id]

    in_scope = memory_in_scope(office_id=office.pk, employee_id=employee.pk, channel_id=channel.pk)
    pinned = list(memory_standing(in_scope)[:MEMORY_CANDIDATES])
    ranked: list[MemoryItem] = []
    if terms:
        ranked_ids = rank_memory_items(
            candidates=memory_rankable(in_scope), text=instruction, limit=MEMORY_CANDIDATES
        )
        if ranked_ids:
            items = {i.pk: i for i in MemoryItem.objects.filter(pk__in=ranked_ids)}
            ranked = [items[i] for i in ranked_ids if i in items]
    else:
        # Nothing to rank by (an empty or stop-word instruction): the freshest items.
        ranked = list(memory_rankable(in_scope).order_by("-updated_at", "-id")[:MEMORY_CANDIDATES])

    colleagues = [e for e in office.employees.filter(is_active=True) if e.pk != employee.pk]
    return ContextInputs(
        office=office,
        employee=employee,
        colleagues=colleagues,
        pinned=pinned,
        summary_text=shown.text,
        carried_from=shown.carried_from_number,
        pending=pending,
        pending_total=pending_stats["total"] or 0,
        pending_first_seq=pending_stats["first"],
        recent=recent,
        detail_budget=channel.detail_budget,
        ranked_memory=ranked,
        recalled=recalled,
        terms=terms,
        instruction=instruction,
        seq=seq,
        at=at,
    )
