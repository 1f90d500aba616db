"""Accepting instructions: every instruction is saved here before any model is called;
its reply runs in a task queued on commit, and events go out after commit."""

import re
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from config.prepared import prepared
from language.storable import BAD_TEXT, text_problem
from missions.attachments import (
    attachment_payload,
    attachments_for_instruction,
    attachments_take,
)
from missions.creation import NOTICE_CHECK_TASK as NOTICE_CHECK_TASK
from missions.creation import mission_after_accept, mission_create, mission_open
from missions.delegation import Delegation, plan_start
from missions.dispatch import Route, route_instruction
from missions.lifecycle import mission_complete
from missions.models import Attachment, Message, MessageKind, Mission, MissionSource
from missions.ratelimit import InstructionRejected as InstructionRejected
from missions.ratelimit import RateLimited as RateLimited
from missions.ratelimit import instruction_allowed
from missions.selectors import followup_payload
from missions.texts import office_text
from missions.timeline import message_post
from office.models import Channel, ChannelKind, Employee
from sessions.models import ChatSession
from sessions.services import session_count_current, session_get_or_open_current

CLIENT_ID = re.compile(r"[A-Za-z0-9_.:-]*")
RETIRED = "employee_retired"
ARCHIVED = "channel_archived"
# Refusals that say the channel takes no work now (409), not that the instruction is bad.
READ_ONLY = (RETIRED, ARCHIVED)


@dataclass
class Accepted:
    mission: Mission
    message: Message
    created: bool


def _spawn_followup(*, parent: Mission, employee: Employee, text: str) -> Mission:
    """A meeting follow-up for `employee` in their 1:1 channel, linked to its parent."""
    source = MissionSource.MEETING_FOLLOWUP
    channel = Channel.objects.get(kind=ChannelKind.DM, employee=employee)
    session = session_get_or_open_current(channel=channel)
    # Shown in the 1:1 as the office's, on behalf of the meeting notes it came from (with
    # a link back to them), never as something the person typed there.
    child, _ = mission_create(
        session=session,
        assignee=employee,
        source=source,
        instruction=text,
        parent=parent,
        payload=followup_payload(parent),
    )
    message_post(
        channel_id=parent.channel_id,
        session_id=parent.session_id,
        mission=parent,
        kind=MessageKind.EVENT,
        office_text=office_text("follow_up", employee=employee.name, task=text[:200]),
        payload={
            "event": source,
            "child_mission": child.pk,
            "child_channel": channel.pk,
            "employee": employee.name,
        },
    )
    mission_after_accept(child)
    return child


def _unknown_names_notice(*, mission: Mission, message: Message, names: list[str]) -> None:
    message_post(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        mission=mission,
        kind=MessageKind.EVENT,
        office_text=office_text("unknown_mention", names=names),
        payload={"event": "unknown_mention", "names": names, "after_message": message.pk},
    )


def _check_fan_out(route: Route) -> None:
    """One instruction may start only so many missions: a pasted list of 500 "@name: task"
    lines is refused whole rather than flooding the employees' channels."""
    followups, most = len(route.followups), settings.MAX_FOLLOWUPS_PER_INSTRUCTION
    if followups > most:
        raise InstructionRejected(
            "too_many_followups",
            gettext(
                "These meeting notes hand out {count} follow-ups; at most {most} are allowed "
                "per instruction. Send them in several parts."
            ).format(count=followups, most=most),
        )
    delegates, most = len(route.delegations), settings.MAX_DELEGATES
    if delegates > most:
        raise InstructionRejected(
            "too_many_delegates",
            gettext(
                "This instruction delegates to {count} employees; at most {most} are allowed "
                "per instruction. Name fewer, or send it in parts."
            ).format(count=delegates, most=most),
        )


