"""Writes for rolling summaries (docs/design.md §4): folding missions that left the detail
window, carrying a summary into a new session, late folds, roll-backs. The reply never
waits for any of these: they run in background tasks."""

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from config.celery import queue_task_on_commit
from context.window import window_left_through
from llm.base import Provider
from llm.gateway import get_provider
from missions.models import ANSWERED, Mission
from sessions.models import ChatSession
from summaries.compaction import BLOCK_SIZE, compaction_queue
from summaries.due import fold_due, fold_waiting
from summaries.folding import fold_commit, fold_inputs, fold_propose
from summaries.models import RevisionKind, RollingSummary, SummaryRevision
from summaries.render import render_summary, state_refs, summary_text_budget
from summaries.schemas import DroppedMission, SummaryState
from summaries.verifier import summary_verify

logger = logging.getLogger(__name__)

# Missions per provider call: bounds the fold prompt however large a backlog grows.
FOLD_MAX_PER_CALL = 40
# A carry-over not done after this long lost its task: the sweeper queues it again.
CARRY_OVER_STALLED_AFTER = timedelta(minutes=2)
# Past this many blocks of waiting missions, a fold becomes a parallel block compaction.
BACKLOG_BLOCKS = 2
# A late fold that loses this many races in a row (folds landing meanwhile) is queued again.
FOLD_LATE_TRIES = 5


@dataclass
class FoldOutcome:
    folded_seqs: list[int] = field(default_factory=list)
    revisions: int = 0
    raced: bool = False


def summary_get_or_create(*, session: ChatSession) -> RollingSummary:
    summary, _ = RollingSummary.objects.get_or_create(session=session)
    return summary


def summary_begin_carry_over(*, session: ChatSession) -> RollingSummary:
    """A new session's summary, marked as waiting for the previous session's summary and
    last missions; the carry-over fold runs in the background."""
    summary = RollingSummary.objects.create(session=session, carry_over_pending=True)
    queue_task_on_commit("summaries.tasks.summary_carry_over", session.pk)
    if session.carried_over_from_id is not None:
        # Its last missions are now an earlier session's, recalled from the new one:
        # those its last index batch had not reached are indexed now.
        queue_task_on_commit("context.tasks.passages_index_session", session.carried_over_from_id)
    return summary


def summary_fold(
    *, session_id: int, provider: Provider | None = None, force: bool = False
) -> FoldOutcome:
    """Fold the missions of the session that have left the detail window, once a batch of
    them waits (`force`: whatever waits, e.g. at the end of an import)."""
    provider = provider or get_provider()
    outcome = FoldOutcome()
    session = ChatSession.objects.get(pk=session_id)
    budget = summary_text_budget()
    while True:
        summary = summary_get_or_create(session=session)
        cutoff = window_left_through(session_id=session.pk)
        if cutoff <= summary.folded_through_seq:
            return outcome
        waiting = fold_waiting(
            session_id=session.pk, folded_through=summary.folded_through_seq, cutoff=cutoff
        )
        if outcome.revisions == 0 and not force and waiting and not fold_due(waiting=waiting):
            return outcome
        if outcome.revisions == 0 and waiting // BLOCK_SIZE > BACKLOG_BLOCKS:
            # A backlog (an import, a queue that was down) folds in parallel blocks.
            compaction_queue(session_id=session.pk, from_scratch=False)
            return outcome
        batch = list(
            Mission.objects.filter(
                session=session,
                status__in=ANSWERED,
                seq__gt=summary.folded_through_seq,
                seq__lte=cutoff,
            ).order_by("seq")[:FOLD_MAX_PER_CALL]
        )
        through = cutoff if len(batch) < FOLD_MAX_PER_CALL else batch[-1].seq
        previous = SummaryState.model_validate(summary.state or {})
        if batch:
            state, report, producer, attempts = fold_propose(
                provider=provider,
                previous=previous,
                missions=fold_inputs(batch),
                budget=budget,
                session_number=None,
                session_id=session.pk,
            )
        else:
            # Only failed missions left the window: move the watermark, nothing to merge.
            state = previous
            report = summary_verify(
                state=state, previous=previous, folded=[], budget_chars=budget, missions=[]
            )
            producer, attempts = "none", []
        committed = fold_commit(
            summary=summary,
            state=state,
            through=through,
            kind=RevisionKind.FOLD,
            folded_ids=[m.pk for m in batch],
            report=report,
            producer=producer,
            attempts=attempts,
        )
        if not committed:
            outcome.raced = True
            return outcome
        outcome.folded_seqs += [m.seq for m in batch]
        outcome.revisions += 1


def summary_carry_over(*, session_id: int, provider: Provider | None = None) -> bool:
    """Seed a new session's summary with the previous session's summary and its missions
    that were not folded yet (they are folded now, pointing back to that session)."""
    provider = provider or get_provider()
    session = ChatSession.objects.select_related("carried_over_from").get(pk=session_id)
    summary = summary_get_or_create(session=session)
    previous_session = session.carried_over_from
    if not summary.carry_over_pending or previous_session is None:
        return False
    budget = summary_text_budget()
    old = RollingSummary.objects.filter(session=previous_session).first()
    state = SummaryState.model_validate(old.state if old else {})
    number = previous_session.number
    for _, item in state.items():
        if item.session is None:
            item.session = number
    for dropped in state.dropped:
        if dropped.session is None:
            dropped.session = number
    if state.goal_missions:
        state.goal_missions = []
    remaining = list(
        Mission.objects.filter(
            session=previous_session,
            status__in=ANSWERED,
            seq__gt=old.folded_through_seq if old else 0,
        ).order_by("seq")
    )
    folded_ids: list[int] = []
    reports: list[dict[str, object]] = []
    report = summary_verify(
        state=state, previous=state, folded=[], budget_chars=budget, missions=[]
    )
    producer = provider.name
    for start in range(0, len(remaining), FOLD_MAX_PER_CALL):
        batch = remaining[start : start + FOLD_MAX_PER_CALL]
        previous = state
        state, report, producer, attempts = fold_propose(
            provider=provider,
            previous=previous,
            missions=fold_inputs(batch),
            budget=budget,
            session_number=number,
            session_id=session.pk,
        )
        folded_ids += [m.pk for m in batch]
        reports += attempts
    return fold_commit(
        summary=summary,
        state=state,
        through=0,
        kind=RevisionKind.CARRY_OVER,
        folded_ids=folded_ids,
        report=report,
        producer=producer,
        attempts=reports,
        end_carry_over=True,
    )


