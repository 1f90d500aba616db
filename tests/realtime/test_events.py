"""How frames reach a channel's sockets from the threads that produce them
(push.events) in the embedded runtime."""

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from push import events
from push.frames import ReplyDeltaFrame, frame_json, frame_text
from realtime.consumers import ChannelConsumer


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
    received = [json.loads(_on(server_loop, layer.receive(member))["text"]) for _ in range(3)]
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


def test_a_frame_is_serialized_once_and_every_member_gets_the_same_text(
    server_loop: asyncio.AbstractEventLoop,
) -> None:
    layer = events.get_channel_layer()
    members = [_on(server_loop, layer.new_channel()) for _ in range(2)]
    for member in members:
        _on(server_loop, layer.group_add(events.group_name(7), member))
    frame = ReplyDeltaFrame(mission=1, index=0, text='회의록 "초안" 정리\n')
    events.send_frame(7, frame)
    got = [_on(server_loop, layer.receive(member)) for member in members]
    assert (
        got[0]
        == got[1]
        == {
            "type": "office.event",
            "kind": "reply.delta",
            "text": frame_text(frame),
        }
    )
    assert got[0] is not got[1]  # each socket its own envelope
    # The text is the frame's JSON, Korean as itself (not escaped).
    assert json.loads(got[0]["text"]) == frame_json(frame)
    assert "회의록" in got[0]["text"]


def test_frame_text_is_the_frames_json_and_survives_a_lone_surrogate() -> None:
    frame = ReplyDeltaFrame(mission=3, index=2, text="안녕 hello")
    assert (
        json.loads(frame_text(frame))
        == frame_json(frame)
        == {
            "type": "reply.delta",
            "mission": 3,
            "index": 2,
            "text": "안녕 hello",
        }
    )
    # No UTF-8 form: sent as a JSON escape, read back as the same string.
    odd = ReplyDeltaFrame(mission=3, index=2, text="a\ud800b")
    text = frame_text(odd)
    text.encode()
    assert json.loads(text)["text"] == "a\ud800b"


async def test_a_socket_forwards_the_text_as_sent_and_still_reads_the_older_envelope() -> None:
    consumer = ChannelConsumer()
    sent: list[str | None] = []

    async def send(text_data: str | None = None, **_: Any) -> None:
        sent.append(text_data)

    consumer.send = send
    text = frame_text(ReplyDeltaFrame(mission=1, index=0, text="보고서"))
    await consumer.office_event({"type": "office.event", "kind": "reply.delta", "text": text})
    # A worker of the previous version, during a rolling restart, sends the frame as a dict.
    await consumer.office_event({"type": "office.event", "event": {"type": "x", "text": "안녕"}})
    assert sent[0] is text
    assert json.loads(sent[1] or "") == {"type": "x", "text": "안녕"}
