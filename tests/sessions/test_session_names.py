"""A person names a session: the name is shown in the session menu beside its number,
kept in exports, and refused with a reason when it cannot be stored."""

from typing import Any

import pytest
from django.test import Client

from office.models import Office
from sessions.models import SESSION_TITLE_CHARS, ChatSession
from sessions.selectors import session_current
from tests.factories import dm_channel, make_office, make_user

pytestmark = pytest.mark.django_db


def _setup(language: str = "en") -> tuple[Any, Client, ChatSession]:
    user = make_user()
    office = make_office(user)
    Office.objects.filter(pk=office.pk).update(language=language)
    client = Client()
    client.force_login(user)
    session = session_current(channel=dm_channel(office))
    assert session is not None
    return user, client, session


def _name(client: Client, session: ChatSession, title: str) -> Any:
    return client.post(
        f"/c/{session.channel_id}/sessions/{session.pk}/name/", {"title": title}, follow=True
    )


@pytest.mark.parametrize(
    ("language", "title"), [("ko", "  6월 런칭   준비 "), ("en", "June launch prep")]
)
def test_a_named_session_shows_its_name_in_the_session_menu(language: str, title: str) -> None:
    _, client, session = _setup(language)
    page = _name(client, session, title)
    assert page.status_code == 200
    clean = " ".join(title.split())
    session.refresh_from_db()
    assert session.title == clean
    option = f'<option value="{session.pk}" selected>{clean} · '
    assert option in page.content.decode()


def test_a_name_with_a_nul_or_too_long_is_refused_with_the_reason_and_the_old_name_kept() -> None:
    _, client, session = _setup()
    _name(client, session, "Kept")
    page = _name(client, session, "bad\x00name")
    assert "NUL" in page.content.decode()
    page = _name(client, session, "x" * (SESSION_TITLE_CHARS + 1))
    assert str(SESSION_TITLE_CHARS) in page.content.decode()
    session.refresh_from_db()
    assert session.title == "Kept"


def test_another_owners_session_is_answered_as_missing() -> None:
    _, _, session = _setup()
    stranger = Client()
    stranger.force_login(make_user())
    response = stranger.post(
        f"/c/{session.channel_id}/sessions/{session.pk}/name/", {"title": "mine"}
    )
    assert response.status_code == 404
    session.refresh_from_db()
    assert session.title == ""


def test_a_session_name_travels_with_its_export() -> None:
    _, client, session = _setup()
    _name(client, session, "June launch prep")
    exported = client.get(f"/api/channels/{session.channel_id}/export", {"format": "markdown"})
    assert "## Session 1 · June launch prep" in exported.content.decode()
    data = client.get(f"/api/channels/{session.channel_id}/export").json()
    assert data["sessions"][0]["title"] == "June launch prep"
