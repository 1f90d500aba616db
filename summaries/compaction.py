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

from celery import chord, group

from config.celery import run_canvas, task_signature
from context.window import window_left_through
from llm.base import Provider
from llm.gateway import get_provider
from missions.models import ANSWERED, Mission
from summaries.extractive import add_item, compress_to_budget, extractive_fold, settle_clashes
from summaries.folding import (
    EXTRACTIVE,
    FoldRefused,
    fold_commit,
    fold_inputs,
    fold_propose,
    refusal_recorded,
)
from summaries.models import RevisionKind, RollingSummary
from summaries.render import DIGEST_PREFIX, Ref, render_summary, summary_text_budget
from summaries.schemas import DroppedMission, SummaryItem, SummaryState
from summaries.verifier import summary_verify

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


def compaction_block_fold(
    *, session_id: int, mission_ids: list[int], provider: Provider | None = None
) -> dict[str, Any]:
    """Fold one block from an empty state; JSON-serialisable for the chord."""
    provider = provider or get_provider()
    missions = list(Mission.objects.filter(pk__in=mission_ids).order_by("seq"))
    budget = summary_text_budget()
    state, report, producer, attempts = fold_propose(
        provider=provider,
        previous=SummaryState(),
        missions=fold_inputs(missions),
        budget=budget,
        session_number=None,
        session_id=session_id,
    )
    missing = replay_missing(state, missions)
    refolded = False
    if missing and producer != EXTRACTIVE:
        # The block failed the replay check: fold it again alone, extractively.
        state = extractive_fold(
            previous=SummaryState(), missions=fold_inputs(missions), budget_chars=budget
        )
        producer, refolded = EXTRACTIVE, True
        missing = replay_missing(state, missions)
    _excuse(state, missing)
    # The report describes the state that is returned, after any re-fold and excuses.
    report = summary_verify(
        state=state,
        previous=SummaryState(),
        folded=[(None, m.seq) for m in missions],
        budget_chars=budget,
        missions=fold_inputs(missions),
    )
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
    """Blocks in mission order onto the base, merged as one fold merges its missions: a
    later statement supersedes what it reverses whatever section holds it. Each block was
    folded from an empty state, so a constraint or fact of a later block meets the
    decision it reverses only here."""
    merged = base.model_copy(deep=True)
    for block in blocks:
        if not merged.goal and block.goal:
            merged.goal, merged.goal_missions = block.goal, list(block.goal_missions)
        statements: list[tuple[str, SummaryItem]] = []
        for decision in block.decisions:
            if decision.superseded:
                merged.decisions.append(decision.model_copy(deep=True))
            elif decision.missions:
                statements.append(("decisions", decision))
        for section in ("constraints", "facts"):
            for item in getattr(block, section):
                if item.missions and not item.text.startswith(DIGEST_PREFIX):
                    statements.append((section, item))
                else:
                    # A digest says what was asked, not how things are: it replaces nothing.
                    getattr(merged, section).append(item.model_copy(deep=True))
        # In the order of the missions they come from, as the block's fold took them in.
        for section, item in sorted(statements, key=lambda s: min(s[1].missions)):
            # The item it landed in: a new one, or the one it repeats or rewords.
            added = add_item(merged, section, item.text, item.missions[0], item.session)
            for extra in item.missions[1:]:
                if extra not in added.missions:
                    added.missions.append(extra)
        for section in ("open_questions", "next_actions"):
            getattr(merged, section).extend(
                i.model_copy(deep=True) for i in getattr(block, section)
            )
        known = {(d.session, d.mission) for d in merged.dropped}
        merged.dropped.extend(d for d in block.dropped if (d.session, d.mission) not in known)
    # Values two blocks give for one subject meet only here ("15:00 replies" in one block,
    # "press at 08:00" in the next): settled as one fold settles them.
    settle_clashes(merged, base)
    compress_to_budget(merged, budget)
    return merged


def compaction_plan(*, session_id: int, from_scratch: bool) -> dict[str, Any]:
    """Which missions to fold, in blocks, and the summary version the merge expects."""
    summary, _ = RollingSummary.objects.get_or_create(session_id=session_id)
    cutoff = window_left_through(session_id=session_id)
    start = 0 if from_scratch else summary.folded_through_seq
    ids = list(
        Mission.objects.filter(
            session_id=session_id, status__in=ANSWERED, seq__gt=start, seq__lte=cutoff
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
    # A re-fold keeps what was carried over from earlier sessions and rebuilds the rest.
    base = current.carried_only() if from_scratch else current
    ordered = sorted(results, key=lambda r: r["seqs"][0] if r["seqs"] else 0)
    blocks = [SummaryState.model_validate(r["state"]) for r in ordered]
    budget = summary_text_budget()
    merged = merge_states(base, blocks, budget)
    folded: list[Ref] = [(None, seq) for r in ordered for seq in r["seqs"]]
    missions = list(Mission.objects.filter(session_id=session_id, seq__in=[s for _, s in folded]))
    missing = replay_missing(merged, missions)
    _excuse(merged, missing)
    # Excusing adds drops: verify again, then record whether every key token is now
    # either kept or its mission recorded as dropped.
    report = summary_verify(
        state=merged,
        previous=base,
        folded=folded,
        budget_chars=budget,
        missions=fold_inputs(missions),
    )
    report.checks["replay"] = not replay_missing(merged, missions)
    report.ok = report.ok and report.checks["replay"]
    if not report.ok:
        with refusal_recorded(session_id):
            raise FoldRefused("merged compaction", report.findings)
    return fold_commit(
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


def compaction_queue(*, session_id: int, from_scratch: bool) -> int:
    """Queue a block compaction: a chord of block folds and a merge. Returns the number of
    blocks (0: nothing to fold)."""
    plan = compaction_plan(session_id=session_id, from_scratch=from_scratch)
    if not plan["blocks"]:
        return 0
    canvas = chord(
        group(
            task_signature("summaries.tasks.compaction_block_fold", session_id, ids)
            for ids in plan["blocks"]
        ),
        task_signature(
            "summaries.tasks.compaction_merge",
            session_id,
            plan["version"],
            plan["through"],
            from_scratch,
        ),
    )
    run_canvas(canvas)
    return len(plan["blocks"])
