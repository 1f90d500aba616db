"""What people expect of a chat product: the channel sidebar with unread counts that move
live and clear when a channel is opened; Stop; Regenerate; Edit and resend; Copy; safe
clickable links; search across the office's missions. In English and Korean, on a desktop
and on a phone, in Debian's Chromium."""

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

# Importing the chat tests' helpers first applies their skip where Chromium is missing.
from tests.browser.test_chat_in_browser import log_in, wait_connected

from playwright.sync_api import Browser, Page, ViewportSize, expect  # isort: skip

from tests.browser.conftest import (
    DEMO_USER,
    VIEWPORT,
    WAIT_MS,
    WATCH_SCRIPT,
    Problems,
    Server,
)

PHONE: ViewportSize = {"width": 390, "height": 844}
KOREAN_USER = "seoyeon"
KOREAN_PASSWORD = f"Harbor-{uuid.uuid4().hex[:10]}!"
SETUP = f"""
from django.contrib.auth.models import User
from office.services import office_create_with_team, user_set_language
korean = User.objects.create_user({KOREAN_USER!r}, password={KOREAN_PASSWORD!r})
office_create_with_team(owner=korean, name="서연네 사무실", language="ko")
user_set_language(user=korean, language="ko")
"""


@pytest.fixture(scope="module")
def people(server: Server) -> dict[str, tuple[str, str]]:
    server.manage("shell", "-c", SETUP)
    return {"en": (DEMO_USER, "demo"), "ko": (KOREAN_USER, KOREAN_PASSWORD)}


@pytest.fixture(params=["desktop", "phone"])
def device(
    request: pytest.FixtureRequest, browser: Browser, server: Server, problems: Problems
) -> Iterator[Page]:
    phone = request.param == "phone"
    context = browser.new_context(
        viewport=PHONE if phone else VIEWPORT,
        base_url=server.url,
        is_mobile=phone,
        has_touch=phone,
    )
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(WATCH_SCRIPT)
    expect.set_options(timeout=WAIT_MS)
    opened = context.new_page()
    opened.on("pageerror", lambda error: problems.page_errors.append(str(error)))
    try:
        yield opened
        assert not problems.page_errors, problems.page_errors
    finally:
        context.close()


def _channels(page: Page) -> list[dict[str, Any]]:
    return list(page.request.get("/api/channels").json())


def _channel(page: Page, kind: str, name: str | None = None) -> int:
    return int(
        next(
            c["id"]
            for c in _channels(page)
            if c["kind"] == kind and (name is None or c["name"] == name)
        )
    )


def _open(page: Page, people: dict[str, tuple[str, str]], lang: str, channel: int | str) -> int:
    """Log in as the person of that language and open a channel: an id, or a kind."""
    log_in(page, *people[lang])
    expect(page.locator("html")).to_have_attribute("lang", lang)
    if isinstance(channel, str):
        channel = _channel(page, channel) if channel != "dm" else _channel(page, "dm", None)
    page.goto(f"/c/{channel}/")
    wait_connected(page)
    return channel


def _post(page: Page, url: str, body: dict[str, Any]) -> Any:
    """A JSON POST from the page itself (its session and CSRF token)."""
    return page.evaluate(
        """async ([url, body]) => {
          const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
          const response = await fetch(url, { method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
            body: JSON.stringify(body) });
          return { status: response.status, body: await response.json() };
        }""",
        [url, body],
    )


def _badge(page: Page, channel: int) -> Any:
    return page.locator(f'#channels .side-channel[data-channel="{channel}"] .unread')


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_reply_in_another_channel_shows_as_unread_live_and_opening_it_clears_it(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    master = _open(device, people, lang, "master")
    other = next(c for c in _channels(device) if c["kind"] == "dm")
    # Whatever the channel held before is read first.
    device.goto(f"/c/{other['id']}/")
    wait_connected(device)
    device.wait_for_timeout(400)
    device.goto(f"/c/{master}/")
    wait_connected(device)
    sidebar = device.locator("#channels")
    expect(sidebar).to_be_visible()
    expect(sidebar.locator(f'[data-channel="{master}"]')).to_have_attribute("aria-current", "page")
    expect(_badge(device, other["id"])).to_be_hidden()
    text = "슬로건 두 개만 써 줘" if lang == "ko" else "Write two taglines"
    for n in range(2):
        sent = _post(device, f"/api/channels/{other['id']}/instructions", {"text": f"{text} {n}"})
        assert sent["status"] == 202
    # Live, over the socket of the page that shows the master channel.
    expect(_badge(device, other["id"])).to_be_visible()
    expect(_badge(device, other["id"])).to_have_attribute("data-count", "2")
    expect(_badge(device, other["id"])).to_contain_text("읽지 않음" if lang == "ko" else "unread")
    device.locator(f'#channels .side-channel[data-channel="{other["id"]}"]').click()
    device.wait_for_url(re.compile(rf"/c/{other['id']}/$"))
    wait_connected(device)
    expect(device.locator("#timeline li.msg.employee").last).to_be_visible()
    expect(_badge(device, other["id"])).to_be_hidden()
    # Read on the server too: the count is gone from the list and from another page.
    device.wait_for_function(
        f"""async () => (await (await fetch('/api/channels')).json())
              .find((c) => c.id === {other["id"]}).unread === 0"""
    )
    device.goto(f"/c/{master}/")
    expect(_badge(device, other["id"])).to_be_hidden()
