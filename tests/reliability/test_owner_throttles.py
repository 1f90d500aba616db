"""Issue 42, point 6 and part of 7: throttles that punish the attacker, not the owner.

Guesses at an account keep every unknown source out, but the owner's browser that logged
in before, and the owner's API client at the address it always used, still get in with the
right password; the source that keeps failing meets a stricter limit of its own. The
password-change form checks a password, so it is counted like a log-in. Password resets
are limited per recipient too, whatever address asks. With the cache down, 40 instructions
at once stay within a limit of 30."""

import base64
import itertools
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from memory.models import MemoryItem
from missions.models import Mission
from office.auth import DEVICE_COOKIE
from office.models import ChannelKind
from tests.caching import clear_cache
from tests.factories import dm_channel, make_office, make_user
from tests.reliability.test_login_throttle import _login
from tests.reliability.test_unmetered import _reload_urls
from tests.reliability.test_workers import _free_port
from tests.threads import at_once

pytestmark = pytest.mark.django_db(transaction=True)

_addresses = itertools.count(2)


def _address() -> str:
    return f"127.0.42.{next(_addresses)}"


def _basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def _api(address: str, username: str, password: str) -> int:
    client = Client(REMOTE_ADDR=address)
    return client.get("/api/channels", HTTP_AUTHORIZATION=_basic(username, password)).status_code


def _ten_guesses_from_elsewhere(username: str) -> list[int]:
    """The issue's attack: ten wrong passwords a window, each from an address of its own."""
    return [_login(Client(REMOTE_ADDR=_address()), username, "guess") for _ in range(10)]


@pytest.mark.parametrize("username", ["owner", "대표"])
def test_the_owners_api_client_gets_in_while_the_account_is_under_attack(
    limits: Any, hashed: list[str], username: str
) -> None:
    make_user(username, password="right-password-1")
    api_address = _address()  # the server the owner's script runs on
    assert _api(api_address, username, "right-password-1") == 200
    assert _ten_guesses_from_elsewhere(username) == [200] * 10
    # Any unknown source now waits, the right password or not, and nothing is hashed.
    before = len(hashed)
    assert _login(Client(REMOTE_ADDR=_address()), username, "right-password-1") == 429
    assert _api(_address(), username, "right-password-1") == 429
    assert len(hashed) == before
    # The owner's script, at the address it has always used, is let in at once, again and
    # again (a right password uses nothing up).
    assert [_api(api_address, username, "right-password-1") for _ in range(12)] == [200] * 12


@pytest.mark.parametrize("username", ["owner", "대표"])
def test_the_owners_new_browser_on_a_network_the_owner_used_gets_in(
    limits: Any, username: str
) -> None:
    make_user(username, password="right-password-2")
    home = _address()
    first_browser = Client(REMOTE_ADDR=home)
    assert _login(first_browser, username, "right-password-2") == 302
    assert _ten_guesses_from_elsewhere(username) == [200] * 10
    # A browser never seen before (no device cookie), from the owner's own network.
    new_browser = Client(REMOTE_ADDR=home)
    assert DEVICE_COOKIE not in new_browser.cookies
    assert _login(new_browser, username, "right-password-2") == 302
    # ...and from then on it is a known device of its own.
    assert DEVICE_COOKIE in new_browser.cookies


def test_a_failing_source_meets_a_stricter_limit_of_its_own(limits: Any, hashed: list[str]) -> None:
    """A known source that starts failing (a stolen laptop, a script with an old password,
    a guesser behind the owner's NAT) is stopped after LOGIN_FAILURE_SOURCE_LIMIT, and
    that stops nobody else."""
    make_user("mina", password="right-password-3")
    shared = _address()
    assert _api(shared, "mina", "right-password-3") == 200
    codes = [_api(shared, "mina", "wrong") for _ in range(7)]
    assert codes == [401] * 5 + [429] * 2
    assert _api(shared, "mina", "right-password-3") == 429
    # Its five failures left the account's budget for others whole.
    assert _login(Client(REMOTE_ADDR=_address()), "mina", "right-password-3") == 302
    # A source never seen is held to the stricter limit too, before the account's.
    stranger = _address()
    codes = [_login(Client(REMOTE_ADDR=stranger), "mina", "guess") for _ in range(7)]
    assert codes == [200] * 5 + [429] * 2


