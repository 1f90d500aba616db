"""Archiving a project: it leaves the sidebar, reads as before, takes no work (a clear
refusal in the person's language) until it is unarchived; history and memory stay."""

from typing import Any

import pytest
from django.test import Client

from missions.models import Mission
from office.models import Channel, ChannelKind, Office
from sessions.selectors import session_current
from tests.factories import add_finished_missions, channel_of, make_office, make_user

pytestmark = pytest.mark.django_db

REFUSED = {"ko": "보관된 프로젝트", "en": "is archived"}


def _project(language: str) -> tuple[Client, Channel]:
    user = make_user()
    office = make_office(user)
    Office.objects.filter(pk=office.pk).update(language=language)
    client = Client()
    client.force_login(user)
    project = channel_of(office, ChannelKind.PROJECT)
    session = session_current(channel=project)
    assert session is not None
    add_finished_missions(session, 2)
    return client, project


def _archive(client: Client, project: Channel, archived: bool) -> Any:
    return client.post(
        f"/projects/{project.pk}/archive/", {"archived": "1" if archived else "0"}, follow=True
    )


def _sidebar_ids(client: Client, shown: int) -> list[str]:
    page = client.get(f"/c/{shown}/").content.decode()
    return [part.split('"')[0] for part in page.split('data-channel="')[1:]]


@pytest.mark.parametrize("language", ["ko", "en"])
def test_an_archived_project_reads_but_takes_no_work_until_unarchived(language: str) -> None:
    client, project = _project(language)
    master = project.office.channels.get(kind=ChannelKind.MASTER)
    assert str(project.pk) in _sidebar_ids(client, master.pk)
    page = _archive(client, project, True)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="archived"' in html and 'id="composer"' not in html
    assert str(project.pk) not in _sidebar_ids(client, master.pk)
    sent = client.post(
        f"/api/channels/{project.pk}/instructions", {"text": "go"}, content_type="application/json"
    )
    assert sent.status_code == 409
    assert sent.json()["code"] == "channel_archived"
    assert REFUSED[language] in sent.json()["message"]
    assert Mission.objects.filter(channel=project).count() == 2
    listed = {c["id"]: c["archived"] for c in client.get("/api/channels").json()}
    assert listed[project.pk] is True

    _archive(client, project, False)
    assert str(project.pk) in _sidebar_ids(client, master.pk)
    sent = client.post(
        f"/api/channels/{project.pk}/instructions", {"text": "go"}, content_type="application/json"
    )
    assert sent.status_code == 202


def test_only_the_owner_archives_and_only_a_project() -> None:
    _, project = _project("en")
    stranger = Client()
    stranger.force_login(make_user())
    assert _archive(stranger, project, True).status_code == 404
    project.refresh_from_db()
    assert project.archived_at is None
    owner = Client()
    owner.force_login(project.office.owner)
    master = project.office.channels.get(kind=ChannelKind.MASTER)
    assert owner.post(f"/projects/{master.pk}/archive/", {"archived": "1"}).status_code == 404
    assert owner.get(f"/projects/{project.pk}/archive/").status_code == 405
