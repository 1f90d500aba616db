"""The production channel layer (config.channel_layer.RedisPubSubLayer) against a real
Redis: group sends reach each member of every process once and in order, leaving leaves
no subscription behind, and a broken subscription is told to every socket instead of
being papered over."""

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis as redis_sync
from django.conf import settings

from config.channel_layer import LOST, ChannelLayerLost, RedisPubSubLayer
from push import events
from push.frames import ReplyDeltaFrame, frame_json
from tests.reliability.test_workers import _free_port

pytestmark = pytest.mark.redis

NAME = f"office-layer-test-{uuid.uuid4().hex[:8]}"


def _layer(url: str | None = None, **config: Any) -> RedisPubSubLayer:
    # Named, so that a test cuts its own layers' connections and no one else's.
    host = {"address": url or settings.REDIS_URL, "socket_timeout": None, "client_name": NAME}
    # Named as the configured layer is (tests/conftest.py: apart from other test workers').
    layers: dict[str, dict[str, Any]] = settings.CHANNEL_LAYERS
    config.setdefault("prefix", layers["default"].get("CONFIG", {}).get("prefix", "asgi"))
    return RedisPubSubLayer(hosts=[host], **config)


def _cut_subscriptions() -> int:
    """Redis drops these tests' subscription connections (a restart, a network cut)."""
    server = redis_sync.Redis.from_url(settings.REDIS_URL)
    cut = 0
    for client in server.client_list():
        if client["name"] == NAME and "P" in client["flags"]:
            cut += server.client_kill_filter(_id=client["id"])
    return cut


@pytest.fixture
async def layers() -> AsyncIterator[list[RedisPubSubLayer]]:
    """Three layers, as three processes would have: two with sockets, one that sends."""
    made = [_layer(), _layer(), _layer()]
    yield made
    for layer in made:
        await layer.flush()


def _subscribers(layer: RedisPubSubLayer, group: str) -> int:
    [(_, count)] = redis_sync.Redis.from_url(settings.REDIS_URL).pubsub_numsub(
        layer.group_channel(group)
    )
    return int(count)


async def _next(layer: RedisPubSubLayer, channel: str) -> dict[str, Any]:
    return await asyncio.wait_for(layer.receive(channel), 5)


async def _nothing_for(layer: RedisPubSubLayer, channel: str) -> bool:
    """Whether nothing is waiting for `channel` a moment later. (A receive that times out
    would not do: a cancelled receive is a socket closing, and its channel is forgotten.)"""
    await asyncio.sleep(0.3)
    return layer._here().queue(channel).empty()


async def test_a_group_send_reaches_every_member_of_every_process_once_in_order(
    layers: list[RedisPubSubLayer],
) -> None:
    web1, web2, worker = layers
    group = f"g.{uuid.uuid4().hex}"
    a1, a2, b1 = await web1.new_channel(), await web1.new_channel(), await web2.new_channel()
    for layer, channel in ((web1, a1), (web1, a2), (web2, b1)):
        await layer.group_add(group, channel)
    # One subscription per process, however many of its sockets are members.
    assert _subscribers(web1, group) == 2
    for n in range(3):
        await worker.group_send(group, {"type": "office.event", "event": {"n": n, "text": "안녕"}})
    for layer, channel in ((web1, a1), (web1, a2), (web2, b1)):
        got = [await _next(layer, channel) for _ in range(3)]
        assert [m["event"]["n"] for m in got] == [0, 1, 2]
        assert got[0] == {"type": "office.event", "event": {"n": 0, "text": "안녕"}}
        assert await _nothing_for(layer, channel)  # once each

    await web1.group_discard(group, a2)
    await worker.group_send(group, {"type": "office.event", "event": {"n": 3}})
    assert (await _next(web1, a1))["event"]["n"] == 3
    assert (await _next(web2, b1))["event"]["n"] == 3
    assert await _nothing_for(web1, a2)
    assert _subscribers(web1, group) == 2  # web1 still has a member

    await web1.group_discard(group, a1)
    await web2.group_discard(group, b1)
    await web2.group_discard(group, b1)  # a second leave is nothing
    assert _subscribers(web1, group) == 0


