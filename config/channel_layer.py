"""The channel layers of the two runtimes.

The Redis channel layer with a connection pool sized from settings that waits for a
free connection instead of failing.

channels_redis builds a plain `redis.asyncio.ConnectionPool`, which raises
MaxConnectionsError the moment its pool is used up: a burst of sockets joining their
groups at once was answered with HTTP 500. A `BlockingConnectionPool` makes a join wait
(up to `pool_timeout` seconds) for a connection another join gives back."""

import asyncio
import contextlib
import time
from copy import deepcopy
from typing import Any

from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer
from redis import asyncio as aioredis


class PooledRedisChannelLayer(RedisChannelLayer):
    def __init__(self, *args: Any, pool_max: int = 100, pool_timeout: float = 10, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.pool_max = pool_max
        self.pool_timeout = pool_timeout

    def create_pool(self, index: int) -> aioredis.ConnectionPool:
        host = dict(self.hosts[index])
        address = host.pop("address")
        return aioredis.BlockingConnectionPool.from_url(
            address, max_connections=self.pool_max, timeout=self.pool_timeout, **host
        )


class EmbeddedChannelLayer(InMemoryChannelLayer):
    """Channels' in-memory layer (one process), with a cheaper group send: the event goes
    straight onto each member's queue (Channels starts a task per member and waits on
    them all), and expired messages and memberships are swept at most once a second
    rather than on every send and receive, each sweep walking every socket's queue.
    Messages expire after a minute and memberships after a day: a second late is no
    difference."""

    SWEEP_EVERY = 1.0
    _swept_at = 0.0

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
            queue = self.channels.setdefault(
                channel, asyncio.Queue(maxsize=self.get_capacity(channel))
            )
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait((time.time() + self.expiry, deepcopy(message)))
