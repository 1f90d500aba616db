"""Korean everywhere: with Korean chosen, every page a person opens and every admin screen
(index, app pages, each registered model's list, add, change, history and delete pages,
the custom views, the pages after each action and its message) shows no English word
but the few names listed here. The office is Korean and so is what its people wrote;
the names of its employees (data, as written) are taken out before words are counted."""

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.test import Client, RequestFactory
from django.urls import reverse

from llm.models import ModelPrice
from memory.models import MemoryItem, MemoryKind, MemoryOrigin, MemoryScope
from memory.services import Target, memory_item_create, memory_item_retire
from missions.attachments import attachment_extract, attachment_upload
from missions.models import Attachment, Mission, MissionStatus
from office.models import ChannelKind, Office
from office.services import (
    OFFICE_STAFF_GROUP,
    office_create_with_team,
    staff_access_grant,
    user_set_language,
)
from sessions.services import session_start_new
from summaries.models import RollingSummary, SummaryRevision
from tests.factories import add_finished_missions, dm_channel
from tests.i18n.visible import english_words, visible_text

pytestmark = pytest.mark.django_db(transaction=True)

# The English a Korean page may show, each for a reason:
ALLOWED = {
    # The name of the framework whose admin this is, in the browser's title bar.
    "Django",
    # Product and setting names, written as they are typed (the offline notice names them).
    "AI",
    "OpenAI",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    # Keys on a keyboard (Django's hint under a multiple choice: "Control", "Command" on a Mac).
    "Enter",
    "Shift",
    "Esc",
    "Alt",
    "Control",
    "Command",
    "Mac",
    # Written so in Korean interfaces too (Django's own column of row ids).
    "ID",
    # A protocol's name (Django's help for a user without a password).
    "LDAP",
    # Django's icons for a yes/no value carry Python's words as their alt text.
    "True",
    "False",
    # English named in its own language in the language menu.
    "English",
    # The providers that wrote a summary revision: identifiers stored with it.
    "offline",
    "extractive",
    # The sentence-embedding model a vector was made with (a mission's delete page lists
    # its passages' vectors): "use-multilingual-3".
    "use",
    "multilingual",
    # A currency's code, as the price table stores it.
    "USD",
    # File formats, named so in Korean too (the attach button's hint, the kinds of file),
    # and the digest a file is told apart by (SHA-256).
    "SHA",
    "CSV",
    "PDF",
    "PNG",
    "JPEG",
    "GIF",
    "WebP",
    # File formats, named as their files are (the chat's export links).
    "Markdown",
    "JSON",
}


def _korean_text(n: int) -> tuple[str, str]:
    if n == 1:
        return ("결정: 출시 도시는 리스본으로 정했어요.", "리스본으로 진행할게요.")
    if n == 3:
        return ("결정 변경: 출시 도시는 포르투로 바꿨어요.", "포르투로 바꿀게요.")
    return (f"{n}번 보고서 초안을 5월 {n}일까지 써 주세요.", f"{n}번 보고서를 끝냈어요.")


def _english_text(n: int) -> tuple[str, str]:
    if n == 1:
        return ("We decided the launch city is Lisbon.", "Lisbon it is.")
    if n == 3:
        return ("Change of plan: we decided the launch city is Porto instead.", "Porto.")
    return (f"Draft report {n} by May {n}.", f"Report {n} is done.")


# Per language: the operator, their office, a staff member, the missions' words.
# A project the walk makes, and a person who has no office yet.
PROJECT = {"ko": "가을 캠페인", "en": "Autumn campaign"}
NEWCOMER = {"ko": "새내기", "en": "newcomer"}

PEOPLE = {
    "ko": ("운영자", "민지의 오피스", "지수", _korean_text),
    "en": ("operator", "Minji's office", "jisoo", _english_text),
}


def _operator(language: str) -> tuple[Office, Client]:
    name, office_name, staff, _ = PEOPLE[language]
    # No password: its hash's salt would be random letters on the user's page.
    operator = User.objects.create_superuser(name, password=None)
    office = office_create_with_team(owner=operator, name=office_name, language=language)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(operator)
    assert client.post("/language/", {"language": language}).status_code == 302
    # A staff member of the office, so that the staff group exists and has rows to show.
    staff_access_grant(user=User.objects.create_user(staff, password="pw-for-tests-1"))
    return office, client


