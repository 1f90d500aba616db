"""How frames reach a channel's sockets from the threads that produce them
(realtime.events) in the embedded runtime."""

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from realtime import events
from realtime.frames import ReplyDeltaFrame


@pytest.fixture
def server_loop(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[asyncio.AbstractEventLoop]:
    """The embedded layer, and an event loop on its own thread standing in for Daphne's."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "config.channel_layer.EmbeddedChannelLayer"}}
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    monkeypatch.setattr(events, "_server_loop", loop)
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()


def _on(loop: asyncio.AbstractEventLoop, coroutine: Any) -> Any:
    return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout=5)


def test_a_thread_hands_frames_to_a_busy_loop_without_waiting_and_they_arrive_in_order(
    server_loop: asyncio.AbstractEventLoop,
) -> None:
    layer = events.get_channel_layer()
    member = _on(server_loop, layer.new_channel())
    _on(server_loop, layer.group_add(events.group_name(7), member))
    # The loop is busy (serving other sockets): a thread that sends must not wait for it.
    # Daphne's one database thread sends after every accept, and every socket's next
    # instruction queues behind it.
    busy = threading.Event()
    server_loop.call_soon_threadsafe(busy.wait, 10)

    def send_three() -> None:
        for i in range(3):
            events.send_frame(7, ReplyDeltaFrame(mission=1, index=i, text=f"piece {i}"))

    sender = threading.Thread(target=send_three)
    try:
        sender.start()
        sender.join(timeout=2)
        assert not sender.is_alive(), "the sender waited for the busy loop"
    finally:
        busy.set()
    received = [_on(server_loop, layer.receive(member))["event"] for _ in range(3)]
    assert [(e["type"], e["index"], e["text"]) for e in received] == [
        ("reply.delta", 0, "piece 0"),
        ("reply.delta", 1, "piece 1"),
        ("reply.delta", 2, "piece 2"),
    ]


def test_a_frame_sent_on_the_loop_itself_reaches_the_group_at_once(
    server_loop: asyncio.AbstractEventLoop,
) -> None:
    layer = events.get_channel_layer()
    member = _on(server_loop, layer.new_channel())
    other = _on(server_loop, layer.new_channel())
    _on(server_loop, layer.group_add(events.group_name(7), member))
    _on(server_loop, layer.group_add(events.group_name(8), other))

    async def send_then_look() -> int:
        events.send_frame(7, ReplyDeltaFrame(mission=1, index=0, text="now"))
        return layer.channels[member].qsize()

    assert _on(server_loop, send_then_look()) == 1
    assert other not in layer.channels  # another channel's socket hears nothing
