"""Helpers for WebSocket tests through the real ASGI stack (origin check, session auth)."""

from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from config.asgi import application


def session_cookie(user: User) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


async def open_socket(
    channel_id: int | str,
    user: User | None,
    *,
    origin: str | None = "http://localhost",
    host: str = "localhost",
) -> tuple[bool, Any, WebsocketCommunicator]:
    # As a browser sends them: the Host it addressed, and the page's Origin.
    headers: list[tuple[bytes, bytes]] = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", cookie.encode()))
    communicator = WebsocketCommunicator(
        application, f"/ws/channels/{channel_id}/", headers=headers
    )
    connected, code = await communicator.connect()
    return connected, code, communicator
