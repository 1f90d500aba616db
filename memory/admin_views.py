"""Readable renderings for the admin: a summary state with links to its missions, a diff
between two revisions, and the cost of prompts against sending the full history."""

import difflib
from collections import defaultdict
from datetime import date, timedelta
from typing import Any

from django.db.models import F, Sum, Window
from django.db.models.functions import Length, TruncDate
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from llm.schemas import Decision, SummaryItem, SummaryState
from memory.summary import render_summary
from missions.models import Mission, MissionStatus
from sessions.models import ChatSession


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


def seq_index(session: ChatSession) -> dict[tuple[int | None, int], int]:
    """(session number or None for this one, seq) → mission id, for the links."""
    index: dict[tuple[int | None, int], int] = {}
    rows = Mission.objects.filter(
        channel_id=session.channel_id, session__number__lte=session.number
    )
    for pk, seq, number in rows.values_list("id", "seq", "session__number"):
        index[(None if number == session.number else number, seq)] = pk
    return index


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


def cost_rows(*, days: int = 30, office_id: int | None = None) -> list[dict[str, Any]]:
    """Per day, office and channel: what prompts cost against sending the full history.

    The full-history figure for a mission is every earlier finished mission of its
    session in full plus this instruction: what a naive chat would have sent."""
    since = timezone.now() - timedelta(days=days)
    missions = Mission.objects.filter(status=MissionStatus.DONE)
    if office_id is not None:
        missions = missions.filter(channel__office_id=office_id)
    annotated = missions.annotate(
        size=Length("instruction") + Length("reply"),
        running=Window(
            Sum(Length("instruction") + Length("reply")),
            partition_by=[F("session_id")],
            order_by=F("seq").asc(),
        ),
        day=TruncDate("created_at"),
    ).values(
        "day",
        "channel_id",
        "channel__name",
        "channel__office__name",
        "prompt_chars",
        "prompt_tokens",
        "cached_tokens",
        "completion_tokens",
        "size",
        "running",
        "created_at",
        "instruction",
    )
    totals: dict[tuple[date, int], dict[str, Any]] = defaultdict(
        lambda: {
            "missions": 0,
            "prompt_chars": 0,
            "prompt_tokens": 0,
            "cached_tokens": 0,
            "completion_tokens": 0,
            "full_history_chars": 0,
        }
    )
    for row in annotated:
        if row["created_at"] < since:
            continue
        key = (row["day"], row["channel_id"])
        entry = totals[key]
        entry.update(
            day=row["day"], channel=row["channel__name"], office=row["channel__office__name"]
        )
        entry["missions"] += 1
        for field in ("prompt_chars", "prompt_tokens", "cached_tokens", "completion_tokens"):
            entry[field] += row[field]
        entry["full_history_chars"] += row["running"] - row["size"] + len(row["instruction"])
    result = sorted(
        totals.values(), key=lambda e: (e["day"], e["office"], e["channel"]), reverse=True
    )
    for entry in result:
        full = entry["full_history_chars"] or 1
        entry["saved_pct"] = round(100 * (1 - entry["prompt_chars"] / full), 1)
    return result
