"""Isolation, abuse and faults, each as a test: scenarios 1, 3 to 6, 10 to 12 and 14."""

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from django.db import transaction
from django.test import Client

from config import throttle
from config.celery import app
from missions.intake import instruction_accept
from missions.models import Message, Mission
from tests.caching import clear_cache
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, Reply
from tests.missions.helpers import frames_until
from tests.ws import open_socket, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def _owner_and_channel():
    user = make_user()
    return user, dm_channel(make_office(user))


# --- 1. another office's ids, over every route -------------------------------------------


def test_other_offices_ids_get_the_same_answer_as_missing_ones_everywhere() -> None:
    owner, stranger = make_user(), make_user()
    office = make_office(owner)
    channel = dm_channel(office)
    accepted = instruction_accept(channel=channel, text="secret plan")
    employee = office.employees.get(name="Theo")
    item = office.memory_items.create(scope="office", kind="fact", text="x", origin="user")
    client = Client()
    client.force_login(stranger)
    routes = [
        ("get", "/c/{channel}/"),
        ("get", "/employees/{employee}/"),
        ("post", "/employees/{employee}/"),
        ("get", "/api/channels/{channel}/messages"),
        ("get", "/api/channels/{channel}/context"),
        ("get", "/api/channels/{channel}/summary"),
        ("get", "/api/channels/{channel}/memory"),
        ("post", "/api/channels/{channel}/instructions"),
        ("post", "/api/channels/{channel}/sessions"),
        ("get", "/api/missions/{mission}"),
        ("post", "/api/missions/{mission}/retry"),
        ("patch", "/api/memory/{item}"),
        ("post", "/api/memory/{item}/retire"),
        ("post", "/api/memory/{item}/supersede"),
    ]
    ids = {
        "channel": channel.pk,
        "employee": employee.pk,
        "mission": accepted.mission.pk,
        "item": item.pk,
    }
    for method, route in routes:
        foreign = route.format(**ids)
        missing = route.format(**{k: 987654 for k in ids})
        body = json.dumps({"text": "hijack", "pinned": True})
        call = getattr(client, method)
        if method == "get":
            a, b = call(foreign), call(missing)
        else:
            a = call(foreign, body, content_type="application/json")
            b = call(missing, body, content_type="application/json")
        assert a.status_code == b.status_code and a.status_code in (404,), (route, a.status_code)
    assert Mission.objects.count() == 1 and not item.__class__.objects.get(pk=item.pk).pinned
    listing = client.get("/api/memory").json()
    assert listing == []
    admin = client.get("/admin/missions/mission/")
    assert admin.status_code == 302


async def test_every_frame_type_on_a_foreign_channel_gets_nothing() -> None:
    _, channel = await _owner_and_channel()
    stranger = await database_sync_to_async(make_user)()
    connected, code, _ = await open_socket(channel.pk, stranger)
    assert not connected and code == 4404
    missing = await open_socket(10**8, stranger)
    assert missing[1] == code
    count = await database_sync_to_async(Message.objects.filter(channel=channel).count)()
    assert count == 0


# --- 3. origins ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "host", "ok"),
    [
        ("http://localhost", "localhost", True),
        ("http://127.0.0.1", "127.0.0.1", True),
        ("http://127.0.0.1", "localhost", False),
        ("https://evil.example", "localhost", False),
        ("null", "localhost", False),
        (None, "localhost", False),
    ],
)
async def test_the_handshake_checks_the_origin(origin: str | None, host: str, ok: bool) -> None:
    user, channel = await _owner_and_channel()
    connected, _, socket = await open_socket(channel.pk, user, origin=origin, host=host)
    assert connected is ok
    await socket.disconnect()


# --- 4. a burst of frames ------------------------------------------------------------------


async def test_a_burst_of_1000_bad_frames_is_answered_and_the_socket_survives() -> None:
    user, channel = await _owner_and_channel()
    _, _, socket = await open_socket(channel.pk, user)
    for n in range(1000):
        await socket.send_to(text_data="nope" if n % 2 else '{"type": "teleport"}')
    codes = [(await socket.receive_json_from(timeout=10))["code"] for _ in range(1000)]
    assert codes.count("bad_json") == 500 and codes.count("unknown_type") == 500
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.disconnect()


