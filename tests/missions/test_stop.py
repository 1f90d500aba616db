"""Stop: the person cuts a reply short. The run stops reading the model's stream at its
next piece (fewer pieces come than the full reply has), keeps what came as the reply,
and marks the mission stopped; a queued mission stops before it runs. The flag reaches a
run in another worker through the shared cache, and through the heartbeat's read of the
database when the cache lost it."""

import threading
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache
from django.db import connection
from django.test import Client

from missions import creation, run
from missions.intake import instruction_accept
from missions.lifecycle import StopRefused, mission_stop, stop_flag_key
from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
from missions.run import mission_run
from push.frames import ReplyDeltaFrame, ReplyDoneFrame
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, Reply
from tests.ws import open_socket

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.model(max_attempts=1, timeout=10.0),
]

PIECES = 30
GAP = 0.1  # the full reply takes 3 s


def _queued(
    monkeypatch: pytest.MonkeyPatch, text: str, user: Any = None, channel: Any = None
) -> Mission:
    channel = channel or dm_channel(make_office(user or make_user()))
    with monkeypatch.context() as patch:
        patch.setattr(creation, "mission_queue_run", lambda mission: None)
        accepted = instruction_accept(channel=channel, text=text)
    return Mission.objects.get(pk=accepted.mission.pk)


