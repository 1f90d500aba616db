"""Accepting instructions: every instruction is saved here before any model is called;
its reply runs in a task queued on commit, and events go out after commit."""

import re
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config.celery import queue_task_on_commit
from language.storable import BAD_TEXT, text_problem
from missions.dispatch import Route, route_instruction
from missions.lifecycle import mission_complete
from missions.models import Message, MessageKind, Mission, MissionSource
from missions.queueing import mission_queue_run
from missions.ratelimit import instruction_allowed
from missions.timeline import message_post
from office.models import Channel, ChannelKind, Employee
from sessions.models import ChatSession
from sessions.services import session_count_mission, session_get_or_open_current, session_lock

CLIENT_ID = re.compile(r"[A-Za-z0-9_.:-]*")
NOTICE_CHECK_TASK = "sessions.tasks.long_session_check_on_instruction"


class InstructionRejected(Exception):
    """An instruction that cannot be accepted; `code` is stable, `message` is for a person."""

    retry_after: int | None = None

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RateLimited(InstructionRejected):
    """Over the per-user limit: nothing was saved; `retry_after` is in seconds."""

    def __init__(self, *, retry_after: int, cost: int) -> None:
        message = f"Too many instructions; try again in {retry_after} s."
        if cost > 1:
            message += f" This one would start {cost} missions."
        super().__init__("rate_limited", message)
        self.retry_after = retry_after


@dataclass
class Accepted:
    mission: Mission
    message: Message
    created: bool


@transaction.atomic
def mission_create(
    *,
    session: ChatSession,
    assignee: Employee,
    source: str,
    instruction: str,
    client_id: str = "",
    parent: Mission | None = None,
    at: datetime | None = None,
) -> tuple[Mission, bool]:
    """The mission for this instruction, and whether it is new.

    A `client_id` already used in the session returns the existing mission: an
    instruction resent after a reconnect is not a second mission."""
    # The row lock orders concurrent instructions of one session, so seq has no gaps and
    # two sends of one client_id cannot both pass the check below.
    locked = session_lock(session=session)
    if client_id:
        existing = Mission.objects.filter(session=session, client_id=client_id).first()
        if existing is not None:
            return existing, False
    seq = session_count_mission(session=locked)
    session.mission_count = seq
    created_at = at or timezone.now()
    mission = Mission.objects.create(
        session=session,
        channel_id=session.channel_id,
        seq=seq,
        source=source,
        assignee=assignee,
        parent=parent,
        instruction=instruction,
        client_id=client_id,
        created_at=created_at,
    )
    message_post(
        channel_id=session.channel_id,
        session_id=session.pk,
        mission=mission,
        kind=MessageKind.USER,
        text=instruction,
        payload={"client_id": client_id, "assignee": assignee.name, "seq": seq},
        created_at=created_at,
    )
    return mission, True


def _after_accept(mission: Mission) -> None:
    """What follows every accepted instruction: the long-session check first, so its
    notice lands right under the instruction rather than after the reply; then the reply."""
    queue_task_on_commit(NOTICE_CHECK_TASK, mission.pk)
    mission_queue_run(mission)


def _spawn_child(*, parent: Mission, employee: Employee, text: str, source: str) -> Mission:
    """A mission for `employee` in their 1:1 channel, linked to its parent."""
    channel = Channel.objects.get(kind=ChannelKind.DM, employee=employee)
    session = session_get_or_open_current(channel=channel)
    child, _ = mission_create(
        session=session, assignee=employee, source=source, instruction=text, parent=parent
    )
    verb = "Delegated to" if source == MissionSource.DELEGATION else "Follow-up for"
    message_post(
        channel_id=parent.channel_id,
        session_id=parent.session_id,
        mission=parent,
        kind=MessageKind.EVENT,
        text=f"{verb} {employee.name}: {text[:200]}",
        payload={
            "event": source,
            "child_mission": child.pk,
            "child_channel": channel.pk,
            "employee": employee.name,
        },
    )
    _after_accept(child)
    return child


def _check_fan_out(route: Route) -> None:
    """One instruction may start only so many missions: a pasted list of 500 "@name: task"
    lines is refused whole rather than flooding the employees' channels."""
    followups, most = len(route.followups), settings.MAX_FOLLOWUPS_PER_INSTRUCTION
    if followups > most:
        raise InstructionRejected(
            "too_many_followups",
            f"These meeting notes hand out {followups} follow-ups; at most {most} are "
            "allowed per instruction. Send them in several parts.",
        )
    delegates, most = len(route.delegations), settings.MAX_DELEGATES
    if delegates > most:
        raise InstructionRejected(
            "too_many_delegates",
            f"This instruction delegates to {delegates} employees; at most {most} are "
            "allowed per instruction. Name fewer, or send it in parts.",
        )


def instruction_accept(
    *, channel: Channel, text: str, client_id: str = "", user_id: int | None = None
) -> Accepted:
    """Save an instruction from any route, then queue its reply. Never calls a model.

    `user_id` is the person sending it (the socket and the API pass it): every mission it
    creates, delegations and follow-ups included, counts against their rate limit.
    Imports and replays pass none."""
    problem = text_problem(text, what="The instruction") or text_problem(
        client_id, what="client_id"
    )
    if problem:
        raise InstructionRejected(BAD_TEXT, problem)
    text = text.strip()
    if not text:
        raise InstructionRejected("empty", "The instruction is empty.")
    limit = settings.MAX_INSTRUCTION_CHARS
    if len(text) > limit:
        raise InstructionRejected(
            "too_long", f"The instruction has {len(text)} characters; the limit is {limit}."
        )
    if len(client_id) > 64:
        raise InstructionRejected("bad_client_id", "client_id is longer than 64 characters.")
    if not CLIENT_ID.fullmatch(client_id):
        # Pages look sends up by it (in selectors and attributes): a plain alphabet only.
        raise InstructionRejected(
            "bad_client_id", "client_id may hold only letters, digits and _ . : -"
        )
    employees = list(Employee.objects.filter(office_id=channel.office_id, is_active=True))
    route = route_instruction(channel=channel, text=text, employees=employees)
    _check_fan_out(route)
    if user_id is not None:
        cost = 1 + len(route.delegations) + len(route.followups)
        verdict = instruction_allowed(user_id=user_id, cost=cost)
        if not verdict.allowed:
            raise RateLimited(retry_after=verdict.retry_after, cost=cost)
    with transaction.atomic():
        session = session_get_or_open_current(channel=channel)
        mission, created = mission_create(
            session=session,
            assignee=route.assignee,
            source=route.source,
            instruction=text,
            client_id=client_id,
        )
        message = Message.objects.filter(mission=mission, kind=MessageKind.USER).first()
        assert message is not None
        if created:
            _after_accept(mission)
            for employee in route.delegations:
                _spawn_child(
                    parent=mission, employee=employee, text=text, source=MissionSource.DELEGATION
                )
            for employee, task in route.followups:
                _spawn_child(
                    parent=mission,
                    employee=employee,
                    text=task,
                    source=MissionSource.MEETING_FOLLOWUP,
                )
    return Accepted(mission=mission, message=message, created=created)


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
