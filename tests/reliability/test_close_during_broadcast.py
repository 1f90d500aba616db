"""Issue 37, point 5: sockets that close while their channel is being broadcast to (a
reply streaming to several tabs) leave no ERROR in the server's log."""

import asyncio
import copy
import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import websockets

from push.events import send_frame
from push.frames import ReplyDeltaFrame
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, Reply
from tests.reliability.test_redis_outage import _redis
from tests.reliability.test_shutdown import BIN, _api, _embedded_env, _seed, _session_cookie
from tests.reliability.test_workers import Proc, _env, _free_port, _wait, deployed_daphne
from tests.ws import session_cookie


@pytest.mark.slow(45)
def test_sockets_closing_during_a_broadcast_log_no_error(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    env = _embedded_env(fake_openai, tmp_path)
    _seed(env)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    web = Proc(
        [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        env,
        ready="Listening on TCP address",
    )
    try:
        channels = _api(base, "/api/channels")
        assert isinstance(channels, list)
        theo = next(c for c in channels if c["employee"] == "Theo")
        chunks = [f"piece {n} " for n in range(150)]
        fake_openai.enqueue(Reply("".join(chunks), chunks=chunks, chunk_delay=0.02))
        cookie = _session_cookie(base)
        url = f"ws://127.0.0.1:{port}/ws/channels/{theo['id']}/"
        headers = {"Cookie": cookie, "Origin": base}

        async def tabs() -> None:
            sockets = [await websockets.connect(url, additional_headers=headers) for _ in range(8)]
            await sockets[0].send(
                json.dumps({"type": "instruction", "text": "Go on at length", "client_id": "b-1"})
            )
            # Wait for the stream, then close the tabs one by one while it runs, some
            # without a closing handshake (a tab killed).
            while json.loads(await asyncio.wait_for(sockets[1].recv(), 10))["type"] != (
                "reply.delta"
            ):
                pass
            for n, socket in enumerate(sockets):
                await asyncio.sleep(0.1)
                if n % 2:
                    socket.transport.abort()
                else:
                    await socket.close()

        asyncio.run(tabs())

        def reply_saved() -> bool:
            page = _api(base, f"/api/channels/{theo['id']}/messages")
            assert isinstance(page, dict)
            return any(m["kind"] == "employee" for m in page["messages"])

        _wait(reply_saved, 30, "the reply to be saved")
        time.sleep(1)
    finally:
        os.killpg(web.process.pid, signal.SIGTERM)
        web.process.wait(timeout=20)
    log = "\n".join(web.lines)
    assert " ERROR " not in log and "Traceback" not in log, log[-3000:]


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_on_the_redis_layer_too(fake_openai: FakeOpenAI, settings: Any) -> None:
    from channels.layers import channel_layers

    redis_port = _free_port()
    redis_server = _redis(redis_port)
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"]["CONFIG"]["hosts"][0]["address"] = redis_url
    settings.CHANNEL_LAYERS = layers
    channel_layers.backends.clear()
    web_port = _free_port()
    base = f"http://127.0.0.1:{web_port}"
    env = _env(fake_openai, redis_url, ALLOWED_HOSTS="127.0.0.1,localhost", DATABASE_POOL="1")
    web = Proc(deployed_daphne(web_port), env, ready="Listening on TCP address")
    try:
        user = make_user("tabs")
        channel = dm_channel(make_office(user))
        url = f"ws://127.0.0.1:{web_port}/ws/channels/{channel.pk}/"
        headers = {"Cookie": session_cookie(user), "Origin": base}
        stop = threading.Event()

        def broadcast() -> None:
            n = 0
            while not stop.is_set():
                send_frame(channel.pk, ReplyDeltaFrame(mission=1, index=n, text="x" * 200))
                n += 1
                time.sleep(0.005)

        async def tabs() -> None:
            sockets = [await websockets.connect(url, additional_headers=headers) for _ in range(12)]
            await asyncio.wait_for(sockets[0].recv(), 10)
            for n, socket in enumerate(sockets):
                await asyncio.sleep(0.05)
                if n % 2:
                    socket.transport.abort()
                else:
                    await socket.close()

        sender = threading.Thread(target=broadcast)
        sender.start()
        try:
            asyncio.run(tabs())
            time.sleep(2)
        finally:
            stop.set()
            sender.join()
    finally:
        web.stop()
        redis_server.stop()
        channel_layers.backends.clear()
    log = "\n".join(web.lines)
    assert " ERROR " not in log and "Traceback" not in log, log[-3000:]
