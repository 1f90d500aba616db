"""Retired employees take no work (their 1:1 is read-only over the API, the socket and
the page; they leave their projects), and an @name nobody answers to is said out loud
instead of being dropped (issue 15)."""

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import translation

from missions.intake import instruction_accept
from missions.models import Message, MessageKind, Mission, MissionSource
from missions.texts import message_text
from office.models import Channel, ChannelKind, Employee
from office.services import employee_retire, office_edit
from tests.factories import channel_of, dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def owner() -> Any:
    user = make_user()
    office = make_office(user)
    employee_retire(employee=office.employees.get(name="Iris"))
    return user


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_instruction_to_a_retired_employee_is_refused_with_409_and_saves_nothing(
    owner: Any,
) -> None:
    iris = dm_channel(owner.offices.get(), "Iris")
    response = _client(owner).post(
        f"/api/channels/{iris.pk}/instructions",
        {"text": "Draft the banner"},
        content_type="application/json",
    )
    assert response.status_code == 409
    assert response.json() == {
        "code": "employee_retired",
        "message": "Iris has retired: this channel is read-only. Give the work to someone else.",
    }
    assert Mission.objects.count() == 0 and Message.objects.filter(channel=iris).count() == 0


async def test_the_socket_refuses_an_instruction_to_a_retired_employee(owner: Any) -> None:
    iris = await database_sync_to_async(lambda: dm_channel(owner.offices.get(), "Iris"))()
    connected, _, socket = await open_socket(iris.pk, owner)
    assert connected  # the history stays readable
    await socket.send_json_to({"type": "instruction", "text": "배너 부탁해요", "client_id": "r1"})
    error = await socket.receive_json_from(timeout=10)
    await socket.disconnect()
    assert error["type"] == "error" and error["code"] == "employee_retired"
    assert error["client_id"] == "r1" and "Iris has retired" in error["message"]
    assert await database_sync_to_async(Mission.objects.count)() == 0


def test_a_retired_employees_page_is_read_only(owner: Any) -> None:
    iris = dm_channel(owner.offices.get(), "Iris")
    page = _client(owner).get(f"/c/{iris.pk}/").content.decode()
    assert "Iris has retired: this channel is read-only." in page
    assert 'id="composer"' not in page and '"read_only": true' in page
    theo = dm_channel(owner.offices.get(), "Theo")
    assert 'id="composer"' in _client(owner).get(f"/c/{theo.pk}/").content.decode()


def test_a_retired_employee_leaves_their_projects(owner: Any) -> None:
    office = owner.offices.get()
    project = channel_of(office, ChannelKind.PROJECT)
    assert "Iris" not in {e.name for e in project.members.all()}
    assert project.members.exists()
    lead = project.lead
    assert lead is not None
    employee_retire(employee=lead)
    project = Channel.objects.get(pk=project.pk)
    assert project.lead is None and lead not in project.members.all()


@pytest.mark.parametrize(
    ("language", "notice"),
    [
        ("en", "No one called @Nova works here."),
        ("ko", "여기에는 @Nova(이)라는 직원이 없어요."),
    ],
)
@pytest.mark.parametrize("kind", ["master", "all", "project", "dm"])
def test_an_unknown_name_is_answered_with_a_visible_message(
    owner: Any, model: FakeOpenAI, language: str, notice: str, kind: str
) -> None:
    office = owner.offices.get()
    office_edit(office=office, name=office.name, language=language)
    channel = dm_channel(office, "Theo") if kind == "dm" else channel_of(office, kind)
    accepted = instruction_accept(channel=channel, text="@Nova에게 예산 확인 부탁해요 (@Nova)")
    [event] = Message.objects.filter(channel=channel, payload__event="unknown_mention")
    assert event.office_text == {"kind": "unknown_mention", "names": ["Nova"]}
    assert event.kind == MessageKind.EVENT
    with translation.override(language):
        assert message_text(event) == notice
    assert event.payload["names"] == ["Nova"]
    # It stands right under the instruction it answers; the instruction itself is kept.
    assert event.payload["after_message"] == accepted.message.pk
    assert accepted.mission.instruction.startswith("@Nova에게")


def test_a_retired_name_gets_the_same_message_and_no_delegation(
    owner: Any, model: FakeOpenAI
) -> None:
    master = channel_of(owner.offices.get(), ChannelKind.MASTER)
    accepted = instruction_accept(channel=master, text="@Iris draft the banner. @Theo the page.")
    [event] = Message.objects.filter(channel=master, payload__event="unknown_mention")
    with translation.override("en"):
        assert message_text(event) == "No one called @Iris works here."
    delegated = Mission.objects.filter(parent=accepted.mission, source=MissionSource.DELEGATION)
    assert [m.assignee.name for m in delegated] == ["Theo"]


def test_an_e_mail_address_is_no_mention(owner: Any, model: FakeOpenAI) -> None:
    master = channel_of(owner.offices.get(), ChannelKind.MASTER)
    accepted = instruction_accept(channel=master, text="Send the deck to nova@example.com")
    assert not Message.objects.filter(payload__event="unknown_mention").exists()
    assert not Mission.objects.filter(parent=accepted.mission).exists()
    assert Employee.objects.filter(name="Iris", is_active=False).exists()
