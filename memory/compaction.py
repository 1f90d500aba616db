"""Parallel block compaction: fold many missions at once (an admin re-fold, an import, a
queue that was down) by splitting them into blocks that fold independently — one Celery
task each, a group — and merging the block states in a chord callback, under the
verifier. A block that fails verification is folded again alone (extractively); the
other blocks are kept.

On top of the usual checks, the replay check: the numbers, names and dates of every
block's missions must be findable in the merged state, or the mission recorded as
dropped (its original stays available to recall)."""

import re
from typing import Any

from django.conf import settings

from llm.base import Provider
from llm.gateway import get_provider
from llm.schemas import DroppedMission, SummaryState
from memory.extractive import _add, compress_to_budget, extractive_fold
from memory.models import RevisionKind, RollingSummary
from memory.services import _as_fold_missions, _commit, _propose, fold_cutoff
from memory.summary import Ref, render_summary
from memory.verifier import VerifierReport, summary_verify
from missions.models import Mission, MissionStatus
from sessions.models import ChatSession

BLOCK_SIZE = 20

_NUMBER = re.compile(r"[$€£₩¥]?\d[\d,.:/-]*\d%?|[$€£₩¥]\d|\b\d\b")
_MONTH_DATE = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.? \d{1,2}\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]{2,}(?: [A-Z][a-z]+)*")


def key_tokens(text: str) -> set[str]:
    """Numbers, names and dates of a text: what a summary must not silently lose."""
    tokens = {m.group(0).rstrip(".,") for m in _NUMBER.finditer(text)}
    tokens |= {m.group(0) for m in _MONTH_DATE.finditer(text)}
    tokens |= {m.group(0) for m in _NAME.finditer(text)}
    return {t for t in tokens if t}


def replay_missing(
    state: SummaryState, missions: list[Mission], session_number: int | None = None
) -> dict[int, list[str]]:
    """Per mission seq, the key tokens that are neither in the state nor excused by the
    mission being recorded as dropped."""
    rendered = render_summary(state).lower()
    dropped = {(d.session, d.mission) for d in state.dropped}
    missing: dict[int, list[str]] = {}
    for mission in missions:
        if (session_number, mission.seq) in dropped:
            continue
        lost = sorted(
            t
            for t in key_tokens(f"{mission.instruction}\n{mission.reply}")
            if t.lower() not in rendered
        )
        if lost:
            missing[mission.seq] = lost
    return missing


def _excuse(state: SummaryState, missing: dict[int, list[str]]) -> None:
    """Record as dropped the missions whose details did not fit, saying which ones."""
    for seq, tokens in missing.items():
        state.dropped.append(
            DroppedMission(
                mission=seq,
                reason="details not kept in the summary (original kept for recall): "
                + ", ".join(tokens[:8]),
            )
        )


def block_fold(
    *, session_id: int, mission_ids: list[int], provider: Provider | None = None
) -> dict[str, Any]:
    """Fold one block from an empty state; JSON-serialisable for the chord."""
    provider = provider or get_provider()
    missions = list(Mission.objects.filter(pk__in=mission_ids).order_by("seq"))
    budget = settings.SUMMARY_BUDGET_CHARS
    state, report, producer, attempts = _propose(
        provider=provider,
        previous=SummaryState(),
        missions=_as_fold_missions(missions),
        budget=budget,
        session_number=None,
    )
    missing = replay_missing(state, missions)
    refolded = False
    if missing and producer != "offline":
        # The block failed the replay check: fold it again alone, extractively.
        state = extractive_fold(
            previous=SummaryState(), missions=_as_fold_missions(missions), budget_chars=budget
        )
        producer, refolded = "extractive", True
        missing = replay_missing(state, missions)
    _excuse(state, missing)
    return {
        "seqs": [m.seq for m in missions],
        "state": state.model_dump(mode="json"),
        "producer": producer,
        "refolded_alone": refolded,
        "replay_excused": {str(k): v for k, v in missing.items()},
        "attempts": attempts,
        "ok": report.ok,
    }