MEMORY = {
    "ko": (
        "보고서는 항상 표로 정리해요.",
        "본사는 서울에 있어요.",
        "회의는 오전이 좋아요.",
        "예산은 800만 원으로 정했어요.",
        "모델 서버가 응답하지 않았어요.",
    ),
    "en": (
        "Reports always come as tables.",
        "The head office is in Seoul.",
        "Meetings are best in the morning.",
        "The budget is 8 million won.",
        "The model server did not answer.",
    ),
}


def _history(office: Office, language: str) -> None:
    """Folds, a carry-over, a failed mission, memory of every kind: something on every
    screen."""
    text = PEOPLE[language][3]
    rule, fact, preference, decision, error = MEMORY[language]
    channel = dm_channel(office, office.employees.filter(is_master=False).first().name)  # type: ignore[union-attr]
    add_finished_missions(channel.sessions.get(), 14, text=text)
    session_start_new(channel=channel)
    [failed] = add_finished_missions(channel.sessions.get(closed_at__isnull=True), 1, text=text)
    Mission.objects.filter(pk=failed.pk).update(status=MissionStatus.FAILED, error=error, reply="")
    # A file given with an instruction, and its text read (the attachments' admin).
    attachment_extract(
        attachment_id=attachment_upload(
            channel=channel, user_id=office.owner_id, name="notes.md", data=text(1)[0].encode()
        ).pk
    )
    target = Target(office=office, scope=MemoryScope.OFFICE, employee=None, channel=None)
    items = [
        memory_item_create(
            target=target, kind=kind, text=note, origin=MemoryOrigin.ADMIN, pinned=False
        )
        for kind, note in (
            (MemoryKind.RULE, rule),
            (MemoryKind.FACT, fact),
            (MemoryKind.PREFERENCE, preference),
            (MemoryKind.DECISION, decision),
        )
    ]
    # A retired one: pinning it is refused with a warning.
    memory_item_retire(item=items[0])
    # A price, so the cost page shows money and the price table has a row to open.
    ModelPrice.objects.create(
        model="fake-model", prompt=Decimal("0.15"), cached_prompt=None, completion=Decimal("0.6")
    )


def _user_data(office: Office) -> list[str]:
    """What people named things: employees keep their names whatever the language."""
    data = [office.name, office.owner.get_username(), OFFICE_STAFF_GROUP]
    for employee in office.employees.all():
        data += [employee.name, employee.role]
    data += [channel.name for channel in office.channels.all()]
    # What the operator named the priced models (the model server's own names).
    data += [price.model for price in ModelPrice.objects.all()]
    # The files people sent, by the names they gave them.
    data += list(Attachment.objects.filter(channel__office=office).values_list("name", flat=True))
    return data


def _ok(response: Any, url: str) -> str:
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def _admin_screens(client: Client, office: Office) -> Iterator[tuple[str, str]]:
    """Every screen of the admin, with what an operator would click through."""
    request = RequestFactory().get("/admin/")
    request.user = office.owner
    yield "index", _ok(client.get("/admin/"), "/admin/")
    labels = sorted({model._meta.app_label for model in admin.site._registry})
    for label in labels:
        url = reverse("admin:app_list", args=[label])
        yield url, _ok(client.get(url), url)
    for model, model_admin in admin.site._registry.items():
        info = (model._meta.app_label, model._meta.model_name)
        changelist = reverse("admin:{}_{}_changelist".format(*info))
        yield changelist, _ok(client.get(changelist), changelist)
        searched = changelist + "?q=" + "없는말"
        yield searched, _ok(client.get(searched), searched)
        if model_admin.has_add_permission(request):
            add = reverse("admin:{}_{}_add".format(*info))
            yield add, _ok(client.get(add), add)
        obj = model._default_manager.order_by("pk").first()
        assert obj is not None, f"no {model._meta.label} to show"
        for page in ("change", "history", "delete"):
            if page == "delete" and model is Group:
                # It lists the rows of Django's automatic group-permission table, which
                # Django names itself, untranslated ("Group_permissions object (3)").
                continue
            url = reverse(f"admin:{info[0]}_{info[1]}_{page}", args=[obj.pk])
            yield url, _ok(client.get(url), url)


