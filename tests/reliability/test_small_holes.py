"""Issue 37, point 5: the smaller holes, each shut."""

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import timezone

from config import throttle
from missions.lifecycle import mission_hand_back
from missions.models import Mission, MissionStatus
from missions.sweeper import mission_sweep_stuck
from office.models import Employee
from tests.caching import clear_cache
from tests.config.test_settings import PRODUCTION, _settings
from tests.factories import dm_channel, make_office, make_user
from tests.reliability.test_abuse import Clock
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

HUGE = "9" * 31


def test_ids_past_any_rows_get_404_not_a_server_error() -> None:
    user = make_user()
    make_office(user)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    for path in (
        f"/api/memory?office={HUGE}",
        f"/api/memory?employee={HUGE}",
        f"/api/memory?channel={HUGE}",
        f"/api/missions/{HUGE}",
        f"/api/channels/{HUGE}/messages",
        f"/api/channels/{HUGE}/memory/proposals",
        f"/c/{HUGE}/",
        f"/employees/{HUGE}/",
    ):
        response = client.get(path)
        assert response.status_code in (400, 404) or (
            response.status_code == 200 and response.json() == []
        ), (path, response.status_code)
    assert client.post(f"/api/memory/{HUGE}/retire").status_code == 404


@pytest.mark.parametrize("session_id", [10**30, -5, 0])
async def test_session_new_with_an_impossible_session_id_gets_an_error_frame(
    session_id: int,
) -> None:
    user = await database_sync_to_async(make_user)()
    channel = await database_sync_to_async(lambda: dm_channel(make_office(user)))()
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    await socket.send_json_to({"type": "session.new", "session_id": session_id})
    frame = await socket.receive_json_from(timeout=5)
    assert frame["type"] == "error" and frame["code"] == "bad_frame"
    assert "session_id" in frame["message"]
    # The socket still answers.
    await socket.send_json_to({"type": "ping"})
    assert (await socket.receive_json_from(timeout=5))["type"] == "pong"
    await socket.disconnect()


def test_the_instruction_limit_slides_across_a_minute_boundary(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    clear_cache()
    settings.INSTRUCTION_RATE_LIMIT = 30
    settings.INSTRUCTION_RATE_WINDOW = 60
    clock = Clock(60 * 16_666 + 59.0)  # a second before a fixed window would end
    monkeypatch.setattr(throttle, "clock", clock)
    user = make_user()
    channel = dm_channel(make_office(user))
    client = Client()
    client.force_login(user)
    url = f"/api/channels/{channel.pk}/instructions"

    def send(n: int) -> int:
        return client.post(url, {"text": f"n{n}"}, content_type="application/json").status_code

    assert [send(n) for n in range(30)] == [202] * 30
    clock.now += 2  # past the boundary: a fixed window would let 30 more through
    assert [send(n) for n in range(30, 35)] == [429] * 5
    assert Mission.objects.count() == 30
    clock.now += 60
    assert send(99) == 202


@pytest.mark.parametrize(
    "look_alike",
    [
        "\u0422heo",  # Cyrillic capital Te
        "Th\u0435\u043e",  # Cyrillic e and o
        "\uff34\uff48\uff45\uff4f",  # fullwidth
        "Th\u00e9o",  # an accent
        "THEO",
    ],
)
def test_a_look_alike_name_cannot_be_hired_beside_the_original(look_alike: str) -> None:
    user = make_user()
    office = make_office(user)
    client = Client()
    client.force_login(user)
    response = client.post(
        "/employees/hire/", {"name": look_alike, "role": "Developer", "persona": "You code."}
    )
    assert response.status_code == 400
    assert "already has that name" in response.content.decode()
    assert Employee.objects.filter(office=office).count() == 4


@pytest.mark.parametrize("name", ["테오", "Theodora", "Teo"])
def test_names_that_merely_resemble_are_still_hired(name: str) -> None:
    user = make_user()
    office = make_office(user)
    client = Client()
    client.force_login(user)
    client.post("/employees/hire/", {"name": name, "role": "Developer", "persona": "You code."})
    assert Employee.objects.filter(office=office, name=name).exists()


def test_a_mission_handed_back_by_a_graceful_stop_is_sent_again_at_the_next_sweep() -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    from missions.intake import instruction_accept

    mission = instruction_accept(channel=channel, text="write the memo", user_id=user.pk).mission
    now = timezone.now()
    # As a run holds it when the server is asked to stop.
    Mission.objects.filter(pk=mission.pk).update(
        status=MissionStatus.RUNNING, run_token="run-1", started_at=now, heartbeat_at=now
    )
    assert mission_hand_back(runs={mission.pk: "run-1"}) == 1
    # The next sweep (seconds after the restart, not MISSION_QUEUED_RESEND_AFTER later).
    counts = mission_sweep_stuck(now=timezone.now())
    assert counts["resent"] == 1
    mission.refresh_from_db()
    assert mission.status == MissionStatus.DONE  # the inline runner answered it
    assert mission_sweep_stuck(now=timezone.now())["resent"] == 0


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SECRET_KEY", "a" * 50),
        ("SECRET_KEY", "abcd" * 20),
        ("SECRET_KEY", "short-but-random-9f8e7d"),
        ("ALLOWED_HOSTS", "*"),
        ("ALLOWED_HOSTS", "office.example.com,*"),
    ],
)
def test_production_refuses_a_weak_secret_key_and_any_host(variable: str, value: str) -> None:
    result = _settings(**{**PRODUCTION, variable: value})
    assert result.returncode != 0
    assert variable in result.stderr.strip().splitlines()[-1]
