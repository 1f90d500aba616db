"""A socket told that the channel layer was lost stays open under Channels' own receive loop
and dispatch, takes its client's frames meanwhile, and once back in its groups closes with
CLOSE_RECONNECT (realtime.rejoin; the Redis outage itself: tests/reliability)."""

import json
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers, get_channel_layer

from config.channel_layer import LOST, EmbeddedChannelLayer
from missions.models import Mission
from push.events import group_name
from realtime.consumers import CLOSE_RECONNECT, ChannelConsumer
from tests.factories import dm_channel, make_office, make_user
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)


class GatedLayer(EmbeddedChannelLayer):
    """The embedded layer, refusing joins while the gate is shut (as Redis's does while
    it is down)."""

    shut = False

    async def group_add(self, group: str, channel: str) -> None:
        if GatedLayer.shut:
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        await super().group_add(group, channel)


@pytest.fixture(autouse=True)
def gated_layer(settings: Any) -> Iterator[None]:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.GatedLayer"}}
    channel_layers.backends.clear()
    GatedLayer.shut = False
    yield
    GatedLayer.shut = False
    channel_layers.backends.clear()


@database_sync_to_async
def _owner_and_channel() -> tuple[Any, Any]:
    user = make_user()
    return user, dm_channel(make_office(user))


def test_the_consumer_reads_the_layer_through_channels_own_receive() -> None:
    # An override read events through a wrapper of its own; the layer now hands the loss
    # over as an event, and the consumer's class itself overrides neither.
    assert all("channel_receive" not in vars(cls) for cls in ChannelConsumer.__mro__)
    assert "dispatch" not in vars(ChannelConsumer)


@pytest.mark.parametrize("text", ["Write the launch plan", "출시 계획을 정리해 주세요"])
async def test_a_socket_that_lost_the_layer_stays_open_then_closes_to_resync(text: str) -> None:
    user, channel = await _owner_and_channel()
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    GatedLayer.shut = True
    # What the Redis layer hands every socket of the process when its subscription breaks.
    await get_channel_layer().group_send(group_name(channel.pk), {"type": LOST})
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.send_json_to({"type": "instruction", "text": text, "client_id": "c-1"})
    # Outside its groups, the sender is shown what was saved, read from the database.
    while True:
        frame = await socket.receive_json_from(timeout=10)
        if frame["type"] == "message" and frame["message"]["kind"] == "user":
            break
    assert frame["message"]["text"] == text
    saved = await database_sync_to_async(
        lambda: list(Mission.objects.filter(channel=channel).values_list("instruction", flat=True))
    )()
    assert saved == [text]
    # Back in its groups, the socket asks its client to reconnect and fetch the rest.
    GatedLayer.shut = False
    while (output := await socket.receive_output(timeout=15))["type"] != "websocket.close":
        pass
    assert output == {"type": "websocket.close", "code": CLOSE_RECONNECT}


async def test_a_socket_that_falls_behind_its_events_closes_to_resync(settings: Any) -> None:
    # A burst of replies answered at once filled a socket's queue: the events beyond it
    # were lost, the instructions' echoes among them, and the page waited for them.
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": f"{__name__}.GatedLayer", "CONFIG": {"capacity": 5}}
    }
    channel_layers.backends.clear()
    user, channel = await _owner_and_channel()
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    layer = get_channel_layer()
    for n in range(20):
        text = json.dumps({"type": "reply.delta", "mission": 1, "text": f"{n} "})
        await layer.group_send(
            group_name(channel.pk), {"type": "office.event", "kind": "reply.delta", "text": text}
        )
    deltas = []
    while (output := await socket.receive_output(timeout=15))["type"] != "websocket.close":
        deltas.append(json.loads(output["text"])["text"])
    # What fitted arrived; then the socket asked its client to reconnect and fetch the rest.
    assert deltas == ["1 ", "2 ", "3 ", "4 "]
    assert output == {"type": "websocket.close", "code": CLOSE_RECONNECT}
