"""The rolling summary as the text the model reads, and its evidence pointers."""

from typing import Any

from django.conf import settings
from django.utils.translation import pgettext

from language.supersession import changes_value, replacement
from summaries.schemas import Decision, SummaryItem, SummaryState

# The start of an item that only says a mission was asked (the extractive fold's digest).
# It stays English in the state and the model's text (the fold and the verifier find
# digests by it); where a person reads an item it is said in their language.
DIGEST_PREFIX = "Asked: "
# The start of an item taken from material the person pasted or forwarded (a quote, a
# contract, a table, reviews): evidence, never their decision, rule or preference.
MATERIAL_PREFIX = "Pasted: "

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


def _order(ref: Ref) -> tuple[float, int]:
    """Missions in the order they happened: earlier sessions first, this one last."""
    session, seq = ref
    return (float("inf") if session is None else session, seq)


def _live(state: SummaryState) -> list[SummaryItem]:
    return [
        item
        for _, item in state.items()
        if not (isinstance(item, Decision) and item.superseded)
        and not item.text.startswith(DIGEST_PREFIX)
    ]


def replaced_mark(
    text: str, refs: set[Ref], state: SummaryState, labels: Labels | None = None
) -> str:
    """ "(superseded by #12: 23500 KRW)" when a live item of the state citing a later
    mission than `refs` gives another value of the same kind for what `text` says
    (language.supersession); "" when none does. A line is never marked by its own
    missions."""
    newest = max((_order(r) for r in refs), default=(float("-inf"), 0))
    for item in _live(state):
        later = [r for r in item_refs(item) if _order(r) > newest]
        if not later or item.text == text:
            continue
        # Another value of the same kind for the same thing: a value of that kind about
        # something else ("Client Alpha" is no launch city) replaces nothing.
        value = replacement(item.text, text) if changes_value(item.text, text) else ""
        if value:
            by = ref_label(*max(later, key=_order), labels)
            return f"(superseded by {by}: {value})"
    return ""


def _decision_mark(item: Decision, state: SummaryState, labels: Labels | None) -> str:
    by = [(item.session, s) for s in item.superseded_by]
    value = ""
    for other in _live(state):
        if item_refs(other) & set(by):
            value = replacement(other.text, item.text)
            if value:
                break
    names = ", ".join(ref_label(*r, labels) for r in by)
    return f"(superseded{' by ' + names if names else ''}{': ' + value if value else ''})"


def render_summary(state: SummaryState, labels: Labels | None = None) -> str:
    """The state as the text the model reads: every item with its mission pointers (as
    seqs, or with `labels` as the numbers the person sees). An old value is never shown
    as current: a superseded decision, and a goal or a digest whose value a later item
    replaced, say what replaced them ("(superseded by #12: 05-09)")."""
    lines: list[str] = []
    if state.goal:
        goal_refs = ", ".join(ref_label(None, s, labels) for s in state.goal_missions)
        mark = replaced_mark(state.goal, {(None, s) for s in state.goal_missions}, state, labels)
        lines.append(
            f"Goal: {state.goal}"
            + (f" {mark}" if mark else "")
            + (f" [{goal_refs}]" if goal_refs else "")
        )

    def block(title: str, items: list[SummaryItem] | list[Decision]) -> None:
        if not items:
            return
        lines.append(f"{title}:")
        for item in items:
            if isinstance(item, Decision) and item.superseded:
                mark = _decision_mark(item, state, labels)
                lines.append(f"- {mark} {item.text}{_refs(item, labels)}")
            elif item.text.startswith(DIGEST_PREFIX):
                said = item.text.removeprefix(DIGEST_PREFIX)
                mark = replaced_mark(said, item_refs(item), state, labels)
                lines.append(f"- {item.text}{' ' + mark if mark else ''}{_refs(item, labels)}")
            else:
                lines.append(f"- {item.text}{_refs(item, labels)}")

    block("Decisions", state.decisions)
    block("Constraints and preferences", state.constraints)
    block("Facts", state.facts)
    block("Open questions", state.open_questions)
    block("Next actions", state.next_actions)
    return "\n".join(lines)


def item_text_shown(text: str) -> str:
    """An item's text as a person reads it, in the active language."""
    if text.startswith(DIGEST_PREFIX):
        return pgettext("a summary item", "Asked: {instruction}").format(
            instruction=text.removeprefix(DIGEST_PREFIX)
        )
    return text


def state_shown(state: dict[str, Any]) -> dict[str, Any]:
    """A stored state (its JSON) with every item's text as a person reads it."""
    shown = dict(state)
    for key, items in state.items():
        if isinstance(items, list):
            shown[key] = [
                {**item, "text": item_text_shown(item["text"])}
                if isinstance(item, dict) and isinstance(item.get("text"), str)
                else item
                for item in items
            ]
    return shown


def item_refs(item: SummaryItem) -> set[Ref]:
    return {(item.session, seq) for seq in item.missions}


def state_refs(state: SummaryState) -> set[Ref]:
    refs: set[Ref] = {(None, seq) for seq in state.goal_missions}
    for _, item in state.items():
        refs |= item_refs(item)
    return refs
