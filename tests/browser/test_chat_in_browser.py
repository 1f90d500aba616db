"""The web chat in a real browser (Chromium through Playwright), against the product's
embedded default running as a real server process (see conftest.py).

Skipped where Chromium or Playwright is missing, except in CI (the CI script installs
Chromium and `make test` installs Playwright), where a missing one is a failure."""

import importlib.util
import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import (
    CHROMIUM,
    DEMO_OFFICE,
    DEMO_PASSWORD,
    DEMO_USER,
    LONG_SESSION_EMPLOYEE,
    LONG_SESSION_MISSIONS,
    PRELOADED_MISSIONS,
    REPO,
    Problems,
    Server,
)


def _what_is_missing() -> str | None:
    if not Path(CHROMIUM).is_file() or not os.access(CHROMIUM, os.X_OK):
        return f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    return None


_MISSING = _what_is_missing()
if _MISSING is not None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {_MISSING}", pytrace=False)
    pytest.skip(f"browser tests skipped: {_MISSING}", allow_module_level=True)

from playwright.sync_api import Locator, Page, expect  # noqa: E402

# The README's picture; refreshed only on request, so a test run leaves the tree clean.
SCREENSHOT = REPO / "docs" / "chat.png"
DEFAULT_TEAM = ["Avery", "Iris", "Mara", "Theo"]
NOTICE_TEXT = "This conversation has grown long"

# --- helpers ---------------------------------------------------------------------------


def log_in(page: Page, username: str = DEMO_USER, password: str = DEMO_PASSWORD) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator("header.top .logout span")).to_have_text(username)


def wait_connected(page: Page) -> None:
    """The chat page's own WebSocket is open (the watch script counts open sockets)."""
    page.wait_for_function("() => Boolean(window.__watch) && window.__watch.open > 0")


def wait_settled(page: Page, quiet_ms: int = 800) -> None:
    """The timeline has stopped changing for `quiet_ms` (replies streamed, events drawn):
    a click now lands where the element was measured, not on what a streaming reply has
    scrolled over it."""
    page.wait_for_function(
        """([quiet]) => {
            const el = document.getElementById("timeline");
            if (!el) return false;
            const seen = window.__settled || (window.__settled = { size: -1, at: 0 });
            const size = el.innerHTML.length, now = performance.now();
            if (seen.size !== size) { seen.size = size; seen.at = now; return false; }
            return now - seen.at >= quiet;
        }""",
        arg=[quiet_ms],
        polling=100,
    )


def channel_id(page: Page) -> int:
    found = re.search(r"/c/(\d+)/", page.url)
    assert found, f"not a chat page: {page.url}"
    return int(found.group(1))


def open_dm(page: Page, employee: str) -> int:
    """From the office page, open the 1:1 chat with `employee`; return its channel id."""
    page.goto("/")
    expect(page.locator("main h1")).to_have_text(DEMO_OFFICE)
    page.click(f'.team a.who[data-employee="{employee}"]')
    page.wait_for_url(re.compile(r"/c/\d+/$"))
    expect(page.locator("#chat-title")).to_contain_text(employee)
    wait_connected(page)
    return channel_id(page)


def send(page: Page, text: str) -> None:
    """Type an instruction and send it with Enter, as a person would."""
    page.fill("#instruction", text)
    page.press("#instruction", "Enter")


def saved_instruction(page: Page, text: str) -> Locator:
    """The instruction as the server saved it (the local 'sending…' bubble excluded)."""
    return page.locator("#timeline li.msg.user:not(.sending)").filter(
        has=page.locator(".body", has_text=text)
    )


def final_reply(page: Page, instruction: Locator) -> Locator:
    """The saved (not streaming) reply to the mission of an instruction bubble."""
    mission = instruction.get_attribute("data-mission")
    assert mission, "a saved instruction carries its mission id"
    return page.locator(f'#timeline li.msg.employee:not(.streaming)[data-mission="{mission}"]')


def watch(page: Page) -> dict[str, Any]:
    value = page.evaluate("window.__watch")
    assert isinstance(value, dict)
    return value


def timeline(page: Page, channel: int) -> list[dict[str, Any]]:
    """The channel's saved messages, read with the page's own session."""
    response = page.request.get(f"/api/channels/{channel}/messages?after=0&limit=500")
    assert response.ok, response.status
    body = response.json()
    assert not body["has_more"]
    messages: list[dict[str, Any]] = body["messages"]
    return messages


def context_section(page: Page, name: str) -> Locator:
    """One section's row in the context panel."""
    label = page.locator(".label", has_text=re.compile(f"^{name}:"))
    return page.locator("#context-body li.section", has=label)


