"""Import of an exported conversation (missions.export.ChannelExport) into an office: a
new project channel whose sessions replay the exported ones through the same services a
mission takes (so its history is indexed for recall and folded into summaries as any
other), and the exported memory as the new channel's own. All or nothing."""

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext

from language.storable import text_problem
from memory.models import MemoryOrigin, MemoryScope
from memory.services import MemoryRejected, memory_item_create, memory_target
from missions.export import ChannelExport
from missions.intake import mission_record_finished
from missions.models import MissionSource, MissionStatus
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
        for text in (mission.instruction, mission.reply):
            problem = text_problem(
                text, what=gettext("Mission %(label)s") % {"label": mission.label}
            )
            if problem:
                raise ImportRejected(problem)


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
            mission_record_finished(
                session=session,
                assignee=found.get(mission.assignee or "", lead),
                instruction=mission.instruction,
                reply=mission.reply,
                source=MissionSource.PROJECT,
                at=mission.finished_at or mission.created_at,
            )
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
