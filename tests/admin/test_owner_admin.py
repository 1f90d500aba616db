"""A person who signs up runs their own office in the admin, without being an operator:
the admin opens for them, lists their office's rows and no one else's, and the operator's
pages (users, groups) stay closed."""

from html import escape

import pytest
from django.test import Client

from memory.models import MemoryItem
from office.models import Office
from tests.factories import make_office, make_user

pytestmark = pytest.mark.django_db


def _sign_up(username: str, language: str) -> Client:
    client = Client()
    response = client.post(
        "/signup/",
        {
            "username": username,
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
            "language": language,
        },
    )
    assert response.status_code == 302
    return client


@pytest.mark.parametrize(("language", "admin_label"), [("en", "Admin"), ("ko", "관리")])
def test_a_new_owner_gets_the_admin_of_their_own_office(language: str, admin_label: str) -> None:
    stranger = make_office(make_user(), name="Stranger's office")
    MemoryItem.objects.create(
        office=stranger, scope="office", kind="fact", text="zebraquartz budget", origin="user"
    )
    client = _sign_up("mina", language)
    [own] = Office.objects.filter(owner__username="mina")
    MemoryItem.objects.create(
        office=own, scope="office", kind="fact", text="our own budget line", origin="user"
    )

    home = client.get("/").content.decode()
    assert f'id="admin-link">{admin_label}</a>' in home
    assert client.get("/admin/").status_code == 200
    offices = client.get("/admin/office/office/").content.decode()
    assert escape(own.name) in offices and "Stranger" not in offices
    items = client.get("/admin/memory/memoryitem/").content.decode()
    assert "our own budget line" in items and "zebraquartz" not in items
    assert client.get(f"/admin/office/office/{stranger.pk}/change/").status_code in (302, 404)
    # Operators' pages stay closed to an owner.
    assert client.get("/admin/auth/user/").status_code == 403


def test_a_person_without_an_office_gets_no_admin_link() -> None:
    user = make_user()
    client = Client()
    client.force_login(user)
    assert client.get("/admin/").status_code == 302