def section_names(page: Page) -> list[str]:
    labels = page.locator("#context-body li.section .label").all_inner_texts()
    return [label.split(":", 1)[0] for label in labels]


# --- the scenarios ---------------------------------------------------------------------


def test_chat_with_theo_streams_the_reply_and_keeps_it(page: Page) -> None:
    log_in(page)
    channel = open_dm(page, "Theo")
    expect(page.locator("#timeline li.msg")).to_have_count(0)
    expect(page.locator("#working")).to_be_hidden()

    instruction = "Draft a rollout checklist for the Zephyr website, in three steps."
    send(page, instruction)
    expect(page.locator("#instruction")).to_have_value("")

    sent = saved_instruction(page, instruction)
    expect(sent).to_have_count(1)
    expect(sent.locator(".meta")).to_contain_text("You")
    expect(sent.locator(".meta")).to_contain_text("#1")
    page.wait_for_selector("#timeline li.msg.streaming, #timeline li.msg.employee")
    reply = final_reply(page, sent)
    expect(reply).to_have_count(1)
    expect(reply.locator(".meta")).to_contain_text("Theo")
    expect(reply.locator(".body")).to_contain_text("Theo here. On it:")
    expect(reply.locator(".body")).to_contain_text(instruction)
    # Once the reply is saved the streaming bubble is gone and nobody is working.
    expect(page.locator("#timeline li.msg.streaming")).to_have_count(0)
    expect(page.locator("#timeline li.msg.user.sending")).to_have_count(0)
    expect(page.locator("#working")).to_be_hidden()

    seen = watch(page)
    assert "reply.delta" in seen["frames"], seen["frames"]
    assert "reply.done" in seen["frames"], seen["frames"]
    assert seen["frames"].index("reply.delta") < seen["frames"].index("reply.done")
    assert seen["streamed"] == 1, "one streaming bubble showed the reply as it arrived"
    assert "Theo is working…" in seen["working"], seen["working"]
    reply_text = reply.locator(".body").inner_text()

    # Saved: a reload shows the same conversation, built from the database.
    page.reload()
    wait_connected(page)
    again = saved_instruction(page, instruction)
    expect(again).to_have_count(1)
    expect(final_reply(page, again).locator(".body")).to_have_text(reply_text)
    expect(page.locator("#timeline li.msg")).to_have_count(2)
    expect(page.locator("#timeline li.msg").first).to_have_class(re.compile(r"\buser\b"))
    expect(page.locator("#working")).to_be_hidden()
    saved = timeline(page, channel)
    assert [m["kind"] for m in saved] == ["user", "employee"]
    assert saved[0]["text"] == instruction
    assert saved[1]["author"] == "Theo"