def _custom_screens(client: Client, office: Office) -> Iterator[tuple[str, str]]:
    cost = reverse("admin:office_office_cost") + f"?office={office.pk}"
    yield cost, _ok(client.get(cost), cost)
    for channel in office.channels.all():
        url = reverse("admin:office_channel_context", args=[channel.pk]) + "?instruction=예산"
        yield url, _ok(client.get(url), url)
    revisions = SummaryRevision.objects.filter(summary__session__channel__office=office)
    for revision in revisions:
        url = reverse("admin:summaries_summaryrevision_diff") + f"?a={revision.pk}"
        yield url, _ok(client.get(url), url)
    first = revisions.order_by("pk").first()
    assert first is not None
    last = first.summary.revisions.order_by("pk").last()
    assert last is not None and last != first
    both = reverse("admin:summaries_summaryrevision_diff") + f"?a={first.pk}&b={last.pk}"
    yield both, _ok(client.get(both), both)
    # A roll-back, and one refused because the summary changed meanwhile.
    rollback = reverse("admin:summaries_summaryrevision_rollback", args=[first.pk])
    yield "rollback", _ok(client.post(rollback, follow=True), rollback)
    yield "rollback again", _ok(client.post(rollback, follow=True), rollback)


def _action_screens(client: Client, office: Office) -> Iterator[tuple[str, str]]:
    """Each action on its rows, and the page that says what it did."""
    actions = [
        ("memory", "memoryitem", "pin", MemoryItem.objects.filter(office=office)),
        ("memory", "memoryitem", "unpin", MemoryItem.objects.filter(office=office)),
        ("memory", "memoryitem", "retire", MemoryItem.objects.filter(office=office)[:1]),
        ("missions", "mission", "requeue", Mission.objects.filter(status=MissionStatus.FAILED)),
        ("summaries", "rollingsummary", "refold", RollingSummary.objects.all()),
        # Both at once: one refused (a warning), one retired.
        (
            "office",
            "employee",
            "retire",
            office.employees.filter(is_master=False)[:1] | office.employees.filter(is_master=True),
        ),
    ]
    for app, model, action, rows in actions:
        url = reverse(f"admin:{app}_{model}_changelist")
        data = {
            "action": action,
            "_selected_action": [str(pk) for pk in rows.values_list("pk", flat=True)],
        }
        assert data["_selected_action"], (model, action)
        page = _ok(client.post(url, data, follow=True), url)
        assert 'class="messagelist"' in page, (model, action)
        yield f"{model} {action}", page
        if app == "memory":
            confirm = _ok(client.post(url, {**data, "action": "delete_selected"}), url)
            yield f"{model} delete?", confirm


# What a search for these words finds: the missions of `_history` in each language.
SEARCHED = {"ko": "보고서", "en": "report"}
NOTHING = {"ko": "없는말", "en": "zebra"}


def _status(response: Any, url: str, status: int) -> str:
    assert response.status_code == status, (url, response.status_code)
    return response.content.decode()


def _user_pages(client: Client, office: Office, language: str) -> Iterator[tuple[str, str]]:
    urls = ["/", "/cost/", "/accounts/password_change/", "/accounts/password_change/done/"]
    urls += [f"/c/{channel.pk}/" for channel in office.channels.all()]
    urls += [f"/employees/{employee.pk}/" for employee in office.employees.all()]
    projects = office.channels.filter(kind=ChannelKind.PROJECT)
    urls += [f"/projects/{project.pk}/" for project in projects]
    for url in urls:
        yield url, _ok(client.get(url), url)
    search = "/search/?q=" + SEARCHED[language]
    page = _ok(client.get(search), search)
    assert 'id="search-results"' in page, search
    yield search, page
    nothing = "/search/?q=" + NOTHING[language]
    yield nothing, _ok(client.get(nothing), nothing)
    # A project form refused (its errors), then one made (its channel, with a message).
    yield "/projects/new/ refused", _status(client.post("/projects/new/", {}), "new", 400)
    first = projects.order_by("pk").first()
    assert first is not None
    refused = f"/projects/{first.pk}/"
    yield refused + " refused", _status(client.post(refused, {"name": ""}), refused, 400)
    lead = office.employees.filter(is_master=False).order_by("pk").first()
    assert lead is not None
    made = client.post(
        "/projects/new/", {"name": PROJECT[language], "lead": lead.pk, "members": [lead.pk]}
    )
    assert made.status_code == 302, made.status_code
    yield "/projects/new/", _ok(client.get(made["Location"]), made["Location"])
    anonymous = Client(HTTP_ACCEPT_LANGUAGE=language)
    for url in ("/accounts/login/", "/signup/", "/admin/login/"):
        yield url, _ok(anonymous.get(url), url)
    # A person without an office yet: the page that offers to set one up, then their
    # new office.
    newcomer = User.objects.create_user(NEWCOMER[language], password="pw-for-tests-1")
    user_set_language(user=newcomer, language=language)
    fresh = Client(HTTP_ACCEPT_LANGUAGE=language)
    fresh.force_login(newcomer)
    start = _ok(fresh.get("/"), "/ (no office)")
    assert 'action="/start/"' in start
    yield "/ (no office)", start
    yield "/start/", _ok(fresh.post("/start/", follow=True), "/start/")


