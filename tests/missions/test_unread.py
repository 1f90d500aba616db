"""Unread counts of the channel sidebar: what came (replies, failures) after the person
last read a channel; read when the channel is opened; pushed live to the person's other
pages; one office never sees another's."""

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from missions.intake import instruction_accept
from missions.models import Message, Mission, ReadMarker
from missions.reading import channel_mark_read
from missions.selectors import unread_counts
from office.models import ChannelKind
from tests.factories import channel_of, dm_channel, make_office, make_user
from tests.fake_openai import Fail, FakeOpenAI
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _newest(channel: Any) -> int:
    return int(
        Message.objects.filter(channel=channel).order_by("-id").values_list("id", flat=True)[0]
    )


@pytest.mark.parametrize("text", ["Draft a tagline", "슬로건 초안을 써 줘"])
def test_replies_after_the_marker_are_unread_and_opening_the_channel_reads_them(
    model: FakeOpenAI, text: str
) -> None:
    user = make_user()
    office = make_office(user)
    theo, master = dm_channel(office), channel_of(office, ChannelKind.MASTER)
    for n in range(3):
        instruction_accept(channel=theo, text=f"{text} {n}")
    instruction_accept(channel=master, text=text)
    counts = unread_counts(user_id=user.pk, channel_ids=[theo.pk, master.pk])
    # Three replies in Theo's channel, one in the master's; the person's own words and the
    # channels' notices are not unread.
    assert counts == {theo.pk: 3, master.pk: 1}

    response = _client(user).post(
        f"/api/channels/{theo.pk}/read",
        {"message_id": _newest(theo)},
        content_type="application/json",
    )
    assert response.status_code == 200
    assert unread_counts(user_id=user.pk, channel_ids=[theo.pk, master.pk]) == {
        theo.pk: 0,
        master.pk: 1,
    }
    instruction_accept(channel=theo, text=f"{text} again")
    assert unread_counts(user_id=user.pk, channel_ids=[theo.pk])[theo.pk] == 1


def test_a_failure_counts_as_unread_too(model: FakeOpenAI) -> None:
    user = make_user()
    theo = dm_channel(make_office(user))
    model.enqueue(Fail(400))
    instruction_accept(channel=theo, text="Draft a plan")
    mission = Mission.objects.get(channel=theo)
    assert mission.status == "failed"
    assert unread_counts(user_id=user.pk, channel_ids=[theo.pk]) == {theo.pk: 1}


def test_the_marker_only_moves_forward_and_never_past_the_channels_newest_message(
    model: FakeOpenAI,
) -> None:
    user = make_user()
    theo = dm_channel(make_office(user))
    instruction_accept(channel=theo, text="First")
    first_reply = _newest(theo)
    instruction_accept(channel=theo, text="Second")
    newest = _newest(theo)
    assert channel_mark_read(user_id=user.pk, channel=theo, through_message_id=newest) == newest
    # A page that was behind marks late: nothing becomes unread again.
    assert (
        channel_mark_read(user_id=user.pk, channel=theo, through_message_id=first_reply) == newest
    )
    # A made-up id far ahead cannot hide the replies still to come.
    assert channel_mark_read(user_id=user.pk, channel=theo, through_message_id=10**12) == newest
    instruction_accept(channel=theo, text="Third")
    assert unread_counts(user_id=user.pk, channel_ids=[theo.pk]) == {theo.pk: 1}
    assert ReadMarker.objects.filter(user=user, channel=theo).count() == 1


def test_another_offices_channel_cannot_be_marked_or_counted(model: FakeOpenAI) -> None:
    owner, stranger = make_user(), make_user()
    theo = dm_channel(make_office(owner))
    make_office(stranger)
    instruction_accept(channel=theo, text="Draft a tagline")
    response = _client(stranger).post(
        f"/api/channels/{theo.pk}/read",
        {"message_id": _newest(theo)},
        content_type="application/json",
    )
    assert response.status_code == 404
    assert not ReadMarker.objects.exists()
    listed = _client(stranger).get("/api/channels").json()
    assert theo.pk not in [c["id"] for c in listed]
    mine = {c["id"]: c["unread"] for c in _client(owner).get("/api/channels").json()}
    assert mine[theo.pk] == 1