def test_guesses_from_the_owners_network_at_other_accounts_lock_out_no_known_address(
    limits: Any,
) -> None:
    limits.LOGIN_FAILURE_ADDRESS_LIMIT = 5
    make_user("hana", password="right-password-4")
    office = _address()  # a NAT: the owner's script and a guesser share it
    assert _api(office, "hana", "right-password-4") == 200
    guesser = [_login(Client(REMOTE_ADDR=office), f"user{n}", "guess") for n in range(7)]
    assert guesser == [200] * 5 + [429] * 2
    assert _api(office, "hana", "right-password-4") == 200


# --- the password-change form ----------------------------------------------------------------


def _change(client: Client, old: str) -> int:
    return client.post(
        "/accounts/password_change/",
        {
            "old_password": old,
            "new_password1": "새-비밀번호-417",
            "new_password2": "새-비밀번호-417",
        },
    ).status_code


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_password_change_form_is_throttled_like_the_log_in(
    limits: Any, hashed: list[str], language: str
) -> None:
    """A stolen session cannot test old passwords: each is counted before it is checked,
    like a log-in from that source; once over, even the right one is refused for the
    window, and says why in the person's language."""
    user = make_user("jun", password="right-password-5")
    thief = Client(REMOTE_ADDR=_address(), HTTP_ACCEPT_LANGUAGE=language)
    thief.force_login(user)
    codes = [_change(thief, f"guess-{n}") for n in range(7)]
    assert codes == [200] * 5 + [429] * 2
    response = thief.post(
        "/accounts/password_change/",
        {
            "old_password": "right-password-5",
            "new_password1": "새-비밀번호-417",
            "new_password2": "새-비밀번호-417",
        },
    )
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    expected = "시도가 너무 많습니다" if language == "ko" else "Too many attempts"
    assert expected in response.content.decode()
    user.refresh_from_db()
    assert user.check_password("right-password-5")
    assert hashed.count("jun") == 0  # the form's check_password is not the backend's


def test_the_owners_password_change_with_the_right_password_still_works(limits: Any) -> None:
    user = make_user("yuna", password="right-password-6")
    client = Client(REMOTE_ADDR=_address())
    client.force_login(user)
    assert _change(client, "typo") == 200
    assert _change(client, "right-password-6") == 302
    user.refresh_from_db()
    assert user.check_password("새-비밀번호-417")


# --- password reset per recipient -------------------------------------------------------------


@pytest.fixture
def reset_pages(settings: Any) -> Any:
    clear_cache()
    settings.PASSWORD_RESET_ENABLED = True
    settings.PASSWORD_RESET_RATE_LIMIT = 5
    settings.PASSWORD_RESET_RECIPIENT_LIMIT = 2
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    _reload_urls()
    yield settings
    settings.PASSWORD_RESET_ENABLED = False
    _reload_urls()


@pytest.mark.parametrize("email", ["owner@example.com", "owner@예시.한국"])
def test_a_recipient_gets_at_most_the_limit_of_resets_whatever_the_address(
    reset_pages: Any, email: str
) -> None:
    user = make_user()
    user.email = email
    user.save()
    codes = [
        Client(REMOTE_ADDR=_address())
        .post("/accounts/password_reset/", {"email": email if n % 2 else email.upper()})
        .status_code
        for n in range(6)
    ]
    assert codes == [302, 302, 429, 429, 429, 429]
    assert len(mail.outbox) == 2
    # Another recipient is not affected.
    other = make_user()
    other.email = "someone-else@example.com"
    other.save()
    client = Client(REMOTE_ADDR=_address())
    assert client.post("/accounts/password_reset/", {"email": other.email}).status_code == 302
    assert len(mail.outbox) == 3


# --- instructions with the cache down ---------------------------------------------------------


