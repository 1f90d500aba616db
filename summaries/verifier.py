"""Checks a fold must pass before it is committed (docs/design.md §4)."""

import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field

from language.statements import conflicts, names_in, normalize, subject_of
from language.supersession import changes_value, replacement, supersedes
from language.values import unsupported
from summaries.render import (
    DIGEST_PREFIX,
    MATERIAL_PREFIX,
    Ref,
    item_refs,
    ref_label,
    render_summary,
    state_refs,
)
from summaries.schemas import FoldMission, SummaryItem, SummaryState


@dataclass
class VerifierReport:
    ok: bool
    checks: dict[str, bool]
    findings: list[str] = field(default_factory=list)
    chars: int = 0
    budget: int = 0

    def as_json(self) -> dict[str, object]:
        return asdict(self)


def _labels(refs: set[Ref]) -> str:
    return ", ".join(ref_label(*r) for r in sorted(refs, key=lambda r: (r[0] or 0, r[1])))


def unsupported_values(text: str, source: str) -> list[str]:
    """The numbers, dates, amounts and names of `text` that `source` does not state: values
    compared as values (language.values: "3월 4일" is not 3월 14일, "29,900달러" is not
    29,900원), names as words of the source."""
    # Names compared without spaces: "김대표" is the source's "김 대표님".
    lowered = re.sub(r"\s+", "", source.lower())
    missing = unsupported(text, source)
    missing += sorted(name for name in names_in(text) if re.sub(r"\s+", "", name) not in lowered)
    return missing


class _Evidence:
    """The text each evidence pointer stands for: the folded missions' own words, and what
    the previous state said about the missions it already cited (items it carries)."""

    def __init__(
        self, *, previous: SummaryState, folded: list[Ref], missions: Sequence[FoldMission]
    ) -> None:
        by_seq = {m.seq: m for m in missions}
        self.texts: dict[Ref, list[str]] = {}
        for ref in folded:
            mission = by_seq.get(ref[1])
            if mission is not None:
                self._add(ref, f"{mission.instruction}\n{mission.reply}")
        for _, item in previous.items():
            for ref in item_refs(item):
                self._add(ref, item.text)
        for seq in previous.goal_missions:
            self._add((None, seq), previous.goal)
        for dropped in previous.dropped:
            self._add((dropped.session, dropped.mission), dropped.reason)
        self.folded = list(folded)

    def _add(self, ref: Ref, text: str) -> None:
        self.texts.setdefault(ref, []).append(text)

    def source(self, refs: set[Ref]) -> str:
        return "\n".join(text for ref in refs for text in self.texts.get(ref, []))


def _evidence_findings(
    state: SummaryState, previous: SummaryState, evidence: _Evidence | None
) -> list[str]:
    findings: list[str] = []
    items: list[SummaryItem] = [item for _, item in state.items()]
    for item in items:
        if not item.missions:
            findings.append(
                f"evidence: the item {item.text!r} cites no mission; every item names the "
                "missions it comes from"
            )
    if evidence is None:
        return findings
    for item in items:
        refs = item_refs(item)
        source = evidence.source(refs)
        if not item.missions or not source:
            continue  # no pointer, or pointers to missions outside the summary: named above
        missing = unsupported_values(item.text, source)
        if missing:
            findings.append(
                f"evidence: {', '.join(missing)} in {item.text!r} does not occur in "
                f"{_labels(refs)}; copy numbers, dates, amounts and names from the missions "
                "an item cites"
            )
    if state.goal and normalize(state.goal) != normalize(previous.goal):
        goal_refs: set[Ref] = {(None, seq) for seq in state.goal_missions}
        goal_refs = goal_refs or set(evidence.folded)
        source = previous.goal + "\n" + evidence.source(goal_refs)
        missing = unsupported_values(state.goal, source)
        if missing:
            findings.append(
                f"evidence: {', '.join(missing)} in the goal does not occur in "
                f"{_labels(goal_refs) or 'the previous goal'}"
            )
    return findings


