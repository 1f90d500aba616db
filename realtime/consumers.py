"""The WebSocket of one channel: parse a frame → authorize → call one service → reply.

Channels' own receive loop runs it, and its dispatch but for a trip to the database thread
per event (realtime.dispatch). The socket outlives an outage of the channel layer
(realtime.rejoin): it opens, and takes and saves instructions, without it; its sender then
sees their own timeline read from the database. It closes when its person's login ends
(realtime.login_bound)."""

import json
import logging
from typing import Any

from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from pydantic import ValidationError

from config.celery import queue_task
from missions.intake import Accepted, InstructionRejected, instruction_accept
from missions.lifecycle import StopRefused, mission_stop
from missions.selectors import message_list_after, mission_in_channel, missions_pending
from missions.timeline import message_frame
from office.auth import Throttled, session_new_allowed
from office.models import Channel
from office.selectors import (
    channel_get_for_user,
    channel_reader_language,
    office_member,
    user_language,
)
from push import events
from push.frames import (
    BAD_TEXT,
    CLIENT_FRAME_TYPES,
    ErrorFrame,
    InstructionFrame,
    PendingFrame,
    PongFrame,
    SessionNewFrame,
    StopFrame,
    client_frame,
    frame_json,
    json_text,
)
from realtime.dispatch import DirectDispatchConsumer
from realtime.login_bound import CLOSE_LOGGED_OUT as CLOSE_LOGGED_OUT
from realtime.login_bound import LoginBoundConsumer, login_alive
from realtime.rejoin import CLOSE_RECONNECT as CLOSE_RECONNECT
from realtime.rejoin import RejoiningConsumer
from sessions.models import ChatSession
from sessions.selectors import long_notice_due
from sessions.services import session_start_new

logger = logging.getLogger(__name__)

# Close code for "not found or not yours": the same for both, so ids leak nothing.
CLOSE_NOT_FOUND = 4404
# The most timeline entries a socket outside its group is shown after an instruction.
OWN_TIMELINE_LIMIT = 50
ENTRY_CHECK_TASK = "sessions.tasks.long_session_check_on_entry"


def _accept(scope: dict[str, Any], channel: Channel, frame: InstructionFrame) -> Accepted | int:
    """Save the instruction of a person still logged in and still one of the channel's
    office; if not, nothing is saved and the socket's close code comes back."""
    if not login_alive(scope):
        return CLOSE_LOGGED_OUT
    if not office_member(user_id=scope["user"].pk, office_id=channel.office_id):
        return CLOSE_NOT_FOUND
    return instruction_accept(
        channel=channel,
        text=frame.text,
        client_id=frame.client_id,
        user_id=scope["user"].pk,
        edits=frame.edits,
        attachments=frame.attachments,
    )


def _parse(
    text_data: str | None,
) -> InstructionFrame | SessionNewFrame | StopFrame | PongFrame | ErrorFrame:
    """The client's frame, or the error frame that answers it (sent only once the login
    is known to hold: a logged-out socket speaks no more). Touches no database."""
    if text_data is None:
        return ErrorFrame(code="binary_not_supported", message=gettext("Frames must be JSON text."))
    if len(text_data.encode(errors="surrogatepass")) > settings.MAX_FRAME_BYTES:
        return ErrorFrame(
            code="frame_too_large",
            message=gettext("Frames are limited to {limit} bytes.").format(
                limit=settings.MAX_FRAME_BYTES
            ),
        )
    try:
        raw = json.loads(text_data)
    except (ValueError, RecursionError):
        # RecursionError: nested deeper than the parser goes ([[[[…]]]]).
        return ErrorFrame(code="bad_json", message=gettext("The frame is not valid JSON."))
    if not isinstance(raw, dict) or raw.get("type") not in CLIENT_FRAME_TYPES:
        return ErrorFrame(
            code="unknown_type",
            message=gettext("Unknown frame type; expected one of {types}.").format(
                types=", ".join(CLIENT_FRAME_TYPES)
            ),
        )
    try:
        frame = client_frame.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == BAD_TEXT:
            client_id = raw.get("client_id")
            return ErrorFrame(
                code=BAD_TEXT,
                message=first["msg"],
                client_id=client_id if isinstance(client_id, str) else None,
            )
        where = ".".join(str(p) for p in first["loc"][1:]) or "frame"
        return ErrorFrame(code="bad_frame", message=f"{where}: {first['msg']}")
    if isinstance(frame, InstructionFrame | SessionNewFrame | StopFrame):
        return frame
    return PongFrame()