def test_long_session_notice_once_context_panel_and_new_session(page: Page, server: Server) -> None:
    log_in(page)
    channel = open_dm(page, LONG_SESSION_EMPLOYEE)
    assert channel == server.long_session_channel
    preloaded = len(PRELOADED_MISSIONS)
    assert preloaded == LONG_SESSION_MISSIONS - 1
    expect(page.locator("#timeline li.msg.user")).to_have_count(preloaded)
    expect(page.locator("#timeline li.msg.notice")).to_have_count(0)
    expect(page.locator("#session-switch option:checked")).to_have_text("Session 1 (current)")

    instruction = "Prepare the favicon and the social preview image for the Zephyr launch."
    send(page, instruction)
    sent = saved_instruction(page, instruction)
    expect(sent).to_have_count(1)
    expect(sent).to_have_id(f"mission-{LONG_SESSION_MISSIONS}")
    notice = page.locator("#timeline li.msg.notice")
    expect(notice).to_have_count(1)
    expect(notice.locator(".body")).to_contain_text(NOTICE_TEXT)
    # It sits right under the instruction that crossed the threshold.
    expect(page.locator(f"#mission-{LONG_SESSION_MISSIONS} + li.msg.notice")).to_have_count(1)
    reply = final_reply(page, sent)
    expect(reply).to_have_count(1)
    expect(reply.locator(".body")).to_contain_text(instruction)
    expect(notice).to_have_count(1)

    # Saved once: after a reload (which checks again on entry) there is still one.
    page.reload()
    wait_connected(page)
    expect(final_reply(page, saved_instruction(page, instruction))).to_have_count(1)
    expect(notice).to_have_count(1)
    start = notice.get_by_role("button", name="Start new session")
    expect(start).to_be_visible()
    kinds = [m["kind"] for m in timeline(page, channel)]
    assert kinds.count("notice") == 1, kinds
    assert kinds.count("user") == LONG_SESSION_MISSIONS

    # The context panel: every section of the next prompt, and the rolling summary of
    # the missions that left the detail window (the pre-loaded ones were folded).
    opener = page.get_by_role("button", name=f"What {LONG_SESSION_EMPLOYEE} knows")
    opener.click()
    expect(opener).to_have_attribute("aria-expanded", "true")
    panel = page.locator("#context-panel")
    expect(panel).to_be_visible()
    expect(panel.locator("#context-body li.section").first).to_be_visible()
    names = section_names(page)
    for name in ("system", "summary", "recent", "memory", "recall", "current"):
        assert name in names, names
    summary_label = context_section(page, "summary").locator(".label").inner_text()
    chars = re.match(r"summary: (\d+) / \d+ chars", summary_label)
    assert chars, summary_label
    assert int(chars.group(1)) > 0, "the summary section of the next prompt is empty"
    expect(context_section(page, "recent").locator(".held")).to_contain_text(
        f"#{LONG_SESSION_MISSIONS}"
    )
    expect(panel.get_by_role("heading", name=re.compile("^Rolling summary"))).to_be_visible()
    expect(panel.locator(".goal")).to_contain_text("Zephyr Analytics")
    expect(panel.locator(".summary-block li").first).to_be_visible()
    expect(panel).not_to_contain_text("Nothing folded yet")
    # Summary items point back to the missions they came from.
    expect(panel.locator(".summary-block a.ref").first).to_have_attribute(
        "href", re.compile(r"^#mission-\d+$")
    )

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    reply.scroll_into_view_if_needed()
    shot = page.screenshot(path=str(SCREENSHOT) if os.environ.get("SAVE_SCREENSHOTS") else None)
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    assert SCREENSHOT.stat().st_size > 10_000
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # "Start new session" asks first; confirmed, it closes session 1 and opens session 2,
    # which the page shows.
    notice.get_by_role("button", name="Start new session").click()
    confirm = page.locator("dialog#confirm")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("Start a new session?")
    with page.expect_navigation():
        confirm.get_by_role("button", name="Start new session").click()
    wait_connected(page)
    expect(page.locator("#session-switch option:checked")).to_have_text("Session 2 (current)")
    expect(page.locator("#session-switch option")).to_have_text(
        ["Session 2 (current)", "Session 1 (read-only)"]
    )
    expect(page.locator("#timeline li.msg")).to_have_count(0)
    expect(page.locator("#new-session")).to_be_visible()


def add_memory(page: Page, text: str) -> int:
    """Remember `text` (a fact, for the channel's employee) in the memory panel."""
    opener = page.get_by_role("button", name="Memory", exact=True)
    if opener.get_attribute("aria-expanded") != "true":
        opener.click()
    expect(opener).to_have_attribute("aria-expanded", "true")
    panel = page.locator("#memory-panel")
    expect(panel).to_be_visible()
    form = panel.locator("#memory-add")
    form.get_by_label("Remember").fill(text)
    form.get_by_label("Kind").select_option("fact")
    expect(form.get_by_label("For")).to_have_value("employee")
    form.get_by_role("button", name="Add").click()
    item = panel.locator("#memory-list li.memory-item", has_text=text)
    expect(item).to_have_count(1)
    expect(item.locator(".kind")).to_have_text("fact · employee")
    expect(form.get_by_label("Remember")).to_have_value("")
    item_id = int(item.get_attribute("data-id") or 0)
    assert item_id > 0
    return item_id


def next_context(page: Page, channel: int, instruction: str) -> dict[str, dict[str, Any]]:
    """The sections of the next mission's context, read with the page's own session."""
    response = page.request.get(
        f"/api/channels/{channel}/context", params={"instruction": instruction}
    )
    assert response.ok, response.status
    return {s["name"]: s for s in response.json()["sections"]}


def test_memory_item_is_listed_and_used_in_the_next_context(page: Page) -> None:
    log_in(page)
    channel = open_dm(page, "Mara")
    memory = "The Zephyr account renews in May"
    item_id = add_memory(page, memory)

    # Still listed when the panel is opened again on a fresh page.
    page.reload()
    wait_connected(page)
    page.get_by_role("button", name="Memory", exact=True).click()
    expect(page.locator("#memory-list li.memory-item", has_text=memory)).to_have_count(1)

    # The context of the next mission about Zephyr carries it in its memory section.
    sections = next_context(page, channel, "When does Zephyr renew?")
    assert item_id in sections["memory"]["memory_ids"], sections["memory"]
    assert memory in sections["memory"]["text"]
    assert f"id {item_id}" in sections["memory"]["text"]

    # The context panel shows the memory section holding it.
    opener = page.get_by_role("button", name="What Mara knows")
    opener.click()
    expect(opener).to_have_attribute("aria-expanded", "true")
    expect(context_section(page, "memory").locator(".held")).to_contain_text(f"memory {item_id}")

    # And the next mission is answered with it in its context.
    instruction = "When does the Zephyr account renew?"
    send(page, instruction)
    reply = final_reply(page, saved_instruction(page, instruction))
    expect(reply.locator(".body")).to_contain_text("I also remember")