def summary_fold_late(*, mission_id: int, provider: Provider | None = None) -> bool:
    """Fold one mission that finished after the watermark passed it (a retried failure),
    so that it is covered like the others. False if there was nothing to do.

    A fold that commits meanwhile makes this one lose its race: it reads the summary
    again and folds the mission into that, unless the other fold covered it."""
    provider = provider or get_provider()
    for _ in range(FOLD_LATE_TRIES):
        with transaction.atomic():
            # The row lock waits for a fold being committed: its watermark is read, not
            # the one before it (that fold then leaves this mission to this late fold).
            mission = Mission.objects.select_related("session").get(pk=mission_id)
            summary = (
                RollingSummary.objects.select_for_update().filter(session=mission.session).first()
            )
        if (
            summary is None
            or mission.status not in ANSWERED
            or mission.seq > summary.folded_through_seq
        ):
            return False
        previous = SummaryState.model_validate(summary.state or {})
        if _covers(previous, mission.seq):
            return False
        state, report, producer, attempts = fold_propose(
            provider=provider,
            previous=previous,
            missions=fold_inputs([mission]),
            budget=summary_text_budget(),
            session_number=None,
            session_id=mission.session_id,
        )
        if fold_commit(
            summary=summary,
            state=state,
            through=summary.folded_through_seq,
            kind=RevisionKind.FOLD,
            folded_ids=[mission.pk],
            report=report,
            producer=producer,
            attempts=attempts,
        ):
            return True
    # Lost every race (a burst of folds): try again later rather than leave it out.
    queue_task_on_commit("summaries.tasks.summary_fold_late", mission_id)
    return False


def _covers(state: SummaryState, seq: int) -> bool:
    """Whether the state already holds this session's mission `seq` (an item cites it, or
    it is recorded as dropped)."""
    return (
        seq in state.goal_missions
        or any(item.session is None and seq in item.missions for _, item in state.items())
        or any(d.session is None and d.mission == seq for d in state.dropped)
    )


def summary_rollback(*, revision: SummaryRevision) -> bool:
    """Make an earlier revision's state the current one again, as a new revision (nothing
    is rewritten). The watermark stays: missions folded since are recorded as dropped,
    so coverage holds and recall still brings their originals back."""
    summary = revision.summary
    summary.refresh_from_db()
    state = SummaryState.model_validate(revision.after_state or {})
    restored_refs = {(d.session, d.mission) for d in state.dropped} | state_refs(state)
    folded_since = Mission.objects.filter(
        session_id=summary.session_id,
        status__in=ANSWERED,
        seq__gt=revision.folded_through_seq,
        seq__lte=summary.folded_through_seq,
    ).values_list("seq", flat=True)
    for seq in folded_since:
        if (None, seq) not in restored_refs:
            state.dropped.append(
                DroppedMission(mission=seq, reason=f"rolled back to revision {revision.version}")
            )
    report = summary_verify(
        state=state,
        previous=state,
        folded=[],
        budget_chars=max(summary_text_budget(), len(render_summary(state))),
        missions=[],
    )
    return fold_commit(
        summary=summary,
        state=state,
        through=summary.folded_through_seq,
        kind=RevisionKind.ROLLBACK,
        folded_ids=[],
        report=report,
        producer=f"rollback to v{revision.version}",
        attempts=[{"rolled_back_to": revision.version}],
    )


def summary_sweep_lagging(*, since: timedelta = timedelta(days=1)) -> int:
    """Queue a fold for recently active sessions whose summary lags behind the detail
    window (a fold lost with its worker). Folding is idempotent, so a spare one costs
    nothing. Returns how many were queued."""
    recent = (
        ChatSession.objects.filter(
            missions__status__in=ANSWERED, missions__finished_at__gte=timezone.now() - since
        )
        # A refused fold would be refused again: a new mission or a re-fold tries it.
        .exclude(summary__fold_refused_at__isnull=False)
        .annotate(watermark=Max("summary__folded_through_seq"))
        .values_list("id", "watermark")
        .distinct()
    )
    queued = 0
    for session_id, watermark in recent:
        if fold_due(waiting=fold_waiting(session_id=session_id, folded_through=watermark or 0)):
            queue_task_on_commit("summaries.tasks.summary_fold", session_id)
            queued += 1
    # A carry-over whose task was lost would leave the previous session's summary in
    # the prompt for good: queue it again once it has had time to run.
    stalled = RollingSummary.objects.filter(
        carry_over_pending=True, updated_at__lt=timezone.now() - CARRY_OVER_STALLED_AFTER
    ).values_list("session_id", flat=True)
    for session_id in stalled:
        queue_task_on_commit("summaries.tasks.summary_carry_over", session_id)
        queued += 1
    return queued