def instruction_accept(
    *,
    channel: Channel,
    text: str,
    client_id: str = "",
    user_id: int | None = None,
    edits: int | None = None,
    attachments: list[int] | None = None,
) -> Accepted:
    """Save an instruction from any route, then queue its reply. Never calls a model.

    `user_id` is the person sending it (the socket and the API pass it): every mission it
    creates, delegations and follow-ups included, counts against their rate limit.
    Imports and replays pass none. `attachments`: ids of files the person uploaded to
    this channel (missions.attachments), taken by the mission."""
    problem = text_problem(text, what="The instruction") or text_problem(
        client_id, what="client_id"
    )
    if problem:
        raise InstructionRejected(BAD_TEXT, problem)
    text = text.strip()
    if not text:
        raise InstructionRejected("empty", gettext("The instruction is empty."))
    limit = settings.MAX_INSTRUCTION_CHARS
    if len(text) > limit:
        raise InstructionRejected(
            "too_long",
            gettext("The instruction has {count} characters; the limit is {limit}.").format(
                count=len(text), limit=limit
            ),
        )
    if len(client_id) > 64:
        raise InstructionRejected(
            "bad_client_id", gettext("client_id is longer than 64 characters.")
        )
    if not CLIENT_ID.fullmatch(client_id):
        # Pages look sends up by it (in selectors and attributes): a plain alphabet only.
        raise InstructionRejected(
            "bad_client_id", gettext("client_id may hold only letters, digits and _ . : -")
        )
    if channel.employee is not None and not channel.employee.is_active:
        raise InstructionRejected(
            RETIRED,
            gettext(
                "{name} has retired: this channel is read-only. Give the work to someone else."
            ).format(name=channel.employee.name),
        )
    if channel.archived_at is not None:
        raise InstructionRejected(
            ARCHIVED,
            gettext("{name} is archived: unarchive it to give it work.").format(name=channel.name),
        )
    edited = None
    if edits is not None:
        # Edit and resend: a new mission, linked to the one edited (kept as it was). One of
        # another channel gets the same answer as one that does not exist.
        edited = Mission.objects.filter(pk=edits, channel=channel).first()
        if edited is None:
            raise InstructionRejected(
                "bad_edit", gettext("The mission to edit is not in this channel.")
            )
        if edited.requested_by_id not in (None, user_id):
            # Another person of the office wrote it: theirs to edit.
            raise InstructionRejected(
                "not_yours", gettext("Only the person who wrote an instruction can edit it.")
            )
    # A 1:1 instruction that names nobody is routed without the office's employees.
    employees = (
        list(Employee.objects.filter(office_id=channel.office_id, is_active=True))
        if channel.kind != ChannelKind.DM or "@" in text
        else []
    )
    route = route_instruction(channel=channel, text=text, employees=employees)
    _check_fan_out(route)
    if client_id:
        # Sent again after a reconnect: the mission it made, and the message it was posted
        # with. Looked up before the rate limit (a resend is not new work: refusing it
        # would hand the page back a text that was saved) and before the write begins, so
        # that the write is short.
        resent = _resent(channel=channel, client_id=client_id)
        if resent is not None:
            return resent
    # After the resend's lookup: a resent instruction's files were taken by its mission.
    files = attachments_for_instruction(
        channel=channel, user_id=user_id, ids=list(attachments or [])
    )
    if user_id is not None:
        cost = 1 + len(route.delegations) + len(route.followups)
        verdict = instruction_allowed(user_id=user_id, cost=cost)
        if not verdict.allowed:
            raise RateLimited(retry_after=verdict.retry_after, cost=cost)
    try:
        return _accept_new(
            channel=channel,
            route=route,
            text=text,
            client_id=client_id,
            edited=edited,
            files=files,
            user_id=user_id,
        )
    except IntegrityError:
        # The same client_id sent twice at once: the constraint let one through.
        resent = _resent(channel=channel, client_id=client_id) if client_id else None
        if resent is None:
            raise
        return resent


# At most one: the channel's open session, and the client_id's unique index in it (the
# exclusion states that index's condition, so SQLite's planner takes it too).
_IN_CURRENT_SESSION = prepared(
    lambda *, channel_id, client_id: Mission.objects.filter(
        session__channel_id=channel_id, session__closed_at__isnull=True, client_id=client_id
    ).exclude(client_id="")[:1]
)


def _resent(*, channel: Channel, client_id: str) -> Accepted | None:
    mission = _IN_CURRENT_SESSION.first(channel_id=channel.pk, client_id=client_id)
    if mission is None:
        return None
    # With who wrote it: the socket shows it again from outside the database thread.
    message = (
        Message.objects.filter(mission=mission, kind=MessageKind.USER)
        .select_related("author", "sender")
        .first()
    )
    assert message is not None
    return Accepted(mission=mission, message=message, created=False)


def _accept_new(
    *,
    channel: Channel,
    route: Route,
    text: str,
    client_id: str,
    edited: Mission | None = None,
    files: list[Attachment] | None = None,
    user_id: int | None = None,
) -> Accepted:
    files = files or []
    with transaction.atomic():
        session = session_count_current(channel=channel)
        opened = mission_open(
            session=session,
            assignee=route.assignee,
            source=route.source,
            instruction=text,
            client_id=client_id,
            counted=True,
            edited_from=edited,
            requested_by_id=user_id,
            payload={"attachments": attachment_payload(files)} if files else None,
        )
        mission, message = opened.mission, opened.message
        assert message is not None
        attachments_take(mission=mission, attachments=files)
        if route.unknown:
            _unknown_names_notice(mission=mission, message=message, names=route.unknown)
        if route.delegations:
            # Named people: the plan is made here, without a model call; the chief
            # of staff answers once, when their parts are done.
            mission_after_accept(mission, run=False)
            plan_start(
                plan=mission,
                delegations=[
                    Delegation(employee=e, task=t, written_by_office=False)
                    for e, t in route.delegations
                ],
            )
        else:
            mission_after_accept(mission)
        for employee, task in route.followups:
            _spawn_followup(parent=mission, employee=employee, text=task)
    return Accepted(mission=mission, message=message, created=True)


def mission_record_finished(
    *,
    session: ChatSession,
    assignee: Employee,
    instruction: str,
    reply: str,
    source: str = MissionSource.DM,
    at: datetime | None = None,
) -> Mission:
    """A mission that already happened elsewhere (an import or a replay)."""
    with transaction.atomic():
        mission, _ = mission_create(
            session=session, assignee=assignee, source=source, instruction=instruction, at=at
        )
        mission_complete(mission=mission, reply=reply, at=at)
    return mission
