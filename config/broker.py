"""The Celery broker transport: kombu's Redis transport, building one redis-py client per
channel instead of one per call.

kombu builds a new client object for every message it publishes and for each step of a
worker's bookkeeping of the messages it has taken (recorded as unacknowledged, then
acknowledged), all on the same connection pool. Building one costs about 0.17 ms of CPU
with redis-py 8, several times per mission: 6 % of the replies worker's interpreter-lock
time in a sampling profile of the concurrency benchmark's scenario 2, and 2 % of
Daphne's. A client is safe to share between threads (each command takes a connection
from the pool; a pipeline is an object of its own), so the synchronous one is kept. The
asynchronous client of the worker's event loop is built as before."""

from __future__ import annotations

from typing import Any

from kombu.transport import redis


class Channel(redis.Channel):
    _shared_client: Any = None

    def _create_client(self, asynchronous: bool = False) -> Any:
        if asynchronous:
            return super()._create_client(asynchronous=True)  # type: ignore[misc]
        if self._shared_client is None:
            self._shared_client = super()._create_client(asynchronous=False)  # type: ignore[misc]
        return self._shared_client


class Transport(redis.Transport):
    Channel = Channel
