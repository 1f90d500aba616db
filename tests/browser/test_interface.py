"""What a new user meets, in a real browser (Chromium through Playwright) against the
embedded default as a real server process (DEBUG unset, so off; static files served by
Daphne itself): the Korean interface, the API docs under the strict CSP, the chat on a
phone, the office page, empty timelines, Retry, confirmations, the hire form and the
offline-demo banner.

This module has its own server (the fixtures are per module): it switches languages
and retires people, which the scenarios of test_chat_in_browser.py must not see."""

import re
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.browser.conftest import (
    LONG_SESSION_EMPLOYEE,
    WAIT_MS,
    WATCH_SCRIPT,
    Problems,
    Server,
)
from tests.browser.test_chat_in_browser import (  # the skip (or CI failure) comes with them
    final_reply,
    log_in,
    open_dm,
    saved_instruction,
    send,
    timeline,
    wait_connected,
)
from tests.i18n.visible import INTERFACE_ENGLISH

PHONE: ViewportSize = {"width": 390, "height": 844}

# The interface's text, with what a person typed or the office was made with (names,
# roles, replies and instructions in the timeline) taken out, and ASCII words a Korean
# page may keep: names of settings, keyboard keys, the language menu's "English".
INTERFACE_TEXT = """
(() => {
  const copy = document.body.cloneNode(true);
  const data = "script, style, .msg .body, .msg .meta, select#language option[lang=en]";
  copy.querySelectorAll(data).forEach((n) => n.remove());
  const parts = [copy.innerText];
  copy.querySelectorAll("[placeholder], [aria-label], [title]").forEach((n) => {
    for (const name of ["placeholder", "aria-label", "title"]) {
      if (n.getAttribute(name)) parts.push(n.getAttribute(name));
    }
  });
  return parts.join("\\n");
})()
"""
ALLOWED_ASCII = INTERFACE_ENGLISH


def english_words(page: Page, data: list[str]) -> list[str]:
    text = page.evaluate(INTERFACE_TEXT)
    for value in sorted(data, key=len, reverse=True):
        text = text.replace(value, " ")
    return sorted({w for w in re.findall(r"[A-Za-z][A-Za-z_']+", text)} - ALLOWED_ASCII)


FAIL_LAST_MISSION = """
from missions.lifecycle import mission_fail
from missions.models import Mission
mission = Mission.objects.filter(session__channel_id={channel}).order_by("-id").first()
mission_fail(mission=mission, code="provider_error", message="The model timed out.")
print(mission.pk)
"""


def expect_only_status_errors(problems: Problems, statuses: list[int]) -> None:
    """The console errors are the browser's notes on these answers' statuses; they are
    taken off the list the page fixture fails on."""
    codes = "|".join(map(str, statuses))
    expected = re.compile(
        rf"Failed to load resource: the server responded with a status of ({codes})\b"
    )
    problems.console_errors[:] = [e for e in problems.console_errors if not expected.search(e)]


def sign_up(page: Page) -> str:
    username = f"user{uuid.uuid4().hex[:8]}"
    password = f"Harbor-{uuid.uuid4().hex[:10]}!"
    page.goto("/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", password)
    page.fill("#id_password2", password)
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))
    return username


TEAM_DATA = [
    "Avery",
    "Chief of staff",
    "Mara",
    "Marketing lead",
    "Theo",
    "Software developer",
    "Iris",
    "Product designer",
    "Website launch",
]


# --- Korean ----------------------------------------------------------------------------