def _timeline_from(channel: Channel, message_id: int, language: str) -> list[dict[str, Any]]:
    rows = message_list_after(channel=channel, after_id=message_id - 1, limit=OWN_TIMELINE_LIMIT)
    with translation.override(language):
        return [frame_json(message_frame(m)) for m in rows]


def _start_chat_session(channel: Channel, frame: SessionNewFrame, user_id: int) -> ChatSession:
    session_new_allowed(user_id=user_id)
    return session_start_new(channel=channel, expected_session_id=frame.session_id)


def _stop_mission(channel: Channel, frame: StopFrame) -> ErrorFrame | PendingFrame | None:
    """Stop a reply of this channel (a plan: the whole plan). Answered with the error
    frame of a refusal; or, when nothing was left to stop (it ended meanwhile), with the
    channel's work under way, so a page that still shows it working is set right. A
    mission of another channel gets the same answer as one that does not exist."""
    mission = mission_in_channel(channel_id=channel.pk, mission_id=frame.mission)
    if mission is None:
        return ErrorFrame(code="not_found", message=gettext("No such mission in this channel."))
    try:
        stopped = mission_stop(mission=mission)
    except StopRefused as exc:
        return ErrorFrame(code="cannot_stop", message=str(exc))
    return None if stopped else PendingFrame(missions=missions_pending(channel=channel))


def _after_join(channel: Channel, notice_due: bool) -> PendingFrame | None:
    """Once the socket is in its channel's group: the work under way (None when there is
    none), read now so that every frame the socket gets after it is newer; and the
    long-session check, if its notice may be due (one trip to the database thread)."""
    if notice_due:
        _check_on_entry(channel.pk)
    pending = missions_pending(channel=channel)
    return PendingFrame(missions=pending) if pending else None


def _enter(scope: dict[str, Any], channel_id: int) -> tuple[Channel | None, bool, str]:
    """The channel if it is the person's, whether its long-session notice may be due, and
    the language the person reads (what the office says in frames sent to this socket
    alone): one database hop per socket (a burst of reconnects queues on Daphne's one DB
    thread)."""
    channel = channel_get_for_user(user=scope["user"], channel_id=channel_id)
    if channel is None:
        return None, False, settings.LANGUAGE_CODE
    language = user_language(user=scope["user"]) or channel_reader_language(channel_id=channel.pk)
    return channel, long_notice_due(channel_id=channel.pk), language


def _check_on_entry(channel_id: int) -> None:
    try:
        queue_task(ENTRY_CHECK_TASK, channel_id)
    except Exception as exc:
        # The task queue is down: the notice waits for the next entry or instruction; the
        # socket does not wait for the queue.
        logger.warning("could not queue the entry check of channel %s: %s", channel_id, exc)


