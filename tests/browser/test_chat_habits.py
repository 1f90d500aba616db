"""What people expect of a chat product: the channel sidebar with unread counts that move
live and clear when a channel is opened; Stop; Regenerate; Edit and resend; Copy; replies in
Markdown with a Copy button on code; safe clickable links; search across the office's
missions. In English and Korean, on a desktop and on a phone, in Debian's Chromium."""

import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Importing the chat tests' helpers first applies their skip where Chromium is missing.
from tests.browser.test_chat_in_browser import log_in, wait_connected

from playwright.sync_api import FilePayload, Page, expect  # isort: skip

import tests.browser.conftest as browser_conftest
from tests.browser.conftest import (
    DEMO_USER,
    WAIT_MS,
    Server,
)
from tests.fake_openai import FAKE_API_KEY, FAKE_MODEL, FakeOpenAI, Reply

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
def model() -> Iterator[FakeOpenAI]:
    """The model the server under test talks to through the real SDK: it echoes every
    instruction ("Echo: …"), and streams a slow reply where a test scripts one."""
    fake = FakeOpenAI().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, model: FakeOpenAI) -> Iterator[Server]:
    """The embedded server of the other browser tests, answering with the model above
    instead of the offline one (a reply slow enough to stop takes a scripted model)."""
    original = browser_conftest.server_environment

    def environment(database: Any) -> dict[str, str]:
        env = original(database)
        env.update(
            {
                "LLM_PROVIDER": "openai",
                "OPENAI_API_KEY": FAKE_API_KEY,
                "OPENAI_BASE_URL": model.base_url,
                "OPENAI_MODEL": FAKE_MODEL,
                "OPENAI_MAX_ATTEMPTS": "1",
            }
        )
        return env

    browser_conftest.server_environment = environment
    try:
        yield from browser_conftest.server._get_wrapped_function()(tmp_path_factory)
    finally:
        browser_conftest.server_environment = original


@pytest.fixture(scope="module")
def people(server: Server) -> dict[str, tuple[str, str]]:
    server.manage("shell", "-c", SETUP)
    return {"en": (DEMO_USER, "demo"), "ko": (KOREAN_USER, KOREAN_PASSWORD)}


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


def _unread(page: Page, channel: int) -> int:
    return int(next(c["unread"] for c in _channels(page) if c["id"] == channel))


def _wait_until(condition: Any, seconds: float = WAIT_MS / 1000) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


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
    _wait_until(lambda: _unread(device, other["id"]) == 0)
    device.goto(f"/c/{master}/")
    expect(_badge(device, other["id"])).to_be_hidden()


def _send(page: Page, text: str) -> None:
    page.fill("#instruction", text)
    page.press("#instruction", "Enter")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_stop_cuts_a_streaming_reply_short_keeps_what_came_and_marks_it_stopped(
    device: Page, people: dict[str, tuple[str, str]], lang: str, model: FakeOpenAI
) -> None:
    channel = _open(device, people, lang, "dm")
    marker = uuid.uuid4().hex[:8]
    word = "문단" if lang == "ko" else "paragraph"
    chunks = [f"{word} {n}. " for n in range(60)]
    model.enqueue_for(marker, Reply("".join(chunks), chunks=chunks, chunk_delay=0.15))
    _send(device, f"{'긴 보고서를 써 줘' if lang == 'ko' else 'Write a long report'} {marker}")
    streaming = device.locator("#timeline li.msg.streaming")
    expect(streaming).to_contain_text(f"{word} 2.")
    stop = device.locator("#stop")
    expect(stop).to_be_visible()
    expect(stop).to_have_text("중지" if lang == "ko" else "Stop")
    # Beside the box pinned to the screen's bottom, on a phone too. (Clicked by its event:
    # while a reply streams the page follows it, and the pointer's scroll-then-click
    # races that.)
    expect(stop).to_be_in_viewport()
    stop.dispatch_event("click")
    reply = device.locator("#timeline li.msg.employee.stopped").last
    expect(reply).to_be_visible()
    expect(reply.locator(".meta")).to_contain_text("중지됨" if lang == "ko" else "Stopped")
    expect(stop).to_be_hidden()
    expect(streaming).to_have_count(0)
    shown = reply.locator(".body").inner_text()
    assert shown.startswith(f"{word} 0.") and f"{word} 59." not in shown
    missions = [
        m
        for m in device.request.get(f"/api/channels/{channel}/messages").json()["messages"]
        if m["kind"] == "employee" and m["payload"].get("stopped")
    ]
    mission = device.request.get(f"/api/missions/{missions[-1]['mission']}").json()
    assert mission["status"] == "stopped"
    assert mission["reply"] == shown.strip()
    # The stream stopped: nothing more comes in the seconds the rest would have taken.
    device.wait_for_timeout(600)
    assert (
        device.locator("#timeline li.msg.employee.stopped").last.locator(".body").inner_text()
        == shown
    )


