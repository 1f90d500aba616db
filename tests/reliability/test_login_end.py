"""Issue 37, point 1: a socket does not outlive the login it was opened with. Logging out,
a new password (from another device) and a deactivation each close every socket of the
person at once (4401), before they send anything; nothing reaches the page and nothing it
sends is saved afterwards."""

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client

from config.asgi import application
from missions.models import Mission
from push.events import send_frame
from push.frames import ReplyDeltaFrame
from tests.factories import dm_channel, make_office, make_user
from tests.ws import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "pw-for-tests-1"


def _log_out(user: User, cookie: str) -> None:
    client = Client()
    client.cookies.load(cookie)
    assert client.post("/accounts/logout/").status_code in (200, 302)


def _change_password_elsewhere(user: User, cookie: str) -> None:
    # The person changes it on another device: that device keeps its login, this one not.
    other = Client()
    assert other.login(username=user.username, password=PASSWORD)
    response = other.post(
        "/accounts/password_change/",
        {
            "old_password": PASSWORD,
            "new_password1": "a-new-secret-417",
            "new_password2": "a-new-secret-417",
        },
    )
    assert response.status_code == 302, response.content[:500]


def _set_password_in_a_shell(user: User, cookie: str) -> None:
    user.set_password("another-secret-522")
    user.save()


def _deactivate(user: User, cookie: str) -> None:
    # As the admin's change form saves it.
    user.is_active = False
    user.save()


ENDINGS: dict[str, Callable[[User, str], None]] = {
    "log-out": _log_out,
    "password change view": _change_password_elsewhere,
    "set_password": _set_password_in_a_shell,
    "deactivation": _deactivate,
}


@pytest.mark.parametrize("ending", list(ENDINGS))
async def test_an_ended_login_closes_its_sockets_at_once_and_nothing_passes_after(
    ending: str,
) -> None:
    user = await database_sync_to_async(make_user)(password=PASSWORD)
    channel = await database_sync_to_async(lambda: dm_channel(make_office(user)))()
    cookie = await database_sync_to_async(session_cookie)(user)
    headers = [
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
        (b"cookie", cookie.encode()),
    ]
    socket = WebsocketCommunicator(application, f"/ws/channels/{channel.pk}/", headers=headers)
    assert (await socket.connect())[0]
    await socket.send_json_to({"type": "ping"})
    assert (await socket.receive_json_from())["type"] == "pong"

    await database_sync_to_async(ENDINGS[ending])(user, cookie)
    # Closed without the page sending anything.
    closed = await socket.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4401}

    # A reply streamed to the channel afterwards reaches nobody, and an instruction sent
    # on the closed socket is not saved.
    await database_sync_to_async(send_frame)(
        channel.pk, ReplyDeltaFrame(mission=1, index=0, text="secret")
    )
    await socket.send_json_to({"type": "instruction", "text": "still me?", "client_id": "k1"})
    assert await socket.receive_nothing(timeout=0.5)
    assert await database_sync_to_async(Mission.objects.count)() == 0
    await socket.disconnect()


@pytest.mark.parametrize("ending", ["password change view", "deactivation"])
async def test_a_socket_that_missed_the_close_still_refuses_the_next_instruction(
    ending: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The close is the main way; the check of the stored login on every client frame
    (the session's password hash and is_active, not only its user) is the backstop."""
    monkeypatch.setattr("office.logins.send_login_ended", lambda user_id: None)
    user = await database_sync_to_async(make_user)(password=PASSWORD)
    channel = await database_sync_to_async(lambda: dm_channel(make_office(user)))()
    cookie = await database_sync_to_async(session_cookie)(user)
    headers = [
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
        (b"cookie", cookie.encode()),
    ]
    socket = WebsocketCommunicator(application, f"/ws/channels/{channel.pk}/", headers=headers)
    assert (await socket.connect())[0]
    await database_sync_to_async(ENDINGS[ending])(user, cookie)
    assert await socket.receive_nothing(timeout=0.3)  # the close was lost
    await socket.send_json_to({"type": "instruction", "text": "still me?", "client_id": "k1"})
    closed = await socket.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4401}
    assert await database_sync_to_async(Mission.objects.count)() == 0
    await socket.disconnect()


async def test_the_other_persons_sockets_stay_open() -> None:
    owner = await database_sync_to_async(make_user)(password=PASSWORD)
    other = await database_sync_to_async(make_user)(password=PASSWORD)
    channel = await database_sync_to_async(lambda: dm_channel(make_office(other)))()
    cookie = await database_sync_to_async(session_cookie)(other)
    headers = [
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
        (b"cookie", cookie.encode()),
    ]
    socket = WebsocketCommunicator(application, f"/ws/channels/{channel.pk}/", headers=headers)
    assert (await socket.connect())[0]
    await database_sync_to_async(_deactivate)(owner, "")
    await socket.send_json_to({"type": "ping"})
    assert (await socket.receive_json_from(timeout=5))["type"] == "pong"
    await socket.disconnect()


def _delete_session(user: User, cookie: str) -> None:
    # The session is gone from the store without a log-out view (an admin clearing it, an
    # expiry sweep, a log-out whose close the channel layer lost).
    from django.contrib.sessions.models import Session

    key = cookie.split("=", 1)[1]
    assert Session.objects.filter(session_key=key).delete()[0] == 1


RECHECKED: dict[str, Callable[[User, str], None]] = {
    "log-out": _log_out,
    "session deleted": _delete_session,
    "deactivation": _deactivate,
}


@pytest.mark.parametrize("ending", list(RECHECKED))
@pytest.mark.parametrize("text", ["secret", "비밀 답장"])
async def test_a_silent_socket_that_missed_the_close_closes_within_the_recheck_interval(
    ending: str, text: str, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """Issue 42: a socket whose close was missed kept receiving replies until it sent a
    frame. The server re-checks the login on a timer: within the interval the socket
    closes (4401) without sending anything, and no reply reaches it afterwards."""
    settings.SOCKET_LOGIN_RECHECK_SECONDS = 0.3
    monkeypatch.setattr("office.logins.send_login_ended", lambda user_id: None)
    user = await database_sync_to_async(make_user)(password=PASSWORD)
    channel = await database_sync_to_async(lambda: dm_channel(make_office(user)))()
    cookie = await database_sync_to_async(session_cookie)(user)
    headers = [
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
        (b"cookie", cookie.encode()),
    ]
    socket = WebsocketCommunicator(application, f"/ws/channels/{channel.pk}/", headers=headers)
    assert (await socket.connect())[0]
    # While the login holds, the timer changes nothing: replies arrive past the interval.
    await asyncio.sleep(0.7)
    await database_sync_to_async(send_frame)(
        channel.pk, ReplyDeltaFrame(mission=1, index=0, text="before")
    )
    assert (await socket.receive_json_from(timeout=5))["text"] == "before"

    await database_sync_to_async(RECHECKED[ending])(user, cookie)
    # The close was lost (patched out above); the page sends nothing; within the interval
    # (and Daphne's database thread's turn) the server closes the socket itself.
    closed = await socket.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4401}
    await database_sync_to_async(send_frame)(
        channel.pk, ReplyDeltaFrame(mission=1, index=1, text=text)
    )
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()
