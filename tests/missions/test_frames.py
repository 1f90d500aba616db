import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from missions.models import Mission
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI
from tests.missions.helpers import frames_until
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def _setup():
    user = make_user()
    return user, dm_channel(make_office(user))


async def _error_for(
    socket: Any, *, text: str | None = None, data: bytes | None = None
) -> dict[str, Any]:
    if data is not None:
        await socket.send_to(bytes_data=data)
    else:
        await socket.send_to(text_data=text)
    frame = await socket.receive_json_from(timeout=5)
    assert frame["type"] == "error"
    return frame


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("not json at all", "bad_json"),
        ('["a", "list"]', "unknown_type"),
        ('{"type": "launch.rockets"}', "unknown_type"),
        ('{"type": "instruction"}', "bad_frame"),
        ('{"type": "instruction", "text": "hi", "extra": 1}', "bad_frame"),
        ('{"type": "instruction", "text": "   "}', "empty"),
        ('{"type": "instruction", "text": "hi", "client_id": "' + "x" * 65 + '"}', "bad_frame"),
    ],
)
async def test_a_bad_frame_gets_an_error_and_the_socket_keeps_working(
    model: FakeOpenAI, frame: str, code: str
) -> None:
    user, channel = await _setup()
    _, _, socket = await open_socket(channel.pk, user)
    error = await _error_for(socket, text=frame)
    assert error["code"] == code and error["message"]
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.disconnect()


async def test_binary_and_oversized_frames_are_refused(model: FakeOpenAI, settings: Any) -> None:
    settings.MAX_FRAME_BYTES = 2048
    user, channel = await _setup()
    _, _, socket = await open_socket(channel.pk, user)
    assert (await _error_for(socket, data=b"\x00\x01"))["code"] == "binary_not_supported"
    big = json.dumps({"type": "instruction", "text": "x" * 5000})
    assert (await _error_for(socket, text=big))["code"] == "frame_too_large"
    await socket.disconnect()
    assert await database_sync_to_async(Mission.objects.count)() == 0


async def test_an_instruction_over_the_limit_is_refused_with_its_length(
    model: FakeOpenAI, settings: Any
) -> None:
    settings.MAX_INSTRUCTION_CHARS = 100
    user, channel = await _setup()
    _, _, socket = await open_socket(channel.pk, user)
    error = await _error_for(socket, text=json.dumps({"type": "instruction", "text": "y" * 101}))
    assert error["code"] == "too_long" and "101" in error["message"]
    await socket.disconnect()


async def test_a_bad_frame_on_one_socket_does_not_disturb_another(model: FakeOpenAI) -> None:
    user, channel = await _setup()
    _, _, noisy = await open_socket(channel.pk, user)
    _, _, calm = await open_socket(channel.pk, user)
    for _ in range(50):
        await noisy.send_to(text_data="{{{")
    await calm.send_json_to({"type": "instruction", "text": "Still there?"})
    frames = await frames_until(calm, "reply.done")
    assert frames[-1]["type"] == "reply.done"
    errors = 0
    while errors < 50:  # the noisy socket also sees the channel's broadcast frames
        frame = await noisy.receive_json_from(timeout=5)
        if frame["type"] == "error":
            assert frame["code"] == "bad_json"
            errors += 1
    await noisy.disconnect()
    await calm.disconnect()
