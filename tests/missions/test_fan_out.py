"""One instruction cannot be amplified into hundreds of missions: meeting-note follow-ups
and delegations are capped per instruction, and every mission an instruction starts
counts against the sender's rate limit."""

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from config import throttle
from missions.models import Message, Mission
from office.services import employee_hire
from tests.caching import clear_cache
from tests.factories import channel_of, make_office, make_user
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)


def _notes(count: int, who: str = "Iris") -> str:
    return "Meeting notes\n" + "\n".join(f"- @{who}: task {n}" for n in range(count))


def _post(client: Client, channel_id: int, text: str) -> Any:
    return client.post(
        f"/api/channels/{channel_id}/instructions", {"text": text}, content_type="application/json"
    )


@pytest.fixture
def owner() -> Any:
    user = make_user()
    make_office(user)
    return user


@pytest.fixture
def client(owner: Any) -> Client:
    client = Client()
    client.force_login(owner)
    return client


@pytest.fixture
def fixed_window(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:

    clear_cache()
    settings.INSTRUCTION_RATE_WINDOW = 60
    monkeypatch.setattr(throttle, "clock", lambda: 60 * 16_666 + 20.0)


def test_500_follow_up_lines_are_refused_whole_and_nothing_is_saved(
    owner: Any, client: Client
) -> None:
    project = channel_of(owner.offices.get(), "project")
    response = _post(client, project.pk, _notes(500))
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "too_many_followups"
    assert "500 follow-ups" in body["message"] and "at most 20" in body["message"]
    assert Mission.objects.count() == 0 and Message.objects.count() == 0


def test_follow_ups_up_to_the_cap_each_become_a_mission(
    owner: Any, client: Client, settings: Any
) -> None:
    settings.MAX_FOLLOWUPS_PER_INSTRUCTION = 3
    project = channel_of(owner.offices.get(), "project")
    assert _post(client, project.pk, _notes(4)).json()["code"] == "too_many_followups"
    assert _post(client, project.pk, _notes(3)).status_code == 202
    assert Mission.objects.filter(source="meeting_followup").count() == 3


@pytest.mark.parametrize(
    ("heading", "followups"),
    [("회의록", 2), ("회의 노트 (12월 4일)", 2), ("/meeting", 2), ("회의가 끝났어요", 0)],
)
def test_korean_meeting_notes_start_follow_ups_too(
    owner: Any, client: Client, heading: str, followups: int
) -> None:
    project = channel_of(owner.offices.get(), "project")
    text = f"{heading}\n- @Iris: 발표 자료 준비\n- @Mara 예산 초안 정리"
    assert _post(client, project.pk, text).status_code == 202
    made = Mission.objects.filter(source="meeting_followup")
    assert sorted((m.assignee.name, m.instruction) for m in made) == sorted(
        [("Iris", "발표 자료 준비"), ("Mara", "예산 초안 정리")][:followups]
    )


def test_every_follow_up_counts_against_the_rate_limit(
    owner: Any, client: Client, settings: Any, fixed_window: None
) -> None:
    settings.INSTRUCTION_RATE_LIMIT = 5
    project = channel_of(owner.offices.get(), "project")
    assert _post(client, project.pk, _notes(3)).status_code == 202  # 4 missions
    refused = _post(client, project.pk, _notes(1))  # would make 6
    assert refused.status_code == 429
    assert refused.json()["code"] == "rate_limited"
    assert "2 missions" in refused.json()["message"]
    # The refused notes created nothing, so they used none of the window: one more fits.
    assert _post(client, project.pk, "One more thing").status_code == 202
    assert _post(client, project.pk, "And another").status_code == 429
    assert Mission.objects.count() == 5


@pytest.fixture
def big_team(owner: Any) -> list[str]:
    office = owner.offices.get()
    for n in range(5):
        employee_hire(office=office, name=f"Extra{n}", role="Analyst", persona="Careful.")
    return list(office.employees.filter(is_master=False).values_list("name", flat=True))


def test_more_delegates_than_the_cap_are_refused_and_nothing_is_saved(
    owner: Any, client: Client, big_team: list[str]
) -> None:
    master = channel_of(owner.offices.get(), "master")
    assert len(big_team) == 8
    everyone = " ".join(f"@{name}" for name in big_team[:7])
    response = _post(client, master.pk, f"{everyone} please review the plan")
    assert response.status_code == 400
    assert response.json()["code"] == "too_many_delegates"
    assert "7 employees" in response.json()["message"]
    assert Mission.objects.count() == 0 and Message.objects.count() == 0
    six = " ".join(f"@{name}" for name in big_team[:6])
    assert _post(client, master.pk, f"{six} please review the plan").status_code == 202
    assert Mission.objects.filter(source="delegation").count() == 6


def test_every_delegation_counts_against_the_rate_limit(
    owner: Any, client: Client, settings: Any, fixed_window: None, big_team: list[str]
) -> None:
    settings.INSTRUCTION_RATE_LIMIT = 5
    master = channel_of(owner.offices.get(), "master")
    five = " ".join(f"@{name}" for name in big_team[:5])
    response = _post(client, master.pk, f"{five} please review the plan")  # 6 missions
    assert response.status_code == 429 and response["Retry-After"] == "60"  # never fits: a window
    four = " ".join(f"@{name}" for name in big_team[:4])
    assert _post(client, master.pk, f"{four} please review the plan").status_code == 202
    assert _post(client, master.pk, "Thanks").status_code == 429
    # The plan and its four delegations; the chief of staff's synthesis is not charged.
    assert Mission.objects.exclude(source="synthesis").count() == 5
    assert Mission.objects.filter(source="synthesis").count() == 1


async def test_the_socket_refuses_too_many_follow_ups_with_its_client_id(owner: Any) -> None:
    project = await database_sync_to_async(lambda: channel_of(owner.offices.get(), "project"))()
    _, _, socket = await open_socket(project.pk, owner)
    await socket.send_json_to({"type": "instruction", "text": _notes(21), "client_id": "m1"})
    error = await socket.receive_json_from(timeout=10)
    assert error["type"] == "error" and error["code"] == "too_many_followups"
    assert error["client_id"] == "m1"
    await socket.disconnect()
    assert await database_sync_to_async(Mission.objects.count)() == 0


def test_a_resend_of_a_saved_instruction_is_not_refused_by_the_rate_limit(
    owner: Any, client: Client, settings: Any, fixed_window: None
) -> None:
    # A page resends what it has not seen echoed after a reconnect; refusing the resend
    # would hand the person back a text that was saved.
    settings.INSTRUCTION_RATE_LIMIT = 2
    dm = channel_of(owner.offices.get(), "dm")

    def post(text: str, client_id: str) -> Any:
        return client.post(
            f"/api/channels/{dm.pk}/instructions",
            {"text": text, "client_id": client_id},
            content_type="application/json",
        )

    first = post("Draft the agenda", "page-1")
    assert first.status_code == 202
    assert post("Book the room", "page-2").status_code == 202
    again = post("Draft the agenda", "page-1")
    assert again.status_code in (200, 202), again.content
    assert again.json()["mission"]["id"] == first.json()["mission"]["id"]
    assert post("Order lunch", "page-3").status_code == 429
    assert Mission.objects.count() == 2
