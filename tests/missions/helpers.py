from typing import Any

from channels.testing import WebsocketCommunicator


async def frames_until(
    socket: WebsocketCommunicator, stop_type: str, *, count: int = 1, timeout: float = 10
) -> list[dict[str, Any]]:
    """Every frame received until `count` frames of `stop_type` have arrived."""
    frames: list[dict[str, Any]] = []
    seen = 0
    while seen < count:
        frame = await socket.receive_json_from(timeout=timeout)
        frames.append(frame)
        if frame["type"] == stop_type:
            seen += 1
    return frames


def of_type(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [f for f in frames if f["type"] == kind]


async def frames_until_event(
    socket: WebsocketCommunicator, event: str, *, timeout: float = 10
) -> list[dict[str, Any]]:
    """Every frame received until a timeline event message (delegation, report…) arrives."""
    frames: list[dict[str, Any]] = []
    while True:
        frame = await socket.receive_json_from(timeout=timeout)
        frames.append(frame)
        message = frame.get("message") or {}
        if frame["type"] == "message" and message.get("payload", {}).get("event") == event:
            return frames
