"""How server frames (push.frames) reach a channel's sockets.

Save first, push second: every event about a stored row is sent after the transaction
that stored it commits (`send_event_on_commit`). The channel layer may drop events; a
client that reconnects fetches what it missed by message id."""

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import transaction
from pydantic import BaseModel

from push.frames import frame_text

logger = logging.getLogger(__name__)

# The event loop serving the sockets. The in-memory channel layer keeps asyncio queues that
# only that loop may touch, so a task thread hands its sends over to it.
_server_loop: asyncio.AbstractEventLoop | None = None


def remember_server_loop() -> None:
    global _server_loop
    _server_loop = asyncio.get_running_loop()


def group_name(channel_id: int) -> str:
    return f"channel.{channel_id}"


def office_group_name(office_id: int) -> str:
    """Every socket open on a channel of one office, whoever's (the sidebar's counts)."""
    return f"office.{office_id}"


def user_group_name(user_id: int) -> str:
    """Every socket of one person, whichever channel it shows."""
    return f"user.{user_id}"


# The event that closes a person's sockets (their login no longer holds), and the one that
# makes them ask again whether they may stay (realtime.login_bound).
LOGIN_CLOSED = "login.closed"
ACCESS_CHANGED = "access.changed"


_sender: tuple[int, asyncio.AbstractEventLoop] | None = None
_sender_lock = threading.Lock()


def _sender_loop() -> asyncio.AbstractEventLoop:
    """One event loop per process for sends from sync code (task workers, threads), so
    the channel layer keeps one Redis connection instead of opening one per event."""
    global _sender
    with _sender_lock:
        if _sender is None or _sender[0] != os.getpid():  # a forked worker needs its own
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="office-events", daemon=True).start()
            _sender = (os.getpid(), loop)
        return _sender[1]


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def send_frame(channel_id: int, frame: BaseModel) -> None:
    """Send now (for frames about nothing stored, like reply deltas)."""
    layer = get_channel_layer()
    if layer is None:
        return
    # Serialized here, once: every socket of the group forwards the same text.
    kind = getattr(frame, "type", "")
    envelope = {"type": "office.event", "kind": kind, "text": frame_text(frame)}
    _group_send(group_name(channel_id), envelope)


def send_office_frame(
    office_id: int, frame: BaseModel, *, except_channel: int | None = None
) -> None:
    """Send now to every socket of every person of an office, whichever of its channels it
    shows (but for the sockets of `except_channel`, which hear of it through their own
    channel's group)."""
    kind = getattr(frame, "type", "")
    envelope: dict[str, Any] = {"type": "office.event", "kind": kind, "text": frame_text(frame)}
    if except_channel is not None:
        envelope["except_channel"] = except_channel
    _group_send(office_group_name(office_id), envelope)


def send_office_frame_on_commit(
    office_id: int, frame: BaseModel, *, except_channel: int | None = None
) -> None:
    transaction.on_commit(
        lambda: send_office_frame(office_id, frame, except_channel=except_channel)
    )


def send_login_ended(user_id: int) -> None:
    """Close every open socket of the person now (log-out, a new password, deactivation)."""
    _group_send(user_group_name(user_id), {"type": LOGIN_CLOSED, "kind": LOGIN_CLOSED})


def send_access_changed(user_id: int) -> None:
    """Make every open socket of the person ask again whether it may stay (taken out of
    an office: its channels' sockets close)."""
    _group_send(user_group_name(user_id), {"type": ACCESS_CHANGED, "kind": ACCESS_CHANGED})


def _group_send(group: str, envelope: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    kind = envelope.get("kind", "")
    try:
        loop = _server_loop
        if isinstance(layer, InMemoryChannelLayer) and loop is not None and loop.is_running():
            send_now = getattr(layer, "group_send_now", None)
            if send_now is not None:
                # The embedded layer's send never waits: handed to the loop and not
                # waited for, so the thread that sent it (Daphne's one database thread
                # after an accept, a reply between deltas) goes on at once.
                if _running_loop() is loop:
                    send_now(group, envelope)
                else:
                    loop.call_soon_threadsafe(_send_logged, send_now, group, envelope)
                return
            if _running_loop() is loop:
                loop.create_task(layer.group_send(group, envelope))
                return
            asyncio.run_coroutine_threadsafe(layer.group_send(group, envelope), loop).result(
                timeout=5
            )
            return
        if _running_loop() is not None:
            async_to_sync(layer.group_send)(group, envelope)
            return
        send_blocking = getattr(layer, "group_send_blocking", None)
        if send_blocking is not None:
            # From this thread, in order, without a hand-over to the sender loop.
            send_blocking(group, envelope)
            return
        asyncio.run_coroutine_threadsafe(layer.group_send(group, envelope), _sender_loop()).result(
            timeout=5
        )
    except Exception:
        # A lost event is recovered by the client's resync; a failed send must not fail
        # the mission that produced it.
        logger.warning("could not send %s to %s", kind, group, exc_info=True)


def _send_logged(
    send_now: Callable[[str, dict[str, Any]], None], group: str, envelope: dict[str, Any]
) -> None:
    try:
        send_now(group, envelope)
    except Exception:
        logger.warning("could not send %s to %s", envelope.get("kind"), group, exc_info=True)


def send_frame_on_commit(channel_id: int, frame: BaseModel) -> None:
    transaction.on_commit(lambda: send_frame(channel_id, frame))
