"""How a fold is made (docs/design.md §4): propose a state (the provider's structured output,
retried once with the verifier's findings, else the extractive fold) and commit it with a
conditional update on (version, watermark), so that running the same fold twice, or two
at once, gives the result of one. Every summary write goes through `fold_commit`."""

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction
from django.utils import timezone

from config.celery import queue_task_on_commit
from llm.base import Provider, ProviderError
from missions.models import ANSWERED, Mission
from summaries.extractive import extractive_fold
from summaries.models import RevisionKind, RollingSummary, SummaryRevision
from summaries.prompts import fold_messages
from summaries.render import Ref, render_summary
from summaries.schemas import FoldMission, SummaryItem, SummaryState
from summaries.verifier import VerifierReport, summary_verify

logger = logging.getLogger(__name__)

# Who produced a state when the deterministic fold did (offline, or as the fallback).
EXTRACTIVE = "extractive"


class FoldRefused(RuntimeError):
    """Even the deterministic fold failed verification: nothing is committed."""

    def __init__(self, what: str, findings: list[str]) -> None:
        super().__init__(f"{what} failed verification: {findings}")
        self.findings = findings


@contextmanager
def refusal_recorded(session_id: int) -> Iterator[None]:
    """A refused fold fails as before (the task's error), and the summary says so: when,
    and what the verifier found, shown in the admin until a fold lands. The sweeper does
    not queue it again (the same missions would be refused again); a new mission or a
    re-fold does."""
    try:
        yield
    except FoldRefused as refused:
        RollingSummary.objects.filter(session_id=session_id).update(
            fold_refused_at=timezone.now(), fold_findings=refused.findings
        )
        logger.error("fold of session %s refused: %s", session_id, refused.findings)
        raise


def fold_inputs(missions: list[Mission]) -> list[FoldMission]:
    return [
        FoldMission(
            id=m.pk,
            seq=m.seq,
            at=m.created_at,
            instruction=m.instruction,
            reply=m.reply,
            instruction_is_generated=m.instruction_is_generated,
        )
        for m in missions
    ]


def _relabel(state: SummaryState, *, folded: set[int], session: int | None) -> None:
    """Items and drops about missions of an earlier session (a carry-over) name it."""
    if session is None:
        return
    items: list[SummaryItem] = [i for _, i in state.items()]
    for item in items:
        if item.session is None and set(item.missions) <= folded:
            item.session = session
    for dropped in state.dropped:
        if dropped.session is None and dropped.mission in folded:
            dropped.session = session


def fold_propose(
    *,
    provider: Provider,
    previous: SummaryState,
    missions: list[FoldMission],
    budget: int,
    session_number: int | None,
    session_id: int | None = None,
) -> tuple[SummaryState, VerifierReport, str, list[dict[str, object]]]:
    """A verified state, who produced it, and the attempts made.

    `session_number` names the earlier session the missions belong to (carry-over); None
    for the summary's own session. With `session_id`, a refusal is recorded on that
    session's summary (`refusal_recorded`)."""
    if session_id is not None:
        with refusal_recorded(session_id):
            return fold_propose(
                provider=provider,
                previous=previous,
                missions=missions,
                budget=budget,
                session_number=session_number,
            )
    folded: list[Ref] = [(session_number, m.seq) for m in missions]
    attempts: list[dict[str, object]] = []
    findings: list[str] = []
    if provider.structured_output:
        for _ in range(2):
            try:
                state, _usage = provider.structured(
                    messages=fold_messages(
                        previous=previous, missions=missions, budget_chars=budget, findings=findings
                    ),
                    schema=SummaryState,
                )
            except ProviderError as exc:
                attempts.append({"provider": provider.name, "error": exc.code})
                break
            _relabel(state, folded={m.seq for m in missions}, session=session_number)
            report = summary_verify(
                state=state,
                previous=previous,
                folded=folded,
                budget_chars=budget,
                missions=missions,
                from_model=True,
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
    report = summary_verify(
        state=state, previous=previous, folded=folded, budget_chars=budget, missions=missions
    )
    attempts.append({"provider": EXTRACTIVE, "ok": report.ok, "findings": report.findings})
    if not report.ok:
        # The extractive fold is built to pass; if it ever does not, say so loudly and
        # refuse to commit rather than store a summary that loses missions.
        raise FoldRefused("extractive fold", report.findings)
    return state, report, EXTRACTIVE, attempts


def fold_commit(
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
    """Store the state and its revision if nobody changed the summary since it was read."""
    text = render_summary(state)
    updates: dict[str, object] = {
        "state": state.model_dump(mode="json"),
        "text": text,
        "folded_through_seq": through,
        "version": summary.version + 1,
    }
    if end_carry_over:
        updates["carry_over_pending"] = False
    if summary.fold_refused_at is not None:
        updates.update(fold_refused_at=None, fold_findings=[])
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
        if folded_ids and kind in (RevisionKind.FOLD, RevisionKind.CARRY_OVER):
            # These missions leave the prompt's full detail: what they taught long-term
            # memory is extracted now, together (a re-fold or a rollback teaches nothing new).
            queue_task_on_commit("memory.tasks.memory_extract_folded", folded_ids)
        if through > summary.folded_through_seq:
            _fold_late_passed_over(summary, through=through, folded_ids=folded_ids)
    return True


def _fold_late_passed_over(summary: RollingSummary, *, through: int, folded_ids: list[int]) -> None:
    """The watermark moves past every mission up to `through`, but the fold took only the
    missions finished when it read them: one failed then (not part of the conversation)
    may have been retried and finished while the fold was being made, its own late fold
    finding the watermark not yet past it. Read again now, under the summary's row lock,
    such a mission is folded late once this commits. One still running is folded late when
    it finishes (missions.lifecycle), seeing the watermark past it."""
    passed_over = (
        Mission.objects.filter(
            session_id=summary.session_id,
            status__in=ANSWERED,
            seq__gt=summary.folded_through_seq,
            seq__lte=through,
        )
        .exclude(pk__in=folded_ids)
        .values_list("pk", flat=True)
    )
    for mission_id in passed_over:
        queue_task_on_commit("summaries.tasks.summary_fold_late", mission_id)
