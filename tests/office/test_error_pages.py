"""Our own 404 and 500 pages (DEBUG is off by default), in English and Korean."""

import pytest
from django.test import Client, RequestFactory
from django.utils import translation
from django.views.defaults import server_error

from tests.factories import make_office, make_user

pytestmark = pytest.mark.django_db


def test_a_missing_page_is_our_readable_404_not_a_list_of_url_patterns() -> None:
    response = Client(HTTP_ACCEPT_LANGUAGE="en").get("/no/such/page/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Page not found" in page and "Back to your office" in page
    assert "URLconf" not in page and "api/" not in page
    assert "office/office.css" in page  # our layout, not Django's bare default


def test_a_foreign_channel_answers_the_same_404_in_the_persons_language() -> None:
    user = make_user()
    office = make_office(user)
    office.language = "ko"
    office.save()
    client = Client()
    client.force_login(user)
    response = client.get("/c/999999/")
    assert response.status_code == 404
    page = response.content.decode()
    assert '<html lang="ko">' in page and "페이지를 찾을 수 없어요" in page


@pytest.mark.parametrize(
    ("language", "text"),
    [("en", "Something went wrong"), ("ko", "문제가 생겼어요")],
)
def test_a_server_error_is_our_page_in_the_persons_language(language: str, text: str) -> None:
    with translation.override(language):
        response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    page = response.content.decode()
    assert text in page and f'<html lang="{language}">' in page
    assert "Traceback" not in page
