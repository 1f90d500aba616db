import base64
from typing import Any

import pytest
from django.test import Client

from missions.models import Mission
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.django_db(transaction=True)


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _basic(username: str, password: str) -> Client:
    """A client that sends HTTP Basic credentials, as a script would: no session, no CSRF."""
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return Client(headers={"Authorization": f"Basic {token}"})


def test_an_instruction_over_http_is_saved_answered_and_readable_by_id(model: FakeOpenAI) -> None:
    user = make_user("ann", password="ann-password-1")
    channel = dm_channel(make_office(user))
    client = _basic("ann", "ann-password-1")
    sent = client.post(
        f"/api/channels/{channel.pk}/instructions",
        {"text": "Draft a tagline", "client_id": "k1"},
        content_type="application/json",
    )
    assert sent.status_code == 202
    body = sent.json()
    assert body["created"] is True and body["mission"]["seq"] == 1
    again = client.post(
        f"/api/channels/{channel.pk}/instructions",
        {"text": "Draft a tagline", "client_id": "k1"},
        content_type="application/json",
    )
    assert again.json()["created"] is False
    assert Mission.objects.filter(channel=channel).count() == 1

    timeline = client.get(f"/api/channels/{channel.pk}/messages").json()["messages"]
    assert [m["kind"] for m in timeline] == ["user", "employee"]
    after_first = client.get(
        f"/api/channels/{channel.pk}/messages?after={timeline[0]['id']}",
    ).json()["messages"]
    assert [m["id"] for m in after_first] == [timeline[1]["id"]]


def test_a_rejected_instruction_gets_a_clear_400(model: FakeOpenAI) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    response = _client(user).post(
        f"/api/channels/{channel.pk}/instructions", {"text": ""}, content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["code"] == "empty"


def test_another_users_ids_answer_like_missing_ones(model: FakeOpenAI) -> None:
    owner, stranger = make_user(), make_user()
    channel = dm_channel(make_office(owner))
    mission = Mission.objects.create(
        session=channel.sessions.get(),
        channel=channel,
        seq=1,
        source="dm",
        assignee=channel.office.employees.get(name="Theo"),
        instruction="x",
    )
    client = _client(stranger)
    for path, method in [
        (f"/api/channels/{channel.pk}/messages", "get"),
        (f"/api/channels/{channel.pk}/context", "get"),
        (f"/api/channels/{channel.pk}/instructions", "post"),
        (f"/api/channels/{channel.pk}/sessions", "post"),
        (f"/api/missions/{mission.pk}", "get"),
        (f"/api/missions/{mission.pk}/retry", "post"),
    ]:
        missing = path.replace(str(channel.pk) if "channels" in path else str(mission.pk), "999999")
        call = getattr(client, method)
        kwargs: dict[str, Any] = {"content_type": "application/json"}
        data = {"text": "hi"} if method == "post" else None
        foreign_response = call(path, data, **kwargs) if data else call(path)
        missing_response = call(missing, data, **kwargs) if data else call(missing)
        assert foreign_response.status_code == missing_response.status_code == 404, path
        assert foreign_response.content == missing_response.content


def test_anonymous_callers_are_refused() -> None:
    assert Client().get("/api/channels").status_code == 401


def test_a_new_session_over_http(model: FakeOpenAI) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    first = channel.sessions.get()
    client = _client(user)
    made = client.post(
        f"/api/channels/{channel.pk}/sessions",
        {"session_id": first.pk},
        content_type="application/json",
    )
    twice = client.post(
        f"/api/channels/{channel.pk}/sessions",
        {"session_id": first.pk},
        content_type="application/json",
    )
    assert made.status_code == 201 and made.json()["number"] == 2
    assert twice.json()["id"] == made.json()["id"]


def test_the_openapi_schema_lists_the_actions() -> None:
    schema = Client().get("/api/openapi.json").json()
    paths = set(schema["paths"])
    assert {
        "/api/channels/{channel_id}/instructions",
        "/api/channels/{channel_id}/messages",
        "/api/channels/{channel_id}/sessions",
        "/api/missions/{mission_id}/retry",
    } <= paths
