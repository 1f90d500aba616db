"""The timeline a person sees (Message rows): written here, pushed after commit."""

from datetime import datetime
from typing import Any

from missions.models import Message, MessageKind, Mission
from office.models import Employee
from realtime.events import send_frame_on_commit
from realtime.frames import MessageData, MessageFrame, NoticeFrame


def message_data(message: Message) -> MessageData:
    return MessageData(
        id=message.pk,
        channel=message.channel_id,
        session=message.session_id,
        mission=message.mission_id,
        kind=message.kind,
        author=message.author.name if message.author_id and message.author else None,
        text=message.text,
        payload=message.payload,
        created_at=message.created_at,
    )


def message_frame(message: Message) -> MessageFrame | NoticeFrame:
    if message.kind == MessageKind.NOTICE:
        return NoticeFrame(message=message_data(message))
    return MessageFrame(message=message_data(message))


def message_post(
    *,
    channel_id: int,
    session_id: int,
    kind: str,
    text: str,
    payload: dict[str, Any],
    mission: Mission | None = None,
    author_id: int | None = None,
    author: Employee | None = None,
    created_at: datetime | None = None,
    announce: bool = True,
) -> Message:
    """Save a timeline entry; its frame goes out once the transaction commits (not with
    `announce=False`: the caller sends a frame that carries it). Pass `author` when it is
    at hand (its name goes into the frame without a query)."""
    extra: dict[str, Any] = {"created_at": created_at} if created_at is not None else {}
    if author is not None:
        extra["author"] = author
    else:
        extra["author_id"] = author_id
    message = Message.objects.create(
        channel_id=channel_id,
        session_id=session_id,
        mission=mission,
        kind=kind,
        text=text,
        payload=payload,
        **extra,
    )
    if announce:
        send_frame_on_commit(channel_id, message_frame(message))
    return message
