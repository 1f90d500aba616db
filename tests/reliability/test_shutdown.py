"""Scenario 14 against a real server: the client leaves during a slow reply; the mission
completes and is saved, and Daphne shuts down without killing any handler."""

import asyncio
import base64
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import websockets

from tests.fake_openai import FAKE_API_KEY, FakeOpenAI, Reply
from tests.reliability.test_workers import ROOT, Proc, _free_port, _wait

BIN = Path(sys.executable).parent


def _api(base: str, path: str) -> object:
    token = base64.b64encode(b"demo:demo").decode()
    request = urllib.request.Request(base + path, headers={"Authorization": f"Basic {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def _session_cookie(base: str) -> str:
    """Log in through the real login form, as a browser would."""
    jar = urllib.request.HTTPCookieProcessor()
    opener = urllib.request.build_opener(jar)
    opener.open(base + "/accounts/login/", timeout=10).read()
    csrf = next(c.value for c in jar.cookiejar if c.name == "csrftoken")
    body = f"username=demo&password=demo&csrfmiddlewaretoken={csrf}".encode()
    request = urllib.request.Request(
        base + "/accounts/login/", data=body, headers={"Referer": base + "/accounts/login/"}
    )
    opener.open(request, timeout=10).read()
    return "; ".join(f"{c.name}={c.value}" for c in jar.cookiejar)


def _embedded_env(fake_openai: FakeOpenAI, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "TASK_RUNNER") and not k.startswith("OPENAI_")
    }
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path}/office.sqlite3",
        TASK_RUNNER="thread",
        LLM_PROVIDER="openai",
        OPENAI_API_KEY=FAKE_API_KEY,
        OPENAI_BASE_URL=fake_openai.base_url,
        OPENAI_TIMEOUT="30",
        OPENAI_MAX_ATTEMPTS="1",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECRET_KEY_FILE=str(tmp_path / ".secret_key"),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def _seed(env: dict[str, str]) -> None:
    for command in (["migrate", "-v0"], ["seed_demo"]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=120,
        )


@pytest.mark.slow(30)
def test_a_reply_outlives_its_socket_and_shutdown_kills_no_handler(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    env = _embedded_env(fake_openai, tmp_path, OPENAI_TIMEOUT="20")
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
        fake_openai.enqueue(
            Reply(
                "slowly, then all of it", chunks=["slowly, ", "then ", "all of it"], chunk_delay=1.0
            )
        )
        cookie = _session_cookie(base)

        async def send_and_leave() -> None:
            async with websockets.connect(
                f"ws://127.0.0.1:{port}/ws/channels/{theo['id']}/",
                additional_headers={"Cookie": cookie, "Origin": base},
            ) as socket:
                await socket.send(
                    json.dumps(
                        {"type": "instruction", "text": "Take your time", "client_id": "leave-1"}
                    )
                )
                while json.loads(await asyncio.wait_for(socket.recv(), 10))["type"] != "message":
                    pass
            # The socket is closed here, while the model is still streaming.

        asyncio.run(send_and_leave())

        def reply_saved() -> bool:
            page = _api(base, f"/api/channels/{theo['id']}/messages")
            assert isinstance(page, dict)
            return any(
                m["kind"] == "employee" and m["text"] == "slowly, then all of it"
                for m in page["messages"]
            )

        _wait(reply_saved, 30, "the reply to be saved")
        # The last poll's own request needs a moment to finish; the socket that left
        # during the reply must be long gone by now.
        time.sleep(2)
    finally:
        os.killpg(web.process.pid, signal.SIGTERM)
        web.process.wait(timeout=20)
        deadline = time.monotonic() + 5  # let the reader thread take the last lines
        while time.monotonic() < deadline and not any("Killed" in x for x in web.lines):
            time.sleep(0.1)
    log = "\n".join(web.lines)
    assert "Killed 0 pending application instances" in log, log[-2000:]
    assert "took too long to shut down" not in log
    assert "Traceback" not in log, log[-2000:]


pytestmark = pytest.mark.skipif(not (BIN / "daphne").exists(), reason="needs daphne")


def _mission_row(tmp_path: Path) -> tuple[str, int, int]:
    import sqlite3

    with sqlite3.connect(tmp_path / "office.sqlite3") as db:
        status, attempts, mission_id = db.execute(
            "SELECT status, attempts, id FROM missions_mission ORDER BY id DESC LIMIT 1"
        ).fetchone()
        replies = db.execute(
            "SELECT count(*) FROM missions_message WHERE mission_id = ? AND kind = 'employee'",
            [mission_id],
        ).fetchone()[0]
    return str(status), int(attempts), int(replies)


@pytest.mark.slow(45)
def test_sigterm_hands_the_running_reply_back_and_a_restart_answers_it_once(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    env = _embedded_env(fake_openai, tmp_path, MISSION_QUEUED_RESEND_AFTER="10", SWEEP_INTERVAL="5")
    _seed(env)

    def serve() -> tuple[Proc, str]:
        port = _free_port()
        web = Proc(
            [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            env,
            ready="Listening on TCP address",
        )
        return web, f"http://127.0.0.1:{port}"

    # A long reply: ten pieces a second apart.
    fake_openai.enqueue(
        Reply("x " * 10, chunks=[f"piece {n} " for n in range(10)], chunk_delay=1.0)
    )
    web, base = serve()
    try:
        channels = _api(base, "/api/channels")
        assert isinstance(channels, list)
        theo = next(c for c in channels if c["employee"] == "Theo")
        cookie = _session_cookie(base)

        async def send_until_the_reply_streams() -> None:
            async with websockets.connect(
                base.replace("http", "ws") + f"/ws/channels/{theo['id']}/",
                additional_headers={"Cookie": cookie, "Origin": base},
            ) as socket:
                await socket.send(
                    json.dumps({"type": "instruction", "text": "Write it all", "client_id": "t1"})
                )
                while (
                    json.loads(await asyncio.wait_for(socket.recv(), 15))["type"] != "reply.delta"
                ):
                    pass

        asyncio.run(send_until_the_reply_streams())
        os.killpg(web.process.pid, signal.SIGTERM)
        web.process.wait(timeout=30)
        # It stopped while the model was still streaming, and gave the mission back.
        assert fake_openai.requests[-1].answered_at is None
        assert "handed back to the queue" in "\n".join(web.lines)
        assert _mission_row(tmp_path) == ("queued", 0, 0)
    finally:
        web.stop()

    fake_openai.enqueue(Reply("Here it is, all of it."))
    web, base = serve()
    try:
        _wait(lambda: _mission_row(tmp_path)[0] == "done", 60, "the restart to answer it")
        assert _mission_row(tmp_path) == ("done", 1, 1)
    finally:
        web.stop()
