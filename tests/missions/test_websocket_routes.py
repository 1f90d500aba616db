from typing import Any

import pytest
from channels.db import database_sync_to_async

from missions.models import Message, Mission
from office.models import Channel
from push.frames import server_frame
from tests.factories import channel_of, dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, Reply
from tests.missions.helpers import frames_until, frames_until_event, of_type
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def _office():
    user = make_user()
    return user, make_office(user)


@database_sync_to_async
def _missions(**filters: object) -> list[Mission]:
    return list(
        Mission.objects.filter(**filters).select_related("assignee", "channel").order_by("id")
    )


async def test_a_dm_reply_streams_in_order_and_is_saved_with_its_usage(model: FakeOpenAI) -> None:
    user, office = await _office()
    channel = await database_sync_to_async(dm_channel)(office)
    model.enqueue(
        Reply(
            "Here is the plan: research, draft, review.",
            chunks=["Here is ", "the plan: ", "research, ", "draft, ", "review."],
            prompt_tokens=120,
            cached_tokens=64,
            completion_tokens=9,
        )
    )
    _, _, socket = await open_socket(channel.pk, user)
    await socket.send_json_to(
        {"type": "instruction", "text": "Plan the launch", "client_id": "c-1"}
    )
    frames = await frames_until(socket, "reply.done")
    await socket.disconnect()

    user_messages = [f for f in of_type(frames, "message") if f["message"]["kind"] == "user"]
    assert user_messages[0]["message"]["text"] == "Plan the launch"
    assert frames.index(user_messages[0]) < frames.index(of_type(frames, "reply.delta")[0])
    deltas = of_type(frames, "reply.delta")
    assert [d["index"] for d in deltas] == list(range(len(deltas)))
    streamed = "".join(d["text"] for d in deltas)
    assert streamed == "Here is the plan: research, draft, review."
    [mission] = await _missions(channel=channel)
    assert mission.status == "done" and mission.reply == streamed
    assert (mission.prompt_tokens, mission.cached_tokens, mission.completion_tokens) == (120, 64, 9)
    assert mission.prompt_chars > 0 and mission.client_id == "c-1"
    done = of_type(frames, "reply.done")[0]
    assert done["mission"] == mission.pk and done["message"]["text"] == streamed
    assert done["message"]["kind"] == "employee"
    # The reply's timeline entry comes with reply.done, not in a frame of its own.
    assert [f["message"]["kind"] for f in of_type(frames, "message")] == ["user"]
    # The model saw the persona first and the instruction last.
    chat = [r for r in model.requests if r.body.get("stream")]
    assert len(chat) == 1  # the other request is the memory extraction, after the reply
    sent = chat[0].messages
    assert "Theo" in sent[0]["content"] and "Plan the launch" in sent[-1]["content"]


async def test_a_resent_client_id_is_not_a_second_mission(model: FakeOpenAI) -> None:
    user, office = await _office()
    channel = await database_sync_to_async(dm_channel)(office)
    _, _, socket = await open_socket(channel.pk, user)
    await socket.send_json_to({"type": "instruction", "text": "Once", "client_id": "same"})
    await frames_until(socket, "reply.done")
    await socket.send_json_to({"type": "instruction", "text": "Once", "client_id": "same"})
    echo = await socket.receive_json_from(timeout=5)
    await socket.disconnect()
    assert echo["type"] == "message" and echo["message"]["text"] == "Once"
    assert len(await _missions(channel=channel)) == 1
    assert len([r for r in model.requests if r.body.get("stream")]) == 1


