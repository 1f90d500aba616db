"""Scenario: 200 sockets connect at once to a real Daphne, run with the flags docker-compose
gives it, on the Redis channel layer (a restart makes every open tab reconnect). Every
one is accepted, and after they close the process is no longer subscribed to the group
(no stale member), three rounds in a row."""

import asyncio
import json
import shutil
import uuid
from typing import Any

import pytest
import redis as redis_sync
import websockets

from push.events import group_name
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI
from tests.fresh import run_python
from tests.reliability.test_redis_outage import _redis
from tests.reliability.test_workers import Proc, _env, _free_port, _wait, deployed_daphne
from tests.ws import session_cookie

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

SOCKETS = 200


async def test_the_configured_layer_takes_a_burst_of_joins_and_leaves() -> None:
    """400 joins and leaves at once on one event loop (Daphne has one): none fails, and
    Redis is left with no subscription to the group."""
    from channels.layers import get_channel_layer
    from django.conf import settings

    layer = get_channel_layer()
    group = f"burst.{uuid.uuid4().hex}"

    async def join_and_leave(n: int) -> None:
        await layer.group_add(group, f"specific.burst!{n}")
        await layer.group_discard(group, f"specific.burst!{n}")

    results = await asyncio.gather(*(join_and_leave(n) for n in range(400)), return_exceptions=True)
    assert [r for r in results if isinstance(r, Exception)] == []
    [(_, subscribers)] = redis_sync.Redis.from_url(settings.REDIS_URL).pubsub_numsub(
        layer.group_channel(group)
    )
    assert subscribers == 0


async def _burst(url: str, headers: dict[str, str]) -> list[Any]:
    """Open SOCKETS sockets at once, ping each, close them all; what each one got."""

    async def one() -> Any:
        try:
            socket = await websockets.connect(url, additional_headers=headers, open_timeout=30)
        except Exception as exc:
            return exc
        try:
            await socket.send(json.dumps({"type": "ping"}))
            while True:
                frame = json.loads(await asyncio.wait_for(socket.recv(), 30))
                if frame["type"] == "pong":
                    return socket
        except Exception as exc:
            await socket.close()
            return exc

    opened = await asyncio.gather(*(one() for _ in range(SOCKETS)))
    await asyncio.gather(*(s.close() for s in opened if not isinstance(s, Exception)))
    return opened


def _served_group_channel(env: dict[str, str], group: str) -> str:
    code = (
        "import django; django.setup()\n"
        "from channels.layers import get_channel_layer\n"
        "from config.channel_layer import RedisPubSubLayer\n"
        "layer = get_channel_layer()\n"
        "assert isinstance(layer, RedisPubSubLayer)\n"
        f"print(layer.group_channel({group!r}))\n"
    )
    output = run_python("-c", code, env={"DJANGO_SETTINGS_MODULE": "config.settings", **env})
    return output.strip().splitlines()[-1]


@pytest.mark.slow(45)
def test_200_sockets_at_once_are_all_accepted_and_leave_no_stale_member(
    fake_openai: FakeOpenAI,
) -> None:
    redis_port = _free_port()
    redis_server = _redis(redis_port)
    web_port = _free_port()
    base = f"http://127.0.0.1:{web_port}"
    env = _env(
        fake_openai,
        f"redis://127.0.0.1:{redis_port}/0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_POOL="1",  # as deployed
    )
    web = Proc(
        deployed_daphne(web_port),
        env,
        ready="Listening on TCP address",
    )
    try:
        user = make_user("burst")
        channel = dm_channel(make_office(user))
        url = f"ws://127.0.0.1:{web_port}/ws/channels/{channel.pk}/"
        headers = {"Cookie": session_cookie(user), "Origin": base}
        members = redis_sync.Redis(port=redis_port)
        # The Redis channel Daphne's layer subscribes to for the group, as its settings name
        # it (this test process names its own apart: tests/conftest.py).
        group_key = _served_group_channel(env, group_name(channel.pk))
        for round_ in range(3):
            opened = asyncio.run(_burst(url, headers))
            failures = [repr(s) for s in opened if isinstance(s, Exception)]
            assert failures == [], (round_, len(failures), failures[:3])
            _wait(
                lambda: members.pubsub_numsub(group_key) == [(group_key.encode(), 0)],
                20,
                "every socket to leave its group",
            )
        assert not any("MaxConnectionsError" in line for line in web.lines)
    finally:
        web.stop()
        redis_server.stop()


async def test_a_leave_that_fails_is_tried_again() -> None:
    from channels.db import database_sync_to_async
    from channels.layers import get_channel_layer

    from tests.ws import open_socket

    user = await database_sync_to_async(make_user)()
    channel = await database_sync_to_async(lambda: dm_channel(make_office(user)))()
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    layer = get_channel_layer()
    real_discard = layer.group_discard
    calls: list[str] = []

    groups: list[str] = []

    async def flaky_discard(group: str, name: str) -> None:
        calls.append(name)
        groups.append(group)
        if len(calls) == 1:
            raise ConnectionError("Redis blip")
        await real_discard(group, name)

    layer.group_discard = flaky_discard
    await socket.disconnect()
    # The channel's group (failed, then again), the person's own group and the office's.
    assert len(calls) == 4 and len(set(calls)) == 1
    assert groups[0] == groups[1] and len(set(groups)) == 3
