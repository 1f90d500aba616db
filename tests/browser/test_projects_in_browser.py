"""Projects, meeting follow-ups and the cost page in a real browser (Debian's Chromium
through Playwright), in English and Korean, on a desktop and on a phone: a project's
name, lead and members are changed on its own page, a retired lead flags the project
until someone is made lead again; a follow-up handed out in meeting notes reads in the
employee's 1:1 as the office's, with a link back to the notes; the cost page shows what
each employee and each mission sent against the full history.

Several people in one office: the owner invites someone with a link, they sign up through
it and work in the office's channels, and each sees the other's instructions by name.

This module has its own server (the fixtures are per module): it retires people."""

import json
import re
import uuid
from typing import Any

import pytest

# Importing the chat tests' helpers first applies their skip where Chromium is missing.
from tests.browser.test_chat_in_browser import log_in, send, wait_connected, wait_settled

from playwright.sync_api import Browser, Page, expect  # isort: skip

from tests.browser.conftest import (
    DEMO_USER,
    PHONE,
    VIEWPORT,
    WAIT_MS,
    WATCH_SCRIPT,
    Server,
)

KOREAN_USER = "jiwoo"
KOREAN_PASSWORD = f"Harbor-{uuid.uuid4().hex[:10]}!"
SETUP = f"""
from django.contrib.auth.models import User
from office.services import office_create_with_team, user_set_language
korean = User.objects.create_user({KOREAN_USER!r}, password={KOREAN_PASSWORD!r})
office_create_with_team(owner=korean, name="지우네 사무실", language="ko")
user_set_language(user=korean, language="ko")
"""
# A project of its own for each run: two new employees, one of them its lead.
PROJECT = """
import json
from office.models import Office
from office.services import employee_hire, project_channel_create
office = Office.objects.get(owner__username={user!r})
lead = employee_hire(office=office, name={lead!r}, role="PM", persona="A project manager.")
mate = employee_hire(office=office, name={mate!r}, role="Dev", persona="A developer.")
project = project_channel_create(office=office, name={name!r}, members=[mate], lead=lead)
print(json.dumps({{"project": project.pk, "lead": lead.pk, "mate": mate.pk}}))
"""

WORDS = {
    "en": {
        "flag": "Lead retired ({name}) — reassign",
        "no_lead": "Choose who leads the project.",
        "led_by": "Led by {name}",
        "save": "Save",
        "retire": "Retire {name}",
        "confirm": "Yes, retire {name}",
        "notes": "Meeting notes",
        "follow_up_from": "The office · follow-up from the meeting notes of #{seq}",
        "back": "Open the meeting notes",
        "open": "Open {name}’s channel",
        "follow_up": "Follow-up for {name}: {task}",
        "you": "You",
        "cost": "Cost",
        "employee": "employee",
        "cached": "cached",
        "why": "Why a share can be below zero",
        "invite": "Invite someone",
        "sign_up_join": "Sign up and join",
        "sign_up": "Sign up",
        "joined": "You joined {office}.",
        "member": "Member",
    },
    "ko": {
        "flag": "리드 은퇴({name}) — 새 리드를 지정하세요",
        "no_lead": "프로젝트를 이끌 사람을 고르세요.",
        "led_by": "리드: {name}",
        "save": "저장",
        "retire": "{name} 은퇴시키기",
        "confirm": "네, {name} 님을 은퇴시킬게요",
        "notes": "회의록",
        "follow_up_from": "사무실 · #{seq} 회의록에서 나온 후속 업무",
        "back": "회의록 열기",
        "open": "{name}의 채널 열기",
        "follow_up": "{name}의 후속 작업: {task}",
        "you": "나",
        "cost": "비용",
        "employee": "직원",
        "cached": "캐시",
        "why": "절감률이 0보다 낮을 수 있는 이유",
        "invite": "사람 초대하기",
        "sign_up_join": "가입하고 합류하기",
        "sign_up": "가입하기",
        "joined": "{office}에 합류했어요.",
        "member": "구성원",
    },
}


@pytest.fixture(scope="module")
def people(server: Server) -> dict[str, tuple[str, str]]:
    server.manage("shell", "-c", SETUP)
    return {"en": (DEMO_USER, "demo"), "ko": (KOREAN_USER, KOREAN_PASSWORD)}


def _log_in(page: Page, people: dict[str, tuple[str, str]], lang: str) -> None:
    log_in(page, *people[lang])
    expect(page.locator("html")).to_have_attribute("lang", lang)


