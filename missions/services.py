"""Writes for missions and the timeline. Every instruction is saved here before any model
is called."""

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
from office.models import Employee
from sessions.models import ChatSession


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
    if client_id:
        existing = Mission.objects.filter(session=session, client_id=client_id).first()
        if existing is not None:
            return existing, False
    # The row lock orders concurrent instructions of one session, so seq has no gaps.
    locked = ChatSession.objects.select_for_update().get(pk=session.pk)
    seq = locked.mission_count + 1
    ChatSession.objects.filter(pk=session.pk).update(mission_count=F("mission_count") + 1)
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
    Message.objects.create(
        channel_id=session.channel_id,
        session=session,
        mission=mission,
        kind=MessageKind.USER,
        text=instruction,
        created_at=created_at,
    )
    return mission, True


@transaction.atomic
def mission_complete(
    *,
    mission: Mission,
    reply: str,
    prompt_chars: int = 0,
    prompt_tokens: int = 0,
    cached_tokens: int = 0,
    completion_tokens: int = 0,
    at: datetime | None = None,
) -> Message:
    """Save the reply and its usage, then fold what left the detail window (on commit)."""
    from memory.tasks import fold_session

    finished_at = at or timezone.now()
    mission.reply = reply
    mission.status = MissionStatus.DONE
    mission.error = ""
    mission.finished_at = finished_at
    mission.prompt_chars = prompt_chars
    mission.prompt_tokens = prompt_tokens
    mission.cached_tokens = cached_tokens
    mission.completion_tokens = completion_tokens
    mission.save(
        update_fields=[
            "reply",
            "status",
            "error",
            "finished_at",
            "prompt_chars",
            "prompt_tokens",
            "cached_tokens",
            "completion_tokens",
        ]
    )
    message = Message.objects.create(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        mission=mission,
        kind=MessageKind.EMPLOYEE,
        author_id=mission.assignee_id,
        text=reply,
        created_at=finished_at,
    )
    fold_session.delay_on_commit(mission.session_id)  # type: ignore[attr-defined]
    return message


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
