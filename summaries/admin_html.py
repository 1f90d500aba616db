"""Readable renderings for the admin: a summary state with links to its missions, and a
diff between two revisions. All text is escaped."""

import difflib
from typing import Any

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from summaries.render import render_summary
from summaries.schemas import Decision, SummaryItem, SummaryState


def _mission_links(item: SummaryItem, seq_to_id: dict[tuple[int | None, int], int]) -> SafeString:
    links = []
    for seq in item.missions:
        label = f"#{seq}" if item.session is None else f"s{item.session}#{seq}"
        pk = seq_to_id.get((item.session, seq))
        if pk:
            url = reverse("admin:missions_mission_change", args=[pk])
            links.append(format_html('<a href="{}">{}</a>', url, label))
        else:
            links.append(format_html("{}", label))
    return SafeString(", ".join(links))


def render_state_html(
    state: SummaryState, seq_to_id: dict[tuple[int | None, int], int]
) -> SafeString:
    """The structured state for people: sections, superseded decisions struck through,
    every item linking to the missions it came from. All text is escaped."""
    parts: list[SafeString] = []
    if state.goal:
        parts.append(format_html("<p><strong>Goal:</strong> {}</p>", state.goal))

    def section(title: str, items: list[SummaryItem] | list[Decision]) -> None:
        if not items:
            return
        rows = []
        for item in items:
            refs = _mission_links(item, seq_to_id)
            if isinstance(item, Decision) and item.superseded:
                rows.append(
                    format_html(
                        '<li class="superseded"><del>{}</del> (superseded) [{}]</li>',
                        item.text,
                        refs,
                    )
                )
            else:
                rows.append(format_html("<li>{} [{}]</li>", item.text, refs))
        parts.append(format_html("<h4>{}</h4><ul>{}</ul>", title, SafeString("".join(rows))))

    section("Decisions", state.decisions)
    section("Constraints and preferences", state.constraints)
    section("Facts", state.facts)
    section("Open questions", state.open_questions)
    section("Next actions", state.next_actions)
    if state.dropped:
        parts.append(
            format_html(
                "<h4>Dropped ({})</h4><ul>{}</ul>",
                len(state.dropped),
                format_html_join(
                    "", "<li>#{} {}</li>", ((d.mission, d.reason) for d in state.dropped[:50])
                ),
            )
        )
    return SafeString("".join(parts)) if parts else SafeString("<p>(empty)</p>")


def diff_html(before: dict[str, Any], after: dict[str, Any]) -> SafeString:
    """A line diff of the two rendered summaries, escaped, added and removed lines marked."""
    old = render_summary(SummaryState.model_validate(before or {})).splitlines()
    new = render_summary(SummaryState.model_validate(after or {})).splitlines()
    rows = []
    for line in difflib.unified_diff(old, new, lineterm="", n=2):
        if line.startswith(("---", "+++")):
            continue
        kind = {"+": "added", "-": "removed", "@": "hunk"}.get(line[:1], "same")
        rows.append(format_html('<div class="diff-{}">{}</div>', kind, line))
    if not rows:
        return SafeString("<p>No differences.</p>")
    return format_html('<div class="summary-diff">{}</div>', SafeString("".join(rows)))
