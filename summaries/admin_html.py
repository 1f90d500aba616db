"""Readable renderings for the admin: a summary state with links to its missions, a
diff between two revisions and a verifier's report. All text is escaped. The admin's own
words are in the reader's language; what the model reads or wrote (the summary's prompt
text, the verifier's findings sent back to it) is marked `translate="no"`: data, shown as
it is."""

import difflib
import re
from typing import Any

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from summaries.models import SummaryRevision
from summaries.render import Labels, Ref, item_text_shown, ref_label, render_summary
from summaries.schemas import Decision, SummaryItem, SummaryState
from summaries.selectors import Pointed


def _mission_links(item: SummaryItem, index: dict[Ref, Pointed]) -> SafeString:
    links = []
    for seq in item.missions:
        pointed = index.get((item.session, seq))
        # The number a person sees on the mission; its seq if it is gone.
        label = ref_label(
            item.session, seq, {(item.session, seq): pointed.label} if pointed else None
        )
        if pointed:
            url = reverse("admin:missions_mission_change", args=[pointed.id])
            links.append(format_html('<a href="{}">{}</a>', url, label))
        else:
            links.append(format_html("{}", label))
    return SafeString(", ".join(links))


def render_state_html(state: SummaryState, index: dict[Ref, Pointed]) -> SafeString:
    """The structured state for people: sections, superseded decisions struck through,
    every item linking to the missions it came from (by the numbers people see). All
    text is escaped."""
    parts: list[SafeString] = []
    if state.goal:
        parts.append(format_html("<p><strong>{}</strong> {}</p>", gettext("Goal:"), state.goal))

    def section(title: str, items: list[SummaryItem] | list[Decision]) -> None:
        if not items:
            return
        rows = []
        for item in items:
            refs = _mission_links(item, index)
            if isinstance(item, Decision) and item.superseded:
                rows.append(
                    format_html(
                        '<li class="superseded"><del>{}</del> ({}) [{}]</li>',
                        item.text,
                        gettext("superseded"),
                        refs,
                    )
                )
            else:
                rows.append(format_html("<li>{} [{}]</li>", item_text_shown(item.text), refs))
        parts.append(format_html("<h4>{}</h4><ul>{}</ul>", title, SafeString("".join(rows))))

    section(gettext("Decisions"), state.decisions)
    section(gettext("Constraints and preferences"), state.constraints)
    section(gettext("Facts"), state.facts)
    section(gettext("Open questions"), state.open_questions)
    section(gettext("Next actions"), state.next_actions)
    if state.dropped:
        parts.append(
            format_html(
                "<h4>{}</h4><ul>{}</ul>",
                gettext("Dropped (%(count)d)") % {"count": len(state.dropped)},
                format_html_join(
                    "",
                    '<li>{} <span translate="no">{}</span></li>',
                    ((_label(index, (d.session, d.mission)), d.reason) for d in state.dropped[:50]),
                ),
            )
        )
    if not parts:
        return format_html("<p>{}</p>", gettext("(empty)"))
    return SafeString("".join(parts))


def _label(index: dict[Ref, Pointed], ref: Ref) -> str:
    pointed = index.get(ref)
    return ref_label(*ref, {ref: pointed.label} if pointed else None)


def index_labels(index: dict[Ref, Pointed]) -> Labels:
    """The numbers people see, by evidence pointer."""
    return {ref: pointed.label for ref, pointed in index.items()}


def diff_html(
    before: dict[str, Any], after: dict[str, Any], labels: Labels | None = None
) -> SafeString:
    """A line diff of the two rendered summaries (missions cited by `labels`), escaped,
    added and removed lines marked."""
    old = render_summary(SummaryState.model_validate(before or {}), labels).splitlines()
    new = render_summary(SummaryState.model_validate(after or {}), labels).splitlines()
    rows = []
    for line in difflib.unified_diff(old, new, lineterm="", n=2):
        if line.startswith(("---", "+++")):
            continue
        kind = {"+": "added", "-": "removed", "@": "hunk"}.get(line[:1], "same")
        rows.append(format_html('<div class="diff-{}">{}</div>', kind, line))
    if not rows:
        return format_html("<p>{}</p>", gettext("No differences."))
    return format_html(
        '<div class="summary-diff" translate="no">{}</div>', SafeString("".join(rows))
    )


def prompt_text_html(text: str) -> SafeString:
    """The summary as the prompt carries it."""
    return format_html('<pre class="prompt-text" translate="no">{}</pre>', text)


# The verifier's checks (summaries.verifier), named for people.
CHECK_NAMES = {
    "coverage": lambda: gettext("coverage (every folded mission is accounted for)"),
    "evidence": lambda: gettext("evidence (every item cites its missions)"),
    "contradiction": lambda: gettext("contradiction (one live decision per subject)"),
    "size": lambda: gettext("size (within the budget)"),
}


def verifier_report_html(report: dict[str, Any]) -> SafeString:
    """Each check passed or failed, then the findings and attempts as the verifier wrote
    them for the model (they go back into its prompt on a retry)."""
    checks = report.get("checks", {})
    rows = format_html_join(
        "",
        "<li>{}: {}</li>",
        (
            (
                CHECK_NAMES[name]() if name in CHECK_NAMES else name,
                gettext("passed") if ok else gettext("FAILED"),
            )
            for name, ok in checks.items()
        ),
    )
    findings = format_html_join(
        "", '<li translate="no">{}</li>', ((f,) for f in report.get("findings", []))
    )
    attempts = format_html_join(
        "", '<li translate="no">{}</li>', ((str(a),) for a in report.get("attempts", []))
    )
    none = format_html("<li>{}</li>", gettext("none"))
    return format_html(
        "<ul>{}</ul><p>{}</p><ul>{}</ul><p>{}</p><ul>{}</ul>",
        rows,
        gettext("Findings:"),
        findings or none,
        gettext("Attempts:"),
        attempts or none,
    )


_ROLLED_BACK = re.compile(r"^rollback to v(\d+)$")


def revision_producer(revision: SummaryRevision) -> str:
    """Who made a revision: a provider's name (an identifier, shown as it is), or, for a
    roll-back (summaries.services records "rollback to vN"), that in words."""
    rolled_back = _ROLLED_BACK.match(revision.provider)
    if rolled_back:
        return gettext("rolled back to version %(version)s") % {"version": rolled_back.group(1)}
    return revision.provider