def test_the_chat_page_lists_the_channels_with_their_unread_counts(model: FakeOpenAI) -> None:
    user = make_user()
    office = make_office(user)
    theo, master = dm_channel(office), channel_of(office, ChannelKind.MASTER)
    instruction_accept(channel=theo, text="Draft a tagline")
    instruction_accept(channel=theo, text="Draft another")
    page = _client(user).get(f"/c/{master.pk}/").content.decode()
    assert 'id="channels"' in page
    for channel in office.channels.exclude(kind=ChannelKind.PROJECT):
        assert f'data-channel="{channel.pk}"' in page
    theo_link = page.split(f'data-channel="{theo.pk}"', 1)[1].split("</a>", 1)[0]
    assert 'data-count="2"' in theo_link
    master_link = page.split(f'data-channel="{master.pk}"', 1)[1].split("</a>", 1)[0]
    assert 'aria-current="page"' in master_link and 'data-count="0"' in master_link


@database_sync_to_async
def _setup() -> tuple[Any, Any, Any]:
    user = make_user()
    office = make_office(user)
    return user, dm_channel(office), channel_of(office, ChannelKind.MASTER)


async def test_a_reply_in_another_channel_reaches_the_open_page_as_an_unread_frame(
    model: FakeOpenAI,
) -> None:
    user, theo, master = await _setup()
    _, _, socket = await open_socket(master.pk, user)
    await database_sync_to_async(instruction_accept)(channel=theo, text="Draft a tagline")
    frames = []
    while True:
        frame = await socket.receive_json_from(timeout=10)
        frames.append(frame)
        if frame["type"] == "channel.unread":
            break
    mission = await database_sync_to_async(Mission.objects.get)(channel=theo)
    reply = await database_sync_to_async(
        lambda: Message.objects.get(mission=mission, kind="employee").pk
    )()
    assert frame == {
        "type": "channel.unread",
        "channel": theo.pk,
        "message_id": reply,
        "mission": mission.pk,
    }
    # The master channel's socket is not sent Theo's timeline: only that it has something.
    assert [f["type"] for f in frames] == ["channel.unread"]
    await socket.disconnect()


async def test_the_page_showing_the_channel_gets_the_reply_and_no_unread_frame(
    model: FakeOpenAI,
) -> None:
    user, theo, _ = await _setup()
    _, _, socket = await open_socket(theo.pk, user)
    await database_sync_to_async(instruction_accept)(channel=theo, text="Draft a tagline")
    frames: list[dict[str, Any]] = []
    while not frames or frames[-1]["type"] != "reply.done":
        frames.append(await socket.receive_json_from(timeout=10))
    assert await socket.receive_nothing(timeout=0.3)
    assert "channel.unread" not in [f["type"] for f in frames]
    await socket.disconnect()


async def test_another_person_does_not_hear_of_the_reply(model: FakeOpenAI) -> None:
    _, theo, _ = await _setup()
    other, _, other_master = await _setup()
    _, _, socket = await open_socket(other_master.pk, other)
    await database_sync_to_async(instruction_accept)(channel=theo, text="Draft a tagline")
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()


def test_a_failed_mission_announces_itself_to_its_office(
    model: FakeOpenAI, monkeypatch: Any
) -> None:
    from missions import reading

    sent: list[tuple[int, Any]] = []
    monkeypatch.setattr(
        reading, "send_office_frame_on_commit", lambda o, f, **kw: sent.append((o, f))
    )
    theo = dm_channel(make_office(make_user()))
    model.enqueue(Fail(400))
    instruction_accept(channel=theo, text="Draft")
    mission = Mission.objects.get(channel=theo)
    assert [(o, f.channel, f.mission) for o, f in sent] == [(theo.office_id, theo.pk, mission.pk)]
