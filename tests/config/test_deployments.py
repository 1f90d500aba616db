"""Issue 42, point 4: two deployments on one Redis server share nothing. Redis publish/
subscribe ignores database numbers, so the channel layer's events, the cache (rate-limit
counters) and Celery's queues are named under a prefix of each deployment (`REDIS_PREFIX`,
by default derived from its SECRET_KEY): here two stacks with the very same DATABASE_URL and
REDIS_URL (two copies of docker-compose.yml pointed at one Redis) differ in their keys only.
"""

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from django.conf import settings as django_settings
from kombu import Connection

from config.throttle import Window, throttle_hit
from push import events
from push.frames import ReplyDeltaFrame
from tests.factories import dm_channel, make_office, make_user
from tests.ws import open_socket

ROOT = Path(__file__).resolve().parents[2]

# Every variable but these comes from the deployment's own environment.
_OURS = ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "REDIS_PREFIX", "OFFICE_ENV", "TEST_")

_PRINT = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'prefix': s.REDIS_PREFIX, 'layers': s.CHANNEL_LAYERS, "
    "'caches': s.CACHES, 'broker': s.CELERY_BROKER_TRANSPORT_OPTIONS, "
    "'results': s.CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS}))"
)


def _stack(**env: str) -> dict[str, Any]:
    """The Redis-facing settings of a process of a deployment with this environment."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(_OURS)}
    clean.update(
        OFFICE_ENV="production",
        ALLOWED_HOSTS="office.example.com",
        # As both copies of docker-compose.yml would say, pointed at one Redis.
        DATABASE_URL="postgres://office:office@postgres:5432/office",
        REDIS_URL=django_settings.REDIS_URL or "redis://127.0.0.1:6379/0",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    clean.update(env)
    result = subprocess.run(
        [sys.executable, "-c", _PRINT],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    stack: dict[str, Any] = json.loads(result.stdout)
    return stack


KEY_A = "A7tq_Xw3-LmZp9RvKc2NhUe5YbFgDs8JoWi4TaQy6EnVr1OxHlBuMk0CjPzGd-sS"
KEY_B = "bR4uYk_9QeTz2WnLxHc7MpVa5JsDgFo3KiXq8ZtBm1NyEr6UwCl0PhGj-vSdAf_T"


@pytest.fixture(scope="module")
def stacks() -> tuple[dict[str, Any], dict[str, Any]]:
    return _stack(SECRET_KEY=KEY_A), _stack(SECRET_KEY=KEY_B)


def _use(settings: Any, stack: dict[str, Any]) -> None:
    """This process now talks to Redis as a process of `stack` does."""
    layers = stack["layers"]
    layers["default"]["CONFIG"]["hosts"][0]["address"] = django_settings.REDIS_URL
    settings.CHANNEL_LAYERS = layers
    channel_layers.backends.clear()


def test_the_processes_of_one_deployment_agree_and_two_deployments_differ(
    stacks: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    a, b = stacks
    # The worker's environment differs from the web process's (its own pool size).
    worker = _stack(SECRET_KEY=KEY_A, DATABASE_POOL_MAX="16")
    assert worker["prefix"] == a["prefix"]
    assert a["prefix"] != b["prefix"]
    for stack in (a, b):
        prefix = stack["prefix"]
        assert stack["layers"]["default"]["CONFIG"]["prefix"] == prefix
        assert stack["caches"]["default"]["KEY_PREFIX"] == prefix
        assert stack["broker"]["global_keyprefix"].startswith(prefix)
        assert stack["results"]["global_keyprefix"].startswith(prefix)
    # The key itself is nowhere in its prefix.
    assert KEY_A[:8] not in a["prefix"]


def test_redis_prefix_is_taken_as_given_and_a_bad_one_stops_start_up() -> None:
    assert _stack(SECRET_KEY=KEY_A, REDIS_PREFIX="office-staging")["prefix"] == "office-staging"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(_OURS)}
    clean.update(REDIS_PREFIX="has space", DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "REDIS_PREFIX" in result.stderr.strip().splitlines()[-1]


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
async def test_a_stack_s_events_and_log_outs_never_reach_the_other_stack_s_sockets(
    stacks: tuple[dict[str, Any], dict[str, Any]], settings: Any
) -> None:
    a, b = stacks
    # Stack B's web process serves a socket: channel c, user u.
    _use(settings, b)
    user = await database_sync_to_async(make_user)()
    channel = await database_sync_to_async(lambda: dm_channel(make_office(user)))()
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}

    # Stack A's worker streams a reply on its own channel of the same id, and its user of
    # the same id logs out.
    _use(settings, a)
    delta = ReplyDeltaFrame(mission=1, index=0, text="A의 답장 — stack A's reply")
    await asyncio.to_thread(events.send_frame, channel.pk, delta)
    await asyncio.to_thread(events.send_login_ended, user.pk)
    assert await socket.receive_nothing(timeout=0.5)
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}

    # Stack B's own worker does reach it (so the silence above is not a deaf socket).
    _use(settings, b)
    await asyncio.to_thread(events.send_frame, channel.pk, delta)
    got = await socket.receive_json_from(timeout=5)
    assert got["type"] == "reply.delta" and got["text"] == delta.text
    await asyncio.to_thread(events.send_login_ended, user.pk)
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}
    await socket.disconnect()


@pytest.mark.redis
def test_rate_limit_counters_are_counted_per_deployment(
    stacks: tuple[dict[str, Any], dict[str, Any]], settings: Any
) -> None:
    a, b = stacks
    window = Window(scope=f"signup-{uuid.uuid4().hex[:6]}", limit=5, seconds=3600)
    settings.CACHES = a["caches"]
    assert all(throttle_hit(window, "203.0.113.9").allowed for _ in range(5))
    assert not throttle_hit(window, "203.0.113.9").allowed
    # The same address signs up to stack B: its own count, untouched by A's.
    settings.CACHES = b["caches"]
    assert throttle_hit(window, "203.0.113.9").allowed
    settings.CACHES = a["caches"]
    assert not throttle_hit(window, "203.0.113.9").allowed


def _celery(stack: dict[str, Any]) -> Celery:
    app = Celery(set_as_current=False)
    app.conf.update(
        broker_url=django_settings.REDIS_URL,
        broker_transport="config.broker:Transport",
        broker_transport_options=stack["broker"],
    )
    return app


def _take(app: Celery, queue: str) -> list[Any]:
    taken = []
    with Connection(
        django_settings.REDIS_URL,
        transport="config.broker:Transport",
        transport_options=app.conf.broker_transport_options,
    ) as connection:
        simple = connection.SimpleQueue(queue)
        while True:
            try:
                message = simple.get(block=False)
            except simple.Empty:
                break
            taken.append(message.decode()[0])  # the task's args
            message.ack()
        simple.close()
    return taken


@pytest.mark.redis
def test_a_stack_s_tasks_are_never_taken_by_the_other_stack_s_workers(
    stacks: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    a, b = (_celery(stack) for stack in stacks)
    queue = f"replies-{uuid.uuid4().hex[:6]}"
    a.send_task("missions.tasks.mission_run", args=[4242], queue=queue)
    b.send_task("missions.tasks.mission_run", args=[77], queue=queue)
    assert _take(b, queue) == [[77]]
    assert _take(a, queue) == [[4242]]


@pytest.mark.redis
def test_a_stack_s_control_commands_reach_its_own_workers_only(
    stacks: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Celery's control commands (the health check's `inspect ping`) go out over pub/sub,
    which no database number separates."""
    from tests.reliability.test_workers import BIN, Proc

    env = {k: v for k, v in os.environ.items() if not k.startswith(_OURS)}
    env.update(
        SECRET_KEY=KEY_A,
        REDIS_URL=django_settings.REDIS_URL,
        TASK_RUNNER="celery",
        PYTHONUNBUFFERED="1",
    )
    name = f"replies-{uuid.uuid4().hex[:6]}@test"
    command = [str(BIN / "celery"), "-A", "config", "worker", "-Q", "replies", "-n", name]
    worker = Proc(
        [*command, "--pool=threads", "--concurrency=1", "--loglevel=INFO"], env, ready=" ready."
    )
    try:
        a, b = (_celery(stack) for stack in stacks)
        answered_a = a.control.ping(destination=[name], timeout=2.0)
        answered_b = b.control.ping(destination=[name], timeout=2.0)
    finally:
        worker.stop()
    assert [next(iter(reply)) for reply in answered_a or []] == [name]
    assert not answered_b
