"""A chat one keeps open all day: a reply landing in a channel not in view counts in the
tab's title and raises a browser notification (with permission, asked on a click), a
muted channel does neither; the keyboard shortcuts behind "?"; the dark theme that
follows the system's setting, readable. In English and Korean, on a desktop and on a
phone, in Debian's Chromium."""

import re
import uuid
from typing import Any

import pytest

# Importing the chat tests' helpers first applies their skip where Chromium is missing.
from tests.browser.test_chat_in_browser import wait_connected

from playwright.sync_api import Page, expect  # isort: skip

from tests.browser import test_chat_habits as habits
from tests.browser.test_chat_habits import _badge, _channels, _open, _post, _send
from tests.fake_openai import FakeOpenAI, Reply

# The server of the chat-habits tests (a scripted model, a Korean person), started once
# for this module.
model = habits.model
server = habits.server
people = habits.people

# Records every notification the page shows (the browser's own is kept working).
NOTIFICATION_SPY = """
(() => {
  const Native = window.Notification;
  if (!Native) return;
  window.__notes = [];
  class Recorded extends Native {
    constructor(title, options) {
      super(title, options);
      window.__notes.push({ title: title, body: (options || {}).body || "" });
    }
  }
  window.Notification = Recorded;
})();
"""

TITLE_COUNT = re.compile(r"^\((\d+)\) ")


def _notes(page: Page) -> list[dict[str, str]]:
    return list(page.evaluate("() => window.__notes || []"))


def _put(page: Page, url: str, body: dict[str, Any]) -> Any:
    return page.evaluate(
        """async ([url, body]) => {
          const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
          const response = await fetch(url, { method: "PUT", credentials: "same-origin",
            headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
            body: JSON.stringify(body) });
          return { status: response.status, body: await response.json() };
        }""",
        [url, body],
    )


def _other_dm(page: Page, shown: int) -> dict[str, Any]:
    return next(c for c in _channels(page) if c["kind"] == "dm" and c["id"] != shown)


def _read(page: Page, channel: int, back_to: int) -> None:
    """Open `channel` (it is read as it opens) and come back."""
    page.goto(f"/c/{channel}/")
    wait_connected(page)
    page.wait_for_timeout(400)
    page.goto(f"/c/{back_to}/")
    wait_connected(page)


@pytest.mark.slow(40)
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_reply_elsewhere_counts_in_the_title_and_notifies_unless_the_channel_is_muted(
    device: Page, people: dict[str, tuple[str, str]], lang: str, server: Any
) -> None:
    device.context.add_init_script(NOTIFICATION_SPY)
    master = _open(device, people, lang, "master")
    other = _other_dm(device, master)
    _put(device, f"/api/channels/{other['id']}/mute", {"muted": False})
    _read(device, other["id"], master)
    # What the person has not read elsewhere counts already (the demo's preloaded channel).
    shown = device.title()
    counted = TITLE_COUNT.match(shown)
    before = int(counted.group(1)) if counted else 0
    title = TITLE_COUNT.sub("", shown)

    def titled(count: int) -> str:
        return f"({count}) {title}" if count else title

    # Permission is asked on the person's click, and the button goes once it is given.
    enable = device.locator("#enable-notifications")
    expect(enable).to_be_visible()
    expect(enable).to_have_text("브라우저 알림 받기" if lang == "ko" else "Turn on notifications")
    device.context.grant_permissions(["notifications"], origin=server.url)
    enable.click()
    expect(enable).to_be_hidden()

    text = "슬로건 하나만 써 줘" if lang == "ko" else "Write one tagline"
    sent = _post(device, f"/api/channels/{other['id']}/instructions", {"text": text})
    assert sent["status"] == 202
    expect(_badge(device, other["id"])).to_have_attribute("data-count", "1")
    expect(device).to_have_title(titled(before + 1))
    device.wait_for_function("() => (window.__notes || []).length === 1")
    [note] = _notes(device)
    entry = device.locator(f'#channels .side-channel[data-channel="{other["id"]}"]')
    name = entry.locator(".name").inner_text().strip()
    heading = f"{name}에 새 답변이 왔어요" if lang == "ko" else f"New reply in {name}"
    assert note["title"] == heading, note
    assert note["body"] == (
        "채널을 열어 확인해 보세요." if lang == "ko" else "Open the channel to read it."
    )

    # Muted (from its own page): saved for this person, marked in the sidebar, silent.
    device.goto(f"/c/{other['id']}/")
    wait_connected(device)
    mute = device.locator("#mute")
    expect(mute).to_have_text("알림 끄기" if lang == "ko" else "Mute")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    expect(mute).to_have_text("알림 켜기" if lang == "ko" else "Unmute")
    device.goto(f"/c/{master}/")
    wait_connected(device)
    expect(entry.locator(".mute-mark")).to_contain_text("알림 꺼짐" if lang == "ko" else "muted")
    sent = _post(device, f"/api/channels/{other['id']}/instructions", {"text": text + " 2"})
    assert sent["status"] == 202
    expect(_badge(device, other["id"])).to_have_attribute("data-count", "1")  # read when muted
    device.wait_for_timeout(500)
    assert _notes(device) == []
    expect(device).to_have_title(titled(before))

    # Unmuted, it counts again (in the title, from the sidebar's count).
    assert _put(device, f"/api/channels/{other['id']}/mute", {"muted": False})["status"] == 200
    device.reload()
    wait_connected(device)
    expect(device).to_have_title(titled(before + 1))


