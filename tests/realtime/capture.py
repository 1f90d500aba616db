"""A captured channel layer: every frame the services send (push.events, the one way
frames leave), recorded in order instead of published. Tests assert what was sent, when:
nothing while the transaction that wrote it is open, nothing at all once it rolled
back (save first, push second: docs/design.md §7)."""

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from push import events


@dataclass
class SentFrames:
    # (group, frame as the sockets receive it)
    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def group_send_blocking(self, group: str, message: dict[str, Any]) -> None:
        self.sent.append((group, json.loads(message["text"])))

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.group_send_blocking(group, message)

    def types(self) -> list[str]:
        return [frame["type"] for _, frame in self.sent]

    def to(self, channel_id: int) -> list[dict[str, Any]]:
        return [frame for group, frame in self.sent if group == events.group_name(channel_id)]

    def clear(self) -> None:
        self.sent.clear()


@pytest.fixture(name="frames")
def captured_frames(monkeypatch: pytest.MonkeyPatch) -> Iterator[SentFrames]:
    captured = SentFrames()
    monkeypatch.setattr(events, "get_channel_layer", lambda: captured)
    # Frames go to the socket loop only when one serves the embedded layer; here, to us.
    monkeypatch.setattr(events, "_server_loop", None)
    yield captured