async def test_the_master_delegates_to_a_named_employee_and_sums_up_once(
    model: FakeOpenAI,
) -> None:
    user, office = await _office()
    master = await database_sync_to_async(channel_of)(office, "master")
    _, _, socket = await open_socket(master.pk, user)
    await socket.send_json_to(
        {"type": "instruction", "text": "@Theo estimate the API work for the launch"}
    )
    # The plan card follows the plan over the socket until it is summed up.
    frames: list[dict[str, Any]] = []
    while not frames or not (
        frames[-1]["type"] == "plan" and frames[-1]["plan"]["status"] == "done"
    ):
        frames.append(await socket.receive_json_from(timeout=10))
    await socket.disconnect()
    parent = (await _missions(channel=master, source="master"))[0]
    assert parent.assignee.is_master and parent.source == "master"
    [child] = await _missions(parent=parent, source="delegation")
    assert (
        child.assignee.name == "Theo"
        and child.instruction == "estimate the API work for the launch"
    )
    assert child.channel.kind == "dm" and child.status == "done"
    [synthesis] = await _missions(parent=parent, source="synthesis")
    assert synthesis.channel_id == master.pk and synthesis.status == "done"
    plans = of_type(frames, "plan")
    for frame in plans:
        server_frame.validate_python(frame)  # a typed frame
        assert frame["plan"]["mission"] == parent.pk
    statuses = [f["plan"]["delegates"][0]["status"] for f in plans]
    assert statuses[0] == "queued" and "working" in statuses and statuses[-1] == "done"
    assert plans[-1]["plan"]["synthesis"]["mission"] == synthesis.pk
    events = [f["message"] for f in of_type(frames, "message") if f["message"]["kind"] == "event"]
    kinds = [e["payload"]["event"] for e in events]
    assert "plan" in kinds and "report" not in kinds
    done = [f for f in of_type(frames, "reply.done") if f["mission"] == synthesis.pk]
    assert len(done) == 1


@pytest.mark.parametrize(
    ("kind", "text", "who"),
    [
        # All hands: the named employee, otherwise the chief of staff.
        ("all", "@Iris sketch the onboarding", "Iris"),
        ("all", "Who can help with the launch?", "Avery"),
        # Project: the named member, otherwise the lead.
        ("project", "@Theo wire the signup form", "Theo"),
        ("project", "Status of the launch?", "Mara"),
    ],
)
async def test_the_named_employee_or_the_channels_default_answers(
    model: FakeOpenAI, kind: str, text: str, who: str
) -> None:
    user, office = await _office()
    channel = await database_sync_to_async(channel_of)(office, kind)
    _, _, socket = await open_socket(channel.pk, user)
    await socket.send_json_to({"type": "instruction", "text": text})
    await frames_until(socket, "reply.done")
    await socket.disconnect()
    [mission] = await _missions(channel=channel)
    assert mission.assignee.name == who and mission.source == kind


async def test_meeting_notes_become_follow_ups_in_each_employees_dm(model: FakeOpenAI) -> None:
    user, office = await _office()
    channel = await database_sync_to_async(channel_of)(office, "project")
    notes = (
        "Meeting notes, launch sync\n- @Theo: fix the signup bug by Friday\n"
        "- @Iris: draft the hero image\n- we agreed to ship on the 14th"
    )
    _, _, socket = await open_socket(channel.pk, user)
    await socket.send_json_to({"type": "instruction", "text": notes})
    await frames_until_event(socket, "report")
    await frames_until_event(socket, "report")
    await socket.disconnect()
    [meeting] = await _missions(channel=channel)
    followups = await _missions(parent=meeting)
    assert {(m.assignee.name, m.instruction) for m in followups} == {
        ("Theo", "fix the signup bug by Friday"),
        ("Iris", "draft the hero image"),
    }
    for followup in followups:
        assert followup.source == "meeting_followup" and followup.channel.kind == "dm"
        assert followup.channel.employee_id == followup.assignee.pk
        assert followup.status == "done"


@database_sync_to_async
def _foreign_channel() -> tuple[object, Channel]:
    return make_user(), dm_channel(make_office())


async def test_another_users_channel_is_refused_like_a_missing_one(model: FakeOpenAI) -> None:
    stranger, channel = await _foreign_channel()
    foreign = await open_socket(channel.pk, stranger)
    missing = await open_socket(10**9, stranger)
    assert foreign[:2] == missing[:2] == (False, 4404)
    assert await database_sync_to_async(Message.objects.count)() == 0
