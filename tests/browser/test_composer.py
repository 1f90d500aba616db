"""The composer keeps every word a person types, as a chat product should: a paste over the
limit is kept whole and refused with its count beside the box (never cut and sent as if
complete); instructions the server refuses all come back into the box; the Enter that ends
a Hangul composition does not send; @-completion finds Korean names, by their initial
consonants too; and opening a channel shows its newest message after every card has
drawn. In English and Korean, on a desktop and on a phone, in Debian's Chromium."""

import json
import re
import uuid
from typing import Any

import pytest

# Importing the chat tests' helpers first applies their skip where Chromium is missing.
from tests.browser.test_chat_in_browser import log_in, send, wait_connected

from playwright.sync_api import Page, expect  # isort: skip

from tests.browser.conftest import (
    DEMO_USER,
    VIEWPORT,
    WAIT_MS,
    Server,
)

KOREAN_USER = "minji"
KOREAN_PASSWORD = f"Harbor-{uuid.uuid4().hex[:10]}!"
# Both offices hire 지수 beside their team: what @-completion has to find.
SETUP = f"""
from django.contrib.auth.models import User
from office.models import Office
from office.services import employee_hire, office_create_with_team, user_set_language
korean = User.objects.create_user({KOREAN_USER!r}, password={KOREAN_PASSWORD!r})
office_create_with_team(owner=korean, name="민지네 사무실")
user_set_language(user=korean, language="ko")
for office in Office.objects.all():
    employee_hire(office=office, name="지수", role="마케터", persona="마케팅 담당자")
"""


@pytest.fixture(scope="module")
def people(server: Server) -> dict[str, tuple[str, str]]:
    server.manage("shell", "-c", SETUP)
    return {"en": (DEMO_USER, "demo"), "ko": (KOREAN_USER, KOREAN_PASSWORD)}


def _open(page: Page, people: dict[str, tuple[str, str]], lang: str, kind: str) -> int:
    """Log in as the person of that language and open their channel of that kind."""
    log_in(page, *people[lang])
    expect(page.locator("html")).to_have_attribute("lang", lang)
    channels: list[dict[str, Any]] = page.request.get("/api/channels").json()
    if kind == "dm":
        found = next(c["id"] for c in channels if c["kind"] == "dm" and c["name"] == "Theo")
    else:
        found = next(c["id"] for c in channels if c["kind"] == kind)
    page.goto(f"/c/{found}/")
    wait_connected(page)
    return int(found)


