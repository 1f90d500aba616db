"""What is under way follows the server (docs/design.md §7): a mission queued by any route
(an instruction, a regenerate, a retry, a synthesis) is announced with a `mission.state`
frame before its run can start, so the frame never comes after the reply it announces; a
socket opens with a `pending` frame of what is under way (none when nothing is); a stop
that finds nothing left to stop answers with what is under way, so a page that still
shows a mission working is set right. Replies that cannot be regenerated say so."""

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from missions import queueing
from missions.intake import instruction_accept
from missions.lifecycle import RegenerateRefused, mission_regenerate, mission_retry
from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
from office.models import ChannelKind
from push.frames import PendingFrame
from tests.factories import channel_of, dm_channel, make_office, make_user
from tests.fake_openai import Fail, FakeOpenAI, Reply
from tests.realtime.capture import SentFrames, captured_frames  # noqa: F401
from tests.ws import open_socket

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.model(max_attempts=1, timeout=10.0),
]


def _types(frames: list[dict[str, Any]]) -> list[str]:
    return [f["type"] for f in frames]


def _states(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["mission"] for f in frames if f["type"] == "mission.state"]


@pytest.mark.parametrize(
    ("name", "text"), [("Theo", "Draft the launch email"), ("Iris", "출시 안내 메일을 써 주세요")]
)
def test_an_instruction_is_announced_under_way_before_its_reply(
    model: FakeOpenAI, frames: SentFrames, name: str, text: str
) -> None:
    channel = dm_channel(make_office(), name)

    mission = instruction_accept(channel=channel, text=text).mission

    sent = frames.to(channel.pk)
    [state] = _states(sent)
    assert state == {
        "mission": mission.pk,
        "channel": channel.pk,
        "status": "queued",
        "employee": name,
        "label": mission.label,
        "stop": mission.pk,
    }
    kinds = _types(sent)
    # The instruction, then the state, then the run's own frames: never the other way.
    assert kinds.index("message") < kinds.index("mission.state") < kinds.index("reply.delta")
    assert kinds.index("reply.delta") < kinds.index("reply.done")


def test_a_regenerate_is_announced_before_its_new_reply_and_a_refused_one_is_not(
    model: FakeOpenAI, frames: SentFrames
) -> None:
    channel = dm_channel(make_office())
    mission = instruction_accept(channel=channel, text="Write a tagline").mission
    frames.clear()

    model.enqueue(Reply("두 번째 답"))
    mission_regenerate(mission=Mission.objects.get(pk=mission.pk))

    sent = frames.to(channel.pk)
    assert _types(sent)[0] == "mission.state" and _states(sent)[0]["mission"] == mission.pk
    [done] = [f for f in sent if f["type"] == "reply.done"]
    assert done["message"]["text"] == "두 번째 답" and done["message"]["payload"]["attempt"] == 2

    # Queued again (its run not started): a second regenerate is refused, and says nothing.
    Mission.objects.filter(pk=mission.pk).update(status=MissionStatus.QUEUED)
    frames.clear()
    with pytest.raises(RegenerateRefused):
        mission_regenerate(mission=Mission.objects.get(pk=mission.pk))
    assert frames.sent == []


def test_a_retry_is_announced_before_its_reply(model: FakeOpenAI, frames: SentFrames) -> None:
    channel = dm_channel(make_office())
    model.enqueue(Fail(500))
    mission = instruction_accept(channel=channel, text="Check the pricing page").mission
    assert Mission.objects.get(pk=mission.pk).status == MissionStatus.FAILED
    frames.clear()

    assert mission_retry(mission=Mission.objects.select_related("assignee").get(pk=mission.pk))

    kinds = _types(frames.to(channel.pk))
    assert kinds[0] == "mission.state" and kinds[-1] == "reply.done"


def test_a_plans_synthesis_is_announced_in_the_master_channel_and_stops_with_its_plan(
    model: FakeOpenAI, frames: SentFrames
) -> None:
    office = make_office()
    master = channel_of(office, ChannelKind.MASTER)

    plan = instruction_accept(
        channel=master, text="@Iris 배너 시안을 만들어 주세요. @Theo build the landing page."
    ).mission

    [synthesis] = Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS)
    [state] = _states(frames.to(master.pk))
    assert state["mission"] == synthesis.pk and state["employee"] == "Avery"
    # A synthesis is stopped with its plan.
    assert state["plan"] == plan.pk and state["stop"] == plan.pk
    for part in Mission.objects.filter(parent=plan, source=MissionSource.DELEGATION):
        # In its employee's channel, a part is shown under way but not stopped alone.
        [seen] = _states(frames.to(part.channel_id))
        assert seen["mission"] == part.pk and seen["plan"] == plan.pk and "stop" not in seen