def test_korean_chosen_in_the_menu_makes_the_whole_interface_korean(
    page: Page, server: Server
) -> None:
    username = sign_up(page)
    expect(page.locator("html")).to_have_attribute("lang", "en")
    menu = page.get_by_label("Language")
    expect(menu.locator("option")).to_have_text(["English", "한국어"])
    menu.select_option("ko")
    page.locator("form.language button").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.locator(".flash")).to_have_text("언어를 저장했어요.")
    expect(page.get_by_label("언어")).to_have_value("ko")
    expect(page.get_by_role("heading", name="직원 채용")).to_be_visible()
    expect(page.locator(".team .status").first).to_have_text("대기 중")
    data = [*TEAM_DATA, username, f"{username}'s office"]
    assert english_words(page, data) == []

    # The chat, its script's words, both panels.
    page.click('.team a.who[data-employee="Theo"]')
    page.wait_for_url(re.compile(r"/c/\d+/$"))
    wait_connected(page)
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.locator("#intro")).to_contain_text("Theo(Software developer) 님과의 1:1 채널")
    expect(page.locator("#offline-banner")).to_contain_text("오프라인 데모 답변")
    instruction = "제퍼 출시 체크리스트를 세 단계로 정리해 줘."
    send(page, instruction)
    sent = saved_instruction(page, instruction)
    expect(sent.locator(".meta")).to_contain_text("나")
    expect(final_reply(page, sent)).to_have_count(1)
    expect(page.locator("#intro")).to_be_hidden()
    page.get_by_role("button", name="Theo 님이 아는 것").click()
    panel = page.locator("#context-panel")
    expect(panel.locator("li.section .label").first).to_have_text(
        re.compile(r"^시스템: \d+ / \d+자$")
    )
    expect(panel).to_contain_text("합계:")
    expect(panel.get_by_role("heading", name=re.compile("^롤링 요약"))).to_be_visible()
    page.get_by_role("button", name="메모리", exact=True).click()
    memory = page.locator("#memory-panel")
    memory.get_by_label("기억할 내용").fill("예산은 3천만 원이에요")
    memory.get_by_label("종류").select_option("fact")
    memory.get_by_role("button", name="추가").click()
    item = memory.locator("li.memory-item", has_text="예산은 3천만 원이에요")
    expect(item.locator(".kind")).to_have_text("사실 · 직원")
    expect(item.get_by_role("button", name="고정")).to_be_visible()
    assert english_words(page, [*TEAM_DATA, username]) == []

    # A failure the office reports (stored as data) reads in Korean; the provider's own
    # words in it stay as they were.
    channel = int(page.url.rstrip("/").split("/")[-1])
    server.manage("shell", "-c", FAIL_LAST_MISSION.format(channel=channel))
    page.reload()
    wait_connected(page)
    error = page.locator("#timeline li.msg.error .body")
    expect(error).to_have_text("Theo이(가) 답하지 못했어요: The model timed out.")
    expect(
        page.locator("#timeline li.msg.error").get_by_role("button", name="다시 시도")
    ).to_be_visible()

    # The choice is the person's: it stays after logging out and in again.
    page.locator("header.top .logout button").click()
    page.wait_for_url(re.compile(r"/accounts/login/"))
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.get_by_role("heading", name="로그인")).to_be_visible()


def test_the_demo_user_keeps_english_while_another_user_chose_korean(page: Page) -> None:
    log_in(page)
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="Hire an employee")).to_be_visible()


# --- API docs --------------------------------------------------------------------------


def test_api_docs_load_from_our_own_static_files_and_list_the_operations(
    page: Page, server: Server, problems: Problems
) -> None:
    log_in(page)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("/api/docs")
    operations = page.locator(".opblock")
    expect(operations.first).to_be_visible()
    assert operations.count() >= 10
    expect(
        page.locator(".opblock-summary-path", has_text="/api/channels/{channel_id}/messages").first
    ).to_be_visible()
    expect(page.locator(".info .title")).to_contain_text("Virtual office API")
    foreign = [
        url for url in requested if not url.startswith(server.url) and not url.startswith("data:")
    ]
    assert not foreign, foreign
    assert any("/static/ninja/swagger-ui-bundle.js" in url for url in requested), requested
    blocked = [e for e in problems.console_errors if "Content Security Policy" in e]
    assert not blocked, blocked


# --- the phone -------------------------------------------------------------------------


