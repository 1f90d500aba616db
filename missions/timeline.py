"""The timeline a person sees (Message rows): written here, pushed after commit.

What the office says is stored as data (`office_text`) and rendered here, in the active
language: the page's and the API's are the request's; a frame pushed to a channel is
rendered in the language of the person the channel belongs to."""

from datetime import datetime
from typing import Any

from django.utils import translation

from missions.models import Message, MessageKind, Mission
from missions.texts import action_label, message_text
from office.models import Employee
from office.selectors import channel_reader_language
from push.events import send_frame_on_commit
from push.frames import MessageData, MessageFrame, NoticeFrame
from push.markdown import markdown_html


def _payload(payload: dict[str, Any]) -> dict[str, Any]:
    action = payload.get("action")
    if not isinstance(action, dict):
        return payload
    return {**payload, "action": {**action, "label": action_label(action)}}


def message_data(message: Message) -> MessageData:
    """The message as a client gets it, its text in the active language."""
    return MessageData(
        id=message.pk,
        channel=message.channel_id,
        session=message.session_id,
        mission=message.mission_id,
        kind=message.kind,
        author=message.author.name if message.author_id and message.author else None,
        sender=message.sender.get_username() if message.sender_id and message.sender else None,
        sender_id=message.sender_id,
        text=message_text(message),
        office_text=message.office_text or None,
        html=markdown_html(message.text) if message.kind == MessageKind.EMPLOYEE else None,
        payload=_payload(message.payload),
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
    payload: dict[str, Any],
    text: str = "",
    office_text: dict[str, Any] | None = None,
    mission: Mission | None = None,
    author_id: int | None = None,
    author: Employee | None = None,
    created_at: datetime | None = None,
    announce: bool = True,
    sender_id: int | None = None,
) -> Message:
    """Save a timeline entry: `text` that a person or an employee wrote, or `office_text`
    (missions.texts) for what the office says. Its frame goes out once the transaction
    commits (not with `announce=False`: the caller sends a frame that carries it). Pass
    `author` when it is at hand (its name goes into the frame without a query)."""
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
        office_text=office_text or {},
        payload=payload,
        sender_id=sender_id,
        **extra,
    )
    if announce:
        if office_text:
            with translation.override(channel_reader_language(channel_id=channel_id)):
                frame = message_frame(message)
        else:
            frame = message_frame(message)
        send_frame_on_commit(channel_id, frame)
    return message
