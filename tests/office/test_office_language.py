"""A person who signs up in Korean gets a Korean office from the start: its language, the
seeded team's roles and personas, the demo project and the office's name come from the
catalogue in that language; in English the same, in English."""

from typing import Any

import pytest
from django.test import Client

from office.models import Channel, Office, Profile

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-Long-pass-123"


def _sign_up(username: str, **extra: Any) -> tuple[Client, Any]:
    client = Client()
    response = client.post(
        "/signup/",
        {"username": username, "password1": PASSWORD, "password2": PASSWORD, **extra},
        **({"HTTP_ACCEPT_LANGUAGE": extra.pop("accept")} if "accept" in extra else {}),
    )
    assert response.status_code == 302, response.content.decode()[:500]
    return client, response


@pytest.mark.parametrize(
    ("language", "roles", "project", "persona", "office_name"),
    [
        (
            "ko",
            {"비서실장", "마케팅 리드", "소프트웨어 개발자", "프로덕트 디자이너"},
            "웹사이트 출시",
            "당신은 이 사무실의 비서실장 Avery입니다.",
            "minji님의 사무실",
        ),
        (
            "en",
            {"Chief of staff", "Marketing lead", "Software developer", "Product designer"},
            "Website launch",
            "You are Avery, the chief of staff of this office.",
            "minji's office",
        ),
    ],
)
def test_the_sign_up_language_is_the_offices_from_the_start(
    language: str, roles: set[str], project: str, persona: str, office_name: str
) -> None:
    client, response = _sign_up("minji", language=language)

    office = Office.objects.get(owner__username="minji")
    assert office.language == language and office.name == office_name
    assert set(office.employees.values_list("role", flat=True)) == roles
    master = office.employees.get(is_master=True)
    assert master.persona.startswith(persona)
    assert Channel.objects.get(office=office, kind="project").name == project
    assert Profile.objects.get(user__username="minji").language == language
    assert response.cookies["django_language"].value == language
    page = client.get("/").content.decode()
    assert f'lang="{language}"' in page
    assert project in page and min(roles) in page


def test_the_sign_up_form_offers_the_language_the_page_is_read_in() -> None:
    page = Client().get("/signup/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert '<option value="ko" selected>' in page
    page = Client().get("/signup/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<option value="en" selected>' in page


def test_a_sign_up_without_a_language_takes_the_pages() -> None:
    _sign_up("ada", accept="ko")
    assert Office.objects.get(owner__username="ada").language == "ko"