def _every_screen(language: str) -> tuple[Office, list[tuple[str, str]]]:
    office, client = _operator(language)
    _history(office, language)
    screens = [
        *_user_pages(client, office, language),
        *_admin_screens(client, office),
        *_custom_screens(client, office),
        *_action_screens(client, office),
    ]
    assert len(screens) > 60
    return office, screens


@pytest.mark.slow(30)
def test_with_korean_chosen_no_page_or_admin_screen_shows_english() -> None:
    office, screens = _every_screen("ko")
    data = _user_data(office)
    leftovers = {}
    for name, page in screens:
        assert 'lang="ko"' in page, name
        words = english_words(visible_text(page), allowed=ALLOWED, data=data)
        if words:
            leftovers[name] = words
    assert not leftovers, f"English on Korean screens: {leftovers}"
    # The messages were there to be read, in Korean.
    shown = dict(screens)
    assert re.search(r"항목 \d+개를 고정했어요\.", shown["memoryitem pin"])
    assert "은퇴한 항목은 고칠 수 없어요. 새 항목을 추가해 주세요" in shown["memoryitem pin"]
    assert "버전 1(으)로 되돌렸어요(새 리비전으로 기록됨)." in shown["rollback"]
    assert "비서실장은 은퇴시킬 수 없어요." in shown["employee retire"]
    assert "직원 1명을 은퇴시켰어요." in shown["employee retire"]
    assert "미션 1개를 다시 대기열에 넣었어요." in shown["mission requeue"]
    assert "블록으로 다시 접기를 예약했습니다." in shown["rollingsummary refold"]


@pytest.mark.slow(30)
def test_in_english_the_same_screens_hold_no_korean_but_the_name_of_the_language() -> None:
    office, screens = _every_screen("en")
    assert not re.search("[가-힣]", " ".join(_user_data(office)))
    korean = {}
    for name, page in screens:
        assert 'lang="en"' in page, name
        found = set(re.findall("[가-힣]+", visible_text(page))) - {"한국어"}
        if found:
            korean[name] = sorted(found)
    assert not korean, f"Korean on English screens: {korean}"
    actions = dict(screens)
    assert re.search(r"Items pinned: \d+\.", actions["memoryitem pin"])
    assert "a retired item cannot be edited; add a new one" in actions["memoryitem pin"]
    assert "Rolled back to version 1 (recorded as a new revision)." in actions["rollback"]
    assert "The summary changed meanwhile" in actions["rollback again"] or (
        "Rolled back to version 1" in actions["rollback again"]
    )


def test_a_label_left_untranslated_is_found() -> None:
    """The walk's check itself: one field's label out of the catalogue shows as English."""
    office, client = _operator("ko")
    _history(office, "ko")
    field = Mission._meta.get_field("seq")
    translated = field.verbose_name
    field.verbose_name = "sequence number"
    try:
        page = _ok(client.get(reverse("admin:missions_mission_changelist")), "missions")
    finally:
        field.verbose_name = translated
    words = english_words(visible_text(page), allowed=ALLOWED, data=_user_data(office))
    assert words == ["Sequence", "number"]
