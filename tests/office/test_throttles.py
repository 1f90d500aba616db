"""The doors are throttled: failed log-ins per account and per address (the form, the
admin and HTTP Basic alike, refused before any password is hashed), sign-ups per address,
new sessions per user. A cache that cannot be reached fails open."""

import base64
import itertools
from typing import Any

import pytest
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.test import Client

from office.models import Office
from sessions.models import ChatSession
from tests.factories import dm_channel, make_office, make_user
from tests.reliability.test_workers import _free_port
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

_addresses = itertools.count(2)


def _address() -> str:
    """A loopback address of its own for each client: counters are per address."""
    return f"127.0.0.{next(_addresses)}"


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The usernames whose password Django's backend checked (hashing costs ~0.25 s)."""
    checked: list[str] = []
    real = ModelBackend.authenticate

    def spy(self: Any, request: Any, username: Any = None, password: Any = None, **kw: Any) -> Any:
        checked.append(username)
        return real(self, request, username=username, password=password, **kw)

    monkeypatch.setattr(ModelBackend, "authenticate", spy)
    return checked


def _login(client: Client, username: str, password: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password})


def test_failed_log_ins_lock_the_account_before_any_hashing(
    settings: Any, hashed: list[str]
) -> None:
    settings.LOGIN_FAILURE_LIMIT = 3
    settings.LOGIN_FAILURE_WINDOW = 10**6
    make_user("mina", password="right-password-1")
    make_user("jun", password="right-password-2")
    for _ in range(3):
        wrong = _login(Client(REMOTE_ADDR=_address()), "mina", "wrong")
        assert wrong.status_code == 200
        assert "correct username and password" in wrong.content.decode()
    # Even the right password, from anywhere, waits now; nothing is hashed.
    before = len(hashed)
    locked = _login(Client(REMOTE_ADDR=_address()), "Mina", "right-password-1")
    assert locked.status_code == 429 and int(locked["Retry-After"]) > 0
    assert "Too many attempts" in locked.content.decode()
    assert len(hashed) == before
    # Another account is not affected.
    other = _login(Client(REMOTE_ADDR=_address()), "jun", "right-password-2")
    assert other.status_code == 302


def test_failed_log_ins_from_one_address_are_throttled_across_accounts(
    settings: Any, hashed: list[str]
) -> None:
    settings.LOGIN_FAILURE_ADDRESS_LIMIT = 5
    settings.LOGIN_FAILURE_WINDOW = 10**6
    make_user("hana", password="right-password-3")
    attacker = Client(REMOTE_ADDR=_address())
    codes = [_login(attacker, f"nobody{n}", "guess").status_code for n in range(5)]
    assert codes == [200] * 5
    before = len(hashed)
    assert _login(attacker, "nobody-else", "guess").status_code == 429
    assert _login(attacker, "hana", "right-password-3").status_code == 429
    assert len(hashed) == before
    assert _login(Client(REMOTE_ADDR=_address()), "hana", "right-password-3").status_code == 302


def _basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def test_basic_auth_is_throttled_with_a_clear_answer(settings: Any, hashed: list[str]) -> None:
    settings.LOGIN_FAILURE_LIMIT = 2
    settings.LOGIN_FAILURE_WINDOW = 10**6
    make_user("api-user", password="right-password-4")
    client = Client(REMOTE_ADDR=_address())
    url = "/api/channels"
    codes = [
        client.get(url, HTTP_AUTHORIZATION=_basic("api-user", "wrong")).status_code
        for _ in range(2)
    ]
    assert codes == [401, 401]
    before = len(hashed)
    refused = client.get(url, HTTP_AUTHORIZATION=_basic("api-user", "right-password-4"))
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert refused.json()["code"] == "rate_limited"
    assert len(hashed) == before


def test_the_admin_log_in_says_why_it_refuses(settings: Any) -> None:
    settings.LOGIN_FAILURE_LIMIT = 1
    settings.LOGIN_FAILURE_WINDOW = 10**6
    staff = make_user("ops", password="right-password-5")
    staff.is_staff = True
    staff.save()
    client = Client(REMOTE_ADDR=_address())
    client.post("/admin/login/", {"username": "ops", "password": "wrong"})
    page = client.post("/admin/login/", {"username": "ops", "password": "right-password-5"})
    assert "Too many attempts" in page.content.decode()
    assert "_auth_user_id" not in client.session


def _sign_up(client: Client, username: str) -> Any:
    return client.post(
        "/signup/",
        {
            "username": username,
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
        },
    )


def test_sign_ups_are_limited_per_address(settings: Any) -> None:
    settings.SIGNUP_RATE_LIMIT = 2
    settings.SIGNUP_RATE_WINDOW = 10**6
    address = _address()
    for name in ("first", "second"):
        assert _sign_up(Client(REMOTE_ADDR=address), name).status_code == 302
    refused = _sign_up(Client(REMOTE_ADDR=address), "third")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    page = refused.content.decode()
    assert "Too many attempts" in page and 'value="third"' in page  # what was typed stays
    assert not User.objects.filter(username="third").exists()
    assert Office.objects.count() == 2
    assert _sign_up(Client(REMOTE_ADDR=_address()), "elsewhere").status_code == 302


def test_new_sessions_are_limited_per_user_over_the_api(settings: Any) -> None:
    settings.SESSION_NEW_RATE_LIMIT = 3
    settings.SESSION_NEW_RATE_WINDOW = 10**6
    user = make_user()
    channel = dm_channel(make_office(user))
    client = Client()
    client.force_login(user)
    url = f"/api/channels/{channel.pk}/sessions"
    codes = [client.post(url, {}, content_type="application/json").status_code for _ in range(4)]
    assert codes == [201, 201, 201, 429]
    assert ChatSession.objects.filter(channel=channel).count() == 4


async def test_new_sessions_are_limited_per_user_over_the_socket(settings: Any) -> None:
    from channels.db import database_sync_to_async

    settings.SESSION_NEW_RATE_LIMIT = 1
    settings.SESSION_NEW_RATE_WINDOW = 10**6
    user = await database_sync_to_async(make_user)()
    office = await database_sync_to_async(make_office)(user)
    channel = await database_sync_to_async(dm_channel)(office)
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    try:
        await socket.send_json_to({"type": "session.new"})
        started = await socket.receive_json_from(timeout=5)
        assert started["type"] == "session.started"
        await socket.send_json_to({"type": "session.new"})
        refused = await socket.receive_json_from(timeout=5)
        while refused["type"] != "error":
            refused = await socket.receive_json_from(timeout=5)
        assert refused["code"] == "rate_limited" and refused["retry_after"] > 0
    finally:
        await socket.disconnect()
    count = await database_sync_to_async(ChatSession.objects.filter(channel=channel).count)()
    assert count == 2


def test_with_the_cache_down_people_still_log_in(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.LOGIN_FAILURE_LIMIT = 3
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{_free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    make_user("yuna", password="right-password-6")
    assert _login(Client(REMOTE_ADDR=_address()), "yuna", "right-password-6").status_code == 302
    assert "cache unreachable" in caplog.text
