"""The embedded runtime's channel layer (config.channel_layer.EmbeddedChannelLayer)."""

import asyncio
from typing import Any

from django.conf import settings

from config.channel_layer import LOST, EmbeddedChannelLayer


async def test_a_group_send_reaches_every_member_in_the_order_sent() -> None:
    layer = EmbeddedChannelLayer()
    a, b, other = [await layer.new_channel() for _ in range(3)]
    await layer.group_add("channel.1", a)
    await layer.group_add("channel.1", b)
    await layer.group_add("channel.2", other)
    for n in range(3):
        await layer.group_send("channel.1", {"type": "office.event", "n": n})
    for member in (a, b):
        assert [(await layer.receive(member))["n"] for _ in range(3)] == [0, 1, 2]
    assert other not in layer.channels  # nothing was sent to another group


async def test_a_member_that_falls_behind_is_told_once_and_the_others_still_get_all() -> None:
    layer = EmbeddedChannelLayer(capacity=3)
    slow, calm = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("channel.1", slow)
    await layer.group_add("channel.1", calm)
    for n in range(6):
        await layer.group_send("channel.1", {"type": "office.event", "n": n})
        await layer.receive(calm)
    # Full at three: the fourth event gave the oldest's place to the news that events
    # were lost; the fifth and sixth were lost without a second notice.
    assert [await layer.receive(slow) for _ in range(3)] == [
        {"type": "office.event", "n": 1},
        {"type": "office.event", "n": 2},
        {"type": LOST},
    ]
    # Told and caught up: falling behind again tells it again.
    for n in range(6, 10):
        await layer.group_send("channel.1", {"type": "office.event", "n": n})
    received = [await layer.receive(slow) for _ in range(3)]
    assert received[-1] == {"type": LOST}


def test_a_socket_holds_channel_capacity_events_whichever_the_layer() -> None:
    # Channels' in-memory default (100) was reached by one person's burst of instructions.
    from channels.layers import get_channel_layer

    assert EmbeddedChannelLayer().capacity == 1000
    layers: dict[str, dict[str, Any]] = settings.CHANNEL_LAYERS
    assert get_channel_layer().capacity == layers["default"]["CONFIG"]["capacity"] == 1000


async def test_each_member_gets_its_own_copy() -> None:
    layer = EmbeddedChannelLayer()
    a, b = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("channel.1", a)
    await layer.group_add("channel.1", b)
    await layer.group_send("channel.1", {"type": "office.event", "event": {"text": "x"}})
    first = await layer.receive(a)
    first["event"]["text"] = "changed"
    assert (await layer.receive(b))["event"]["text"] == "x"
    # A flat event (a frame serialized once) is copied, not shared.
    await layer.group_send("channel.1", {"type": "office.event", "text": "{}"})
    first = await layer.receive(a)
    first["text"] = "changed"
    assert (await layer.receive(b)) == {"type": "office.event", "text": "{}"}


async def test_expired_events_are_swept_at_most_once_a_sweep_interval() -> None:
    layer = EmbeddedChannelLayer(expiry=0)
    layer.SWEEP_EVERY = 0.2
    gone, member = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("channel.1", gone)
    await layer.group_send("channel.1", {"type": "office.event"})  # expires at once
    await layer.group_add("channel.1", member)
    await layer.group_send("channel.1", {"type": "office.event"})
    # Swept on the first send only: the expired event is still queued.
    assert not layer.channels[gone].empty()
    await asyncio.sleep(0.25)
    await layer.group_send("channel.2", {"type": "office.event"})
    # A channel whose event expired unheard is dropped from its groups, as in Channels.
    assert gone not in layer.channels and gone not in layer.groups["channel.1"]
