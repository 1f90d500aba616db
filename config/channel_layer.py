"""The Redis channel layer with a connection pool sized from settings that waits for a
free connection instead of failing.

channels_redis builds a plain `redis.asyncio.ConnectionPool`, which raises
MaxConnectionsError the moment its pool is used up: a burst of sockets joining their
groups at once was answered with HTTP 500. A `BlockingConnectionPool` makes a join wait
(up to `pool_timeout` seconds) for a connection another join gives back."""

from typing import Any

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