# --- 5. rate limits, exact, on a controlled clock ----------------------------------------


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Clock:

    clear_cache()
    settings.INSTRUCTION_RATE_LIMIT = 5
    settings.INSTRUCTION_RATE_WINDOW = 60
    fake = Clock(60 * 16_666 + 20.0)  # 20 s into a window
    monkeypatch.setattr(throttle, "clock", fake)
    return fake


def test_the_api_rate_limit_is_exact(clock: Clock) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client = Client()
    client.force_login(user)
    url = f"/api/channels/{channel.pk}/instructions"
    codes = [
        client.post(url, {"text": f"n{n}"}, content_type="application/json").status_code
        for n in range(5)
    ]
    assert codes == [202] * 5
    refused = client.post(url, {"text": "sixth"}, content_type="application/json")
    assert refused.status_code == 429
    # Sliding: the five leave the window 60 s after their 2 s slice began (62 s here).
    assert refused.json()["retry_after"] == 62 and refused["Retry-After"] == "62"
    assert Mission.objects.count() == 5
    clock.now += 61
    assert client.post(url, {"text": "not yet"}, content_type="application/json").status_code == 429
    clock.now += 1
    assert client.post(url, {"text": "later"}, content_type="application/json").status_code == 202


async def test_the_socket_and_the_api_share_one_limit(clock: Clock) -> None:
    user, channel = await _owner_and_channel()
    _, _, socket = await open_socket(channel.pk, user)
    for n in range(5):
        await socket.send_json_to({"type": "instruction", "text": f"go {n}", "client_id": f"k{n}"})
        await frames_until(socket, "reply.done")
    await socket.send_json_to({"type": "instruction", "text": "one too many", "client_id": "k5"})
    error = await socket.receive_json_from(timeout=5)
    assert error["code"] == "rate_limited" and error["retry_after"] == 62
    assert error["client_id"] == "k5"
    clock.now += 62
    await socket.send_json_to({"type": "instruction", "text": "allowed again", "client_id": "k6"})
    frames = await frames_until(socket, "reply.done")
    assert frames[0]["message"]["text"] == "allowed again"
    await socket.disconnect()


# --- 6. logout elsewhere -------------------------------------------------------------------


async def test_a_socket_refuses_the_next_frame_after_logout_elsewhere() -> None:
    user, channel = await _owner_and_channel()
    cookie = await database_sync_to_async(session_cookie)(user)
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    socket = WebsocketCommunicator(
        application,
        f"/ws/channels/{channel.pk}/",
        headers=[
            (b"host", b"localhost"),
            (b"origin", b"http://localhost"),
            (b"cookie", cookie.encode()),
        ],
    )
    assert (await socket.connect())[0]
    await socket.send_json_to({"type": "ping"})
    assert (await socket.receive_json_from())["type"] == "pong"

    def logout() -> None:
        client = Client()
        client.cookies.load(cookie)
        assert client.post("/accounts/logout/").status_code in (200, 302)

    await database_sync_to_async(logout)()
    await socket.send_json_to({"type": "instruction", "text": "still me?"})
    closed = await socket.receive_output(timeout=5)
    assert closed["type"] == "websocket.close" and closed["code"] == 4401
    assert await database_sync_to_async(Mission.objects.count)() == 0


# --- 10. a task queued inside a transaction that rolls back ------------------------------

ran: list[int] = []


@app.task
def remember_run(value: int) -> None:
    ran.append(value)


def test_a_task_queued_in_a_rolled_back_transaction_never_runs() -> None:
    ran.clear()
    with pytest.raises(RuntimeError), transaction.atomic():
        remember_run.delay_on_commit(1)
        raise RuntimeError("rolled back")
    with transaction.atomic():
        remember_run.delay_on_commit(2)
    assert ran == [2]


# --- 11. the channel layer drops; resync by id recovers everything ------------------------


