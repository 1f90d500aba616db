"""Export of a channel's conversation, one session or all of them: the missions as asked
and answered (earlier attempts of a regenerated one included, and the text of the files
given with them), each session's summary, and the memory the channel's work reads. As
JSON (`ChannelExport`, what an import reads back) and as Markdown for a person, times in
their time zone and headings in their language."""

from datetime import datetime
from typing import Any, Final, Literal

from django.db.models import Prefetch
from django.utils import timezone
from django.utils.translation import gettext
from pydantic import BaseModel, Field

from memory.models import MemoryKind, MemoryScope
from memory.selectors import memory_for_channel_panel
from missions.models import Attachment, Mission, MissionAttempt
from office.models import Channel
from sessions.models import ChatSession

EXPORT_FORMAT: Final = "virtual-office.channel-export"
EXPORT_VERSION: Final = 1


class ExportedAttempt(BaseModel):
    number: int
    status: str
    reply: str
    finished_at: datetime | None


class ExportedAttachment(BaseModel):
    """A file given with the mission: what it was and the text read from it. Its bytes
    stay in the exporting office: an export carries what the conversation used of a file,
    its text (at most ATTACHMENT_TEXT_CHARS), and an import gives it back as that text."""

    name: str
    kind: str
    content_type: str
    size: int
    sha256: str
    text: str = ""


class ExportedMission(BaseModel):
    label: str
    seq: int
    source: str
    assignee: str | None
    instruction: str
    instruction_author: str
    status: str
    reply: str
    error: str = ""
    created_at: datetime
    finished_at: datetime | None
    earlier_attempts: list[ExportedAttempt] = Field(default_factory=list)
    attachments: list[ExportedAttachment] = Field(default_factory=list)


class ExportedSession(BaseModel):
    number: int
    title: str = ""
    started_at: datetime
    closed_at: datetime | None
    summary: str = ""
    summary_state: dict[str, Any] = Field(default_factory=dict)
    summary_folded_through: int = 0
    missions: list[ExportedMission] = Field(default_factory=list)


class ExportedMemory(BaseModel):
    kind: str
    scope: str
    text: str
    pinned: bool = False
    origin: str = ""


class ExportedChannel(BaseModel):
    kind: str
    name: str
    employee: str | None


class ChannelExport(BaseModel):
    format: Literal["virtual-office.channel-export"] = EXPORT_FORMAT
    version: Literal[1] = EXPORT_VERSION
    exported_at: datetime
    office: str
    language: str
    channel: ExportedChannel
    sessions: list[ExportedSession]
    memory: list[ExportedMemory]


def _mission(mission: Mission) -> ExportedMission:
    return ExportedMission(
        label=mission.label,
        seq=mission.seq,
        source=mission.source,
        assignee=mission.assignee.name if mission.assignee else None,
        instruction=mission.instruction,
        instruction_author=mission.instruction_author,
        status=mission.status,
        reply=mission.reply,
        error=mission.error,
        created_at=mission.created_at,
        finished_at=mission.finished_at,
        earlier_attempts=[
            ExportedAttempt(
                number=a.number, status=a.status, reply=a.reply, finished_at=a.finished_at
            )
            for a in mission.earlier_attempts.all()
        ],
        attachments=[
            ExportedAttachment(
                name=a.name,
                kind=a.kind,
                content_type=a.content_type,
                size=a.size,
                sha256=a.sha256,
                text=a.text,
            )
            for a in mission.attachments.all()
        ],
    )


def _session(session: ChatSession) -> ExportedSession:
    summary = getattr(session, "summary", None)
    return ExportedSession(
        number=session.number,
        title=session.title,
        started_at=session.started_at,
        closed_at=session.closed_at,
        summary=summary.text if summary else "",
        summary_state=summary.state if summary else {},
        summary_folded_through=summary.folded_through_seq if summary else 0,
        missions=[_mission(m) for m in session.missions.all()],
    )


def channel_export(*, channel: Channel, session: ChatSession | None = None) -> ChannelExport:
    """The channel's conversation (one session, or every session oldest first) with its
    summaries and the memory its work reads, in a fixed number of queries."""
    attempts = MissionAttempt.objects.order_by("number")
    # A file's bytes and vectors are not exported: only what it was and its text.
    files = Attachment.objects.order_by("id").defer("data", "vectors")
    missions = (
        Mission.objects.select_related("assignee")
        .prefetch_related(Prefetch("attachments", files))
        .order_by("seq", "id")
    )
    sessions = (
        ChatSession.objects.filter(channel=channel)
        .select_related("summary")
        .prefetch_related(
            Prefetch(
                "missions",
                queryset=missions.prefetch_related(Prefetch("earlier_attempts", attempts)),
            )
        )
        .order_by("number")
    )
    if session is not None:
        sessions = sessions.filter(pk=session.pk)
    return ChannelExport(
        exported_at=timezone.now(),
        office=channel.office.name,
        language=channel.office.language,
        channel=ExportedChannel(
            kind=channel.kind,
            name=channel.name,
            employee=channel.employee.name if channel.employee else None,
        ),
        sessions=[_session(s) for s in sessions],
        memory=[
            ExportedMemory(
                kind=item.kind,
                scope=item.scope,
                text=item.text,
                pinned=item.pinned,
                origin=item.origin,
            )
            for item in memory_for_channel_panel(channel=channel)
        ],
    )


def _when(moment: datetime | None) -> str:
    if moment is None:
        return ""
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M %Z")


def _quoted(text: str) -> str:
    """A person's instruction as a Markdown block quote (its own Markdown kept)."""
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines() or [""])


def _mission_markdown(mission: ExportedMission, channel: ExportedChannel) -> list[str]:
    who = mission.assignee or channel.employee or gettext("The team")
    lines = [f"### {mission.label} · {_when(mission.created_at)}", ""]
    lines += [_quoted(mission.instruction), ""]
    if mission.attachments:
        names = ", ".join(a.name for a in mission.attachments)
        lines += ["📎 " + gettext("Attached: %(names)s") % {"names": names}, ""]
    for attempt in mission.earlier_attempts:
        lines += [
            "**"
            + gettext("%(name)s, attempt %(number)s") % {"name": who, "number": attempt.number}
            + "**",
            "",
            attempt.reply,
            "",
        ]
    lines += [f"**{who}**" + (f" ({_when(mission.finished_at)})" if mission.finished_at else "")]
    lines += ["", mission.reply or mission.error or gettext("(no reply)"), ""]
    return lines


def export_markdown(export: ChannelExport) -> str:
    """The export for a person to read: each session's summary, then its missions, then
    the memory (headings in the active language, times in the active time zone)."""
    channel = export.channel
    title = channel.employee or channel.name
    lines = [f"# {title} · {export.office}", ""]
    lines += [gettext("Exported %(when)s") % {"when": _when(export.exported_at)}, ""]
    for session in export.sessions:
        heading = gettext("Session %(number)s") % {"number": session.number}
        lines += [f"## {heading}" + (f" · {session.title}" if session.title else ""), ""]
        if session.summary:
            lines += [f"**{gettext('Summary')}**", "", "```text", session.summary, "```", ""]
        for mission in session.missions:
            lines += _mission_markdown(mission, channel)
    if export.memory:
        lines += [f"## {gettext('Memory')}", ""]
        for item in export.memory:
            pin = " 📌" if item.pinned else ""
            kind, scope = MemoryKind(item.kind).label, MemoryScope(item.scope).label
            lines.append(f"- ({kind}, {scope}){pin} {item.text}")
        lines.append("")
    return "\n".join(lines)
