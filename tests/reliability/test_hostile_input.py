"""Text no database or socket can carry (a NUL, a lone surrogate) is refused at every edge
by one rule, with a clear error; a frame nested too deep for the parser is a bad frame.
Neither kills a socket or saves anything."""

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from memory.models import MemoryItem
from missions.models import Message, Mission
from office.forms import EmployeeForm, ProjectForm, SignupForm
from tests.factories import dm_channel, make_office, make_user
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

BAD_TEXTS = ["nul\x00ws", "\ud800", "ok \udfff end"]


@database_sync_to_async
def _owner_and_channel() -> tuple[Any, Any]:
    user = make_user()
    return user, dm_channel(make_office(user))


async def _nothing_saved() -> None:
    assert await database_sync_to_async(Mission.objects.count)() == 0
    assert await database_sync_to_async(Message.objects.count)() == 0


async def _still_answers(socket: Any) -> None:
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}


# --- the socket -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", BAD_TEXTS)
async def test_the_socket_refuses_unstorable_text_and_stays_open(text: str) -> None:
    user, channel = await _owner_and_channel()
    _, _, socket = await open_socket(channel.pk, user)
    await socket.send_json_to({"type": "instruction", "text": text, "client_id": "c1"})
    error = await socket.receive_json_from(timeout=5)
    assert error["type"] == "error" and error["code"] == "bad_text"
    assert error["client_id"] == "c1" and "The instruction contains" in error["message"]
    await _still_answers(socket)
    await socket.disconnect()
    await _nothing_saved()


async def test_the_socket_refuses_an_unstorable_client_id_and_gives_it_back() -> None:
    user, channel = await _owner_and_channel()
    _, _, socket = await open_socket(channel.pk, user)
    await socket.send_json_to({"type": "instruction", "text": "fine", "client_id": "k\ud800"})
    error = await socket.receive_json_from(timeout=5)
    # Sent as a JSON escape, read back as the very string the page keeps in its outbox.
    assert error["code"] == "bad_text" and error["client_id"] == "k\ud800"
    await _still_answers(socket)
    await socket.disconnect()
    await _nothing_saved()


async def test_a_frame_nested_deeper_than_the_parser_goes_is_a_bad_frame() -> None:
    user, channel = await _owner_and_channel()
    _, _, socket = await open_socket(channel.pk, user)
    for nested in ("[" * 30_000 + "]" * 30_000, '{"a":' * 10_000 + "1" + "}" * 10_000):
        await socket.send_to(text_data=nested)
        error = await socket.receive_json_from(timeout=5)
        assert error == {
            "type": "error",
            "code": "bad_json",
            "message": "The frame is not valid JSON.",
        }
    await _still_answers(socket)
    await socket.disconnect()


# --- the JSON API ---------------------------------------------------------------------------


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


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_the_api_refuses_unstorable_instructions_with_a_400(
    owner: Any, client: Client, text: str
) -> None:
    channel = dm_channel(owner.offices.get())
    url = f"/api/channels/{channel.pk}/instructions"
    for body in ({"text": text}, {"text": "fine", "client_id": text}):
        response = client.post(url, body, content_type="application/json")
        assert response.status_code == 400, response.content
        assert response.json()["code"] == "bad_text"
    assert Mission.objects.count() == 0 and Message.objects.count() == 0


def test_the_context_preview_refuses_a_nul(owner: Any, client: Client) -> None:
    channel = dm_channel(owner.offices.get())
    response = client.get(f"/api/channels/{channel.pk}/context?instruction=a%00b")
    assert response.status_code == 400 and response.json()["code"] == "bad_text"
    assert client.get(f"/api/channels/{channel.pk}/context?instruction=ab").status_code == 200


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_the_memory_api_refuses_unstorable_text_with_a_400(
    owner: Any, client: Client, text: str
) -> None:
    office = owner.offices.get()
    item = client.post(
        "/api/memory",
        {"office": office.pk, "scope": "office", "kind": "fact", "text": "We ship on Fridays"},
        content_type="application/json",
    ).json()
    calls = [
        ("post", "/api/memory", {"office": office.pk, "scope": "office", "kind": "fact"}),
        ("patch", f"/api/memory/{item['id']}", {}),
        ("post", f"/api/memory/{item['id']}/supersede", {}),
    ]
    for method, url, body in calls:
        response = getattr(client, method)(
            url, json.dumps({**body, "text": text}), content_type="application/json"
        )
        assert response.status_code == 400, (url, response.content)
        assert response.json()["code"] == "bad_text"
    listing = client.get("/api/memory?scope=office%00")
    assert listing.status_code == 400 and listing.json()["code"] == "bad_text"
    assert list(MemoryItem.objects.values_list("text", flat=True)) == ["We ship on Fridays"]


# --- forms and sign-up ----------------------------------------------------------------------


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_the_employee_and_project_forms_refuse_unstorable_text(owner: Any, text: str) -> None:
    office = owner.offices.get()
    hire = EmployeeForm({"name": "Zoe", "role": "Analyst", "persona": text}, office_id=office.pk)
    assert not hire.is_valid() and hire.has_error("persona", code="bad_text")
    team = list(office.employees.filter(is_master=False))
    project = ProjectForm(
        {"name": f"Launch {text}", "members": [e.pk for e in team], "lead": team[0].pk},
        office_id=office.pk,
    )
    assert not project.is_valid() and project.has_error("name")


def test_sign_up_refuses_an_unstorable_password() -> None:
    form = SignupForm(
        {
            "username": "newcomer",
            "password1": "long pass \ud800 1",
            "password2": "long pass \ud800 1",
        }
    )
    assert not form.is_valid() and form.has_error("password2", code="bad_text")
    good = SignupForm(
        {"username": "newcomer", "password1": "long pass ok 12", "password2": "long pass ok 12"}
    )
    assert good.is_valid(), good.errors
