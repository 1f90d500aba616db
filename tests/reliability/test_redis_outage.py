"""Redis down: the rate limiter, the entry check, page loads and socket joins degrade, and
an instruction is always saved and later answered.

The first tests break one dependency at a time in this process (the cache, the channel
layer, the task queue); the last one stops a private Redis under a real Daphne and the
real Celery workers of both lanes, and sends through the API, the socket and the page."""

import asyncio
import base64
import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer
from django.test import Client

from config import celery as celery_module
from config.channel_layer import LOST
from missions.models import Message, Mission, MissionStatus
from realtime.consumers import CLOSE_RECONNECT
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI
from tests.reliability.test_workers import BIN, Proc, Workers, _env, _free_port, _wait
from tests.ws import open_socket, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def _owner_and_channel() -> tuple[Any, Any]:
    user = make_user()
    return user, dm_channel(make_office(user))


# --- the rate limiter's cache ---------------------------------------------------------------


@pytest.fixture
def cache_down(settings: Any) -> None:
    """The rate limiter's cache points at a port where no Redis listens."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{_free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }


def test_with_the_cache_down_the_api_saves_instructions_and_the_limit_still_holds(
    cache_down: None, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.INSTRUCTION_RATE_LIMIT = 2
    settings.INSTRUCTION_RATE_WINDOW = 10**6  # no window boundary inside the test
    user = make_user()
    channel = dm_channel(make_office(user))
    client = Client()
    client.force_login(user)
    url = f"/api/channels/{channel.pk}/instructions"
    codes = [
        client.post(url, {"text": f"task {n}"}, content_type="application/json").status_code
        for n in range(3)
    ]
    # Counted in the database instead: two missions, then the limit.
    assert codes == [202, 202, 429]
    assert Mission.objects.filter(channel=channel).count() == 2
    assert "rate-limit cache unreachable" in caplog.text


# --- the channel layer ----------------------------------------------------------------------


class FlakyLayer(InMemoryChannelLayer):
    """The in-memory layer, failing as a channels_redis layer does while Redis is down."""

    down = False
    told: set[str] = set()

    def _check(self) -> None:
        if FlakyLayer.down:
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    async def group_add(self, group: str, channel: str) -> None:
        self._check()
        await super().group_add(group, channel)

    async def group_discard(self, group: str, channel: str) -> None:
        self._check()
        await super().group_discard(group, channel)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self._check()
        await super().group_send(group, message)

    async def receive(self, channel: str) -> dict[str, Any]:
        # As RedisPubSubLayer: each socket is handed the loss once, as an event (an
        # exception here would close the socket under Channels' receive loop).
        while True:
            if FlakyLayer.down and channel not in FlakyLayer.told:
                FlakyLayer.told.add(channel)
                return {"type": LOST}
            try:
                return await asyncio.wait_for(super().receive(channel), 0.05)
            except TimeoutError:
                continue


@pytest.fixture
def flaky_layer(settings: Any) -> Any:
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.FlakyLayer"}}
    channel_layers.backends.clear()
    FlakyLayer.down = False
    FlakyLayer.told = set()
    yield FlakyLayer
    FlakyLayer.down = False


async def _frames(socket: Any, count: int) -> list[dict[str, Any]]:
    return [await socket.receive_json_from(timeout=10) for _ in range(count)]


async def test_sockets_stay_open_join_and_take_instructions_while_the_layer_is_down(
    flaky_layer: Any,
) -> None:
    user, channel = await _owner_and_channel()
    connected, _, old = await open_socket(channel.pk, user)
    assert connected
    flaky_layer.down = True
    await asyncio.sleep(0.3)  # the open socket notices
    # A socket opened during the outage is accepted, outside its group.
    connected, _, new = await open_socket(channel.pk, user)
    assert connected
    for socket, client_id in ((old, "old-1"), (new, "new-1")):
        await socket.send_json_to({"type": "instruction", "text": "plan", "client_id": client_id})
        # No event can reach it: it is shown its instruction (and here, where tasks run
        # inline, the reply) read back from the database.
        user_frame, reply_frame = await _frames(socket, 2)
        assert user_frame["message"]["payload"]["client_id"] == client_id
        assert reply_frame["message"]["kind"] == "employee"
        await socket.send_json_to({"type": "ping"})
        assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    missions = await database_sync_to_async(
        lambda: list(Mission.objects.filter(channel=channel).values_list("status", flat=True))
    )()
    assert missions == [MissionStatus.DONE, MissionStatus.DONE]
    flaky_layer.down = False
    # Back in their groups, both ask their client to reconnect and fetch what it missed.
    for socket in (old, new):
        closed = await socket.receive_output(timeout=10)
        assert closed == {"type": "websocket.close", "code": CLOSE_RECONNECT}
    connected, _, again = await open_socket(channel.pk, user)
    assert connected
    await again.send_json_to({"type": "instruction", "text": "and now", "client_id": "k3"})
    frames = await _frames(again, 2)
    assert frames[0]["message"]["payload"]["client_id"] == "k3"
    await again.disconnect()


# --- the task queue -------------------------------------------------------------------------


@pytest.fixture
def broker_down(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.TASK_RUNNER = "celery"
    monkeypatch.setattr(celery_module, "broker_reachable", lambda: False)


def test_the_chat_page_opens_while_the_task_queue_is_down(
    broker_down: None, caplog: pytest.LogCaptureFixture
) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client = Client()
    client.force_login(user)
    assert client.get(f"/c/{channel.pk}/").status_code == 200
    assert "could not queue the entry check" in caplog.text


async def test_a_socket_opens_while_the_task_queue_is_down(broker_down: None) -> None:
    user, channel = await _owner_and_channel()
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.disconnect()


# --- all of it, with real processes ---------------------------------------------------------


def _redis(port: int) -> Proc:
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1"]
    args += ["--save", "", "--appendonly", "no"]
    return Proc(args, dict(os.environ), ready="Ready to accept connections")


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
@pytest.mark.slow(60)
def test_with_redis_down_the_api_the_socket_and_the_page_take_instructions_answered_later(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """Rate limit on (its default), a socket open before Redis stops and one opened after:
    every instruction is saved, shown delayed and answered once Redis is back."""
    redis_port = _free_port()
    redis = _redis(redis_port)
    web_port = _free_port()
    base = f"http://127.0.0.1:{web_port}"
    env = _env(
        fake_openai,
        f"redis://127.0.0.1:{redis_port}/0",
        MISSION_QUEUED_RESEND_AFTER="10",
        SWEEP_INTERVAL="5",
        ALLOWED_HOSTS="127.0.0.1,localhost",
    )
    web = Proc(
        [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(web_port), "config.asgi:application"],
        env,
        ready="Listening on TCP address",
    )
    workers = Workers(env, "-B", "-s", str(tmp_path / "beat-schedule"))
    try:
        user = make_user("outage", password="outage-pass-1", served=True)
        channel = dm_channel(make_office(user))
        cookie = session_cookie(user)
        token = base64.b64encode(b"outage:outage-pass-1").decode()

        def post(text: str, client_id: str) -> int:
            request = urllib.request.Request(
                f"{base}/api/channels/{channel.pk}/instructions",
                data=json.dumps({"text": text, "client_id": client_id}).encode(),
                headers={"Content-Type": "application/json", "Authorization": f"Basic {token}"},
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return int(response.status)
            except urllib.error.HTTPError as error:
                return error.code

        def page() -> int:
            request = urllib.request.Request(f"{base}/c/{channel.pk}/", headers={"Cookie": cookie})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return int(response.status)
            except urllib.error.HTTPError as error:
                return error.code

        async def through_sockets() -> list[Any]:
            url = f"ws://127.0.0.1:{web_port}/ws/channels/{channel.pk}/"
            headers = {"Cookie": cookie, "Origin": base}

            async def instruct(socket: Any, text: str, client_id: str) -> None:
                await socket.send(
                    json.dumps({"type": "instruction", "text": text, "client_id": client_id})
                )
                while True:
                    frame = json.loads(await asyncio.wait_for(socket.recv(), 30))
                    assert frame["type"] != "error", frame
                    message = frame.get("message", {})
                    if message.get("payload", {}).get("client_id") == client_id:
                        return

            old = await websockets.connect(url, additional_headers=headers)
            redis.stop()
            await asyncio.sleep(1)
            assert await asyncio.to_thread(post, "Plan the offsite", "api-1") == 202
            assert await asyncio.to_thread(page) == 200
            await instruct(old, "Book the venue", "old-1")
            new = await websockets.connect(url, additional_headers=headers)
            await instruct(new, "Invite the team", "new-1")
            return [old, new]

        loop = asyncio.new_event_loop()
        sockets = loop.run_until_complete(through_sockets())
        missions = list(Mission.objects.filter(channel=channel))
        assert sorted(m.client_id for m in missions) == ["api-1", "new-1", "old-1"]
        _wait(
            lambda: (
                Message.objects.filter(mission__in=missions, payload__event="delayed").count() == 3
            ),
            20,
            "the delayed notices",
        )
        redis = _redis(redis_port)

        async def closed_to_resync() -> list[int | None]:
            codes = []
            for socket in sockets:
                try:
                    while True:
                        await asyncio.wait_for(socket.recv(), 30)
                except websockets.ConnectionClosed:
                    codes.append(socket.close_code)
            return codes

        assert loop.run_until_complete(closed_to_resync()) == [CLOSE_RECONNECT] * 2
        loop.close()
        _wait(
            lambda: Mission.objects.filter(channel=channel, status=MissionStatus.DONE).count() == 3,
            90,
            "every instruction to be answered once Redis is back",
        )
        assert Mission.objects.filter(channel=channel).count() == 3
        assert Message.objects.filter(channel=channel, kind="employee").count() == 3
        log = "\n".join(web.lines)
        assert "Exception inside application" not in log, log[-3000:]
    finally:
        workers.stop()
        for proc in (web, redis):
            proc.stop()
