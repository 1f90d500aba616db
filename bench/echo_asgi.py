"""A bare Daphne + Channels echo of the office's frames: the ceiling bench/concurrency.py
measures the office against, in the same run, with the same client code.

One Channels consumer on the office's WebSocket route (/ws/channels/<id>/), no
authentication, no database, no channel layer, no model: it answers each `instruction`
frame at once with the frames the office sends for a mission (the instruction echoed as a
`message`, one `reply.delta`, `reply.done` carrying the reply), shaped like the
office's, so the clients parse and match them exactly as they do the real ones.

Served by Daphne:  daphne -b 127.0.0.1 -p PORT bench.echo_asgi:application
"""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime
from typing import Any

from django.conf import settings

if not settings.configured:
    # Channels reads CHANNEL_LAYERS from Django's settings; none is configured here.
    settings.configure(DEBUG=False, CHANNEL_LAYERS={}, USE_TZ=True)

from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import ProtocolTypeRouter, URLRouter
from django.urls import path

_ids = itertools.count(1)


def _message(
    channel: int, mission: int, kind: str, text: str, payload: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": next(_ids),
        "channel": channel,
        "session": channel,
        "mission": mission,
        "kind": kind,
        "author": "Echo" if kind == "employee" else None,
        "text": text,
        "payload": payload,
        "created_at": datetime.now(UTC).isoformat(),
    }


class EchoConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.channel_id = int(self.scope["url_route"]["kwargs"]["channel_id"])
        self.seq = 0
        await self.accept()

    async def send_json(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(frame, ensure_ascii=False))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame = json.loads(text_data or "{}")
        if frame.get("type") != "instruction":
            await self.send_json({"type": "pong"})
            return
        self.seq += 1
        mission = next(_ids)
        text = str(frame.get("text", ""))
        reply = "Echo: " + text
        payload = {"client_id": frame.get("client_id", ""), "seq": self.seq}
        echoed = _message(self.channel_id, mission, "user", text, payload)
        await self.send_json({"type": "message", "message": echoed})
        await self.send_json({"type": "reply.delta", "mission": mission, "index": 0, "text": reply})
        done = _message(self.channel_id, mission, "employee", reply, {"seq": self.seq})
        usage = dict(prompt_chars=len(text), prompt_tokens=0, cached_tokens=0, completion_tokens=0)
        await self.send_json(
            {"type": "reply.done", "mission": mission, "message": done, "usage": usage}
        )


application = ProtocolTypeRouter(
    {"websocket": URLRouter([path("ws/channels/<int:channel_id>/", EchoConsumer.as_asgi())])}
)