def test_offline_reply_quotes_the_remembered_item(page: Page) -> None:
    log_in(page)
    channel = open_dm(page, "Theo")
    add_memory(page, "The Zephyr staging server is called falcon-2")
    instruction = "What is the Zephyr staging server called?"
    memory_section = next_context(page, channel, instruction)["memory"]["text"]
    first_item = memory_section.splitlines()[1]
    quoted = re.search(r'["“](.+)["”]', first_item)
    assert quoted, first_item
    send(page, instruction)
    reply = final_reply(page, saved_instruction(page, instruction))
    expect(reply).to_have_count(1)
    text = reply.locator(".body").inner_text()
    assert "quoted as data" not in text, text
    assert f"I also remember: {first_item}" in text or quoted.group(1) in text, text


def test_html_in_an_instruction_is_shown_as_text(page: Page, problems: Problems) -> None:
    log_in(page)
    page.goto("/")
    page.locator(".channels a", has_text="All hands").click()
    page.wait_for_url(re.compile(r"/c/\d+/$"))
    wait_connected(page)
    payloads = [
        "<img src=x onerror=alert(1)>",
        "<script>alert(2)</script><b>bold?</b>",
    ]
    for payload in payloads:
        send(page, payload)
        sent = saved_instruction(page, payload)
        expect(sent).to_have_count(1)
        expect(final_reply(page, sent)).to_have_count(1)

    def check() -> None:
        for payload in payloads:
            sent = saved_instruction(page, payload)
            expect(sent.locator(".body")).to_have_text(payload)
            # The reply quotes the instruction; its Markdown is escaped before it is formatted.
            expect(final_reply(page, sent).locator(".body")).to_contain_text(payload)
        markup = page.locator("#timeline img, #timeline script, #timeline b, #timeline [onerror]")
        expect(markup).to_have_count(0)

    check()
    page.reload()
    wait_connected(page)
    expect(page.locator("#timeline li.msg.employee")).to_have_count(len(payloads))
    check()
    assert not problems.dialogs, problems.dialogs
    # Had the markup been inserted, the page's CSP would have had to block its handler.
    blocked = [e for e in problems.console_errors if "Content Security Policy" in e]
    assert not blocked, blocked


def test_sign_up_lands_on_a_new_office_with_the_default_team(page: Page, server: Server) -> None:
    username = f"newcomer-{uuid.uuid4().hex[:8]}"
    password = f"Harbor-{uuid.uuid4().hex[:10]}!"
    page.goto("/accounts/login/")
    page.get_by_role("link", name="Create an account").click()
    page.wait_for_url(re.compile(r"/signup/$"))
    page.fill("#id_username", username)
    page.fill("#id_password1", password)
    page.fill("#id_password2", password)
    page.click("main button[type=submit]")

    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator("header.top .logout span")).to_have_text(username)
    expect(page.locator("main h1")).to_have_text(f"{username}'s office")
    expect(page.locator(".team a.who strong")).to_have_text(DEFAULT_TEAM)
    expect(page.locator(".team .status")).to_have_text(["Idle"] * len(DEFAULT_TEAM))
    expect(page.locator(".channels")).to_contain_text("Website launch")
    expect(page.locator("body")).not_to_contain_text(DEMO_OFFICE)

    # Their channels are their own: none of the demo office's, which stay out of reach.
    response = page.request.get("/api/channels")
    assert response.ok
    channels = response.json()
    assert {c["employee"] for c in channels if c["kind"] == "dm"} == set(DEFAULT_TEAM)
    assert server.long_session_channel not in {c["id"] for c in channels}
    assert len({c["office"] for c in channels}) == 1
    demo_chat = page.request.get(f"/c/{server.long_session_channel}/")
    assert demo_chat.status == 404

    # Their own 1:1 chat opens empty and connects.
    page.click('.team a.who[data-employee="Theo"]')
    page.wait_for_url(re.compile(r"/c/\d+/$"))
    wait_connected(page)
    expect(page.locator("#timeline li.msg")).to_have_count(0)
    expect(page.locator("#session-switch option:checked")).to_have_text("Session 1 (current)")