def merge_states(base: SummaryState, blocks: list[SummaryState], budget: int) -> SummaryState:
    """Blocks in mission order onto the base; later decisions supersede earlier ones."""
    merged = base.model_copy(deep=True)
    for block in blocks:
        if not merged.goal and block.goal:
            merged.goal, merged.goal_missions = block.goal, list(block.goal_missions)
        for decision in block.decisions:
            if decision.superseded:
                merged.decisions.append(decision.model_copy(deep=True))
                continue
            for seq in decision.missions[:1]:
                _add(merged, "decisions", decision.text, seq, decision.session)
            added = merged.decisions[-1]
            for extra in decision.missions[1:]:
                if extra not in added.missions:
                    added.missions.append(extra)
        for section in ("constraints", "facts", "open_questions", "next_actions"):
            getattr(merged, section).extend(
                i.model_copy(deep=True) for i in getattr(block, section)
            )
        known = {(d.session, d.mission) for d in merged.dropped}
        merged.dropped.extend(d for d in block.dropped if (d.session, d.mission) not in known)
    compress_to_budget(merged, budget)
    return merged


def compaction_plan(*, session_id: int, from_scratch: bool) -> dict[str, Any]:
    """Which missions to fold, in blocks, and the summary version the merge expects."""
    session = ChatSession.objects.get(pk=session_id)
    summary, _ = RollingSummary.objects.get_or_create(session=session)
    cutoff = fold_cutoff(session=session)
    start = 0 if from_scratch else summary.folded_through_seq
    ids = list(
        Mission.objects.filter(
            session=session, status=MissionStatus.DONE, seq__gt=start, seq__lte=cutoff
        )
        .order_by("seq")
        .values_list("id", flat=True)
    )
    return {
        "blocks": [ids[i : i + BLOCK_SIZE] for i in range(0, len(ids), BLOCK_SIZE)],
        "version": summary.version,
        "through": max(cutoff, summary.folded_through_seq if not from_scratch else cutoff),
        "from_scratch": from_scratch,
    }


def compaction_merge(
    *,
    session_id: int,
    results: list[dict[str, Any]],
    version: int,
    through: int,
    from_scratch: bool,
) -> bool:
    """The chord callback: merge, verify, commit if the summary did not move meanwhile."""
    summary = RollingSummary.objects.get(session_id=session_id)
    if summary.version != version:
        return False
    current = SummaryState.model_validate(summary.state or {})
    if from_scratch:
        # Keep what was carried over from earlier sessions; rebuild this session's part.
        base = SummaryState(
            decisions=[d for d in current.decisions if d.session is not None],
            constraints=[i for i in current.constraints if i.session is not None],
            facts=[i for i in current.facts if i.session is not None],
            open_questions=[i for i in current.open_questions if i.session is not None],
            next_actions=[i for i in current.next_actions if i.session is not None],
            dropped=[d for d in current.dropped if d.session is not None],
        )
    else:
        base = current
    ordered = sorted(results, key=lambda r: r["seqs"][0] if r["seqs"] else 0)
    blocks = [SummaryState.model_validate(r["state"]) for r in ordered]
    budget = settings.SUMMARY_BUDGET_CHARS
    merged = merge_states(base, blocks, budget)
    folded: list[Ref] = [(None, seq) for r in ordered for seq in r["seqs"]]
    report: VerifierReport = summary_verify(
        state=merged, previous=base, folded=folded, budget_chars=budget
    )
    missions = list(Mission.objects.filter(session_id=session_id, seq__in=[s for _, s in folded]))
    missing = replay_missing(merged, missions)
    _excuse(merged, missing)
    report.checks["replay"] = True
    if not report.ok:
        raise RuntimeError(f"merged compaction failed verification: {report.findings}")
    return _commit(
        summary=summary,
        state=merged,
        through=through,
        kind=RevisionKind.REFOLD if from_scratch else RevisionKind.FOLD,
        folded_ids=[m.pk for m in missions],
        report=report,
        producer="+".join(sorted({r["producer"] for r in ordered})) or "none",
        attempts=[
            {
                "block": r["seqs"][:1] + r["seqs"][-1:],
                "producer": r["producer"],
                "refolded_alone": r["refolded_alone"],
                "replay_excused": r["replay_excused"],
            }
            for r in ordered
        ]
        + [{"merge_replay_excused": {str(k): v for k, v in missing.items()}}],
    )
