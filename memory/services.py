"""Writes for rolling summaries: folding and carry-over (DESIGN.md §4).

A fold reads, asks the provider (no lock held while the model thinks), verifies, and
commits with a conditional update on (version, watermark): running the same fold twice,
or two at once, gives the result of one."""

import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction

from llm.base import FoldMission, Provider, ProviderError
from llm.gateway import get_provider
from llm.schemas import DroppedMission, SummaryItem, SummaryState
from memory.extractive import extractive_fold
from memory.models import RevisionKind, RollingSummary, SummaryRevision
from memory.summary import Ref, render_summary, state_refs
from memory.verifier import VerifierReport, summary_verify
from missions.models import Mission, MissionStatus
from sessions.models import ChatSession

logger = logging.getLogger(__name__)

# Missions per provider call: bounds the fold prompt however large a backlog grows.
FOLD_BATCH = 40
# Past this many blocks of waiting missions, a fold becomes a parallel block compaction.
BACKLOG_BLOCKS = 2


@dataclass
class FoldOutcome:
    folded_seqs: list[int] = field(default_factory=list)
    revisions: int = 0
    raced: bool = False


def summary_get_or_create(*, session: ChatSession) -> RollingSummary:
    summary, _ = RollingSummary.objects.get_or_create(session=session)
    return summary


def fold_cutoff(*, session: ChatSession) -> int:
    """The highest seq that has left the detail window: everything up to it is folded.

    The window holds the last DETAIL_MISSIONS done missions; a mission still queued or
    running holds the cutoff below itself, so a late finisher is never skipped."""
    window = settings.DETAIL_MISSIONS
    done = Mission.objects.filter(session=session, status=MissionStatus.DONE)
    beyond = list(done.order_by("-seq").values_list("seq", flat=True)[window : window + 1])
    if not beyond:
        return 0
    cutoff = beyond[0]
    unfinished = (
        Mission.objects.filter(
            session=session, status__in=[MissionStatus.QUEUED, MissionStatus.RUNNING]
        )
        .order_by("seq")
        .values_list("seq", flat=True)
        .first()
    )
    if unfinished is not None:
        cutoff = min(cutoff, unfinished - 1)
    return cutoff


def _as_fold_missions(missions: list[Mission]) -> list[FoldMission]:
    return [
        FoldMission(id=m.pk, seq=m.seq, at=m.created_at, instruction=m.instruction, reply=m.reply)
        for m in missions
    ]


def _relabel(items: list[SummaryItem], *, folded: set[int], session: int | None) -> None:
    for item in items:
        if item.session is None and (session is not None) and set(item.missions) <= folded:
            item.session = session


def _propose(
    *,
    provider: Provider,
    previous: SummaryState,
    missions: list[FoldMission],
    budget: int,
    session_number: int | None,
) -> tuple[SummaryState, VerifierReport, str, list[dict[str, object]]]:
    """A verified state: the provider's, retried once with the verifier's findings, else
    the extractive fold. Returns the state, its report, who produced it, and the attempts."""
    folded: list[Ref] = [(session_number, m.seq) for m in missions]
    attempts: list[dict[str, object]] = []
    findings: list[str] = []
    if provider.name != "offline":
        for _ in range(2):
            try:
                state = provider.fold(
                    previous=previous, missions=missions, budget_chars=budget, findings=findings
                )
            except ProviderError as exc:
                attempts.append({"provider": provider.name, "error": exc.code})
                break
            _relabel(
                [i for _, i in state.items()],
                folded={m.seq for m in missions},
                session=session_number,
            )
            for dropped in state.dropped:
                if (
                    session_number is not None
                    and dropped.session is None
                    and dropped.mission in {m.seq for m in missions}
                ):
                    dropped.session = session_number
            report = summary_verify(
                state=state, previous=previous, folded=folded, budget_chars=budget
            )
            attempts.append(
                {"provider": provider.name, "ok": report.ok, "findings": report.findings}
            )
            if report.ok:
                return state, report, provider.name, attempts
            findings = report.findings
    state = extractive_fold(
        previous=previous, missions=missions, budget_chars=budget, session=session_number
    )
    report = summary_verify(state=state, previous=previous, folded=folded, budget_chars=budget)
    attempts.append({"provider": "extractive", "ok": report.ok, "findings": report.findings})
    if not report.ok:
        # The extractive fold is built to pass; if it ever does not, say so loudly and
        # refuse to commit rather than store a summary that loses missions.
        raise RuntimeError(f"extractive fold failed verification: {report.findings}")
    return state, report, "extractive" if provider.name != "offline" else "offline", attempts


def _backlog(session: ChatSession, summary: RollingSummary, cutoff: int) -> int:
    """How many blocks of missions wait to be folded."""
    from memory.compaction import BLOCK_SIZE

    waiting = Mission.objects.filter(
        session=session,
        status=MissionStatus.DONE,
        seq__gt=summary.folded_through_seq,
        seq__lte=cutoff,
    ).count()
    return waiting // BLOCK_SIZE