def _last_reply(page: Page) -> Any:
    return page.locator("#timeline li.msg.employee:not(.streaming)").last


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_regenerate_adds_a_new_attempt_and_keeps_the_earlier_reply(
    device: Page, people: dict[str, tuple[str, str]], lang: str, model: FakeOpenAI
) -> None:
    _open(device, people, lang, "dm")
    marker = uuid.uuid4().hex[:8]
    first, second = (
        ("첫 번째 답", "두 번째 답") if lang == "ko" else ("First answer", "Second answer")
    )
    model.enqueue_for(marker, Reply(f"{first} {marker}"))
    _send(device, f"{'슬로건을 써 줘' if lang == 'ko' else 'Write a tagline'} {marker}")
    expect(_last_reply(device)).to_contain_text(first)
    model.enqueue_for(marker, Reply(f"{second} {marker}"))
    regenerate = _last_reply(device).locator("button.regenerate")
    expect(regenerate).to_have_text("다시 생성" if lang == "ko" else "Regenerate")
    regenerate.click()
    expect(_last_reply(device)).to_contain_text(second)
    expect(_last_reply(device).locator(".meta")).to_contain_text(
        "2번째 시도" if lang == "ko" else "attempt 2"
    )
    # The earlier attempt is kept in the same place, behind "attempt 2 of 2" and ◀ ▶, and
    # only the newest reply offers another one.
    replies = device.locator("#timeline li.msg.employee", has_text=marker)
    expect(replies).to_have_count(2)
    expect(replies.first).to_be_hidden()
    expect(replies.first.locator("button.regenerate")).to_have_count(0)
    newest = replies.last
    expect(newest.locator(".attempt-of")).to_have_text(
        "2번 중 2번째 시도" if lang == "ko" else "attempt 2 of 2"
    )
    newest.locator("button.attempt-prev").click()
    expect(newest).to_be_hidden()
    expect(replies.first).to_be_visible()
    expect(replies.first).to_contain_text(first)
    expect(replies.first.locator(".attempt-of")).to_have_text(
        "2번 중 1번째 시도" if lang == "ko" else "attempt 1 of 2"
    )
    # Nothing else moved: the instruction is right above, as before.
    above = replies.first.locator("xpath=preceding-sibling::li[not(@hidden)][1]")
    expect(above).to_have_class(re.compile(r"\buser\b"))
    replies.first.locator("button.attempt-next").click()
    expect(newest).to_be_visible()
    expect(replies.first).to_be_hidden()
    # After a reload, the same.
    device.reload()
    wait_connected(device)
    expect(replies.last).to_contain_text(second)
    expect(replies.first).to_be_hidden()
    mission = _last_reply(device).get_attribute("data-mission")
    attempts = device.request.get(f"/api/missions/{mission}/attempts").json()
    assert [a["reply"] for a in attempts] == [f"{first} {marker}"]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_edit_and_resend_sends_a_new_mission_linked_to_the_kept_original(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    channel = _open(device, people, lang, "dm")
    marker = uuid.uuid4().hex[:8]
    original = f"{'예산안 요약해 줘' if lang == 'ko' else 'Summarise the budget'} {marker}"
    _send(device, original)
    sent = device.locator("#timeline li.msg.user:not(.sending)", has_text=marker).last
    expect(sent).to_be_visible()
    seq = int((sent.get_attribute("id") or "").removeprefix("mission-"))
    sent.locator("button.edit").click()
    expect(device.locator("#instruction")).to_have_value(original)
    expect(device.locator("#editing")).to_contain_text(f"#{seq}")
    edited = original.replace(marker, f"{'세 줄로' if lang == 'ko' else 'in three lines'} {marker}")
    device.fill("#instruction", edited)
    device.press("#instruction", "Enter")
    new = device.locator("#timeline li.msg.user:not(.sending)", has_text=edited)
    expect(new).to_be_visible()
    expect(device.locator("#editing")).to_be_hidden()
    link = new.locator("a.edited-from")
    expect(link).to_have_text(f"#{seq}에서 수정함" if lang == "ko" else f"Edited from #{seq}")
    expect(link).to_have_attribute("href", f"#mission-{seq}")
    # The original stays as it was, answered.
    expect(device.locator(f"#mission-{seq} .body")).to_have_text(original)
    messages = device.request.get(f"/api/channels/{channel}/messages").json()["messages"]
    new_mission = next(
        m["mission"] for m in messages if m["kind"] == "user" and m["text"] == edited
    )
    body = device.request.get(f"/api/missions/{new_mission}").json()
    old_mission = next(
        m["mission"] for m in messages if m["kind"] == "user" and m["text"] == original
    )
    assert body["edited_from"] == old_mission and body["instruction"] == edited


XSS = (
    "See https://example.com/launch?a=1&b=2, [the docs](https://docs.example.com/x) and "
    '[click](javascript:window.__pwned=1) <img src=x onerror="window.__pwned=1"> '
    'https://evil.example/"onmouseover="window.__pwned=1'
)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_links_in_a_reply_are_clickable_safe_and_copy_copies_the_reply(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    device.context.grant_permissions(["clipboard-read", "clipboard-write"])
    _open(device, people, lang, "dm")
    marker = uuid.uuid4().hex[:8]
    _send(device, f"{'링크 확인' if lang == 'ko' else 'Check links'} {marker} {XSS}")
    reply = _last_reply(device)
    expect(reply).to_contain_text(marker)  # the fake model echoes the instruction
    links = reply.locator(".body a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert hrefs == [
        "https://example.com/launch?a=1&b=2",
        "https://docs.example.com/x",
        # An address runs to the next space (GitHub's autolinks): its quotes are escaped
        # into it, never an attribute of the link.
        "https://evil.example/%22onmouseover=%22window.__pwned=1",
    ]
    for i in range(links.count()):
        assert links.nth(i).get_attribute("rel") == "noopener noreferrer"
        assert links.nth(i).get_attribute("target") == "_blank"
    assert reply.locator(".body img").count() == 0
    assert reply.locator("[onerror], [onmouseover]").count() == 0
    expect(reply.locator(".body")).to_contain_text("[click](javascript:window.__pwned=1)")
    expect(reply.locator(".body")).to_contain_text("<img src=x")
    reply.locator(".body a").last.hover()
    assert device.evaluate("window.__pwned") is None
    # The user's own message links the same way, and stays text otherwise.
    mine = device.locator("#timeline li.msg.user", has_text=marker).last
    assert (
        mine.locator(".body a").first.get_attribute("href") == "https://example.com/launch?a=1&b=2"
    )
    assert mine.locator(".body img").count() == 0
    copy = reply.locator("button.copy")
    expect(copy).to_have_text("복사" if lang == "ko" else "Copy")
    copy.click()
    expect(copy).to_have_text("복사했어요" if lang == "ko" else "Copied")
    copied = device.evaluate("navigator.clipboard.readText()")
    assert marker in copied and copied.startswith("Echo: ")


# A reply's Markdown (issue 45, point 4): once the reply is done its bubble shows the
# heading, the table, the lists and the highlighted code the model wrote, a code block's
# Copy button copies the code as written, nothing the text holds runs, and the table
# scrolls inside its bubble, never the page.
CODE = 'def total(costs):\n    return sum(costs)  # "합계" <b>\n'
REPLIES = {
    "en": (
        "## Launch budget\n\n"
        "| Item | Cost | Owner |\n|:--|--:|:-:|\n"
        "| Ads | $800 | Mara |\n| Venue | $1,200 | Theo |\n\n"
        "1. Book the venue\n2. Order the banners\n\n"
        f"```python\n{CODE}```\n\n"
        '<img src=x onerror="window.__pwned=1"> [click](javascript:window.__pwned=1)'
    ),
    "ko": (
        "## 출시 예산\n\n"
        "| 항목 | 비용 | 담당 |\n|:--|--:|:-:|\n"
        "| 광고 | 80만원 | 지수 |\n| 장소 | 120만원 | 민호 |\n\n"
        "1. 장소 예약\n2. 현수막 주문\n\n"
        f"```python\n{CODE}```\n\n"
        '<img src=x onerror="window.__pwned=1"> [클릭](javascript:window.__pwned=1)'
    ),
}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_reply_shows_its_table_heading_and_code_and_copy_copies_the_code(
    device: Page, people: dict[str, tuple[str, str]], lang: str, model: FakeOpenAI
) -> None:
    device.context.grant_permissions(["clipboard-read", "clipboard-write"])
    _open(device, people, lang, "dm")
    marker = uuid.uuid4().hex[:8]
    model.enqueue_for(marker, Reply(REPLIES[lang] + f" {marker}"))
    asked = "예산을 표로 정리해 줘" if lang == "ko" else "Put the budget in a table"
    _send(device, f"{asked} {marker}")
    reply = _last_reply(device)
    expect(reply).to_contain_text(marker)

    def check() -> None:
        body = reply.locator(".body.md")
        expect(body.locator("h2")).to_have_text("출시 예산" if lang == "ko" else "Launch budget")
        expect(body.locator("table th")).to_have_count(3)
        expect(body.locator("table td")).to_have_count(6)
        expect(body.locator("table td").nth(1)).to_have_text("80만원" if lang == "ko" else "$800")
        expect(body.locator("ol > li")).to_have_count(2)
        expect(body.locator("pre code span.tok-k").first).to_have_text("def")
        assert body.locator("img, script, [onerror]").count() == 0
        assert body.locator("a[href^='javascript']").count() == 0
        # The page does not scroll sideways for the table: it scrolls in its bubble.
        assert device.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), (
            "the page scrolls sideways"
        )
        assert device.evaluate("window.__pwned") is None

    check()
    copy = reply.locator(".code-block button.copy-code")
    expect(copy).to_have_text("코드 복사" if lang == "ko" else "Copy code")
    copy.click()
    expect(copy).to_have_text("복사했어요" if lang == "ko" else "Copied")
    assert device.evaluate("navigator.clipboard.readText()") == CODE
    # Opened again, the page draws the same from what it is given at load.
    device.reload()
    reply = _last_reply(device)
    expect(reply).to_contain_text(marker)
    check()
    expect(reply.locator(".code-block button.copy-code")).to_have_count(1)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_search_finds_a_mission_across_channels_and_opens_it_in_its_channel(
    device: Page, people: dict[str, tuple[str, str]], lang: str, model: FakeOpenAI
) -> None:
    master = _open(device, people, lang, "master")
    marker = uuid.uuid4().hex[:8]
    if lang == "ko":
        instruction, query = f"분기 예산을 정리해 줘 {marker}", f"예산이 {marker}"
    else:
        instruction, query = f"Summarise the quarterly budgets {marker}", f"budget {marker}"
    sent = _post(device, f"/api/channels/{master}/instructions", {"text": instruction})
    assert sent["status"] == 202
    # The page anchors a mission by the number the person sees (its label), not its seq.
    seq = sent["body"]["mission"]["label"]
    _wait_until(
        lambda: (
            device.request.get(f"/api/missions/{sent['body']['mission']['id']}").json()["status"]
            == "done"
        )
    )
    # From another channel's sidebar.
    device.goto(f"/c/{_channel(device, 'all')}/")
    box = device.locator("#side-search-q")
    expect(box).to_have_attribute("placeholder", "미션 검색" if lang == "ko" else "Search missions")
    box.fill(query)
    box.press("Enter")
    device.wait_for_url(re.compile(r"/search/\?q="))
    results = device.locator("#search-results .search-result")
    # Best first: the mission that shares the rare marker too.
    expect(results.first).to_contain_text(marker)
    results.first.locator("a.open-mission").click()
    device.wait_for_url(re.compile(rf"/c/{master}/#mission-{seq}$"))
    shown = device.locator(f"#mission-{seq}")
    expect(shown).to_have_class(re.compile(r"\bfound\b"))
    expect(shown).to_be_in_viewport()
    device.goto("/search/?q=qwxzvkjj")
    expect(device.locator("#no-results")).to_be_visible()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_synthesis_found_by_search_opens_marked_in_the_master_channel(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    """A synthesis is numbered after its plan ("3a"): its search result opens it too."""
    master = _open(device, people, lang, "master")
    marker = uuid.uuid4().hex[:8]
    plan = "출시 계획" if lang == "ko" else "Launch plan"
    sent = _post(
        device,
        f"/api/channels/{master}/instructions",
        {"text": f"{plan}:\n- @Theo: {marker} check the pricing page"},
    )
    assert sent["status"] == 202
    plan_id = sent["body"]["mission"]["id"]

    def summed_up() -> bool:
        answer = device.request.get(f"/api/missions/{plan_id}/plan")
        data = answer.json() if answer.ok else {}
        return bool(data.get("synthesis")) and data["synthesis"]["status"] == "done"

    _wait_until(summed_up)
    label = f"{sent['body']['mission']['label']}a"
    device.goto(f"/search/?q={marker}")
    result = device.locator(
        f'#search-results a.open-mission[href$="#mission-{label}"]', has_text=f"#{label}"
    )
    expect(result).to_have_count(1)
    result.click()
    device.wait_for_url(re.compile(rf"/c/{master}/#mission-{label}$"))
    shown = device.locator(f"#mission-{label}")
    expect(shown).to_have_class(re.compile(r"\bfound\b"))
    expect(shown).to_be_in_viewport()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_export_downloads_the_session_as_markdown_in_the_persons_language(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    _open(device, people, lang, "dm")
    marker = uuid.uuid4().hex[:8]
    text = f"{'내보낼 메모 써 줘' if lang == 'ko' else 'Write a memo to export'} {marker}"
    _send(device, text)
    expect(device.locator("#timeline li.msg.employee").last).to_contain_text(marker)
    link = device.locator("#export-markdown")
    expect(link).to_have_text("내보내기 (Markdown)" if lang == "ko" else "Export (Markdown)")
    with device.expect_download() as download:
        link.click()
    assert download.value.suggested_filename.endswith(".md")
    body = Path(download.value.path()).read_text(encoding="utf-8")
    assert f"> {text}" in body
    assert ("## 세션 " if lang == "ko" else "## Session ") in body
    # The reply too (the echo model says back the last mission it was given).
    reply = body[body.index(f"> {text}") :]
    assert "Echo:" in reply and reply.count(marker) == 2


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_file_attached_goes_with_the_instruction_and_the_model_reads_it(
    device: Page, people: dict[str, tuple[str, str]], lang: str, model: FakeOpenAI
) -> None:
    _open(device, people, lang, "dm")
    marker = uuid.uuid4().hex[:8]
    name = "단가표.csv" if lang == "ko" else "prices.csv"
    fact = f"SKU-{marker},{'흑임자 라떼 베이스' if lang == 'ko' else 'Oat milk base'},31500"
    table = "sku,product,price\n" + "".join(f"SKU-{n:05d},blend {n},9000\n" for n in range(40))
    device.set_input_files(
        "#attach-input",
        files=[FilePayload(name=name, mimeType="text/csv", buffer=(table + fact + "\n").encode())],
    )
    chip = device.locator("#attached .file")
    expect(chip).to_have_count(1)
    expect(chip).to_contain_text(name)
    expect(chip).to_contain_text("KB")
    # A file whose content is not what its name says is refused, in the person's language.
    device.set_input_files(
        "#attach-input",
        files=[FilePayload(name="shelf.png", mimeType="image/png", buffer=b"not an image")],
    )
    refused = device.locator("#attached .file.failed")
    expect(refused).to_contain_text("파일이지만" if lang == "ko" else "but its content is not")
    refused.locator("button.remove-file").click()
    expect(refused).to_have_count(0)
    # The context panel counts the file in the next mission's prompt.
    device.locator("#open-context").click()
    section = device.locator("#context-body li.section", has_text=name)
    expect(section).to_contain_text("첨부 파일" if lang == "ko" else "attachments")

    ask = "흑임자 라떼 베이스 단가?" if lang == "ko" else "Price of the oat milk base?"
    text = f"{ask} {marker}"
    _send(device, text)
    sent = device.locator("#timeline li.msg.user", has_text=marker)
    link = sent.locator(".attached.sent a.file-name")
    expect(link).to_have_text(name)
    expect(chip).to_have_count(0)
    expect(_last_reply(device)).to_contain_text(marker)
    asked = next(r for r in model.requests if marker in r.messages[-1]["content"])
    assert any(fact in m["content"] for m in asked.messages)
    download = device.request.get(str(link.get_attribute("href")))
    assert download.ok and download.body().decode().endswith(fact + "\n")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_session_named_shows_its_name_in_the_session_menu(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    _open(device, people, lang, "dm")
    title = f"{'봄 출시 준비' if lang == 'ko' else 'Spring launch'} {uuid.uuid4().hex[:6]}"
    box = device.locator("#session-name-box")
    box.locator("summary").click()
    named = "세션 이름 붙이기" if lang == "ko" else "Name this session"
    expect(box.locator("summary")).to_have_text(named)
    device.fill("#session-name", title)
    box.locator("button[type=submit]").click()
    wait_connected(device)
    chosen = device.locator("#session-switch option:checked")
    expect(chosen).to_contain_text(title)
    expect(chosen).to_contain_text("세션" if lang == "ko" else "Session")
    expect(device.locator("#session-name")).to_have_value(title)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_an_archived_project_is_read_only_until_it_is_unarchived(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    project = _open(device, people, lang, "project")
    button = device.locator("#archive-project")
    expect(button).to_have_text("보관" if lang == "ko" else "Archive")
    button.click()
    device.wait_for_url(f"**/c/{project}/")
    expect(device.locator("#archived")).to_contain_text(
        "보관한 프로젝트" if lang == "ko" else "This project is archived"
    )
    expect(device.locator("#composer")).to_have_count(0)
    # Its work is refused, not lost: the API says why.
    refused = _post(device, f"/api/channels/{project}/instructions", {"text": "hello"})
    assert refused["status"] == 409 and refused["body"]["code"] == "channel_archived"
    button = device.locator("#archive-project")
    expect(button).to_have_text("보관 해제" if lang == "ko" else "Unarchive")
    button.click()
    device.wait_for_url(f"**/c/{project}/")
    wait_connected(device)
    expect(device.locator("#composer")).to_be_visible()
    expect(device.locator("#archived")).to_have_count(0)