def _saved_count(page: Page) -> int:
    return page.locator("#timeline li.msg.user:not(.sending)").count()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_paste_over_the_limit_is_kept_whole_and_refused_with_its_count_beside_the_box(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    _open(device, people, lang, "dm")
    before = _saved_count(device)
    pasted = (("가나다라마바사 " if lang == "ko" else "Quarterly plan ") * 4_000)[:29_999] + "."
    box = device.locator("#instruction")
    box.fill(pasted)
    assert device.evaluate("document.getElementById('instruction').value.length") == 30_000
    counter = device.locator("#counter")
    expect(counter).to_be_visible()
    expect(counter).to_contain_text("30,000")
    expect(counter).to_contain_text("20,000")
    device.press("#instruction", "Enter")
    refused = "10,000자를 줄여서" if lang == "ko" else "shorten it by 10,000 characters"
    expect(counter).to_contain_text(refused)
    expect(box).to_have_attribute("aria-invalid", "true")
    # Nothing was sent, not even a "sending" bubble, and the text is all still there.
    device.wait_for_timeout(300)
    assert device.locator("#timeline li.msg.sending").count() == 0
    assert _saved_count(device) == before
    assert device.evaluate("document.getElementById('instruction').value") == pasted
    # The counter sits beside the box: within its form, right under it.
    box_rect = box.bounding_box()
    counter_rect = counter.bounding_box()
    assert box_rect and counter_rect
    assert 0 <= counter_rect["y"] - (box_rect["y"] + box_rect["height"]) < 60


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_enter_that_ends_a_hangul_composition_does_not_send(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    _open(device, people, lang, "dm")
    before = _saved_count(device)
    device.fill("#instruction", "안녕하세요 지수")
    # What Chromium sends for the Enter that commits the last syllable.
    device.evaluate(
        """() => document.getElementById("instruction").dispatchEvent(new KeyboardEvent(
            "keydown", {key: "Enter", code: "Enter", isComposing: true, bubbles: true,
                        cancelable: true}))"""
    )
    device.wait_for_timeout(300)
    assert device.locator("#timeline li.msg.sending").count() == 0
    expect(device.locator("#instruction")).to_have_value("안녕하세요 지수")
    # The next Enter, after the composition, sends.
    device.press("#instruction", "Enter")
    expect(device.locator("#timeline li.msg.user:not(.sending)")).to_have_count(before + 1)
    expect(device.locator("#instruction")).to_have_value("")


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("typed", ["@지", "@ㅈ", "@ㅈㅅ"])
def test_mention_completion_finds_a_korean_name_by_its_syllables_or_initials(
    device: Page, people: dict[str, tuple[str, str]], lang: str, typed: str
) -> None:
    _open(device, people, lang, "master")
    box = device.locator("#instruction")
    box.fill("")
    box.press_sequentially("Plan: " + typed)
    options = device.locator("#mentions li")
    expect(options).to_have_text(["@지수"])
    box.press("Tab")
    expect(box).to_have_value("Plan: @지수 ")
    expect(device.locator("#mentions")).to_be_hidden()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_reopening_the_master_channel_after_a_delegation_shows_the_newest_message(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    master = _open(device, people, lang, "master")
    send(device, "Launch plan:\n- @지수: write the banner copy BX-1\n- @Theo: build the page BX-2")
    card = device.locator("#timeline .plan-card").last
    expect(card.locator(".plan-status")).to_have_attribute("class", re.compile(r"\bdone\b"))
    synthesis = device.locator("#timeline li.msg.employee").last
    expect(synthesis).to_be_visible()
    # Every word of the card is in the page's language, its times too ("3초", not "3 s"),
    # but what people wrote: the names and the tasks.
    words = card.locator(".plan-head, .plan-state, .plan-time, .plan-synthesis, .plan-cost")
    if lang == "ko":
        shown = words.all_inner_texts()
        assert not [text for text in shown if re.search("[A-Za-z]", text)], shown
    times = card.locator(".plan-time").all_inner_texts()
    pattern = r"\d+초|\d+분 \d+초" if lang == "ko" else r"\d+ s|\d+ min \d+ s"
    assert times and all(re.fullmatch(pattern, time) for time in times), times

    for _ in range(3):
        device.goto(f"/c/{master}/")
        wait_connected(device)
        expect(device.locator("#timeline .plan-card").last.locator("li.plan-part")).to_have_count(2)
        device.wait_for_timeout(400)  # cards and late frames have drawn
        last = device.locator("#timeline > li").last
        rect = last.bounding_box()
        height = (device.viewport_size or VIEWPORT)["height"]
        assert rect is not None
        bottom = device.evaluate(
            """() => {
                const t = document.getElementById("timeline");
                const scrolls = t.scrollHeight > t.clientHeight + 1;
                const r = t.getBoundingClientRect();
                const composer = document.getElementById("composer").getBoundingClientRect();
                const visible = scrolls ? Math.min(r.bottom, innerHeight) : innerHeight;
                return Math.min(visible, composer.top);
            }"""
        )
        assert rect["y"] + rect["height"] <= min(bottom, height) + 2, (rect, bottom)


# Last: it spends the rate limit of both people for the rest of the minute.
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_instruction_the_rate_limit_refuses_comes_back_into_the_box(
    device: Page, people: dict[str, tuple[str, str]], lang: str, server: Server
) -> None:
    channel = _open(device, people, lang, "dm")
    word = "메모" if lang == "ko" else "note"
    width = device.viewport_size["width"] if device.viewport_size else 0
    texts = [f"{word} #{n:02d}/{width}/{lang}" for n in range(40)]
    # Forty instructions in one burst, as fast as the page can send them.
    device.evaluate(
        """(texts) => {
            const box = document.getElementById("instruction");
            const form = document.getElementById("composer");
            for (const text of texts) {
                box.value = text;
                form.dispatchEvent(new Event("submit", {cancelable: true}));
            }
        }""",
        texts,
    )

    # Every instruction is either saved or back in the box: nothing is lost.
    def settled() -> tuple[set[str], str]:
        saved = server.manage(
            "shell",
            "-c",
            "from missions.models import Mission; import json; "
            f"print(json.dumps(list(Mission.objects.filter(session__channel_id={channel})"
            ".values_list('instruction', flat=True))))",
        ).stdout
        return set(json.loads(saved.strip().splitlines()[-1])), device.evaluate(
            "document.getElementById('instruction').value"
        )

    device.wait_for_function(
        "() => !document.querySelector('#timeline li.msg.sending')", timeout=WAIT_MS
    )
    saved, box = settled()
    ours = [t for t in texts if t in saved]
    back = [t for t in texts if t in box]
    assert len(back) >= 1, "the burst was expected to pass the limit"
    assert sorted(ours + back) == sorted(texts), (len(ours), len(back))
    assert not set(ours) & set(back)
    # They come back in the order they were typed.
    assert [t for t in re.split(r"\n\n", box) if t] == back
