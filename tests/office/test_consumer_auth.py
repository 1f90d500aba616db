from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User

from office.models import Channel
from tests.factories import dm_channel, make_office, make_user
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def _two_offices() -> tuple[User, User, Channel, Channel]:
    alice, bob = make_user("alice"), make_user("bob")
    return alice, bob, dm_channel(make_office(alice)), dm_channel(make_office(bob))


async def test_the_owner_connects_and_gets_pong() -> None:
    alice, _, alice_dm, _ = await _two_offices()
    connected, _, socket = await open_socket(alice_dm.pk, alice)
    assert connected
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from() == {"type": "pong"}
    await socket.disconnect()


async def test_it_rejects_other_offices_channel_like_a_missing_one() -> None:
    alice, _, _, bob_dm = await _two_offices()
    foreign = await open_socket(bob_dm.pk, alice)
    missing = await open_socket(999_999, alice)
    assert foreign[0] is False and missing[0] is False
    assert foreign[1] == missing[1]
    for result in (foreign, missing):
        await result[2].disconnect()


async def test_an_anonymous_visitor_cannot_connect() -> None:
    _, _, alice_dm, _ = await _two_offices()
    connected, _, socket = await open_socket(alice_dm.pk, None)
    assert not connected
    await socket.disconnect()


async def test_a_foreign_origin_is_refused() -> None:
    alice, _, alice_dm, _ = await _two_offices()
    connected, _, socket = await open_socket(alice_dm.pk, alice, origin="http://evil.example")
    assert not connected
    await socket.disconnect()


@pytest.mark.parametrize(
    ("origin", "host", "accepted"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("http://localhost", "localhost", True),
        ("http://localhost:80", "localhost", True),
        ("http://127.0.0.1:9999", "127.0.0.1:8000", False),  # another program on this host
        ("https://127.0.0.1:8000", "127.0.0.1:8000", False),  # another scheme
        ("http://localhost:8000", "127.0.0.1:8000", False),
        ("null", "127.0.0.1:8000", False),
    ],
)
async def test_a_socket_is_accepted_only_from_this_servers_own_origin(
    origin: str, host: str, accepted: bool
) -> None:
    alice, _, alice_dm, _ = await _two_offices()
    connected, _, socket = await open_socket(alice_dm.pk, alice, origin=origin, host=host)
    assert connected is accepted
    await socket.disconnect()


async def test_a_trusted_origin_is_accepted(settings: Any) -> None:
    # The page is served by a proxy in front (TLS on 8443); the socket reaches us direct.
    settings.CSRF_TRUSTED_ORIGINS = ["https://localhost:8443"]
    alice, _, alice_dm, _ = await _two_offices()
    connected, _, socket = await open_socket(
        alice_dm.pk, alice, origin="https://localhost:8443", host="127.0.0.1:8000"
    )
    assert connected
    await socket.disconnect()