def _live_statements(state: SummaryState) -> list[tuple[str, SummaryItem]]:
    live: list[tuple[str, SummaryItem]] = [
        ("decision", d) for d in state.decisions if not d.superseded
    ]
    for section in ("constraints", "facts"):
        live += [
            (section[:-1], item)
            for item in getattr(state, section)
            if not item.text.startswith(DIGEST_PREFIX)
        ]
    return live


def newest_ref(item: SummaryItem) -> tuple[float, int]:
    """How recent an item is: its newest mission (this session's after earlier ones')."""
    return (float("inf") if item.session is None else item.session, max(item.missions, default=0))


@dataclass(frozen=True)
class Clash:
    """Two live items the contradiction check refuses together, and what it says of them:
    the older is to be marked superseded (a decision) or taken out (a fact or constraint)."""

    older: SummaryItem
    newer: SummaryItem
    finding: str


def _clash(first: SummaryItem, second: SummaryItem, finding: str) -> Clash:
    """`first` was listed before `second`; of two as recent, the one listed later is newer."""
    if newest_ref(second) < newest_ref(first):
        return Clash(older=second, newer=first, finding=finding)
    return Clash(older=first, newer=second, finding=finding)


def _replaces(clash: Clash) -> bool:
    """A newer pasted line replaces nothing the person said (a vendor's quote is no change
    of the person's price; two rows of a pasted table are two rows): it is kept as
    evidence beside it. An older one gives way to the person's newer value."""
    return not clash.newer.text.startswith(MATERIAL_PREFIX)


def _pairs(
    live: list[tuple[str, SummaryItem]], held: set[str]
) -> Iterator[tuple[str, SummaryItem, str, SummaryItem]]:
    """The pairs of live items a check compares: never two items of one mission (two
    sentences of one mission are two things it says: "코랄 대신 틸로 바꾸기로 했어요" beside
    the reason "코랄은 … 대비가 기준에 못 미치고", or "로고를 초록색으로 바꿨어요" beside
    "로고는 파란색 말고 초록색이에요"), never a pair the previous state already held (not
    this fold's to answer for)."""
    for index, (kind, item) in enumerate(live):
        for other_kind, other in live[:index]:
            if item_refs(item) & item_refs(other):
                continue
            if normalize(item.text) in held and normalize(other.text) in held:
                continue
            yield other_kind, other, kind, item


def _said(item: SummaryItem) -> str:
    """An item's statement, without the mark of a pasted line ("Pasted: Rent: $2,100")."""
    return item.text.removeprefix(MATERIAL_PREFIX)


def _disagree(a: str, b: str) -> bool:
    return conflicts(a, b) or conflicts(b, a)


def clashes(state: SummaryState, previous: SummaryState) -> list[Clash]:
    """Every pair of live items that cannot both be live: a decision listed twice, two
    decisions that disagree on one subject, a decision, constraint and fact that disagree
    (a reversal written as a constraint retires the decision it reverses), and two items
    that give different values of one kind for one subject ("원두 1kg 21,000원" and "원두
    가격 이제 23,500원"), however they are worded (language.supersession). The extractive
    fold settles exactly these, so that its own verifier never refuses it."""
    held = {normalize(item.text) for _, item in _live_statements(previous)}
    found: list[Clash] = []
    seen: dict[str, SummaryItem] = {}
    for decision in (d for d in state.decisions if not d.superseded):
        key = normalize(decision.text)
        if key in seen:
            found.append(
                _clash(seen[key], decision, f"the decision {decision.text!r} is listed twice")
            )
        seen.setdefault(key, decision)
    live = _live_statements(state)
    paired: set[tuple[int, int]] = set()
    for kind, first, other_kind, second in _pairs(live, held):
        if kind == other_kind and kind != "decision":
            continue
        if not _disagree(_said(first), _said(second)):
            continue
        paired.add((id(first), id(second)))
        if kind == other_kind:
            subject = subject_of(second.text)
            about = f" about {subject!r}" if subject and subject == subject_of(first.text) else ""
            finding = (
                f"two live decisions{about}: {first.text!r} and {second.text!r}; mark the "
                "older one superseded"
            )
        else:
            finding = (
                f"the {kind} {first.text!r} and the {other_kind} {second.text!r} disagree; "
                "keep the newer, mark an older decision superseded or remove an older "
                "fact or constraint"
            )
        found.append(_clash(first, second, finding))
    for _, first, _, second in _pairs(live, held):
        if (id(first), id(second)) in paired:
            continue
        if changes_value(_said(second), _said(first), by_clause=False):
            value = replacement(_said(second), _said(first))
            finding = (
                f"two live values for one subject: {first.text!r} and {second.text!r} "
                f"({value!r}); keep the newer, mark the older superseded or remove it"
            )
            found.append(_clash(first, second, finding))
    return [clash for clash in found if _replaces(clash)]