@pytest.fixture
def queued_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Missions stay queued: their replies are not run."""
    monkeypatch.setattr(queueing, "queue_task", lambda name, mission_id: None)


@database_sync_to_async
def _office_with_queued_work() -> dict[str, Any]:
    user = make_user()
    office = make_office(user)
    dm = dm_channel(office)
    idle = dm_channel(office, "Iris")
    queued = instruction_accept(channel=dm, text="주간 보고서를 정리해 줘").mission
    master = channel_of(office, ChannelKind.MASTER)
    plan = instruction_accept(channel=master, text="@Mara write the brief. @Iris 배너를 그려 줘.")
    parts = list(
        Mission.objects.filter(parent=plan.mission, source=MissionSource.DELEGATION).order_by("pk")
    )
    return {
        "user": user,
        "dm": dm,
        "idle": idle,
        "queued": queued,
        "master": master,
        "plan": plan.mission,
        "parts": parts,
    }


async def test_a_socket_opens_with_the_work_under_way_and_with_nothing_when_none_is(
    queued_only: None,
) -> None:
    world = await _office_with_queued_work()

    _, _, dm = await open_socket(world["dm"].pk, world["user"])
    first = await dm.receive_json_from(timeout=5)
    assert PendingFrame.model_validate(first)
    assert [(m["mission"], m["status"], m["employee"], m["stop"]) for m in first["missions"]] == [
        (world["queued"].pk, "queued", "Theo", world["queued"].pk)
    ]
    await dm.disconnect()

    # Iris's channel holds her part of the plan (not to be stopped from there) only.
    _, _, idle = await open_socket(world["idle"].pk, world["user"])
    first = await idle.receive_json_from(timeout=5)
    [part] = first["missions"]
    assert part["plan"] == world["plan"].pk and "stop" not in part
    await idle.disconnect()

    # The master channel sees the plan's parts at work in their channels, each stopped
    # with the plan.
    _, _, master = await open_socket(world["master"].pk, world["user"])
    first = await master.receive_json_from(timeout=5)
    assert [(m["mission"], m["channel"], m["stop"]) for m in first["missions"]] == [
        (p.pk, p.channel_id, world["plan"].pk) for p in world["parts"]
    ]
    await master.disconnect()

    # Nothing under way: nothing is sent, and the first frame answers the client's.
    quiet = await database_sync_to_async(lambda: channel_of(world["dm"].office, ChannelKind.ALL))()
    _, _, socket = await open_socket(quiet.pk, world["user"])
    assert await socket.receive_nothing(timeout=0.3)
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.disconnect()


@database_sync_to_async
def _finished_and_queued() -> tuple[Any, Mission, Mission]:
    user = make_user()
    channel = dm_channel(make_office(user))
    done = instruction_accept(channel=channel, text="Write a tagline").mission
    Mission.objects.filter(pk=done.pk).update(status=MissionStatus.DONE, reply="Done.")
    waiting = instruction_accept(channel=channel, text="그리고 슬로건도 하나 더").mission
    return user, done, waiting


async def test_a_stop_that_finds_the_reply_ended_answers_with_what_is_still_under_way(
    queued_only: None,
) -> None:
    user, done, waiting = await _finished_and_queued()
    _, _, socket = await open_socket(done.channel_id, user)
    opened = await socket.receive_json_from(timeout=5)
    assert [m["mission"] for m in opened["missions"]] == [waiting.pk]

    # The page thought the first mission was still working (its reply came meanwhile).
    await socket.send_json_to({"type": "mission.stop", "mission": done.pk})

    answer = await socket.receive_json_from(timeout=5)
    assert answer["type"] == "pending"
    assert [m["mission"] for m in answer["missions"]] == [waiting.pk]
    stays = await database_sync_to_async(Mission.objects.get)(pk=done.pk)
    assert stays.status == MissionStatus.DONE and stays.reply == "Done."
    await socket.disconnect()


def test_the_api_lists_a_channels_work_under_way_to_its_owner_only(queued_only: None) -> None:
    owner, stranger = make_user(), make_user()
    channel = dm_channel(make_office(owner))
    mission = instruction_accept(channel=channel, text="Summarise the budget").mission
    client = Client()
    client.force_login(stranger)
    assert client.get(f"/api/channels/{channel.pk}/pending").status_code == 404
    client.force_login(owner)
    response = client.get(f"/api/channels/{channel.pk}/pending")
    assert response.status_code == 200
    assert [(m["mission"], m["status"]) for m in response.json()] == [(mission.pk, "queued")]
    Mission.objects.filter(pk=mission.pk).update(status=MissionStatus.DONE)
    assert client.get(f"/api/channels/{channel.pk}/pending").json() == []


def test_only_replies_that_can_be_regenerated_offer_it(model: FakeOpenAI) -> None:
    user = make_user()
    office = make_office(user)
    master = channel_of(office, ChannelKind.MASTER)
    dm = instruction_accept(channel=dm_channel(office), text="Write a tagline").mission
    plan = instruction_accept(
        channel=master, text="@Iris 배너 시안을 만들어 주세요. @Theo build the landing page."
    ).mission
    parts = list(Mission.objects.filter(parent=plan))
    assert {p.source for p in parts} == {MissionSource.DELEGATION, MissionSource.SYNTHESIS}
    client = Client()
    client.force_login(user)

    def reply(mission: Mission) -> Message:
        return Message.objects.filter(mission=mission, kind=MessageKind.EMPLOYEE).latest("id")

    assert "regenerable" not in reply(dm).payload
    for mission in [plan, *parts]:
        assert reply(mission).payload["regenerable"] is False
        # The flag says what the server does: a new attempt is refused.
        refused = client.post(f"/api/missions/{mission.pk}/regenerate")
        assert refused.status_code == 409, mission.source
    assert client.post(f"/api/missions/{dm.pk}/regenerate").status_code == 202