def _frames(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    sent: list[Any] = []
    original = run.send_frame

    def send_frame(channel_id: int, frame: Any) -> None:
        sent.append(frame)
        original(channel_id, frame)

    monkeypatch.setattr(run, "send_frame", send_frame)
    return sent


def _run_in_thread(mission_id: int) -> threading.Thread:
    def target() -> None:
        try:
            mission_run(mission_id=mission_id)
        finally:
            connection.close()

    thread = threading.Thread(target=target)
    thread.start()
    return thread


def _wait_for(condition: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _slow(chunks: list[str]) -> Reply:
    return Reply("".join(chunks), chunks=chunks, chunk_delay=GAP)


@pytest.mark.parametrize(
    "chunks",
    [[f"part {n}, " for n in range(PIECES)], [f"{n}번째 문단입니다. " for n in range(PIECES)]],
)
def test_stop_cuts_the_stream_keeps_what_came_and_marks_the_mission_stopped(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, chunks: list[str]
) -> None:
    mission = _queued(monkeypatch, "Write a long report")
    sent = _frames(monkeypatch)
    model.enqueue(_slow(chunks))
    started = time.monotonic()
    thread = _run_in_thread(mission.pk)
    _wait_for(lambda: len([f for f in sent if isinstance(f, ReplyDeltaFrame)]) >= 3)
    assert mission_stop(mission=Mission.objects.get(pk=mission.pk)) is True
    thread.join(timeout=10)
    took = time.monotonic() - started
    assert not thread.is_alive()

    mission.refresh_from_db()
    assert mission.status == MissionStatus.STOPPED
    streamed = "".join(f.text for f in sent if isinstance(f, ReplyDeltaFrame))
    # The stream really stopped: fewer pieces than the whole reply, well before its end.
    assert 0 < len(mission.reply) < len("".join(chunks).strip())
    assert "".join(chunks).startswith(mission.reply)
    assert streamed.strip() == mission.reply
    assert took < PIECES * GAP * 0.8
    # The timeline has the partial reply, marked stopped, announced once.
    [reply] = Message.objects.filter(mission=mission, kind=MessageKind.EMPLOYEE)
    assert reply.text == mission.reply and reply.payload["stopped"] is True
    assert mission.completion_tokens > 0


def test_a_stop_whose_cache_flag_was_lost_reaches_the_run_through_the_heartbeat(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.MISSION_HEARTBEAT_INTERVAL = 1
    mission = _queued(monkeypatch, "Write a long report")
    sent = _frames(monkeypatch)
    model.enqueue(_slow([f"part {n}, " for n in range(PIECES)]))
    thread = _run_in_thread(mission.pk)
    _wait_for(lambda: any(isinstance(f, ReplyDeltaFrame) for f in sent))
    assert mission_stop(mission=Mission.objects.get(pk=mission.pk)) is True
    cache.delete(stop_flag_key(mission.pk))  # as a cache restart would
    thread.join(timeout=10)
    mission.refresh_from_db()
    assert mission.status == MissionStatus.STOPPED
    assert 0 < len(mission.reply) < len("".join(f"part {n}, " for n in range(PIECES)).strip())


def test_a_queued_mission_stops_before_it_runs_and_the_model_is_never_asked(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    mission = _queued(monkeypatch, "Write a long report")
    sent = _frames(monkeypatch)
    assert mission_stop(mission=mission) is True
    mission_run(mission_id=mission.pk)
    mission.refresh_from_db()
    assert mission.status == MissionStatus.STOPPED and mission.reply == ""
    assert model.requests == []
    assert not sent
    [reply] = Message.objects.filter(mission=mission, kind=MessageKind.EMPLOYEE)
    assert reply.payload["stopped"] is True
    # A second click changes nothing.
    assert mission_stop(mission=mission) is False


def test_a_finished_mission_and_a_part_of_a_plan_are_not_stopped(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    accepted = instruction_accept(channel=dm_channel(make_office()), text="Draft a tagline")
    done = Mission.objects.get(pk=accepted.mission.pk)
    assert done.status == MissionStatus.DONE
    assert mission_stop(mission=done) is False
    done.refresh_from_db()
    assert done.status == MissionStatus.DONE and done.stop_requested_at is None
    part = _queued(monkeypatch, "A delegated part")
    Mission.objects.filter(pk=part.pk).update(parent=done, source=MissionSource.DELEGATION)
    part.refresh_from_db()
    with pytest.raises(StopRefused):
        mission_stop(mission=part)


def test_the_api_stops_only_the_persons_own_missions(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner, stranger = make_user(), make_user()
    mission = _queued(monkeypatch, "Write a long report", user=owner)
    client = Client()
    client.force_login(stranger)
    assert client.post(f"/api/missions/{mission.pk}/stop").status_code == 404
    mission.refresh_from_db()
    assert mission.status == MissionStatus.QUEUED
    client.force_login(owner)
    response = client.post(f"/api/missions/{mission.pk}/stop")
    assert response.status_code == 202 and response.json()["stopped"] is True
    assert response.json()["mission"]["status"] == "stopped"


@database_sync_to_async
def _queued_async(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Mission, Any]:
    user = make_user()
    mission = _queued(monkeypatch, "Write a long report", user=user)
    other = dm_channel(make_office(make_user()))
    return user, mission, other


async def test_the_socket_stops_a_mission_of_its_channel_and_no_other(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    user, mission, foreign_channel = await _queued_async(monkeypatch)
    _, _, socket = await open_socket(mission.channel_id, user)
    # The socket opens with what is under way in its channel.
    opened = await socket.receive_json_from(timeout=5)
    assert opened["type"] == "pending" and opened["missions"][0]["mission"] == mission.pk
    foreign = await database_sync_to_async(
        lambda: _queued(monkeypatch, "Someone else's", channel=foreign_channel)
    )()
    await socket.send_json_to({"type": "mission.stop", "mission": foreign.pk})
    error = await socket.receive_json_from(timeout=5)
    assert error["type"] == "error" and error["code"] == "not_found"
    await socket.send_json_to({"type": "mission.stop", "mission": mission.pk})
    frames = []
    while True:
        frame = await socket.receive_json_from(timeout=5)
        frames.append(frame)
        if frame["type"] == "reply.done":
            break
    assert frame["mission"] == mission.pk and frame["message"]["payload"]["stopped"] is True
    assert ReplyDoneFrame.model_validate(frame)
    stopped = await database_sync_to_async(Mission.objects.get)(pk=mission.pk)
    untouched = await database_sync_to_async(Mission.objects.get)(pk=foreign.pk)
    assert stopped.status == MissionStatus.STOPPED and untouched.status == MissionStatus.QUEUED
    await socket.disconnect()