def _channel(page: Page, kind: str, name: str | None = None) -> int:
    channels: list[dict[str, Any]] = page.request.get("/api/channels").json()
    return int(next(c["id"] for c in channels if c["kind"] == kind and name in (None, c["name"])))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_retired_lead_is_flagged_and_the_project_page_reassigns_it(
    device: Page, people: dict[str, tuple[str, str]], server: Server, lang: str
) -> None:
    words = WORDS[lang]
    tag = uuid.uuid4().hex[:6]
    lead, mate, name = f"Lee{tag}", f"Kim{tag}", f"Project {tag}"
    made = server.manage(
        "shell",
        "-c",
        PROJECT.format(user=people[lang][0], lead=lead, mate=mate, name=name),
    )
    ids = json.loads(made.stdout.strip().splitlines()[-1])
    _log_in(device, people, lang)

    # Retired from the office page, as a person does it.
    device.goto(f"/employees/{ids['lead']}/")
    device.get_by_role("button", name=words["retire"].format(name=lead)).click()
    device.get_by_role("button", name=words["confirm"].format(name=lead)).click()
    device.wait_for_url(re.compile(r"/$"))
    row = device.locator(f'li.project[data-project="{ids["project"]}"]')
    flag = words["flag"].format(name=lead)
    expect(row.locator(".lead-retired")).to_have_text(flag)
    expect(row.locator(".lead-retired")).to_be_visible()
    # Only that project.
    expect(device.locator(".channels .lead-retired")).to_have_count(1)

    device.goto(f"/c/{ids['project']}/")
    wait_connected(device)
    expect(device.locator(".chat-head ~ .lead-retired, .lead-retired")).to_have_text(flag)
    device.locator("#edit-project").click()
    device.wait_for_url(re.compile(rf"/projects/{ids['project']}/$"))
    expect(device.locator(".lead-retired")).to_have_text(flag)

    # Saved without a lead: the form comes back with its error beside it, in the language.
    form = device.locator("#project-edit-form")
    form.locator("#id_name").fill(f"Renamed {tag}")
    form.get_by_role("button", name=words["save"]).click()
    expect(form.locator(".errorlist")).to_have_text(words["no_lead"])
    expect(form.locator("#id_name")).to_have_value(f"Renamed {tag}")
    expect(device.locator(".lead-retired")).to_have_text(flag)

    form.locator("#id_lead").select_option(str(ids["mate"]))
    form.get_by_role("button", name=words["save"]).click()
    device.wait_for_url(re.compile(rf"/c/{ids['project']}/$"))
    wait_connected(device)
    expect(device.locator("#chat-title")).to_contain_text(f"Renamed {tag}")
    expect(device.locator("#project-team")).to_contain_text(words["led_by"].format(name=mate))
    expect(device.locator(".lead-retired")).to_have_count(0)

    device.goto("/")
    expect(row.locator("a[data-kind=project]")).to_have_text(f"Renamed {tag}")
    expect(row.locator(".lead-retired")).to_have_count(0)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_follow_up_from_meeting_notes_reads_as_the_offices_with_a_link_back(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    words = WORDS[lang]
    task = f"fix the login bug LB-{uuid.uuid4().hex[:6]}"
    _log_in(device, people, lang)
    projects = [c for c in device.request.get("/api/channels").json() if c["kind"] == "project"]
    project = int(min(c["id"] for c in projects))  # the office's own, Theo not retired
    device.goto(f"/c/{project}/")
    wait_connected(device)
    send(device, f"{words['notes']}\n- agreed on the launch date\n- @Theo: {task}")
    notes = device.locator("#timeline li.msg.user:not(.sending)", has_text=task)
    expect(notes).to_have_attribute("data-mission", re.compile(r"\d+"))
    seq = re.search(r"#(\d+)", notes.locator(".meta").inner_text())
    assert seq, notes.locator(".meta").inner_text()
    # The event that handed the task out (the report back, later, quotes it too).
    event = device.locator(
        "#timeline li.msg.event", has_text=words["follow_up"].format(name="Theo", task=task)
    )
    link = event.locator("a.link", has_text=words["open"].format(name="Theo"))
    expect(link).to_have_count(1)
    # Theo's report back arrives right after (the offline model answers at once) and the
    # timeline follows it to the end: click once the channel has settled on it (under load
    # the replies still streaming scrolled over the link at every try).
    expect(device.locator("#timeline li.msg.event", has_text=task)).to_have_count(2)
    wait_settled(device)
    # The page never scrolls sideways, however many channels the strip holds (a phone
    # page that did was zoomed out, and every click landed beside its target).
    assert device.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    link.scroll_into_view_if_needed()
    link.click()
    device.wait_for_url(re.compile(r"/c/\d+/$"))
    wait_connected(device)
    expect(device.locator("#chat-title")).to_contain_text("Theo")

    shown = device.locator("#timeline li.msg.user", has_text=task)
    expect(shown).to_have_count(1)
    expect(shown).to_have_class(re.compile(r"\bfrom-office\b"))
    meta = shown.locator(".meta")
    expect(meta).to_contain_text(words["follow_up_from"].format(seq=seq.group(1)))
    assert not meta.inner_text().startswith(words["you"]), meta.inner_text()
    back = shown.locator("a.source-link")
    expect(back).to_have_text(words["back"])
    expect(back).to_have_attribute("href", f"/c/{project}/#mission-{seq.group(1)}")
    # Not drawn as the person's own bubble (which sits on the right).
    mine = device.evaluate("(el) => getComputedStyle(el).marginLeft", shown.element_handle())
    assert mine == "0px", mine
    back.click()
    device.wait_for_url(re.compile(rf"/c/{project}/#mission-{seq.group(1)}$"))
    expect(device.locator(f"#mission-{seq.group(1)}")).to_contain_text(task)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_cost_page_shows_each_employee_and_mission_against_the_full_history(
    device: Page, people: dict[str, tuple[str, str]], lang: str
) -> None:
    words = WORDS[lang]
    asked = f"cost check {uuid.uuid4().hex[:6]}"
    _log_in(device, people, lang)
    theo = _channel(device, "dm", "Theo")
    device.goto(f"/c/{theo}/")
    wait_connected(device)
    send(device, asked)
    mine = device.locator("#timeline li.msg.user:not(.sending)", has_text=asked)
    mission = mine.get_attribute("data-mission")
    expect(
        device.locator(f'#timeline li.msg.employee:not(.streaming)[data-mission="{mission}"]')
    ).to_have_count(1)

    device.goto("/")
    device.locator("#cost-link").click()
    device.wait_for_url(re.compile(r"/cost/$"))
    expect(device.locator("#cost-employees thead")).to_contain_text(words["employee"])
    expect(device.locator("#cost-employees thead")).to_contain_text(words["cached"])
    theo_row = device.locator("#cost-employees tbody tr", has_text="Theo")
    expect(theo_row).to_have_count(1)
    row = device.locator("#cost-missions tbody tr", has_text=asked)
    expect(row).to_have_count(1)
    cells = row.locator("td").all_inner_texts()
    assert cells[1] == "Theo", cells
    # Prompt chars sent, and the full history it stands for: numbers, not blanks.
    assert cells[2].isdigit() and int(cells[2]) > len(asked), cells
    assert cells[3].isdigit(), cells
    expect(device.locator("#cost-why")).to_contain_text(words["why"])
    link = row.locator("a")
    expect(link).to_have_attribute("href", re.compile(rf"^/c/{theo}/#mission-\d+$"))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_someone_invited_by_link_works_in_the_office_and_each_sees_who_wrote_what(
    device: Page, browser: Browser, people: dict[str, tuple[str, str]], server: Server, lang: str
) -> None:
    words = WORDS[lang]
    office = "Demo office" if lang == "en" else "지우네 사무실"
    _log_in(device, people, lang)
    device.get_by_role("button", name=words["invite"]).click()
    link = device.locator("#invite-link").input_value()
    assert "/join/" in link

    # The invited person, in a browser of their own (the same kind of device).
    phone = (device.viewport_size or VIEWPORT)["width"] < VIEWPORT["width"]
    context = browser.new_context(
        viewport=PHONE if phone else VIEWPORT,
        base_url=server.url,
        is_mobile=phone,
        has_touch=phone,
        locale="ko-KR" if lang == "ko" else "en-US",
    )
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(WATCH_SCRIPT)
    errors: list[str] = []
    try:
        guest = context.new_page()
        guest.on("pageerror", lambda error: errors.append(str(error)))
        guest.goto(link)
        expect(guest.locator("#join-h")).to_contain_text(office)
        guest.get_by_role("link", name=words["sign_up_join"]).click()
        name = f"mate{uuid.uuid4().hex[:6]}"
        guest.fill("#id_username", name)
        guest.fill("#id_password1", KOREAN_PASSWORD)
        guest.fill("#id_password2", KOREAN_PASSWORD)
        guest.get_by_role("button", name=words["sign_up"]).click()
        guest.wait_for_url(re.compile(r"/$"))
        expect(guest.locator(".flash")).to_contain_text(words["joined"].format(office=office))
        expect(guest.locator("h1")).to_have_text(office)
        expect(guest.locator(f'#people li[data-person="{name}"]')).to_contain_text(words["member"])
        expect(guest.locator("#hire-form")).to_have_count(0)

        # Both on the master channel: the guest's instruction reaches the owner's page live,
        # under the guest's name and with no Edit; the guest's own reads "You".
        master = _channel(device, "master")
        device.goto(f"/c/{master}/")
        wait_connected(device)
        guest.goto(f"/c/{master}/")
        wait_connected(guest)
        text = f"Check the stock list {uuid.uuid4().hex[:6]}"
        send(guest, text)
        theirs = device.locator("#timeline li.msg.user", has_text=text)
        expect(theirs.locator(".meta")).to_contain_text(name)
        expect(theirs.locator("button.edit")).to_have_count(0)
        mine = guest.locator("#timeline li.msg.user:not(.sending)", has_text=text)
        expect(mine.locator(".meta")).to_contain_text(words["you"])
        expect(mine.locator("button.edit")).to_have_count(1)
        assert not errors, errors
    finally:
        context.close()
