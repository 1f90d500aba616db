"""Events handed to a socket's handlers without a trip to the database thread.

Channels' own `AsyncConsumer.dispatch` first closes stale database connections
(`aclose_old_connections`) before every event, on the one thread that runs the sockets'
database calls in Daphne. Every event each socket receives pays it, the broadcasts
(reply deltas, timeline entries) that touch no database included: bench/dispatch.py
measured it at twice the CPU of delivering a broadcast event (docs/benchmarks.md). Here
the handlers that use the database do so through `database_sync_to_async`, which closes
stale connections itself around each call, so the trip is only skipped, not lost."""

from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer


class DirectDispatchConsumer(AsyncWebsocketConsumer):
    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels' dispatch, but for the aclose_old_connections() before each handler.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