@pytest.fixture
def phone(browser: Browser, server: Server, problems: Problems) -> Iterator[Page]:
    context = browser.new_context(
        viewport=PHONE, base_url=server.url, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(WATCH_SCRIPT)
    opened = context.new_page()
    opened.on("pageerror", lambda error: problems.page_errors.append(str(error)))
    opened.on(
        "console",
        lambda message: (
            problems.console_errors.append(message.text) if message.type == "error" else None
        ),
    )
    try:
        yield opened
        assert not problems.page_errors, problems.page_errors
        assert not problems.console_errors, problems.console_errors
    finally:
        context.close()


def in_view(page: Page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not laid out"
    return bool(
        box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"] + 1 and box["height"] > 0
    )


def test_on_a_phone_the_panels_open_in_view_with_focus_and_the_composer_stays_visible(
    phone: Page,
) -> None:
    page = phone
    log_in(page)
    open_dm(page, LONG_SESSION_EMPLOYEE)  # a long timeline: taller than the screen
    assert page.evaluate("document.documentElement.scrollHeight") > PHONE["height"] * 2
    for position in (
        "0",
        "document.documentElement.scrollHeight / 2",
        "document.documentElement.scrollHeight",
    ):
        page.evaluate(f"window.scrollTo(0, {position})")
        assert in_view(page, "#instruction"), f"the composer is off screen at scroll {position}"
        assert in_view(page, "#composer button[type=submit]")

    page.evaluate("window.scrollTo(0, 0)")
    opener = page.get_by_role("button", name=f"What {LONG_SESSION_EMPLOYEE} knows")
    opener.click()
    expect(page.locator("#context-panel")).to_be_visible()
    expect(page.locator("#context-body li.section").first).to_be_visible()
    assert in_view(page, "#context-h"), "the context panel opened out of sight"
    assert page.evaluate("document.activeElement.id") == "context-panel"
    # It covers the chat: what sits at the middle of the screen is the panel.
    assert page.evaluate("document.elementFromPoint(195, 420).closest('#context-panel') !== null")
    page.locator("#context-panel .close-panel").click()
    expect(page.locator("#context-panel")).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == "open-context"

    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.get_by_role("button", name="Memory", exact=True).click()
    expect(page.locator("#memory-panel")).to_be_visible()
    assert in_view(page, "#memory-h"), "the memory panel opened out of sight"
    assert page.evaluate("document.activeElement.id") == "memory-panel"
    page.keyboard.press("Escape")
    expect(page.locator("#memory-panel")).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == "open-memory"
    assert in_view(page, "#instruction")


# --- the office page, empty timelines, the hire form -----------------------------------


def test_office_page_links_each_employee_with_status_and_names_channels_once(page: Page) -> None:
    log_in(page)
    for name in ("Avery", "Iris", "Mara", "Theo"):
        link = page.get_by_role("link", name=re.compile(f"^{name}\\b"))
        expect(link).to_have_count(1)
        expect(link).to_have_attribute("href", re.compile(r"^/c/\d+/$"))
        # It looks like a link: the accent colour and an underlined name.
        underline = link.locator("strong").evaluate("n => getComputedStyle(n).textDecorationLine")
        assert "underline" in underline
        row = page.locator(".team li.member", has=page.locator(f'a.who[data-employee="{name}"]'))
        expect(row.locator(".status")).to_have_text(re.compile(r"^(Idle|Working on: .+)$"))
    channels = page.locator(".channels")
    expect(channels.get_by_role("link", name="Master channel", exact=True)).to_have_count(1)
    expect(channels.get_by_role("link", name="All hands", exact=True)).to_have_count(1)
    text = channels.inner_text()
    assert "Master Master" not in text and "All hands All hands" not in text
    assert text.count("Master") == 1 and text.count("All hands") == 1, text

    channels.get_by_role("link", name="Master channel").click()
    page.wait_for_url(re.compile(r"/c/\d+/$"))
    expect(page.locator("#chat-title")).to_have_text("Master channel")


def test_a_new_project_says_what_it_is_and_a_bad_hire_form_keeps_what_was_typed(
    page: Page, problems: Problems
) -> None:
    log_in(page)
    hire = page.locator("#hire-form")
    hire.get_by_label("Name").fill("Noor Hassan")  # two words: refused
    hire.get_by_label("Role").fill("Data analyst")
    hire.get_by_label("Persona").fill("You are Noor, a careful analyst. 숫자를 꼼꼼히 봐요.")
    hire.get_by_role("button", name="Hire").click()
    expect(page.locator("#hire-form .errorlist")).to_contain_text("Use one word")
    expect(hire.get_by_label("Name")).to_have_value("Noor Hassan")
    expect(hire.get_by_label("Role")).to_have_value("Data analyst")
    expect(hire.get_by_label("Persona")).to_have_value(
        "You are Noor, a careful analyst. 숫자를 꼼꼼히 봐요."
    )
    hire.get_by_label("Name").fill("Noor")
    hire.get_by_role("button", name="Hire").click()
    expect(page.locator(".flash")).to_have_text("Noor joined the office.")
    expect(page.locator('.team a.who[data-employee="Noor"]')).to_have_count(1)
    # The refused form was answered 400 (the browser logs that); nothing else went wrong.
    expect_only_status_errors(problems, [400])

    project = page.locator("#project-form")
    project.get_by_label("Name").fill("Q3 pricing")
    project.get_by_label("Mara").check()
    project.get_by_label("Noor").check()
    project.get_by_label("Lead:", exact=True).select_option(label="Noor (Data analyst)")
    project.get_by_role("button", name="Open project").click()
    page.wait_for_url(re.compile(r"/c/\d+/$"))
    intro = page.locator("#intro")
    expect(intro).to_contain_text("The project channel Q3 pricing, with Mara, Noor.")
    expect(intro).to_contain_text("Noor leads")
    expect(page.locator("#chat-title")).to_have_text("Q3 pricing Project")


def test_a_new_session_says_the_summary_was_carried_over_and_links_to_it(page: Page) -> None:
    log_in(page)
    open_dm(page, "Mara")
    send(page, "Plan the Zephyr webinar for March 14.")
    expect(final_reply(page, saved_instruction(page, "Plan the Zephyr webinar"))).to_have_count(1)

    # Asked first; cancelling keeps the session.
    page.get_by_role("button", name="New session").click()
    dialog = page.locator("dialog#confirm")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#session-switch option:checked")).to_have_text("Session 1 (current)")

    page.get_by_role("button", name="New session").click()
    with page.expect_navigation():
        dialog.get_by_role("button", name="Start new session").click()
    wait_connected(page)
    expect(page.locator("#session-switch option:checked")).to_have_text("Session 2 (current)")
    intro = page.locator("#intro")
    expect(intro).to_contain_text("Your 1:1 channel with Mara")
    expect(intro).to_contain_text("The summary of session 1 was carried over")
    intro.get_by_role("link", name="See the carried-over summary").click()
    panel = page.locator("#context-panel")
    expect(panel).to_be_visible()
    expect(panel.get_by_role("heading", name=re.compile("^Rolling summary"))).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "context-panel"


# --- Retry, confirmations ----------------------------------------------------------------


def test_retry_goes_once_the_retried_mission_is_answered(page: Page, server: Server) -> None:
    log_in(page)
    channel = open_dm(page, "Avery")
    instruction = "Summarise the Zephyr board meeting."
    send(page, instruction)
    expect(final_reply(page, saved_instruction(page, instruction))).to_have_count(1)
    # The mission fails as a provider error would fail it (the offline model never does).
    done = server.manage("shell", "-c", FAIL_LAST_MISSION.format(channel=channel))
    mission = done.stdout.strip().splitlines()[-1]
    # Another process wrote it: the page sees it when it loads (the in-memory channel
    # layer of the embedded default reaches only the server's own process).
    page.reload()
    wait_connected(page)
    error = page.locator(f'#timeline li.msg.error[data-mission="{mission}"]')
    expect(error).to_have_count(1)
    retry = error.get_by_role("button", name="Retry")
    expect(retry).to_be_visible()
    retry.click()
    replies = page.locator(f'#timeline li.msg.employee:not(.streaming)[data-mission="{mission}"]')
    expect(replies).to_have_count(2)
    expect(error.get_by_role("button", name="Retry")).to_have_count(0)
    expect(error.locator(".answered")).to_have_text("Answered below")
    # Built again from the saved timeline, it reads the same.
    page.reload()
    wait_connected(page)
    expect(error.get_by_role("button", name="Retry")).to_have_count(0)
    expect(error.locator(".answered")).to_have_text("Answered below")
    kinds = [m["kind"] for m in timeline(page, channel) if m["mission"] == int(mission)]
    assert kinds == ["user", "employee", "error", "employee"], kinds


def test_retiring_a_memory_item_asks_first(page: Page) -> None:
    log_in(page)
    open_dm(page, "Theo")
    page.get_by_role("button", name="Memory", exact=True).click()
    panel = page.locator("#memory-panel")
    panel.get_by_label("Remember").fill("Standups are at 9:30")
    panel.get_by_role("button", name="Add").click()
    item = panel.locator("li.memory-item", has_text="Standups are at 9:30")
    expect(item).to_have_count(1)
    dialog = page.locator("dialog#confirm")
    item.get_by_role("button", name="Retire").click()
    expect(dialog).to_contain_text("Retire this memory item?")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    page.wait_for_timeout(300)
    expect(item).to_have_count(1)
    item.get_by_role("button", name="Retire").click()
    dialog.get_by_role("button", name="Retire it").click()
    expect(item).to_have_count(0)
    listed = page.request.get(f"/api/channels/{int(page.url.rstrip('/').split('/')[-1])}/memory")
    assert "Standups are at 9:30" not in listed.text()


def test_retiring_an_employee_asks_first(page: Page) -> None:
    log_in(page)
    page.goto("/")
    hire = page.locator("#hire-form")
    hire.get_by_label("Name").fill("Kai")
    hire.get_by_label("Role").fill("Intern")
    hire.get_by_label("Persona").fill("You are Kai, an intern.")
    hire.get_by_role("button", name="Hire").click()
    page.get_by_role("link", name="Edit Kai").click()
    page.get_by_role("button", name="Retire Kai").click()
    expect(page.get_by_role("heading", name="Retire Kai?")).to_be_visible()
    page.get_by_role("link", name="Cancel").click()
    page.goto("/")
    expect(page.locator('.team a.who[data-employee="Kai"]')).to_have_count(1)
    page.get_by_role("link", name="Edit Kai").click()
    page.get_by_role("button", name="Retire Kai").click()
    page.get_by_role("button", name="Yes, retire Kai").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator(".flash")).to_have_text("Kai was retired.")
    expect(page.locator('.team a.who[data-employee="Kai"]')).to_have_count(0)


# --- the offline banner, DEBUG off -------------------------------------------------------


def test_the_offline_banner_is_shown_once_above_the_chat(page: Page) -> None:
    log_in(page)
    open_dm(page, "Iris")
    banner = page.locator(".banner")
    expect(banner).to_have_count(1)
    expect(banner).to_contain_text("offline demo replies")
    expect(banner).to_contain_text("OPENAI_API_KEY")
    # Above the conversation, not in it.
    assert page.evaluate(
        "document.getElementById('offline-banner').compareDocumentPosition("
        "document.getElementById('timeline')) & Node.DOCUMENT_POSITION_FOLLOWING"
    )
    expect(page.locator("#timeline .banner")).to_have_count(0)


def test_debug_is_off_a_missing_page_is_our_own_and_static_files_are_served(
    page: Page, server: Server, problems: Problems
) -> None:
    assert "DEBUG" not in server.env
    response = page.goto("/no/such/page/")
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    body = page.content()
    assert "URLconf" not in body and "DEBUG = True" not in body and "Traceback" not in body
    # Static files come from Daphne itself with DEBUG off (SERVE_STATIC=1).
    sheets = page.eval_on_selector_all(
        "link[rel=stylesheet]", "links => links.map(l => new URL(l.href).pathname)"
    )
    assert sheets == ["/static/office/office.css", "/static/office/dark.css"]
    for sheet in sheets:
        css = page.request.get(sheet)
        assert css.ok and "text/css" in css.headers["content-type"], sheet
    assert page.evaluate("getComputedStyle(document.body).margin") == "0px"
    expect_only_status_errors(problems, [404])
