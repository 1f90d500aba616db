"""Import of an exported conversation (missions.export.ChannelExport) into an office: a
new project channel whose sessions replay the exported ones through the same services a
mission takes (so its history is indexed for recall and folded into summaries as any
other), the files' text with their missions, and the exported memory as the new
channel's own. All or nothing."""

import hashlib

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from config.celery import queue_task_on_commit
from language.storable import text_problem
from memory.models import MemoryOrigin, MemoryScope
from memory.services import MemoryRejected, memory_item_create, memory_target
from missions.export import ChannelExport, ExportedAttachment
from missions.intake import mission_record_finished
from missions.models import Attachment, AttachmentKind, Mission, MissionSource, MissionStatus
from office.models import Channel, Employee, Office
from office.services import project_channel_create
from sessions.selectors import session_current
from sessions.services import SessionNameRejected, session_rename, session_start_new

# What an import may bring at once: a long office history, not an unbounded one.
IMPORT_MAX_MISSIONS = 5_000
IMPORT_NAME_CHARS = 100


class ImportRejected(ValueError):
    """An export this office cannot take; the message is for a person."""


def _check(data: ChannelExport) -> None:
    missions = [m for s in data.sessions for m in s.missions]
    if len(missions) > IMPORT_MAX_MISSIONS:
        raise ImportRejected(
            gettext("The export has %(count)d missions; an import takes at most %(limit)d.")
            % {"count": len(missions), "limit": IMPORT_MAX_MISSIONS}
        )
    for mission in missions:
        what = gettext("Mission %(label)s") % {"label": mission.label}
        for text in (mission.instruction, mission.reply):
            problem = text_problem(text, what=what)
            if problem:
                raise ImportRejected(problem)
        if len(mission.attachments) > settings.ATTACHMENTS_PER_MISSION:
            raise ImportRejected(
                gettext("%(what)s has %(count)d files; a mission takes at most %(limit)d.")
                % {
                    "what": what,
                    "count": len(mission.attachments),
                    "limit": settings.ATTACHMENTS_PER_MISSION,
                }
            )
        for file in mission.attachments:
            if file.kind not in AttachmentKind.values or len(file.text) > (
                settings.ATTACHMENT_TEXT_CHARS
            ):
                raise ImportRejected(
                    gettext("%(what)s: the file %(name)s is not one an export writes.")
                    % {"what": what, "name": file.name[:80]}
                )
            problem = text_problem(file.name, what=what) or text_problem(file.text, what=what)
            if problem:
                raise ImportRejected(problem)


# Kinds whose text is the file itself: given back under their own name and type.
_TEXT_KINDS = (AttachmentKind.TEXT, AttachmentKind.MARKDOWN, AttachmentKind.CSV)


def _files(mission: Mission, files: list[ExportedAttachment], user: User | None) -> None:
    """The mission's files as the export carries them: by their text, in this transaction
    (the mission's recall passages, indexed once it commits, hold them). A file that had
    no text (an image) does not come."""
    kept = 0
    for exported in files:
        if not exported.text:
            continue
        textual = exported.kind in _TEXT_KINDS
        data = exported.text.encode("utf-8")
        Attachment.objects.create(
            channel_id=mission.channel_id,
            mission=mission,
            uploaded_by=user,
            name=exported.name if textual else f"{exported.name}.txt",
            kind=exported.kind if textual else AttachmentKind.TEXT,
            content_type=exported.content_type if textual else "text/plain; charset=utf-8",
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            data=data,
            text=exported.text,
            extracted_at=timezone.now(),
        )
        kept += 1
    if kept:
        Mission.objects.filter(pk=mission.pk).update(attachment_count=kept)
        # A file's passages are recalled even while its mission is in the window (as
        # after an extraction): indexed once the import commits.
        queue_task_on_commit("context.tasks.passages_index", mission.pk)


def _team(office: Office, data: ChannelExport) -> tuple[Employee, dict[str, Employee]]:
    """The office's employees the export names (by name), and who leads the channel: the
    exported 1:1 employee or project lead if the office has one of that name, else its
    chief of staff."""
    active = {e.name.casefold(): e for e in office.employees.filter(is_active=True)}
    named = {m.assignee for s in data.sessions for m in s.missions if m.assignee}
    if data.channel.employee:
        named.add(data.channel.employee)
    found = {name: active[name.casefold()] for name in named if name.casefold() in active}
    lead = found.get(data.channel.employee or "") or next(
        (e for e in active.values() if e.is_master), None
    )
    if lead is None:
        raise ImportRejected(gettext("The office has no one to take the conversation."))
    return lead, found


@transaction.atomic
def channel_import(*, office: Office, data: ChannelExport, user: User | None = None) -> Channel:
    """A project channel of `office` holding the exported conversation: each exported
    session a session (the last one current), each finished mission replayed with its
    instruction, reply and time; unfinished ones are left out. The exported memory is the
    channel's, written by the person where the export says so."""
    _check(data)
    lead, found = _team(office, data)
    name = (data.channel.employee or data.channel.name or gettext("Imported")).strip()
    channel = project_channel_create(
        office=office,
        name=(gettext("%(name)s (imported)") % {"name": name})[:IMPORT_NAME_CHARS],
        members=set(found.values()),
        lead=lead,
    )
    for index, exported in enumerate(data.sessions):
        session = session_current(channel=channel)
        if index:
            assert session is not None
            session = session_start_new(channel=channel, expected_session_id=session.pk)
        assert session is not None
        if exported.title:
            try:
                session_rename(session=session, title=exported.title)
            except SessionNameRejected as exc:
                raise ImportRejected(str(exc)) from exc
        for mission in exported.missions:
            if mission.status != MissionStatus.DONE:
                continue
            made = mission_record_finished(
                session=session,
                assignee=found.get(mission.assignee or "", lead),
                instruction=mission.instruction,
                reply=mission.reply,
                source=MissionSource.PROJECT,
                at=mission.finished_at or mission.created_at,
            )
            _files(made, mission.attachments, user)
    target = memory_target(office=office, scope=MemoryScope.CHANNEL, channel=channel)
    for item in data.memory:
        said = item.origin in (MemoryOrigin.USER, MemoryOrigin.ADMIN)
        try:
            memory_item_create(
                target=target,
                kind=item.kind,
                text=item.text,
                origin=MemoryOrigin.USER if said else MemoryOrigin.EXTRACTED,
                pinned=item.pinned and said,
                created_by=user if said else None,
            )
        except MemoryRejected as exc:
            raise ImportRejected(str(exc)) from exc
    return channel