class DroppingLayer(InMemoryChannelLayer):
    """Every other event carrying a timeline entry is lost, as to a full channel (Channels'
    group send drops it); the others pass."""

    sent = 0

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        if message.get("kind") in ("message", "reply.done"):
            self.sent += 1
            if self.sent % 2 == 0:
                raise ChannelFull(channel)
        await super().send(channel, message)


async def test_after_dropped_events_a_resync_by_id_returns_every_message(
    settings: Any, fake_openai: FakeOpenAI
) -> None:
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.DroppingLayer"}}
    channel_layers.backends.clear()
    try:
        user, channel = await _owner_and_channel()
        fake_openai.enqueue(*[Reply("word " * 30, chunks=["word "] * 30) for _ in range(3)])
        from llm.gateway import set_provider_override

        set_provider_override(fake_openai.provider())
        _, _, socket = await open_socket(channel.pk, user)
        for n in range(3):
            await database_sync_to_async(instruction_accept)(channel=channel, text=f"task {n}")
        received: list[dict[str, Any]] = []
        while not await socket.receive_nothing(timeout=0.3):
            received.append(await socket.receive_json_from())
        await socket.disconnect()
        seen = {f["message"]["id"] for f in received if "message" in f}

        def resync() -> list[int]:
            client = Client()
            client.force_login(user)
            after = 0
            got: list[int] = []
            while True:
                page = client.get(
                    f"/api/channels/{channel.pk}/messages?after={after}&limit=2"
                ).json()
                got += [m["id"] for m in page["messages"]]
                if not page["has_more"]:
                    return got
                after = got[-1]

        saved = await database_sync_to_async(
            lambda: list(Message.objects.filter(channel=channel).values_list("id", flat=True))
        )()
        resynced = await database_sync_to_async(resync)()
        assert len(saved) == 6 and resynced == sorted(saved)
        assert len(seen) < len(saved)  # the layer really dropped some
    finally:
        from llm.gateway import set_provider_override

        set_provider_override(None)
        channel_layers.backends.clear()


# --- 12. stored HTML and script stay inert -------------------------------------------------


def test_html_in_replies_and_summaries_is_escaped_in_the_admin_and_csp_forbids_inline() -> None:
    from tests.factories import add_finished_missions

    staff = make_user()
    staff.is_staff = staff.is_superuser = True
    staff.save()
    channel = dm_channel(make_office(staff))
    payload = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    add_finished_missions(
        channel.sessions.get(),
        12,
        text=lambda n: (
            f"We decided the banner says {payload} on May {n}.",
            f"Reply {n}: {payload}",
        ),
    )
    client = Client()
    client.force_login(staff)
    summary = channel.sessions.get().summary
    page = client.get(f"/admin/summaries/rollingsummary/{summary.pk}/change/")
    html = page.content.decode()
    assert payload not in html and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    chat = client.get(f"/c/{channel.pk}/")
    assert payload not in chat.content.decode()
    policy = chat["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy


# --- 14. the client leaves during a slow reply ---------------------------------------------


async def test_a_reply_completes_and_is_saved_after_the_client_disconnects(
    settings: Any, fake_openai: FakeOpenAI
) -> None:
    from config.celery import wait_for_background_tasks
    from llm.gateway import set_provider_override

    settings.TASK_RUNNER = "thread"
    fake_openai.enqueue(Reply("slow but sure", chunks=["slow ", "but ", "sure"], chunk_delay=0.3))
    set_provider_override(fake_openai.provider(timeout=5))
    try:
        user, channel = await _owner_and_channel()
        _, _, socket = await open_socket(channel.pk, user)
        await socket.send_json_to({"type": "instruction", "text": "take your time"})
        first = await socket.receive_json_from(timeout=5)
        assert first["type"] == "message"
        await socket.disconnect()
        await database_sync_to_async(wait_for_background_tasks)(30)
        mission = await database_sync_to_async(Mission.objects.get)(channel=channel)
        assert mission.status == "done" and mission.reply == "slow but sure"
    finally:
        set_provider_override(None)
