"""The channel layers of the two runtimes: the in-memory layer of the embedded one, and
Redis publish/subscribe for production."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
import weakref
from copy import deepcopy
from typing import Any

from channels.layers import BaseChannelLayer, InMemoryChannelLayer
from channels_redis.serializers import registry
from redis import BlockingConnectionPool
from redis import Redis as SyncRedis
from redis import asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.retry import Retry

logger = logging.getLogger(__name__)


class ChannelLayerLost(ConnectionError):
    """The layer's subscription to Redis broke: events sent meanwhile did not arrive."""


# Put on every socket's queue when the subscription breaks: its receive() returns LOST.
_LOST = object()
# What a socket receives, as an event of its own, once the subscription broke: events sent
# meanwhile did not arrive and its groups are forgotten. An event, not an exception: raised
# in the consumer's receive, an exception closes the socket (1011), and it must stay open.
LOST = "channel_layer.lost"

# Seconds a synchronous publish waits to connect or for Redis's answer.
BLOCKING_TIMEOUT = 2.0


class RedisPubSubLayer(BaseChannelLayer):
    """Redis publish/subscribe for production. A group send is one PUBLISH, which Redis
    pushes once to every process with a member in the group, and that process puts it on
    each member's queue. channels_redis's list-based layer writes a copy per member, which
    each socket then pops from its own list: in the concurrency benchmark that was about a
    quarter of Daphne's CPU per mission, and its group sends a tenth of a worker's.

    An outage is not papered over. channels_redis's own pub/sub layer reconnects and
    subscribes again silently, and what was sent meanwhile is lost without anyone knowing.
    Here, when the subscription connection breaks (or is found reconnected), every socket
    receives a `channel_layer.lost` event (LOST) and the process forgets its groups: each
    socket then rejoins and asks its client to fetch what it missed by id. While
    Redis is down, group_add and group_send raise, and new_channel does not need Redis.

    Groups are what the office uses; `send` reaches the channels of this process only (a
    socket's own channel is never sent to from elsewhere). State is kept per event loop
    (Daphne's, a task worker's sender loop), as asyncio objects belong to one loop."""

    extensions = ["groups", "flush"]

    def __init__(
        self,
        hosts: list[dict[str, Any]],
        prefix: str = "asgi",
        capacity: int = 1000,
        pool_max: int = 100,
        pool_timeout: float = 10,
        serializer_format: str = "msgpack",
        symmetric_encryption_keys: list[str] | None = None,
    ) -> None:
        super().__init__(capacity=capacity)
        if len(hosts) != 1 or "address" not in hosts[0]:
            raise ValueError("RedisPubSubLayer takes one host: [{'address': 'redis://…'}]")
        self.host = dict(hosts[0])
        self.prefix = prefix
        self.pool_max = pool_max
        self.pool_timeout = pool_timeout
        self.serializer = registry.get_serializer(
            serializer_format, symmetric_encryption_keys=symmetric_encryption_keys
        )
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )
        # Synchronous sends (group_send_blocking): one client, made when first needed.
        self._blocking: SyncRedis | None = None
        self._blocking_lock = threading.Lock()

    def _here(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            state = self._loops[loop] = _LoopState(self)
        return state

    def group_channel(self, group: str) -> str:
        """The Redis channel a group's events are published on."""
        return f"{self.prefix}:group:{group}"

    async def new_channel(self, prefix: str = "specific.") -> str:
        name = f"{self.prefix}.{prefix}{uuid.uuid4().hex}"
        self._here().queue(name)
        return name

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        queue = self._here().channels.get(channel)
        if queue is None:
            raise NotImplementedError("RedisPubSubLayer sends only to channels of this process")
        with contextlib.suppress(asyncio.QueueFull):
            queue.put_nowait(self.serializer.serialize(message))

    async def receive(self, channel: str) -> dict[str, Any]:
        self.require_valid_channel_name(channel)
        state = self._here()
        try:
            item = await state.queue(channel).get()
        except (asyncio.CancelledError, GeneratorExit):
            # The socket is closing (Channels cancels its receive): forget its channel.
            state.channels.pop(channel, None)
            state.told.discard(channel)
            raise
        if item is _LOST:
            state.told.discard(channel)
            return {"type": LOST}
        message: dict[str, Any] = self.serializer.deserialize(item)
        return message

    async def group_add(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        state = self._here()
        name = self.group_channel(group)
        await state.subscribe(name)  # raises while Redis is down: not a member then
        state.groups.setdefault(name, set()).add(channel)

    async def group_discard(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        state = self._here()
        name = self.group_channel(group)
        members = state.groups.get(name)
        if members is None or channel not in members:
            return
        members.discard(channel)
        if members:
            return
        del state.groups[name]
        try:
            await state.unsubscribe(name)
        except Exception:
            # Still subscribed: the member stays, so that a retry leaves again.
            state.groups.setdefault(name, set()).add(channel)
            raise

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        await self._here().redis.publish(
            self.group_channel(group), self.serializer.serialize(message)
        )

    def group_send_blocking(self, group: str, message: dict[str, Any]) -> None:
        """The group send for synchronous code (a task worker's threads): one PUBLISH on a
        pooled connection, from the calling thread. Handing it to an event loop instead
        costs two thread hand-overs per event, and a reply sends a few. The events one
        thread sends are published in the order it sent them. While Redis is down it
        raises after one quick retry: a reply must not wait on its frames (a lost event is
        recovered by the client's resync)."""
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        self._blocking_client().publish(
            self.group_channel(group), self.serializer.serialize(message)
        )

    def _blocking_client(self) -> SyncRedis:
        # One per layer; redis-py's pool itself drops the parent's connections in a fork.
        with self._blocking_lock:
            if self._blocking is None:
                options = dict(self.host)
                address = options.pop("address")
                options.setdefault("socket_connect_timeout", BLOCKING_TIMEOUT)
                if options.get("socket_timeout") is None:
                    # The subscription's "wait forever" is not for a publish.
                    options["socket_timeout"] = BLOCKING_TIMEOUT
                pool = BlockingConnectionPool.from_url(
                    address, max_connections=self.pool_max, timeout=self.pool_timeout, **options
                )
                self._blocking = SyncRedis(connection_pool=pool, retry=Retry(NoBackoff(), 1))
            return self._blocking

    async def flush(self) -> None:
        state = self._loops.pop(asyncio.get_running_loop(), None)
        if state is not None:
            await state.close()


class _LoopState:
    """One event loop's sockets, groups and Redis connections."""

    def __init__(self, layer: RedisPubSubLayer) -> None:
        self.layer = layer
        self.channels: dict[str, asyncio.Queue[Any]] = {}
        self.groups: dict[str, set[str]] = {}  # Redis channel of a group -> its members here
        self.told: set[str] = set()  # channels with a ChannelLayerLost waiting in their queue
        options = dict(layer.host)
        address = options.pop("address")
        # Publishing: a pool, where a burst waits for a free connection.
        self.redis = aioredis.Redis(
            connection_pool=aioredis.BlockingConnectionPool.from_url(
                address, max_connections=layer.pool_max, timeout=layer.pool_timeout, **options
            )
        )
        # Subscribing: one connection that is never retried or reconnected behind our back.
        self._subscriber_pool = aioredis.ConnectionPool.from_url(
            address, retry=AsyncRetry(NoBackoff(), 0), **options
        )
        self.pubsub: _PubSub | None = None
        self.subscribed: set[str] = set()  # what the subscription has asked Redis for
        self.reader: asyncio.Task[None] | None = None
        self.lock = asyncio.Lock()
        self._closing: set[asyncio.Task[None]] = set()

    def queue(self, channel: str) -> asyncio.Queue[Any]:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.layer.get_capacity(channel))
        return queue

    async def subscribe(self, name: str) -> None:
        async with self.lock:
            pubsub = self.pubsub
            if pubsub is None:
                pubsub = self.pubsub = _PubSub(self._subscriber_pool, state=self)
            if name in self.subscribed:
                return
            try:
                await pubsub.subscribe(name)
            except Exception:
                self.lost(pubsub)
                raise
            self.subscribed.add(name)
            if self.reader is None:
                self.reader = asyncio.ensure_future(self._read(pubsub))

    async def unsubscribe(self, name: str) -> None:
        async with self.lock:
            pubsub = self.pubsub
            if pubsub is None or name not in self.subscribed:
                return
            self.subscribed.discard(name)
            try:
                await pubsub.unsubscribe(name)
            except Exception:
                self.lost(pubsub)
                raise

    async def _read(self, pubsub: _PubSub) -> None:
        try:
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
                if message is not None and message["type"] == "message":
                    self._deliver(message["channel"].decode(), message["data"])
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            logger.warning("the subscription to Redis broke: %s", exc)
            self.lost(pubsub)

    def _deliver(self, name: str, data: bytes) -> None:
        for channel in self.groups.get(name, ()):
            queue = self.channels.get(channel)
            if queue is not None:
                try:
                    queue.put_nowait(data)
                except asyncio.QueueFull:
                    self.overflowed(channel, queue)

    def overflowed(self, channel: str, queue: asyncio.Queue[Any]) -> None:
        """A socket fell CHANNEL_CAPACITY events behind: it loses this one, and is told
        once (LOST, in place of its oldest event) so that its client resyncs by id."""
        if channel not in self.told:
            queue.get_nowait()
            queue.put_nowait(_LOST)
            self.told.add(channel)

    def lost(self, pubsub: _PubSub) -> None:
        """`pubsub` broke: forget it and every group, and tell every socket."""
        if pubsub is not self.pubsub:
            return  # already handled
        self.pubsub = None
        reader, self.reader = self.reader, None
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
        closing = asyncio.ensure_future(_close_quietly(pubsub))
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)
        self.subscribed.clear()
        self.groups.clear()
        for channel, queue in self.channels.items():
            if channel in self.told:
                continue  # one notice waiting is enough (joins failing while Redis is down)
            if queue.full():
                queue.get_nowait()  # the oldest event gives way: this one must arrive
            queue.put_nowait(_LOST)
            self.told.add(channel)

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
        if self.pubsub is not None:
            await _close_quietly(self.pubsub)
        self.reader = self.pubsub = None
        self.subscribed.clear()
        self.told.clear()
        self.channels.clear()
        self.groups.clear()
        await self.redis.aclose(close_connection_pool=True)
        await self._subscriber_pool.aclose()


class _PubSub(PubSub):
    """redis-py's subscription, which tells its loop's state when it connects again:
    it then subscribes again by itself, and whatever was published meanwhile is lost."""

    def __init__(self, pool: aioredis.ConnectionPool, *, state: _LoopState) -> None:
        super().__init__(pool)
        self._state = state
        self._connected = False

    async def connect(self) -> None:
        first = self.connection is None
        await super().connect()
        # The pool hands the first connection over connected, without calling on_connect.
        self._connected = self._connected or first

    async def on_connect(self, connection: Any) -> None:
        if self._connected:
            self._state.lost(self)
            raise ChannelLayerLost("the subscription to Redis was reconnected")
        self._connected = True
        await super().on_connect(connection)


async def _close_quietly(pubsub: PubSub) -> None:
    with contextlib.suppress(Exception):
        await pubsub.aclose()


_IMMUTABLE = (str, int, float, bool, type(None))


def _copy(message: dict[str, Any]) -> dict[str, Any]:
    """Each member's own copy of an event. An office event is a flat dict of strings (its
    frame already serialized): copying the dict is enough. Anything nested is deep-copied,
    as Channels does."""
    if all(isinstance(value, _IMMUTABLE) for value in message.values()):
        return dict(message)
    return deepcopy(message)


class EmbeddedChannelLayer(InMemoryChannelLayer):
    """Channels' in-memory layer (one process), with a cheaper group send: the event goes
    straight onto each member's queue (Channels starts a task per member and waits on
    them all), and expired messages and memberships are swept at most once a second
    rather than on every send and receive, each sweep walking every socket's queue.
    Messages expire after a minute and memberships after a day: a second late is no
    difference.

    A socket that falls `capacity` (CHANNEL_CAPACITY) events behind loses the next ones,
    as in Channels, but is told so once, as the Redis layer tells it of an outage: a LOST
    event takes the place of its oldest, and the socket asks its client to resync by id
    (realtime.rejoin). Channels' own default, 100, was reached by one person's burst of
    instructions answered at once, and the page then waited for echoes that never came."""

    SWEEP_EVERY = 1.0
    _swept_at = 0.0

    def __init__(self, capacity: int = 1000, **kwargs: Any) -> None:
        super().__init__(capacity=capacity, **kwargs)
        # The sockets with a LOST event waiting in their queue.
        self._told: set[str] = set()

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept_at >= self.SWEEP_EVERY:
            self._swept_at = now
            super()._clean_expired()

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.group_send_now(group, message)

    def group_send_now(self, group: str, message: dict[str, Any]) -> None:
        """The group send itself, which never waits (a member whose queue is full loses
        the event, as in Channels). Only the event loop that serves the sockets may call
        it: a thread hands it over with `loop.call_soon_threadsafe`, so the events one
        thread sends arrive in the order it sent them."""
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            queue = self.channels.get(channel)
            if queue is None:  # (setdefault would build a queue on every send)
                queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
            try:
                queue.put_nowait((time.time() + self.expiry, _copy(message)))
            except asyncio.QueueFull:
                self._overflowed(channel, queue)

    def _overflowed(self, channel: str, queue: asyncio.Queue[Any]) -> None:
        """A socket fell CHANNEL_CAPACITY events behind: it loses this one, and is told
        once (a LOST event in place of its oldest) so that its client resyncs by id."""
        if channel not in self._told:
            queue.get_nowait()
            queue.put_nowait((time.time() + self.expiry, {"type": LOST}))
            self._told.add(channel)

    async def receive(self, channel: str) -> dict[str, Any]:
        message: dict[str, Any] = await super().receive(channel)
        if message.get("type") == LOST:
            self._told.discard(channel)
        return message

    async def group_discard(self, group: str, channel: str) -> None:
        await super().group_discard(group, channel)
        self._told.discard(channel)