def summary_fold(*, session_id: int, provider: Provider | None = None) -> FoldOutcome:
    """Fold every mission of the session that has left the detail window."""
    provider = provider or get_provider()
    outcome = FoldOutcome()
    session = ChatSession.objects.get(pk=session_id)
    budget = settings.SUMMARY_BUDGET_CHARS
    while True:
        summary = summary_get_or_create(session=session)
        cutoff = fold_cutoff(session=session)
        if cutoff <= summary.folded_through_seq:
            return outcome
        if outcome.revisions == 0 and _backlog(session, summary, cutoff) > BACKLOG_BLOCKS:
            # A backlog (an import, a queue that was down) folds in parallel blocks.
            from memory.tasks import compact_session

            compact_session(session.pk, from_scratch=False)
            return outcome
        batch = list(
            Mission.objects.filter(
                session=session,
                status=MissionStatus.DONE,
                seq__gt=summary.folded_through_seq,
                seq__lte=cutoff,
            ).order_by("seq")[:FOLD_BATCH]
        )
        through = cutoff if len(batch) < FOLD_BATCH else batch[-1].seq
        previous = SummaryState.model_validate(summary.state or {})
        if batch:
            state, report, producer, attempts = _propose(
                provider=provider,
                previous=previous,
                missions=_as_fold_missions(batch),
                budget=budget,
                session_number=None,
            )
        else:
            # Only failed missions left the window: move the watermark, nothing to merge.
            state = previous
            report = summary_verify(state=state, previous=previous, folded=[], budget_chars=budget)
            producer, attempts = "none", []
        committed = _commit(
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


def _commit(
    *,
    summary: RollingSummary,
    state: SummaryState,
    through: int,
    kind: str,
    folded_ids: list[int],
    report: VerifierReport,
    producer: str,
    attempts: list[dict[str, object]],
    end_carry_over: bool = False,
) -> bool:
    """Store the state if nobody changed the summary since it was read."""
    text = render_summary(state)
    updates: dict[str, object] = {
        "state": state.model_dump(mode="json"),
        "text": text,
        "folded_through_seq": through,
        "version": summary.version + 1,
    }
    if end_carry_over:
        updates["carry_over_pending"] = False
    with transaction.atomic():
        won = RollingSummary.objects.filter(
            pk=summary.pk,
            version=summary.version,
            folded_through_seq=summary.folded_through_seq,
        ).update(**updates)
        if not won:
            logger.info("fold of session %s lost a race; the other fold stands", summary.session_id)
            return False
        SummaryRevision.objects.create(
            summary=summary,
            version=summary.version + 1,
            kind=kind,
            before_state=summary.state,
            after_state=updates["state"],
            before_text=summary.text,
            after_text=text,
            folded_mission_ids=folded_ids,
            folded_through_seq=through,
            verifier_report={**report.as_json(), "attempts": attempts},
            provider=producer,
        )
    return True


def summary_carry_over(*, session_id: int, provider: Provider | None = None) -> bool:
    """Seed a new session's summary with the previous session's summary and its missions
    that were not folded yet (they are folded now, pointing back to that session)."""
    provider = provider or get_provider()
    session = ChatSession.objects.select_related("carried_over_from").get(pk=session_id)
    summary = summary_get_or_create(session=session)
    previous_session = session.carried_over_from
    if not summary.carry_over_pending or previous_session is None:
        return False
    budget = settings.SUMMARY_BUDGET_CHARS
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
            status=MissionStatus.DONE,
            seq__gt=old.folded_through_seq if old else 0,
        ).order_by("seq")
    )
    folded_ids: list[int] = []
    reports: list[dict[str, object]] = []
    report = summary_verify(state=state, previous=state, folded=[], budget_chars=budget)
    producer = provider.name
    for start in range(0, len(remaining), FOLD_BATCH):
        batch = remaining[start : start + FOLD_BATCH]
        previous = state
        state, report, producer, attempts = _propose(
            provider=provider,
            previous=previous,
            missions=_as_fold_missions(batch),
            budget=budget,
            session_number=number,
        )
        folded_ids += [m.pk for m in batch]
        reports += attempts
    return _commit(
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
    so that it is covered like the others. False if there was nothing to do."""
    provider = provider or get_provider()
    mission = Mission.objects.select_related("session").get(pk=mission_id)
    summary = RollingSummary.objects.filter(session=mission.session).first()
    if (
        summary is None
        or mission.status != MissionStatus.DONE
        or mission.seq > summary.folded_through_seq
    ):
        return False
    previous = SummaryState.model_validate(summary.state or {})
    if (None, mission.seq) in {(None, s) for s in previous.goal_missions} or any(
        item.session is None and mission.seq in item.missions for _, item in previous.items()
    ):
        return False
    state, report, producer, attempts = _propose(
        provider=provider,
        previous=previous,
        missions=_as_fold_missions([mission]),
        budget=settings.SUMMARY_BUDGET_CHARS,
        session_number=None,
    )
    return _commit(
        summary=summary,
        state=state,
        through=summary.folded_through_seq,
        kind=RevisionKind.FOLD,
        folded_ids=[mission.pk],
        report=report,
        producer=producer,
        attempts=attempts,
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
        status=MissionStatus.DONE,
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
        budget_chars=max(settings.SUMMARY_BUDGET_CHARS, len(render_summary(state))),
    )
    return _commit(
        summary=summary,
        state=state,
        through=summary.folded_through_seq,
        kind=RevisionKind.ROLLBACK,
        folded_ids=[],
        report=report,
        producer=f"rollback to v{revision.version}",
        attempts=[{"rolled_back_to": revision.version}],
    )
