"""The WebSocket of one channel: parse a frame → authorize → call one service → reply."""

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from pydantic import ValidationError

from config.celery import queue_task
from missions.intake import Accepted, InstructionRejected, instruction_accept
from missions.ratelimit import instruction_allowed
from missions.timeline import message_frame
from office.models import Channel
from office.selectors import channel_get_for_user
from realtime import events
from realtime.frames import (
    CLIENT_FRAME_TYPES,
    ErrorFrame,
    InstructionFrame,
    PongFrame,
    SessionNewFrame,
    client_frame,
    frame_json,
)
from sessions.models import ChatSession
from sessions.services import session_start_new

# Close code for "not found or not yours": the same for both, so ids leak nothing.
CLOSE_NOT_FOUND = 4404
CLOSE_LOGGED_OUT = 4401


def _login_alive(scope: dict[str, Any]) -> bool:
    """Whether the person's login (Django's session, not a chat session) still holds."""
    session = scope.get("session")
    key = getattr(session, "session_key", None)
    if session is None or not key:
        return False
    # One read of the stored session: a deleted (logged out) or expired one loads empty,
    # a rotated one belongs to nobody or to someone else.
    stored = session.__class__(session_key=key)
    return str(stored.get("_auth_user_id")) == str(scope["user"].pk)


def _accept(channel: Channel, frame: InstructionFrame) -> Accepted:
    return instruction_accept(channel=channel, text=frame.text, client_id=frame.client_id)


def _start_chat_session(channel: Channel, frame: SessionNewFrame) -> ChatSession:
    return session_start_new(channel=channel, expected_session_id=frame.session_id)


def _check_on_entry(channel_id: int) -> None:
    queue_task("sessions.tasks.long_session_check_on_entry", channel_id)


class ChannelConsumer(AsyncWebsocketConsumer):
    channel: Channel | None = None

    async def connect(self) -> None:
        events.remember_server_loop()
        channel_id = int(self.scope["url_route"]["kwargs"]["channel_id"])
        self.channel = await database_sync_to_async(channel_get_for_user)(
            user=self.scope["user"], channel_id=channel_id
        )
        if self.channel is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.channel_layer.group_add(events.group_name(self.channel.pk), self.channel_name)
        await self.accept()
        # The long-session notice can appear before the person types anything.
        await database_sync_to_async(_check_on_entry)(self.channel.pk)

    async def disconnect(self, code: int) -> None:
        if self.channel is not None:
            await self.channel_layer.group_discard(
                events.group_name(self.channel.pk), self.channel_name
            )

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(content, ensure_ascii=False))

    async def send_error(
        self,
        code: str,
        message: str,
        *,
        client_id: str | None = None,
        retry_after: int | None = None,
    ) -> None:
        frame = ErrorFrame(code=code, message=message, client_id=client_id, retry_after=retry_after)
        await self.send_json(frame_json(frame))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.channel is None:
            return
        if not await database_sync_to_async(_login_alive)(self.scope):
            # Logged out elsewhere (or the session expired): this socket speaks no more.
            await self.close(code=CLOSE_LOGGED_OUT)
            return
        if text_data is None:
            await self.send_error("binary_not_supported", "Frames must be JSON text.")
            return
        if len(text_data.encode()) > settings.MAX_FRAME_BYTES:
            await self.send_error(
                "frame_too_large", f"Frames are limited to {settings.MAX_FRAME_BYTES} bytes."
            )
            return
        try:
            raw = json.loads(text_data)
        except ValueError:
            await self.send_error("bad_json", "The frame is not valid JSON.")
            return
        if not isinstance(raw, dict) or raw.get("type") not in CLIENT_FRAME_TYPES:
            await self.send_error(
                "unknown_type",
                f"Unknown frame type; expected one of {', '.join(CLIENT_FRAME_TYPES)}.",
            )
            return
        try:
            frame = client_frame.validate_python(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"][1:]) or "frame"
            await self.send_error("bad_frame", f"{where}: {first['msg']}")
            return
        if isinstance(frame, InstructionFrame):
            await self.on_instruction(frame)
        elif isinstance(frame, SessionNewFrame):
            await self.on_session_new(frame)
        else:
            await self.send_json(frame_json(PongFrame()))

    async def on_instruction(self, frame: InstructionFrame) -> None:
        assert self.channel is not None
        verdict = await database_sync_to_async(instruction_allowed)(user_id=self.scope["user"].pk)
        if not verdict.allowed:
            await self.send_error(
                "rate_limited",
                f"Too many instructions; try again in {verdict.retry_after} s.",
                client_id=frame.client_id,
                retry_after=verdict.retry_after,
            )
            return
        try:
            accepted = await database_sync_to_async(_accept)(self.channel, frame)
        except InstructionRejected as exc:
            # The client_id tells the page which send was refused, so it can give the
            # text back to the person.
            await self.send_error(exc.code, exc.message, client_id=frame.client_id)
            return
        if not accepted.created:
            # A resend after a reconnect: show this socket the instruction it already sent.
            await self.send_json(frame_json(message_frame(accepted.message)))

    async def on_session_new(self, frame: SessionNewFrame) -> None:
        assert self.channel is not None
        await database_sync_to_async(_start_chat_session)(self.channel, frame)

    async def office_event(self, event: dict[str, Any]) -> None:
        """Events broadcast to the channel's group are forwarded as they are."""
        await self.send_json(event["event"])
