"""The plan card in a real browser: the chief of staff delegates from @mentions (the
embedded default's offline model), the card in the master channel updates live over the
socket, and each part links to the delegated mission in its employee's 1:1 channel, which
reads as from the chief of staff with a link back."""

import re
from typing import Any

# Importing the chat tests' helpers first applies their skip where Chromium is missing.
from tests.browser.test_chat_in_browser import log_in, saved_instruction, send, wait_connected

from playwright.sync_api import Page, expect  # isort: skip

RECORD_PLANS = """() => {
  window.__plans = [];
  document.addEventListener("office:frame", (event) => {
    const frame = event.detail;
    if (frame.type === "plan") {
      window.__plans.push(frame.plan.delegates.map((d) => d.status).join(","));
    }
  });
}"""


def _master_channel(page: Page) -> int:
    response = page.request.get("/api/channels")
    assert response.ok
    channels: list[dict[str, Any]] = response.json()
    return next(c["id"] for c in channels if c["kind"] == "master")


def test_the_plan_card_updates_live_and_links_to_each_delegates_channel(page: Page) -> None:
    log_in(page)
    master = _master_channel(page)
    page.goto(f"/c/{master}/")
    wait_connected(page)
    page.evaluate(RECORD_PLANS)
    send(page, "Spring launch plan:\n- @Iris: design the banner BR-1\n- @Theo: build the page BR-2")

    card = page.locator("#timeline .plan-card").last
    expect(card).to_be_visible()
    parts = card.locator("li.plan-part")
    expect(parts).to_have_count(2)
    expect(parts.nth(0).locator(".plan-who")).to_have_text("Iris")
    expect(parts.nth(0).locator(".plan-task")).to_have_text("design the banner BR-1")
    expect(parts.nth(1).locator(".plan-task")).to_have_text("build the page BR-2")
    # The parts finish and the card follows without a reload.
    try:
        expect(card.locator(".plan-status")).to_have_text("done")
    except AssertionError as error:
        # Which side is behind: the plan as stored, or the frames the page got?
        stored = page.request.get(f"/api/missions/{card.get_attribute('data-plan')}/plan")
        frames = page.evaluate("window.__plans")
        raise AssertionError(f"{error}\nstored: {stored.text()}\nframes: {frames}") from None
    expect(parts.nth(0).locator(".plan-state")).to_have_text("done")
    expect(parts.nth(1).locator(".plan-state")).to_have_text("done")
    expect(card.locator(".plan-synthesis")).to_have_text("Summing up: done")
    seen = page.evaluate("window.__plans")
    # Frames arrived while the plan ran (each part at least as it started and as it
    # ended), the last with both parts done.
    assert len(seen) >= 4 and seen[-1] == "done,done", seen
    assert any("working" in statuses for statuses in seen), seen
    # One synthesis answers in the master channel, naming both.
    summary = page.locator("#timeline li.msg.employee", has_text="The team's results")
    expect(summary).to_have_count(1)
    expect(summary).to_contain_text("Iris (done)")
    expect(summary).to_contain_text("Theo (done)")
    # The person's numbers have no gap: the plan is #N, its synthesis #Na, and what they
    # send next #N+1, though the synthesis took the session's next seq.
    plan_item = saved_instruction(page, "design the banner BR-1")
    number = (plan_item.get_attribute("id") or "").removeprefix("mission-")
    assert number.isdigit(), number
    expect(card.locator(".plan-head strong")).to_have_text(f"Plan of #{number}")
    expect(summary.locator(".meta")).to_contain_text(f"#{number}a")
    send(page, "Thanks, what comes next? NX-3")
    following = saved_instruction(page, "NX-3")
    expect(following).to_have_attribute("id", f"mission-{int(number) + 1}")
    expect(following.locator(".meta")).to_contain_text(f"#{int(number) + 1}")

    href = parts.nth(0).locator(".plan-who").get_attribute("href")
    assert href and re.fullmatch(r"/c/\d+/#mission-\d+", href), href
    parts.nth(0).locator(".plan-who").click()
    page.wait_for_url(re.compile(r"/c/\d+/#mission-\d+$"))
    expect(page.locator("#chat-title")).to_contain_text("Iris")
    task = page.locator("#timeline li.msg.user", has_text="design the banner BR-1")
    expect(task).to_have_count(1)
    # Only Iris's part reached her, shown as from the chief of staff, with a way back.
    expect(task.locator(".meta")).to_contain_text("From Avery in the master channel")
    expect(task.locator(".body")).to_have_text("design the banner BR-1")
    back = task.locator("a.link", has_text="Back to the master channel")
    assert re.fullmatch(rf"/c/{master}/#mission-\d+", back.get_attribute("href") or "")
    back.click()
    page.wait_for_url(re.compile(rf"/c/{master}/#mission-\d+$"))
    expect(page.locator("#timeline .plan-card").last.locator(".plan-status")).to_have_text("done")
