"""A long reply is answered once: the run that holds a mission stamps a heartbeat while it
waits on the model, so the sweeper leaves it alone, and only that run may finish it."""

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from missions import creation
from missions.intake import instruction_accept
from missions.models import Message, MessageKind, Mission, MissionStatus
from missions.run import mission_run
from missions.sweeper import mission_sweep_stuck
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, Reply

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.model(max_attempts=1, timeout=10.0),
]


def _queued(monkeypatch: pytest.MonkeyPatch, text: str) -> Mission:
    """An accepted mission whose task has not run yet (the test runs it itself)."""
    with monkeypatch.context() as patch:
        patch.setattr(creation, "mission_queue_run", lambda mission: None)
        accepted = instruction_accept(
            channel=dm_channel(make_office(make_user())), text=text, client_id="c1"
        )
    return Mission.objects.get(pk=accepted.mission.pk)


def _run_in_thread(mission_id: int, token: str) -> threading.Thread:
    def run() -> None:
        try:
            mission_run(mission_id=mission_id, run_token=token)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _slow_reply(text: str, *, first_token_after: float, pieces: int, gap: float) -> Reply:
    words = text.split()
    size = max(1, len(words) // pieces)
    chunks = [" ".join(words[i : i + size]) + " " for i in range(0, len(words), size)]
    return Reply(text=text, chunks=chunks, delay=first_token_after, chunk_delay=gap)


@pytest.mark.postgres  # three threads writing at once: real transactions, real locks
def test_the_sweeper_leaves_a_long_streaming_reply_alone(
    model: FakeOpenAI, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reply takes about 5 s, well over the 2 s a run may stay silent.
    settings.MISSION_HEARTBEAT_INTERVAL = 0.2
    settings.MISSION_STUCK_AFTER = 2
    mission = _queued(monkeypatch, "회의록을 정리해 주세요 and list the open questions")
    model.enqueue(
        _slow_reply(
            "정리했습니다. Here are the notes and the three open questions.",
            first_token_after=2.5,
            pieces=5,
            gap=0.6,
        )
    )
    thread = _run_in_thread(mission.pk, "delivery-1")
    requeued = 0
    while thread.is_alive():
        requeued += mission_sweep_stuck()["requeued"]
        time.sleep(0.25)
    thread.join()
    mission.refresh_from_db()
    assert requeued == 0
    assert mission.status == MissionStatus.DONE and mission.attempts == 1
    replies = Message.objects.filter(mission=mission, kind=MessageKind.EMPLOYEE)
    assert [m.text for m in replies] == [
        "정리했습니다. Here are the notes and the three open questions."
    ]


def test_a_run_that_lost_its_mission_saves_no_second_answer(
    model: FakeOpenAI, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    mission = _queued(monkeypatch, "Draft the launch memo")
    model.enqueue(_slow_reply("The memo, first draft.", first_token_after=1.0, pieces=2, gap=0.2))
    thread = _run_in_thread(mission.pk, "delivery-1")
    deadline = time.monotonic() + 5
    while Mission.objects.get(pk=mission.pk).status != MissionStatus.RUNNING:
        assert time.monotonic() < deadline, "the run never claimed the mission"
        time.sleep(0.05)
    # Meanwhile the mission was re-queued and another run took it.
    Mission.objects.filter(pk=mission.pk).update(run_token="delivery-2")
    thread.join()
    mission.refresh_from_db()
    assert mission.status == MissionStatus.RUNNING and mission.run_token == "delivery-2"
    assert mission.reply == ""
    assert not Message.objects.filter(mission=mission, kind=MessageKind.EMPLOYEE).exists()


def test_a_failure_of_a_run_that_lost_its_mission_is_not_shown(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    mission = _queued(monkeypatch, "Draft the launch memo")
    model.enqueue(Reply(text="", delay=1.0))  # an empty reply is a failure
    thread = _run_in_thread(mission.pk, "delivery-1")
    deadline = time.monotonic() + 5
    while Mission.objects.get(pk=mission.pk).status != MissionStatus.RUNNING:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    Mission.objects.filter(pk=mission.pk).update(run_token="delivery-2")
    thread.join()
    mission.refresh_from_db()
    assert mission.status == MissionStatus.RUNNING and mission.error == ""
    assert not Message.objects.filter(mission=mission, kind=MessageKind.ERROR).exists()


def test_the_sweeper_takes_back_a_mission_whose_heartbeat_stopped(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.MISSION_STUCK_AFTER = 45
    silent = _queued(monkeypatch, "Plan the offsite")
    beating = _queued(monkeypatch, "Plan the budget")
    long_ago = timezone.now() - timedelta(minutes=10)
    Mission.objects.filter(pk=silent.pk).update(
        status=MissionStatus.RUNNING,
        run_token="dead",
        attempts=1,
        started_at=long_ago,
        heartbeat_at=timezone.now() - timedelta(seconds=46),
    )
    Mission.objects.filter(pk=beating.pk).update(
        status=MissionStatus.RUNNING,
        run_token="alive",
        attempts=1,
        started_at=long_ago,
        heartbeat_at=timezone.now() - timedelta(seconds=5),
    )
    with monkeypatch.context() as patch:
        sent: list[int] = []
        patch.setattr("missions.sweeper.mission_queue_run", lambda m: sent.append(m.pk))
        counts = mission_sweep_stuck()
    assert counts["requeued"] == 1 and sent == [silent.pk]
    assert Mission.objects.get(pk=silent.pk).status == MissionStatus.QUEUED
    assert Mission.objects.get(pk=beating.pk).status == MissionStatus.RUNNING