async def test_a_thread_without_an_event_loop_publishes_to_every_process_in_order(
    layers: list[RedisPubSubLayer],
) -> None:
    """A task worker's reply thread sends its frames itself (group_send_blocking)."""
    web1, web2, worker = layers
    group = f"g.{uuid.uuid4().hex}"
    a1, b1 = await web1.new_channel(), await web2.new_channel()
    await web1.group_add(group, a1)
    await web2.group_add(group, b1)

    def send_five() -> None:
        for n in range(5):
            text = json.dumps({"n": n, "text": "주간 보고"}, ensure_ascii=False)
            worker.group_send_blocking(group, {"type": "office.event", "text": text})

    await asyncio.to_thread(send_five)
    for layer, channel in ((web1, a1), (web2, b1)):
        got = [json.loads((await _next(layer, channel))["text"]) for _ in range(5)]
        assert got == [{"n": n, "text": "주간 보고"} for n in range(5)]
        assert await _nothing_for(layer, channel)


async def test_a_frame_sent_from_a_worker_thread_does_not_go_through_the_sender_loop(
    layers: list[RedisPubSubLayer], monkeypatch: pytest.MonkeyPatch
) -> None:
    web, worker, _ = layers
    channel = await web.new_channel()
    await web.group_add(events.group_name(41), channel)
    monkeypatch.setattr(events, "get_channel_layer", lambda: worker)

    def no_sender_loop() -> None:
        raise AssertionError("a worker thread handed its frame to the sender loop")

    monkeypatch.setattr(events, "_sender_loop", no_sender_loop)
    frame = ReplyDeltaFrame(mission=9, index=0, text="초안입니다")
    await asyncio.to_thread(events.send_frame, 41, frame)
    got = await _next(web, channel)
    assert json.loads(got["text"]) == frame_json(frame)


async def test_a_member_of_another_group_hears_nothing(layers: list[RedisPubSubLayer]) -> None:
    web, _, worker = layers
    mine, other = f"g.{uuid.uuid4().hex}", f"g.{uuid.uuid4().hex}"
    a, b = await web.new_channel(), await web.new_channel()
    await web.group_add(mine, a)
    await web.group_add(other, b)
    await worker.group_send(mine, {"type": "x"})
    assert await _next(web, a) == {"type": "x"}
    assert await _nothing_for(web, b)


async def test_a_broken_subscription_is_told_to_every_socket_which_can_join_again(
    layers: list[RedisPubSubLayer],
) -> None:
    web, _, worker = layers
    group = f"g.{uuid.uuid4().hex}"
    inside, late, outside = (
        await web.new_channel(),
        await web.new_channel(),
        await web.new_channel(),
    )
    await web.group_add(group, inside)
    await web.group_add(group, late)
    waiting = asyncio.ensure_future(web.receive(inside))
    await asyncio.sleep(0.1)
    assert _cut_subscriptions() == 1
    assert await asyncio.wait_for(waiting, 5) == {"type": LOST}
    # Every socket of the process hears it, in a group or not.
    assert await _next(web, outside) == {"type": LOST}
    # The process forgot its groups: nothing reaches a socket until it joins again.
    await worker.group_send(group, {"type": "lost"})
    assert await _nothing_for(web, inside)
    await web.group_add(group, inside)
    await worker.group_send(group, {"type": "back"})
    assert await _next(web, inside) == {"type": "back"}
    # A socket that has not joined again is no member: it was told, and hears no more.
    assert await _next(web, late) == {"type": LOST}
    assert await _nothing_for(web, late)


