"""The rolling summary as the text the model reads, and its evidence pointers."""

from django.conf import settings

from summaries.schemas import Decision, SummaryItem, SummaryState

# The start of an item that only says a mission was asked (the extractive fold's digest).
DIGEST_PREFIX = "Asked: "

# Room the prompt's heading of the summary section takes ("## Summary of this
# conversation so far (carried over from session N)"): a summary is written to fit its
# section's budget with its heading, so the section is never over SUMMARY_BUDGET_CHARS.
SUMMARY_HEADING_RESERVE = 80


def summary_text_budget() -> int:
    """The most characters a rendered summary may have."""
    return settings.SUMMARY_BUDGET_CHARS - SUMMARY_HEADING_RESERVE


Ref = tuple[int | None, int]
# The numbers a person sees (Mission.label) of the missions refs point at: a summary keeps
# seqs as its sources, and shows labels where a person or a prompt reads it.
Labels = dict[Ref, str]


def ref_label(session: int | None, seq: int, labels: Labels | None = None) -> str:
    """How a mission is cited: "#12" in its own session, "s2#5" in session 2; with
    `labels`, by the number the person sees (a ref it lacks keeps its seq)."""
    shown = labels.get((session, seq), str(seq)) if labels else str(seq)
    return f"#{shown}" if session is None else f"s{session}#{shown}"


def _refs(item: SummaryItem, labels: Labels | None) -> str:
    if not item.missions:
        return ""
    return " [" + ", ".join(ref_label(item.session, s, labels) for s in item.missions) + "]"


def render_summary(state: SummaryState, labels: Labels | None = None) -> str:
    """The state as the text the model reads: every item with its mission pointers (as
    seqs, or with `labels` as the numbers the person sees)."""
    lines: list[str] = []
    if state.goal:
        goal_refs = ", ".join(ref_label(None, s, labels) for s in state.goal_missions)
        lines.append(f"Goal: {state.goal}" + (f" [{goal_refs}]" if goal_refs else ""))

    def block(title: str, items: list[SummaryItem] | list[Decision]) -> None:
        if not items:
            return
        lines.append(f"{title}:")
        for item in items:
            if isinstance(item, Decision) and item.superseded:
                by = ", ".join(ref_label(item.session, s, labels) for s in item.superseded_by)
                lines.append(
                    f"- (superseded{' by ' + by if by else ''}) {item.text}{_refs(item, labels)}"
                )
            else:
                lines.append(f"- {item.text}{_refs(item, labels)}")

    block("Decisions", state.decisions)
    block("Constraints and preferences", state.constraints)
    block("Facts", state.facts)
    block("Open questions", state.open_questions)
    block("Next actions", state.next_actions)
    return "\n".join(lines)


def item_refs(item: SummaryItem) -> set[Ref]:
    return {(item.session, seq) for seq in item.missions}


def state_refs(state: SummaryState) -> set[Ref]:
    refs: set[Ref] = {(None, seq) for seq in state.goal_missions}
    for _, item in state.items():
        refs |= item_refs(item)
    return refs