class ChannelConsumer(RejoiningConsumer, LoginBoundConsumer, DirectDispatchConsumer):
    channel: Channel | None = None
    language: str = settings.LANGUAGE_CODE

    async def connect(self) -> None:
        events.remember_server_loop()
        channel_id = int(self.scope["url_route"]["kwargs"]["channel_id"])
        self.channel, notice_due, self.language = await database_sync_to_async(_enter)(
            self.scope, channel_id
        )
        if self.channel is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if not await self.join_groups():
            self.rejoin_later()  # opened during an outage of the channel layer
        await self.accept()
        self.start_login_recheck()
        # The long-session notice can appear before the person types anything; the page
        # shows who is working from what is under way now (its later changes come as
        # frames, handled only after this one: a consumer handles one event at a time).
        pending = await database_sync_to_async(_after_join)(self.channel, notice_due)
        if pending is not None:
            await self.send_json(frame_json(pending))

    def closing_code(self) -> int | None:
        code = super().closing_code()
        if code is not None or self.channel is None:
            return code
        # Taken out of the channel's office: the page says the channel is not available.
        member = office_member(user_id=self.scope["user"].pk, office_id=self.channel.office_id)
        return None if member else CLOSE_NOT_FOUND

    def layer_groups(self) -> tuple[str, ...]:
        if self.channel is None:
            return ()
        # The person's own group carries the close when their login ends; the office's,
        # what is new in its other channels.
        return (
            events.group_name(self.channel.pk),
            events.user_group_name(self.scope["user"].pk),
            events.office_group_name(self.channel.office_id),
        )

    async def disconnect(self, code: int) -> None:
        await self.leave_groups()

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json_text(content))

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
        # Refusals are written in the person's language (the thread hops keep it).
        with translation.override(self.language):
            await self.on_frame(text_data)

    async def on_frame(self, text_data: str | None) -> None:
        if self.channel is None or self.login_ended:
            return
        parsed = _parse(text_data)
        if isinstance(parsed, InstructionFrame):
            # The login check and the save share one trip to the database thread.
            await self.on_instruction(parsed)
            return
        code = await database_sync_to_async(self.closing_code)()
        if code is not None:
            await self.end_login(code=code)
            return
        if isinstance(parsed, ErrorFrame):
            await self.send_json(frame_json(parsed))
        elif isinstance(parsed, SessionNewFrame):
            await self.on_session_new(parsed)
        elif isinstance(parsed, StopFrame):
            answer = await database_sync_to_async(_stop_mission)(self.channel, parsed)
            if answer is not None:
                await self.send_json(frame_json(answer))
        else:
            await self.send_json(frame_json(PongFrame()))

    async def on_instruction(self, frame: InstructionFrame) -> None:
        assert self.channel is not None
        try:
            accepted = await database_sync_to_async(_accept)(self.scope, self.channel, frame)
        except InstructionRejected as exc:
            # The client_id tells the page which send was refused, so it can give the
            # text back to the person.
            await self.send_error(
                exc.code, exc.message, client_id=frame.client_id, retry_after=exc.retry_after
            )
            return
        if isinstance(accepted, int):
            await self.end_login(code=accepted)
            return
        if not self.in_group:
            # The layer is down, so no event reaches this socket: show the sender what
            # was saved from their instruction on (it, a delayed notice, delegations).
            rows = await database_sync_to_async(_timeline_from)(
                self.channel, accepted.message.pk, self.language
            )
            for row in rows:
                await self.send_json(row)
        elif not accepted.created:
            # A resend after a reconnect: show this socket the instruction it already sent.
            with translation.override(self.language):
                shown = frame_json(message_frame(accepted.message))
            await self.send_json(shown)

    async def on_session_new(self, frame: SessionNewFrame) -> None:
        assert self.channel is not None
        try:
            await database_sync_to_async(_start_chat_session)(
                self.channel, frame, self.scope["user"].pk
            )
        except Throttled as exc:
            await self.send_error("rate_limited", exc.message, retry_after=exc.retry_after)

    async def office_event(self, event: dict[str, Any]) -> None:
        """Events broadcast to the channel's group are forwarded as they are: the sender
        serialized the frame once for every socket."""
        if self.login_ended:
            return
        if self.channel is not None and event.get("except_channel") == self.channel.pk:
            return  # this socket's channel group carried it already
        text = event.get("text")
        if text is None:
            # The envelope of a sender from before frames were sent as text (a worker of
            # the previous version during a rolling restart).
            await self.send_json(event["event"])
            return
        try:
            await self.send(text_data=text)
        except Disconnected:
            # The client closed while a broadcast was on its way (a tab closing mid-
            # stream): nothing to deliver to; its disconnect handler cleans up.
            return
