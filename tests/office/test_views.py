import json
from typing import Any

import pytest
from django.test import Client

from missions.models import Message
from office.models import Channel, Employee, Office
from sessions.services import session_start_new
from tests.factories import channel_of, dm_channel, make_office, make_user
from tests.sessions.test_long_session_notice import fill

pytestmark = pytest.mark.django_db(transaction=True)


def _signup(username: str) -> Client:
    client = Client()
    response = client.post(
        "/signup/",
        {"username": username, "password1": "a-Long-pass-123", "password2": "a-Long-pass-123"},
    )
    assert response.status_code == 302
    return client


def test_two_users_sign_up_and_each_sees_only_their_own_office() -> None:
    ada, bob = _signup("ada"), _signup("bob")
    ada_page = ada.get("/").content.decode()
    bob_page = bob.get("/").content.decode()
    assert "ada&#x27;s office" in ada_page and "bob&#x27;s office" not in ada_page
    assert "bob&#x27;s office" in bob_page and "ada&#x27;s office" not in bob_page
    assert Office.objects.count() == 2
    for office in Office.objects.all():
        assert office.employees.count() == 4
        assert office.channels.filter(kind="dm").count() == 4
    bob_channel = Channel.objects.filter(office__owner__username="bob").first()
    assert bob_channel is not None
    assert ada.get(f"/c/{bob_channel.pk}/").status_code == 404
    assert ada.get("/c/999999/").status_code == 404


def test_sign_up_can_be_turned_off(settings: Any) -> None:
    settings.SIGNUP_ENABLED = False
    assert Client().get("/signup/").status_code == 404


def test_the_office_page_shows_who_is_idle_and_who_is_working() -> None:
    user = make_user()
    office = make_office(user)
    theo_dm = dm_channel(office)
    from missions.intake import mission_create

    mission_create(
        session=theo_dm.sessions.get(),
        assignee=office.employees.get(name="Theo"),
        source="dm",
        instruction="Migrate the billing tables",
    )
    client = Client()
    client.force_login(user)
    page = client.get("/").content.decode()
    assert "Working on: Migrate the billing tables" in page
    assert page.count("Idle") == 3


def test_hiring_editing_and_retiring_an_employee() -> None:
    user = make_user()
    office = make_office(user)
    client = Client()
    client.force_login(user)
    client.post(
        "/employees/hire/",
        {"name": "Noor", "role": "Data analyst", "persona": "You are Noor, a careful analyst."},
    )
    noor = Employee.objects.get(office=office, name="Noor")
    assert Channel.objects.filter(kind="dm", employee=noor).count() == 1
    duplicate = client.post(
        "/employees/hire/", {"name": "noor", "role": "x", "persona": "y"}, follow=True
    )
    assert "already has that name" in duplicate.content.decode()
    client.post(
        f"/employees/{noor.pk}/",
        {"name": "Noora", "role": "Lead analyst", "persona": "You are Noora."},
    )
    noor.refresh_from_db()
    assert (noor.name, noor.role) == ("Noora", "Lead analyst")
    assert Channel.objects.get(kind="dm", employee=noor).name == "Noora"
    # Retiring asks first: the first post only shows what will happen.
    asked = client.post(f"/employees/{noor.pk}/", {"action": "retire"})
    assert asked.status_code == 200
    page = asked.content.decode()
    assert "Retire Noora?" in page
    assert 'name="confirm" value="yes"' in page
    noor.refresh_from_db()
    assert noor.is_active
    client.post(f"/employees/{noor.pk}/", {"action": "retire", "confirm": "yes"})
    noor.refresh_from_db()
    assert not noor.is_active
    master = office.employees.get(is_master=True)
    client.post(f"/employees/{master.pk}/", {"action": "retire", "confirm": "yes"})
    master.refresh_from_db()
    assert master.is_active
    stranger = Client()
    stranger.force_login(make_user())
    assert stranger.get(f"/employees/{noor.pk}/").status_code == 404


def test_opening_a_project_channel_with_members_and_a_lead() -> None:
    user = make_user()
    office = make_office(user)
    mara, iris = office.employees.get(name="Mara"), office.employees.get(name="Iris")
    client = Client()
    client.force_login(user)
    response = client.post(
        "/projects/new/", {"name": "Rebrand", "members": [mara.pk, iris.pk], "lead": iris.pk}
    )
    project = Channel.objects.get(office=office, name="Rebrand")
    assert response.status_code == 302 and response["Location"] == f"/c/{project.pk}/"
    assert project.kind == "project" and project.lead == iris
    assert set(project.members.all()) == {mara, iris}


def test_the_chat_page_boots_with_the_saved_timeline_and_strict_csp() -> None:
    user = make_user()
    office = make_office(user)
    channel = channel_of(office, "project")
    from missions.intake import instruction_accept

    instruction_accept(channel=channel, text="<script>alert(1)</script> plan it")
    client = Client()
    client.force_login(user)
    response = client.get(f"/c/{channel.pk}/")
    html = response.content.decode()
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1]
    assert "<script>alert(1)</script>" not in html
    boot = json.loads(html.split('id="boot" type="application/json">')[1].split("</script>")[0])
    assert [m["kind"] for m in boot["messages"]] == ["user", "employee"]
    assert set(boot["members"]) == {"Mara", "Theo", "Iris"}
    assert "<script src=" in html and "<script>" not in html.replace(
        '<script id="boot" type="application/json">', ""
    )


def test_opening_a_long_channel_shows_the_notice_once_and_reload_keeps_it() -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    fill(channel, 20)
    client = Client()
    client.force_login(user)
    client.get(f"/c/{channel.pk}/")
    client.get(f"/c/{channel.pk}/")
    notices = Message.objects.filter(channel=channel, kind="notice")
    assert notices.count() == 1 and notices[0].payload["trigger"] == "entry"
    boot = client.get(f"/c/{channel.pk}/").content.decode()
    assert boot.count('"kind": "notice"') == 1


def test_a_past_session_is_read_only() -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    first = channel.sessions.get()
    session_start_new(channel=channel)
    client = Client()
    client.force_login(user)
    html = client.get(f"/c/{channel.pk}/?session={first.pk}").content.decode()
    assert "read-only" in html and 'id="composer"' not in html
    assert "Session 2 (current)" in html