@pytest.mark.postgres
def test_with_the_cache_down_40_instructions_at_once_stay_within_30(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The replies are not the point (they would run inline, each holding a connection
    # of the pool for its whole run): only accepting is.
    monkeypatch.setattr("missions.creation.mission_queue_run", lambda mission: None)
    monkeypatch.setattr("missions.creation.queue_task_on_commit", lambda *args: None)
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{_free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    settings.INSTRUCTION_RATE_LIMIT = 30
    settings.INSTRUCTION_RATE_WINDOW = 10**6
    user = make_user()
    channel = dm_channel(make_office(user))
    url = f"/api/channels/{channel.pk}/instructions"
    numbers = itertools.count()

    def send() -> int:
        client = Client()
        client.force_login(user)
        text = f"일 {next(numbers)} task"
        return client.post(url, {"text": text}, content_type="application/json").status_code

    codes = at_once(send, 40)
    accepted = codes.count(202)
    print(f"{accepted} of 40 accepted against a limit of 30")
    assert accepted <= 30, f"{accepted} of 40 accepted against a limit of 30"
    assert accepted >= 1 and set(codes) <= {202, 429}
    assert Mission.objects.filter(channel=channel).count() == accepted
    # Sent one after another afterwards, the limit is still exact.
    assert send() == 429


# --- projects and memory items ----------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ko"])
def test_projects_are_limited_per_user(settings: Any, language: str) -> None:
    clear_cache()
    settings.PROJECT_RATE_LIMIT = 3
    user = make_user()
    office = make_office(user)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    client.post("/language/", {"language": language})
    team = list(office.employees.filter(is_master=False).values_list("pk", flat=True))
    before = office.channels.filter(kind=ChannelKind.PROJECT).count()
    codes = [
        client.post(
            "/projects/new/", {"name": f"프로젝트 {n}", "members": team[:2], "lead": team[0]}
        ).status_code
        for n in range(5)
    ]
    assert codes == [302, 302, 302, 429, 429]
    assert office.channels.filter(kind=ChannelKind.PROJECT).count() == before + 3
    refused = client.post(
        "/projects/new/", {"name": "하나 더", "members": team[:1], "lead": team[0]}
    )
    assert int(refused["Retry-After"]) > 0
    expected = "시도가 너무 많습니다" if language == "ko" else "Too many attempts"
    assert expected in refused.content.decode()
    assert 'value="하나 더"' in refused.content.decode()  # what was typed stays


@pytest.mark.parametrize("text", ["Prefers short answers", "짧은 답을 선호함"])
def test_memory_items_are_limited_per_user(settings: Any, text: str) -> None:
    clear_cache()
    settings.MEMORY_RATE_LIMIT = 3
    user = make_user()
    office = make_office(user)
    client = Client()
    client.force_login(user)

    def remember(n: int) -> Any:
        body = {"office": office.pk, "scope": "office", "kind": "fact", "text": f"{text} {n}"}
        return client.post("/api/memory", body, content_type="application/json")

    codes = [remember(n).status_code for n in range(3)]
    assert codes == [201, 201, 201]
    item = MemoryItem.objects.filter(office=office).first()
    assert item is not None
    refused = client.post(
        f"/api/memory/{item.pk}/supersede",
        {"text": f"{text} v2", "kind": "fact"},
        content_type="application/json",
    )
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert remember(4).status_code == 429
    assert MemoryItem.objects.filter(office=office).count() == 3


def test_the_admins_password_change_is_throttled_too(limits: Any) -> None:
    staff = make_user("ops", password="right-password-8")
    staff.is_staff = True
    staff.save()
    client = Client(REMOTE_ADDR=_address())
    client.force_login(staff)
    page = client.get("/admin/password_change/")
    assert page.status_code == 200 and "old_password" in page.content.decode()

    def change(old: str) -> Any:
        body = {"old_password": old, "new_password1": "새-비밀번호-417"}
        body["new_password2"] = body["new_password1"]
        return client.post("/admin/password_change/", body)

    assert [change(f"guess-{n}").status_code for n in range(6)] == [200] * 5 + [429]
    refused = change("right-password-8")
    assert refused.status_code == 429 and "Too many attempts" in refused.content.decode()
    staff.refresh_from_db()
    assert staff.check_password("right-password-8")
    # Not staff: the admin's own check still sends them to its log-in.
    plain = Client()
    plain.force_login(make_user())
    assert plain.get("/admin/password_change/").status_code == 302


def test_the_admins_password_change_with_the_right_password_works(limits: Any) -> None:
    staff = make_user("ops2", password="right-password-9")
    staff.is_staff = True
    staff.save()
    client = Client(REMOTE_ADDR=_address())
    client.force_login(staff)
    body = {"old_password": "right-password-9", "new_password1": "새-비밀번호-417"}
    body["new_password2"] = body["new_password1"]
    response = client.post("/admin/password_change/", body)
    assert response.status_code == 302 and response["Location"] == "/admin/password_change/done/"
    staff.refresh_from_db()
    assert staff.check_password("새-비밀번호-417")
