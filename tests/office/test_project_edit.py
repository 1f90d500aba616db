"""The project page: its office's owner changes a project's name, lead and members (with
the form's errors beside it, under CSRF); nobody else reaches it. A project whose lead
retired is flagged for reassignment on the project page, its channel and the office page
until it gets a lead again."""

from typing import Any

import pytest
from django.test import Client

from office.models import Channel, ChannelKind
from office.selectors import channel_default_assignee
from office.services import channel_edit, employee_hire, employee_retire, user_set_language
from tests.factories import channel_of, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)

FLAG = {"en": "Lead retired (Mara) — reassign", "ko": "리드 은퇴(Mara) — 새 리드를 지정하세요"}


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


def _project(owner: Any) -> Channel:
    return channel_of(owner.offices.get(), ChannelKind.PROJECT)


def _ids(owner: Any, *names: str) -> list[int]:
    office = owner.offices.get()
    return [office.employees.get(name=n).pk for n in names]


def test_the_owner_renames_a_project_and_changes_its_lead_and_members(
    owner: Any, client: Client
) -> None:
    project = _project(owner)
    assert project.lead is not None and project.lead.name == "Mara"
    page = client.get(f"/projects/{project.pk}/")
    assert page.status_code == 200
    assert 'value="Website launch"' in page.content.decode()

    theo, iris = _ids(owner, "Theo", "Iris")
    response = client.post(
        f"/projects/{project.pk}/", {"name": "Launch v2", "lead": theo, "members": [iris]}
    )
    assert response.status_code == 302 and response["Location"] == f"/c/{project.pk}/"
    project.refresh_from_db()
    assert project.name == "Launch v2"
    assert project.lead_id == theo
    # The lead is always a member; Mara, left unticked, is no longer one.
    assert sorted(project.members.values_list("name", flat=True)) == ["Iris", "Theo"]
    assert channel_default_assignee(channel=project).name == "Theo"

    chat = client.get(f"/c/{project.pk}/").content.decode()
    assert "Launch v2" in chat and "Led by Theo" in chat and "Members: Iris, Theo" in chat
    office_page = client.get("/").content.decode()
    assert "Launch v2" in office_page and "led by Theo" in office_page


@pytest.mark.parametrize(
    ("language", "no_lead", "foreign"),
    [
        ("en", "Choose who leads the project.", "Choose a lead from the active team."),
        ("ko", "프로젝트를 이끌 사람을 고르세요.", "리드는 현재 팀에서 고르세요."),
    ],
)
def test_a_bad_form_is_shown_again_with_its_errors_and_changes_nothing(
    owner: Any, client: Client, language: str, no_lead: str, foreign: str
) -> None:
    user_set_language(user=owner, language=language)
    project = _project(owner)
    theo, mara = _ids(owner, "Theo", "Mara")
    missing = client.post(f"/projects/{project.pk}/", {"name": "Renamed", "members": [theo]})
    assert missing.status_code == 400
    body = missing.content.decode()
    assert no_lead in body and 'value="Renamed"' in body

    other = make_office(make_user(), name="Elsewhere")
    stranger = other.employees.get(name="Theo")
    avery = owner.offices.get().employees.get(is_master=True)
    for lead in (stranger.pk, avery.pk):
        refused = client.post(f"/projects/{project.pk}/", {"name": "Renamed", "lead": lead})
        assert refused.status_code == 400
        assert foreign in refused.content.decode()
    project.refresh_from_db()
    assert project.name == "Website launch" and project.lead_id == mara


def test_another_office_and_other_channels_are_answered_as_missing(
    owner: Any, client: Client
) -> None:
    stranger = make_user()
    elsewhere = make_office(stranger, name="Elsewhere")
    theirs = channel_of(elsewhere, ChannelKind.PROJECT)
    theo = elsewhere.employees.get(name="Theo").pk
    assert client.get(f"/projects/{theirs.pk}/").status_code == 404
    assert client.post(f"/projects/{theirs.pk}/", {"name": "Mine", "lead": theo}).status_code == 404
    theirs.refresh_from_db()
    assert theirs.name == "Website launch"
    master = channel_of(owner.offices.get(), ChannelKind.MASTER)
    assert client.get(f"/projects/{master.pk}/").status_code == 404
    assert Client().get(f"/projects/{theirs.pk}/").status_code == 302  # to the log-in page


def test_a_post_without_the_csrf_token_is_refused(owner: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    project = _project(owner)
    (theo,) = _ids(owner, "Theo")
    response = client.post(f"/projects/{project.pk}/", {"name": "Forged", "lead": theo})
    assert response.status_code == 403
    project.refresh_from_db()
    assert project.name == "Website launch"


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_retired_lead_flags_the_project_until_it_is_reassigned(
    owner: Any, client: Client, language: str
) -> None:
    user_set_language(user=owner, language=language)
    office = owner.offices.get()
    project = _project(owner)
    mara = office.employees.get(name="Mara")
    other = employee_hire(office=office, name="Nia", role="PM", persona="A PM.")
    side = Channel.objects.create(office=office, kind=ChannelKind.PROJECT, name="Side", lead=other)
    employee_retire(employee=mara)
    project.refresh_from_db()
    assert project.lead is None and project.retired_lead == mara

    flag = FLAG[language]
    for url in ("/", f"/projects/{project.pk}/", f"/c/{project.pk}/"):
        assert flag in client.get(url).content.decode(), url
    # Only the project she led.
    assert client.get(f"/c/{side.pk}/").content.decode().count("lead-retired") == 0
    assert client.get("/").content.decode().count('class="flag lead-retired"') == 1
    # A retired employee cannot be made lead again.
    again = client.post(f"/projects/{project.pk}/", {"name": "Website launch", "lead": mara.pk})
    assert again.status_code == 400

    (iris,) = _ids(owner, "Iris")
    client.post(f"/projects/{project.pk}/", {"name": "Website launch", "lead": iris})
    project.refresh_from_db()
    assert project.lead_id == iris and project.retired_lead is None
    for url in ("/", f"/projects/{project.pk}/", f"/c/{project.pk}/"):
        assert flag not in client.get(url).content.decode(), url


def test_giving_the_project_a_lead_in_the_admin_clears_the_flag_too(owner: Any) -> None:
    office = owner.offices.get()
    project = _project(owner)
    employee_retire(employee=office.employees.get(name="Mara"))
    project.refresh_from_db()
    # Renamed without a lead: still flagged.
    channel_edit(channel=project, name="Renamed", detail_budget_chars=None, lead=None)
    project.refresh_from_db()
    assert project.retired_lead is not None and project.retired_lead.name == "Mara"
    theo = office.employees.get(name="Theo")
    channel_edit(channel=project, name="Renamed", detail_budget_chars=None, lead=theo)
    project.refresh_from_db()
    assert project.lead == theo and project.retired_lead is None
