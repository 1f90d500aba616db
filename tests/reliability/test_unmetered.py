"""Issue 37, point 4: no unmetered work. Retries count as instructions, hires are
limited, personas capped, request bodies capped before they are read, and the
password-reset pages exist only where mail can be sent (and are limited there)."""

import asyncio
import importlib
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import clear_url_caches

from config.asgi import application
from missions.intake import instruction_accept
from missions.models import Mission, MissionStatus
from office.models import PERSONA_MAX_CHARS, Employee
from tests.caching import clear_cache
from tests.factories import dm_channel, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def _signed_in() -> tuple[Any, Client]:
    user = make_user()
    make_office(user)
    client = Client()
    client.force_login(user)
    return user, client


def test_retries_count_against_the_instruction_limit(settings: Any) -> None:
    clear_cache()
    settings.INSTRUCTION_RATE_LIMIT = 5
    user, client = _signed_in()
    channel = dm_channel(user.offices.get())
    mission = instruction_accept(channel=channel, text="draft the memo", user_id=user.pk).mission
    codes, retried = [], 0
    for _ in range(40):
        # The model fails every time (as a broken provider would): the mission is failed
        # again before each retry.
        Mission.objects.filter(pk=mission.pk).update(status=MissionStatus.FAILED)
        response = client.post(f"/api/missions/{mission.pk}/retry")
        codes.append(response.status_code)
        retried += response.status_code == 202 and response.json()["retried"]
    # One instruction and four retries fill the window; the other 36 run nothing.
    assert retried == 4 and codes.count(429) == 36
    refused = client.post(f"/api/missions/{mission.pk}/retry")
    assert refused.json()["code"] == "rate_limited" and int(refused["Retry-After"]) > 0
    # And they share one budget with instructions.
    url = f"/api/channels/{channel.pk}/instructions"
    assert (
        client.post(url, {"text": "one more"}, content_type="application/json").status_code == 429
    )


def test_a_retry_of_a_mission_that_is_not_failed_costs_nothing(settings: Any) -> None:
    clear_cache()
    settings.INSTRUCTION_RATE_LIMIT = 2
    user, client = _signed_in()
    channel = dm_channel(user.offices.get())
    mission = instruction_accept(channel=channel, text="plan the launch", user_id=user.pk).mission
    for _ in range(5):
        assert client.post(f"/api/missions/{mission.pk}/retry").json()["retried"] is False
    url = f"/api/channels/{channel.pk}/instructions"
    assert client.post(url, {"text": "next"}, content_type="application/json").status_code == 202


def _hire(client: Client, name: str, persona: str = "You are careful.") -> Any:
    return client.post("/employees/hire/", {"name": name, "role": "Analyst", "persona": persona})


def test_hiring_is_limited_per_user(settings: Any) -> None:
    clear_cache()
    settings.HIRE_RATE_LIMIT = 3
    user, client = _signed_in()
    codes = [_hire(client, f"hire{n}").status_code for n in range(5)]
    assert codes == [302, 302, 302, 429, 429]
    assert Employee.objects.filter(office__owner=user, name__startswith="hire").count() == 3


@pytest.mark.parametrize("letter", ["a", "가"])
def test_a_persona_over_the_cap_is_refused_with_a_clear_error(letter: str) -> None:
    _, client = _signed_in()
    response = _hire(client, "Longwinded", letter * (PERSONA_MAX_CHARS + 1))
    assert response.status_code == 400
    page = response.content.decode()
    assert f"at most {PERSONA_MAX_CHARS} characters (it has {PERSONA_MAX_CHARS + 1})" in page
    assert not Employee.objects.filter(name="Longwinded").exists()
    assert _hire(client, "Longwinded", letter * PERSONA_MAX_CHARS).status_code == 302


async def _post(
    path: str, headers: list[tuple[bytes, bytes]], chunks: list[bytes]
) -> tuple[int, int]:
    """POST through the whole ASGI application; the status and how many chunks it read."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"localhost"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("localhost", 80),
    }
    read = 0
    pending = list(chunks)

    async def receive() -> dict[str, Any]:
        nonlocal read
        if not pending:
            # The client waits for its answer (Django listens for a disconnect meanwhile).
            await asyncio.Event().wait()
        read += 1
        body = pending.pop(0)
        return {"type": "http.request", "body": body, "more_body": bool(pending)}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await application(scope, receive, send)
    return sent[0]["status"], read


async def test_a_declared_body_over_the_cap_is_refused_unread(settings: Any) -> None:
    one_gb = str(1024**3).encode()
    status, read = await _post(
        "/accounts/login/", [(b"content-length", one_gb)], [b"x" * 65536] * 4
    )
    assert status == 413 and read == 0


async def test_a_chunked_body_is_cut_off_at_the_cap(settings: Any) -> None:
    chunk = b"x" * 65536
    chunks = [chunk] * 100  # 6.5 MB without a Content-Length
    status, read = await _post("/accounts/login/", [], chunks)
    cap_chunks = settings.MAX_REQUEST_BODY_BYTES // len(chunk)
    assert status == 413 and read == cap_chunks + 1


async def test_a_body_within_the_cap_still_reaches_django(settings: Any) -> None:
    status, read = await _post(
        "/accounts/login/",
        [(b"content-type", b"application/x-www-form-urlencoded")],
        [b"username=a&", b"password=b"],
    )
    assert status == 403 and read == 2  # Django's CSRF check answered: the body got there


def test_djangos_own_parsing_cap_matches() -> None:
    from django.conf import settings

    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == settings.MAX_REQUEST_BODY_BYTES <= 2**20


def _reload_urls() -> None:
    import config.urls

    importlib.reload(config.urls)
    clear_url_caches()


@pytest.fixture
def reset_pages(settings: Any) -> Iterator[Any]:
    yield settings
    settings.PASSWORD_RESET_ENABLED = False
    _reload_urls()


def test_without_mail_the_password_reset_pages_are_not_routed(reset_pages: Any) -> None:
    reset_pages.PASSWORD_RESET_ENABLED = False
    _reload_urls()
    client = Client()
    for path in ("/accounts/password_reset/", "/accounts/reset/MQ/set-password/"):
        assert client.get(path).status_code == 404
        assert client.post(path, {"email": "a@example.com"}).status_code == 404


def test_with_mail_password_reset_requests_are_limited_per_address(reset_pages: Any) -> None:
    clear_cache()
    reset_pages.PASSWORD_RESET_ENABLED = True
    reset_pages.PASSWORD_RESET_RATE_LIMIT = 2
    reset_pages.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    _reload_urls()
    user = make_user()
    user.email = "owner@example.com"
    user.save()
    client = Client(REMOTE_ADDR="127.0.2.9")
    codes = [
        client.post("/accounts/password_reset/", {"email": "owner@example.com"}).status_code
        for _ in range(4)
    ]
    assert codes == [302, 302, 429, 429]
    assert len(mail.outbox) == 2
