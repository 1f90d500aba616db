"""The WebSocket of one channel: parse a frame → authorize → call one service → reply."""

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from office.models import Channel
from office.selectors import channel_get_for_user

# Close code for "not found or not yours": the same for both, so ids leak nothing.
CLOSE_NOT_FOUND = 4404


class ChannelConsumer(AsyncJsonWebsocketConsumer):
    channel: Channel | None = None

    async def connect(self) -> None:
        channel_id = int(self.scope["url_route"]["kwargs"]["channel_id"])
        self.channel = await database_sync_to_async(channel_get_for_user)(
            user=self.scope["user"], channel_id=channel_id
        )
        if self.channel is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.channel_layer.group_add(self.channel.group_name, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.channel is not None:
            await self.channel_layer.group_discard(self.channel.group_name, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})
            return
        await self.send_json(
            {"type": "error", "code": "unknown_type", "message": "Unknown frame type."}
        )

    async def office_event(self, event: dict[str, Any]) -> None:
        """Events broadcast to the channel's group are forwarded as they are."""
        await self.send_json(event["event"])
