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


def ref_label(session: int | None, seq: int) -> str:
    return f"#{seq}" if session is None else f"s{session}#{seq}"


def _refs(item: SummaryItem) -> str:
    if not item.missions:
        return ""
    return " [" + ", ".join(ref_label(item.session, s) for s in item.missions) + "]"


def render_summary(state: SummaryState) -> str:
    """The state as the text the model reads: every item with its mission pointers."""
    lines: list[str] = []
    if state.goal:
        goal_refs = ", ".join(f"#{s}" for s in state.goal_missions)
        lines.append(f"Goal: {state.goal}" + (f" [{goal_refs}]" if goal_refs else ""))

    def block(title: str, items: list[SummaryItem] | list[Decision]) -> None:
        if not items:
            return
        lines.append(f"{title}:")
        for item in items:
            if isinstance(item, Decision) and item.superseded:
                by = ", ".join(ref_label(item.session, s) for s in item.superseded_by)
                lines.append(f"- (superseded{' by ' + by if by else ''}) {item.text}{_refs(item)}")
            else:
                lines.append(f"- {item.text}{_refs(item)}")

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