@pytest.mark.slow(40)
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_keyboard_shortcuts_behind_the_question_mark_work(
    device: Page, people: dict[str, tuple[str, str]], lang: str, model: FakeOpenAI
) -> None:
    master = _open(device, people, lang, "master")
    other = _other_dm(device, master)
    _read(device, other["id"], master)
    device.evaluate("() => document.activeElement && document.activeElement.blur()")

    # "?" lists them, in the person's language.
    device.keyboard.press("?")
    dialog = device.locator("#shortcuts")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text("단축키" if lang == "ko" else "Keyboard shortcuts")
    expect(dialog.locator("dd")).to_have_count(5)
    expect(dialog).to_contain_text("작성 중인 답변 멈추기" if lang == "ko" else "Stop the reply")
    device.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    # "/" goes to the search.
    device.keyboard.press("/")
    expect(device.locator("#side-search-q")).to_be_focused()
    device.locator("#side-search-q").blur()

    # Esc stops the reply being written; what came is kept.
    device.goto(f"/c/{other['id']}/")
    wait_connected(device)
    marker = uuid.uuid4().hex[:8]
    word = "문단" if lang == "ko" else "paragraph"
    chunks = [f"{word} {n}. " for n in range(60)]
    model.enqueue_for(marker, Reply("".join(chunks), chunks=chunks, chunk_delay=0.15))
    _send(device, f"{'긴 보고서를 써 줘' if lang == 'ko' else 'Write a long report'} {marker}")
    expect(device.locator("#timeline li.msg.streaming")).to_contain_text(f"{word} 2.")
    expect(device.locator("#stop")).to_be_visible()
    device.keyboard.press("Escape")
    stopped = device.locator("#timeline li.msg.employee.stopped").last
    expect(stopped).to_be_visible()
    expect(device.locator("#stop")).to_be_hidden()
    assert f"{word} 59." not in stopped.inner_text()

    # Alt+Shift+↓ opens the next channel with unread replies.
    device.goto(f"/c/{master}/")
    wait_connected(device)
    text = "요약해 줘" if lang == "ko" else "Sum it up"
    assert (
        _post(device, f"/api/channels/{other['id']}/instructions", {"text": text})["status"] == 202
    )
    expect(_badge(device, other["id"])).to_be_visible()
    device.keyboard.press("Alt+Shift+ArrowDown")
    device.wait_for_url(re.compile(rf"/c/{other['id']}/$"))


def _contrast(page: Page, selector: str) -> float:
    """The WCAG contrast ratio of an element's text against the first opaque background
    behind it."""
    return float(
        page.evaluate(
            """(selector) => {
              const node = document.querySelector(selector);
              const rgb = (value) => (value.match(/[\\d.]+/g) || []).map(Number);
              const channel = (c) => {
                c /= 255;
                return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
              };
              const luminance = ([r, g, b]) =>
                0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
              let back = node, colour = null;
              while (back) {
                const value = rgb(getComputedStyle(back).backgroundColor);
                if (value.length === 3 || (value.length === 4 && value[3] > 0.9)) {
                  colour = value;
                  break;
                }
                back = back.parentElement;
              }
              colour = colour || [255, 255, 255];
              const a = luminance(rgb(getComputedStyle(node).color)), b = luminance(colour);
              return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
            }""",
            selector,
        )
    )


def _background_luminance(page: Page) -> float:
    return float(
        page.evaluate(
            """() => {
              const colour = getComputedStyle(document.documentElement).backgroundColor;
              const [r, g, b] = colour.match(/\\d+/g).map(Number);
              return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
            }"""
        )
    )


@pytest.mark.slow(30)
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_theme_follows_the_systems_dark_setting_and_stays_readable(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    channel = _open(device, people, lang, "dm")
    _send(device, "안녕하세요" if lang == "ko" else "Hello")
    expect(device.locator("#timeline li.msg.employee").last).to_be_visible()
    device.emulate_media(color_scheme="light")
    assert _background_luminance(device) > 0.8
    device.emulate_media(color_scheme="dark")
    assert _background_luminance(device) < 0.2
    for selector in (
        "body",
        "#chat-title",
        "#timeline li.msg.user .body",
        "#timeline li.msg.employee .body",
        "#timeline li.msg .meta",
        "#instruction",
        "#composer button.primary",
        f'#channels .side-channel[data-channel="{channel}"] .name',
    ):
        ratio = _contrast(device, selector)
        assert ratio >= 4.5, (selector, ratio)
