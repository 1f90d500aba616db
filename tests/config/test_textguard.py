"""Issue 42: NUL and the other control characters are refused with a 400 (or the frame's
error) wherever a request brings text, never a 500. On PostgreSQL a NUL in an HTTP Basic
user name, or in the session cookie, reached the database and gave an unauthenticated 500.
Refusals are said in the person's language."""

import base64
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from missions.models import Message, Mission
from office.forms import EmployeeForm
from tests.factories import dm_channel, make_office, make_user
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

# NUL, other C0 controls, DEL and a C1 control.
CONTROLS = ["ad\x00min", "ad\x01min", "admin\x1b[2J", "\x7fadmin", "ad\x85min"]


def _basic(name: str, password: str = "pw-for-tests-1") -> str:
    return "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()


@pytest.mark.parametrize("name", CONTROLS)
def test_a_control_character_in_a_basic_user_name_is_a_400_not_a_500(name: str) -> None:
    make_user("admin")
    client = Client(raise_request_exception=False)
    response = client.get("/api/channels", HTTP_AUTHORIZATION=_basic(name))
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["code"] == "bad_text"
    assert body["message"].startswith("The user name or password contains")


def test_a_nul_in_a_basic_password_is_a_400_and_good_credentials_still_work() -> None:
    user = make_user("admin")
    office = make_office(user)
    client = Client(raise_request_exception=False)
    refused = client.get("/api/channels", HTTP_AUTHORIZATION=_basic("admin", "pw\x00"))
    assert refused.status_code == 400 and refused.json()["code"] == "bad_text"
    fine = client.get("/api/channels", HTTP_AUTHORIZATION=_basic("admin"))
    assert fine.status_code == 200
    assert {c["id"] for c in fine.json()} == set(office.channels.values_list("pk", flat=True))


def test_the_refusal_is_said_in_korean_to_a_korean_browser() -> None:
    client = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="ko")
    response = client.get("/api/channels", HTTP_AUTHORIZATION=_basic("ad\x00min"))
    assert response.status_code == 400
    assert response.json()["message"] == (
        "사용자 이름 또는 비밀번호의 3번째 글자가 NUL 문자입니다. 지우고 다시 시도해 주세요."
    )
    page = client.get("/accounts/login/?next=/%07")
    assert page.status_code == 400
    assert page.content.decode() == (
        "주소의 2번째 글자가 제어 문자(U+0007)입니다. 지우고 다시 시도해 주세요."
    )


def test_a_nul_in_the_session_cookie_is_a_400_not_a_500() -> None:
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "abcdefgh\x00ijkl"
    response = client.get("/")
    assert response.status_code == 400
    assert response.content.decode().startswith("A cookie contains a NUL character")


def test_a_cookie_of_korean_text_is_not_mistaken_for_control_characters() -> None:
    """Headers are read as Latin-1: the UTF-8 of 한국어 holds bytes 0x80-0x9F."""
    user = make_user()
    make_office(user)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    raw = "한국어".encode().decode("latin-1")  # as a header carries a sibling site's cookie
    assert any("\x80" <= c <= "\x9f" for c in raw)
    client.cookies["their_language"] = raw
    assert client.get("/").status_code == 200


@pytest.mark.parametrize(
    "url", ["/accounts/login/?next=%00", "/api/memory?scope=office%1b", "/%00/"]
)
def test_a_control_character_in_the_address_is_a_400(url: str) -> None:
    user = make_user()
    make_office(user)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 400
    text = response.json()["message"] if url.startswith("/api/") else response.content.decode()
    assert text.startswith("The address contains")


@pytest.mark.parametrize("text", ["bell \x07", "escape \x1b[31m red", "C1 \x9b"])
def test_the_api_refuses_control_characters_in_an_instruction(text: str) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client = Client()
    client.force_login(user)
    url = f"/api/channels/{channel.pk}/instructions"
    response = client.post(url, json.dumps({"text": text}), content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "bad_text"
    assert "a control character (U+" in response.json()["message"]
    assert Mission.objects.count() == 0 and Message.objects.count() == 0
    # Tabs and line breaks are text.
    fine = client.post(
        url, json.dumps({"text": "줄 하나\n\t둘째 줄\r\n"}), content_type="application/json"
    )
    assert fine.status_code in (200, 201, 202), fine.content


def test_the_forms_refuse_control_characters() -> None:
    office = make_office(make_user())
    form = EmployeeForm(
        {"name": "Zoe", "role": "Analyst", "persona": "차분한 \x08 분석가"}, office_id=office.pk
    )
    assert not form.is_valid() and form.has_error("persona", code="bad_text")


async def test_the_socket_answers_a_control_character_with_the_frame_error() -> None:
    user = await database_sync_to_async(make_user)()
    channel = await database_sync_to_async(lambda: dm_channel(make_office(user)))()
    _, _, socket = await open_socket(channel.pk, user)
    await socket.send_json_to({"type": "instruction", "text": "종 \x07", "client_id": "c1"})
    error = await socket.receive_json_from(timeout=5)
    assert error["type"] == "error" and error["code"] == "bad_text"
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.disconnect()
    assert await database_sync_to_async(Mission.objects.count)() == 0


async def test_a_socket_handshake_with_a_nul_in_its_cookie_is_denied(caplog: Any) -> None:
    headers = [
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
        (b"cookie", b"sessionid=abcdefgh\x00ijkl"),
    ]
    socket = WebsocketCommunicator(application, "/ws/channels/1/", headers=headers)
    connected, _ = await socket.connect()
    assert not connected
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
