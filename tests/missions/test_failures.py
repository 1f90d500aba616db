from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from missions.intake import instruction_accept
from missions.models import Message, Mission, MissionStatus
from missions.sweeper import mission_sweep_stuck
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import Fail, FakeOpenAI, Hang, Malformed, Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _send(text: str = "Summarize the week"):
    user = make_user()
    channel = dm_channel(make_office(user))
    accepted = instruction_accept(channel=channel, text=text, client_id="c1")
    return user, channel, Mission.objects.get(pk=accepted.mission.pk)


@pytest.mark.parametrize(
    ("steps", "code"),
    [
        ([Fail(500), Fail(500)], "server_error"),
        ([Fail(429, retry_after=0.1), Fail(429, retry_after=0.1)], "rate_limited"),
        ([Hang(3.0), Hang(3.0)], "timeout"),
        ([Malformed()], "bad_output"),
    ],
)
def test_a_model_failure_keeps_the_instruction_and_tells_the_user_once(
    model: FakeOpenAI, steps: list[Any], code: str
) -> None:
    model.enqueue(*steps)
    _, channel, mission = _send()
    assert mission.status == MissionStatus.FAILED
    assert mission.instruction == "Summarize the week"
    assert mission.error.startswith(code)
    errors = Message.objects.filter(channel=channel, kind="error")
    assert errors.count() == 1
    assert errors[0].payload["retry"] is True and errors[0].payload["code"] == code
    assert Message.objects.filter(channel=channel, kind="user").count() == 1
    # Bounded: never more requests than the two attempts the provider allows.
    assert len(model.requests) <= 2


def test_retry_runs_the_same_mission_again_without_a_duplicate(model: FakeOpenAI) -> None:
    model.enqueue(Fail(500), Fail(500), Reply("Recovered answer."))
    user, channel, mission = _send()
    assert mission.status == MissionStatus.FAILED
    client = Client()
    client.force_login(user)
    first = client.post(f"/api/missions/{mission.pk}/retry", content_type="application/json")
    second = client.post(f"/api/missions/{mission.pk}/retry", content_type="application/json")
    assert first.status_code == 202 and first.json()["retried"] is True
    assert second.json()["retried"] is False
    mission.refresh_from_db()
    assert mission.status == MissionStatus.DONE and mission.reply == "Recovered answer."
    assert mission.attempts == 2
    assert Mission.objects.filter(channel=channel).count() == 1


def test_a_stuck_running_mission_is_requeued_then_failed_after_its_attempts(
    model: FakeOpenAI, settings: Any
) -> None:
    settings.MISSION_MAX_ATTEMPTS = 2
    _, _, mission = _send()
    # A worker died mid-reply: the mission is left running, its heartbeat long stopped.
    an_hour_ago = timezone.now() - timedelta(hours=1)
    Mission.objects.filter(pk=mission.pk).update(
        status=MissionStatus.RUNNING,
        reply="",
        attempts=1,
        started_at=an_hour_ago,
        heartbeat_at=an_hour_ago,
    )
    counts = mission_sweep_stuck()
    assert counts["requeued"] == 1
    mission.refresh_from_db()
    assert mission.status == MissionStatus.DONE and mission.attempts == 2

    Mission.objects.filter(pk=mission.pk).update(
        status=MissionStatus.RUNNING, started_at=an_hour_ago, heartbeat_at=an_hour_ago
    )
    counts = mission_sweep_stuck()
    assert counts["failed"] == 1
    mission.refresh_from_db()
    assert mission.status == MissionStatus.FAILED and mission.error.startswith("interrupted")


def test_a_queued_mission_whose_task_was_lost_is_sent_again(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    from missions import creation

    channel = dm_channel(make_office(make_user()))
    monkeypatch.setattr(creation, "mission_queue_run", lambda mission: None)  # the broker lost it
    accepted = instruction_accept(channel=channel, text="Lost in the broker")
    monkeypatch.undo()
    assert Mission.objects.get(pk=accepted.mission.pk).status == MissionStatus.QUEUED
    Mission.objects.filter(pk=accepted.mission.pk).update(
        created_at=timezone.now() - timedelta(hours=1)
    )
    assert mission_sweep_stuck()["resent"] == 1
    assert Mission.objects.get(pk=accepted.mission.pk).status == MissionStatus.DONE


def test_a_retried_mission_that_the_fold_skipped_is_folded_late(model: FakeOpenAI) -> None:
    from summaries.models import RollingSummary
    from tests.factories import add_finished_missions

    model.enqueue(Fail(500), Fail(500))
    user, _, failed = _send("Remember the Zephyr account number is 4411.")
    session = failed.session
    add_finished_missions(session, 10)  # the window moves past the failed mission
    summary = RollingSummary.objects.get(session=session)
    assert summary.folded_through_seq >= failed.seq
    assert "4411" not in summary.text
    model.enqueue(Reply("Noted the Zephyr account number 4411."))
    client = Client()
    client.force_login(user)
    client.post(f"/api/missions/{failed.pk}/retry", content_type="application/json")
    summary.refresh_from_db()
    assert "4411" in summary.text and f"#{failed.seq}" in summary.text
