"""Checks a fold must pass before it is committed (DESIGN.md §4)."""

from dataclasses import asdict, dataclass, field

from language.statements import normalize, subject_of
from summaries.render import Ref, item_refs, ref_label, render_summary, state_refs
from summaries.schemas import SummaryState


@dataclass
class VerifierReport:
    ok: bool
    checks: dict[str, bool]
    findings: list[str] = field(default_factory=list)
    chars: int = 0
    budget: int = 0

    def as_json(self) -> dict[str, object]:
        return asdict(self)


def summary_verify(
    *,
    state: SummaryState,
    previous: SummaryState,
    folded: list[Ref],
    budget_chars: int,
) -> VerifierReport:
    """Coverage, evidence, contradiction and size of a proposed state.

    `folded` names the missions this fold takes in, as (session number or None for this
    session, seq)."""
    findings: list[str] = []
    checks: dict[str, bool] = {}
    refs = state_refs(state)
    dropped: set[Ref] = {(d.session, d.mission) for d in state.dropped}
    folded_set = set(folded)

    # Coverage: nothing folded may vanish.
    missing = [r for r in folded if r not in refs and r not in dropped]
    checks["coverage"] = not missing
    if missing:
        findings.append(
            "coverage: missions "
            + ", ".join(ref_label(*r) for r in missing)
            + " are neither referenced by an item nor listed in dropped with a reason"
        )

    # Evidence: a pointer that was not in the previous state must come from this fold.
    allowed = state_refs(previous) | {(d.session, d.mission) for d in previous.dropped}
    invented = sorted(
        (r for r in refs | dropped if r not in allowed and r not in folded_set),
        key=lambda r: (r[0] or 0, r[1]),
    )
    checks["evidence"] = not invented
    if invented:
        findings.append(
            "evidence: items point to missions that are not part of this summary: "
            + ", ".join(ref_label(*r) for r in invented)
        )

    # Contradiction: a decision is never live twice, and none disappears silently.
    contradiction: list[str] = []
    live_subjects: dict[str, str] = {}
    live_texts: set[str] = set()
    for decision in state.decisions:
        if decision.superseded:
            continue
        key = normalize(decision.text)
        if key in live_texts:
            contradiction.append(f"the decision {decision.text!r} is listed twice")
        live_texts.add(key)
        subject = subject_of(decision.text)
        if subject:
            if subject in live_subjects and normalize(live_subjects[subject]) != key:
                contradiction.append(
                    f"two live decisions about {subject!r}: {live_subjects[subject]!r} and "
                    f"{decision.text!r}; mark the older one superseded"
                )
            live_subjects[subject] = decision.text
    decision_refs: set[Ref] = set()
    for decision in state.decisions:
        decision_refs |= item_refs(decision)
    for decision in previous.decisions:
        if decision.superseded:
            continue
        gone = item_refs(decision) - decision_refs - dropped
        if gone == item_refs(decision) and gone:
            contradiction.append(
                f"the decision {decision.text!r} was removed; keep it, mark it superseded, "
                "or list its missions in dropped with a reason"
            )
    checks["contradiction"] = not contradiction
    findings += [f"contradiction: {c}" for c in contradiction]

    # Size.
    chars = len(render_summary(state))
    checks["size"] = chars <= budget_chars
    if chars > budget_chars:
        findings.append(f"size: the rendered summary has {chars} chars, over {budget_chars}")

    return VerifierReport(
        ok=all(checks.values()), checks=checks, findings=findings, chars=chars, budget=budget_chars
    )