async def test_a_silent_reconnect_counts_as_broken(layers: list[RedisPubSubLayer]) -> None:
    """redis-py reconnects a subscription by itself (and subscribes again) when a command
    finds its connection closed: what was published meanwhile is lost, so it is told."""
    web, _, worker = layers
    first, second = f"g.{uuid.uuid4().hex}", f"g.{uuid.uuid4().hex}"
    a, b = await web.new_channel(), await web.new_channel()
    await web.group_add(first, a)
    state = web._here()
    assert state.reader is not None and state.pubsub is not None
    state.reader.cancel()  # hold the reader back, so the next command meets the closed connection
    await asyncio.sleep(0)
    state.reader = None
    assert state.pubsub.connection is not None
    await state.pubsub.connection.disconnect()
    with pytest.raises(ChannelLayerLost):
        await web.group_add(second, b)
    assert await _next(web, a) == {"type": LOST}
    await web.group_add(first, a)
    await worker.group_send(first, {"type": "back"})
    assert await _next(web, a) == {"type": "back"}


async def test_with_redis_down_sockets_open_but_joins_and_sends_fail() -> None:
    layer = _layer(f"redis://127.0.0.1:{_free_port()}/0", pool_timeout=1)
    try:
        channel = await layer.new_channel()  # a socket opens without Redis
        # Its own channel works in the process (the health check's round trip).
        await layer.send(channel, {"type": "healthz"})
        assert await _next(layer, channel) == {"type": "healthz"}
        with pytest.raises(redis_sync.ConnectionError):
            await layer.group_add("g", channel)
        with pytest.raises(redis_sync.ConnectionError):
            await layer.group_send("g", {"type": "x"})
        with pytest.raises(redis_sync.ConnectionError):
            await asyncio.to_thread(layer.group_send_blocking, "g", {"type": "x"})
        # Outside its group, the socket is told to keep trying to join: once, however
        # many joins failed meanwhile.
        for _ in range(3):
            with pytest.raises(redis_sync.ConnectionError):
                await layer.group_add("g", channel)
        assert await _next(layer, channel) == {"type": LOST}
        assert await _nothing_for(layer, channel)
        with pytest.raises(redis_sync.ConnectionError):
            await layer.group_add("g", channel)
        assert await _next(layer, channel) == {"type": LOST}
    finally:
        await layer.flush()


@dataclass
class _Small:
    """A socket's layer that holds two events, its channel in a group, and a worker's
    layer that sends to the group."""

    web: RedisPubSubLayer
    worker: RedisPubSubLayer
    group: str
    channel: str

    async def send(self, numbers: range) -> None:
        for n in numbers:
            await self.worker.group_send(self.group, {"type": "x", "n": n})
        await asyncio.sleep(0.3)

    async def next(self) -> dict[str, Any]:
        return await _next(self.web, self.channel)


@pytest.fixture
async def small() -> AsyncIterator[_Small]:
    web, worker = _layer(capacity=2), _layer()
    try:
        group, channel = f"g.{uuid.uuid4().hex}", await web.new_channel()
        await web.group_add(group, channel)
        yield _Small(web, worker, group, channel)
    finally:
        await web.flush()
        await worker.flush()


async def test_a_socket_that_stops_reading_loses_events_but_not_the_breakage(
    small: _Small,
) -> None:
    await small.send(range(3))
    assert _cut_subscriptions() == 1
    await asyncio.sleep(0.3)
    # Full at two: the third was dropped, and the oldest made room for the breakage.
    assert (await small.next())["n"] == 1
    assert await small.next() == {"type": LOST}


async def test_a_socket_that_falls_behind_is_told_once_in_place_of_its_oldest_event(
    small: _Small,
) -> None:
    await small.send(range(5))
    # Full at two: the third gave the oldest's place to the news, the rest were lost.
    assert (await small.next())["n"] == 1
    assert await small.next() == {"type": LOST}
    assert await _nothing_for(small.web, small.channel)
    # Told and caught up: falling behind again tells it again.
    await small.send(range(5, 8))
    assert (await small.next())["n"] == 6
    assert await small.next() == {"type": LOST}


async def test_a_closed_socket_is_forgotten(layers: list[RedisPubSubLayer]) -> None:
    web = layers[0]
    channel = await web.new_channel()
    receiving = asyncio.ensure_future(web.receive(channel))
    await asyncio.sleep(0.05)
    receiving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await receiving
    assert channel not in web._here().channels
    with pytest.raises(NotImplementedError):
        await web.send(channel, {"type": "x"})
