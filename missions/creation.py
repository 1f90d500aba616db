"""Creating a mission and what follows every accepted one. Shared by intake (a person's
instruction) and planning (delegated missions, the synthesis)."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config.celery import queue_task_on_commit
from config.prepared import prepared
from missions.labels import synthesis_label
from missions.models import InstructionAuthor, Message, MessageKind, Mission, MissionSource
from missions.queueing import mission_queue_run
from missions.timeline import message_post
from office.models import Employee
from sessions.models import ChatSession
from sessions.services import session_count_mission, session_lock

NOTICE_CHECK_TASK = "sessions.tasks.long_session_check_on_instruction"


def mission_create(
    *,
    session: ChatSession,
    assignee: Employee,
    source: str,
    instruction: str,
    instruction_author: str = InstructionAuthor.PERSON,
    client_id: str = "",
    parent: Mission | None = None,
    at: datetime | None = None,
    expected_output: str = "",
    message_kind: str = MessageKind.USER,
    message_office_text: dict[str, Any] | None = None,
    payload: dict[str, Any] | None = None,
    requested_by_id: int | None = None,
) -> tuple[Mission, bool]:
    """The mission for this instruction, and whether it is new (see `mission_open`)."""
    opened = mission_open(
        session=session,
        assignee=assignee,
        source=source,
        instruction=instruction,
        instruction_author=instruction_author,
        client_id=client_id,
        parent=parent,
        at=at,
        expected_output=expected_output,
        message_kind=message_kind,
        message_office_text=message_office_text,
        payload=payload,
        requested_by_id=requested_by_id,
    )
    return opened.mission, opened.created


_BY_CLIENT_ID = prepared(
    lambda *, session_id, client_id: Mission.objects.filter(
        session_id=session_id, client_id=client_id
    ).order_by("pk")[:1]
)


@dataclass(frozen=True)
class Opened:
    mission: Mission
    # The timeline message the new mission was posted with; None when the mission was
    # already there (a resent client_id).
    message: Message | None
    created: bool


# No savepoint of its own inside a caller's transaction: a failure here fails the caller.
@transaction.atomic(savepoint=False)
def mission_open(
    *,
    session: ChatSession,
    assignee: Employee,
    source: str,
    instruction: str,
    instruction_author: str = InstructionAuthor.PERSON,
    client_id: str = "",
    parent: Mission | None = None,
    at: datetime | None = None,
    expected_output: str = "",
    message_kind: str = MessageKind.USER,
    message_office_text: dict[str, Any] | None = None,
    payload: dict[str, Any] | None = None,
    counted: bool = False,
    edited_from: Mission | None = None,
    requested_by_id: int | None = None,
) -> Opened:
    """The mission for this instruction, whether it is new, and its message.

    A `client_id` already used in the session returns the existing mission: an
    instruction resent after a reconnect is not a second mission. The timeline shows the
    instruction (a `message_kind` message; in its place what the office says, if
    `message_office_text` is given; `payload` added to its own). `counted`: the caller
    counted this mission under the session's row lock (`session_count_current`),
    `session` is the row it got back, and it looked the client_id up itself (a concurrent
    send of the same one then fails on the constraint). `requested_by_id`: the person
    who sent the instruction; a mission with a `parent` (a delegated part, a follow-up,
    a synthesis) runs for its parent's person unless told otherwise."""
    # A synthesis is numbered after its plan ("1a"); every other mission is the person's
    # next number, so a synthesis leaves no gap in theirs.
    synthesis = source == MissionSource.SYNTHESIS and parent is not None
    if counted:
        # Counted by intake, for the person's instructions: a synthesis is never.
        assert not synthesis
        seq = session.mission_count
        row = session
    else:
        # The row lock orders concurrent instructions of one session, so seq and label
        # have no gaps and two sends of one client_id cannot both pass the check below.
        row = session_lock(session=session)
        if client_id:
            existing = _BY_CLIENT_ID.first(session_id=session.pk, client_id=client_id)
            if existing is not None:
                return Opened(mission=existing, message=None, created=False)
        seq = session_count_mission(session=row, synthesis=synthesis)
        session.mission_count = seq
        session.synthesis_count = row.synthesis_count
        # Read under the lock: once told, a session is never told again (see
        # `mission_after_accept`).
        session.long_notice_sent_at = row.long_notice_sent_at
    if synthesis:
        assert parent is not None
        label = synthesis_label(session_id=session.pk, plan=parent)
    else:
        label = str(row.mission_count - row.synthesis_count)
    created_at = at or timezone.now()
    if requested_by_id is None and parent is not None:
        requested_by_id = parent.requested_by_id
    mission = Mission.objects.create(
        session=session,
        channel_id=session.channel_id,
        seq=seq,
        label=label,
        source=source,
        assignee=assignee,
        parent=parent,
        instruction=instruction,
        instruction_author=instruction_author,
        expected_output=expected_output,
        client_id=client_id,
        created_at=created_at,
        edited_from=edited_from,
        requested_by_id=requested_by_id,
    )
    if edited_from is not None:
        # The page links the new instruction to the one it was edited from.
        payload = {
            **(payload or {}),
            "edited_from": {
                "mission": edited_from.pk,
                "seq": edited_from.seq,
                "label": edited_from.label,
                "session": edited_from.session_id,
            },
        }
    message = message_post(
        channel_id=session.channel_id,
        session_id=session.pk,
        mission=mission,
        kind=message_kind,
        text="" if message_office_text else instruction,
        office_text=message_office_text,
        payload={
            "client_id": client_id,
            "assignee": assignee.name,
            "seq": seq,
            "label": label,
            **(payload or {}),
        },
        created_at=created_at,
        sender_id=requested_by_id if message_kind == MessageKind.USER else None,
    )
    return Opened(mission=mission, message=message, created=True)


def mission_after_accept(mission: Mission, *, run: bool = True) -> None:
    """What follows every accepted instruction: the long-session check first, so its
    notice lands right under the instruction rather than after the reply; then the reply
    (unless `run` is false: a plan made from @mentions needs no model call).

    The check is queued only from a mission that can cross the threshold: `seq` is
    the session's mission count right after this mission was counted (under the
    session's row lock), so a smaller one cannot be the 20th; a concurrent instruction
    that crosses it has its own check. Nor once the session was told (read under the
    same lock): the notice comes once per session."""
    if (
        mission.seq >= settings.LONG_SESSION_MISSIONS
        and mission.session.long_notice_sent_at is None
    ):
        queue_task_on_commit(NOTICE_CHECK_TASK, mission.pk)
    if run:
        mission_queue_run(mission)