def _unfounded_supersessions(
    state: SummaryState, previous: SummaryState, evidence: _Evidence | None
) -> list[str]:
    """A decision this fold marks superseded must be replaced by another value of the
    same kind for the same subject in the missions named as superseding it: a model's
    claim that changes no such value is refused (the decision stays live)."""
    if evidence is None:
        return []
    before = {normalize(d.text) for d in previous.decisions if d.superseded}
    found: list[str] = []
    for decision in state.decisions:
        if not decision.superseded or normalize(decision.text) in before:
            continue
        by = {(decision.session, s) for s in decision.superseded_by}
        by |= {(None, s) for s in decision.superseded_by}
        source = evidence.source(by)
        if not source:
            continue  # no text to check against: the evidence check names the pointers
        said = [s for s in source.splitlines() if s.strip()]
        if not any(supersedes(line, decision.text) for line in said):
            found.append(
                f"the decision {decision.text!r} is marked superseded, but "
                f"{_labels(by)} gives no other value for its subject; keep it live"
            )
    return found


def summary_verify(
    *,
    state: SummaryState,
    previous: SummaryState,
    folded: list[Ref],
    budget_chars: int,
    missions: Sequence[FoldMission] | None = None,
    from_model: bool = False,
) -> VerifierReport:
    """Coverage, evidence, contradiction and size of a proposed state.

    `folded` names the missions this fold takes in, as (session number or None for this
    session, seq); `missions` are those missions, whose text the items' numbers, dates,
    amounts and names are checked against (or against the previous state's items citing
    the same missions, for what a fold carries). Without `missions` (a roll-back, a
    report on a stored state) only the pointers are checked."""
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

    # Evidence: every item points to missions of this summary, and what it states in
    # numbers and names is in their text.
    allowed = state_refs(previous) | {(d.session, d.mission) for d in previous.dropped}
    invented = sorted(
        (r for r in refs | dropped if r not in allowed and r not in folded_set),
        key=lambda r: (r[0] or 0, r[1]),
    )
    evidence_findings: list[str] = []
    if invented:
        evidence_findings.append(
            "evidence: items point to missions that are not part of this summary: "
            + ", ".join(ref_label(*r) for r in invented)
        )
    texts = (
        None if missions is None else _Evidence(previous=previous, folded=folded, missions=missions)
    )
    evidence_findings += _evidence_findings(state, previous, texts)
    checks["evidence"] = not evidence_findings
    findings += evidence_findings

    # Contradiction: a decision is never live twice, two live decisions never disagree on
    # one subject, and none disappears silently.
    contradiction = [clash.finding for clash in clashes(state, previous)]
    if from_model:
        # A model's claims that a mission changed a decision are checked by the rule.
        contradiction += _unfounded_supersessions(state, previous, texts)
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
