"""Korean everywhere: with Korean chosen, every page a person opens and every admin screen
(index, app pages, each registered model's list, add, change, history and delete pages,
the custom views, the pages after each action and its message) shows no English word
but the few names listed here. The office is Korean and so is what its people wrote;
the names of its employees (data, as written) are taken out before words are counted."""

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.http import HttpRequest
from django.test import Client
from django.urls import reverse

from memory.models import MemoryItem, MemoryKind, MemoryOrigin, MemoryScope
from memory.services import Target, memory_item_create
from missions.models import Mission, MissionStatus
from office.models import Office
from office.services import OFFICE_STAFF_GROUP, office_create_with_team, staff_access_grant
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
}


def _korean_text(n: int) -> tuple[str, str]:
    if n == 1:
        return ("결정: 출시 도시는 리스본으로 정했어요.", "리스본으로 진행할게요.")
    if n == 3:
        return ("결정 변경: 출시 도시는 포르투로 바꿨어요.", "포르투로 바꿀게요.")
    return (f"{n}번 보고서 초안을 5월 {n}일까지 써 주세요.", f"{n}번 보고서를 끝냈어요.")


def _korean_operator() -> tuple[User, Office, Client]:
    # No password: its hash's salt would be random letters on the user's page.
    operator = User.objects.create_superuser("운영자", password=None)
    office = office_create_with_team(owner=operator, name="민지의 오피스", language="ko")
    client = Client(HTTP_ACCEPT_LANGUAGE="ko")
    client.force_login(operator)
    assert client.post("/language/", {"language": "ko"}).status_code == 302
    # A staff member of the office, so that the staff group exists and has rows to show.
    staff_access_grant(user=User.objects.create_user("지수", password="pw-for-tests-1"))
    return operator, office, client


def _history(office: Office) -> None:
    """Folds, a carry-over, a failed mission, memory of every kind: something on every
    screen."""
    channel = dm_channel(office, office.employees.filter(is_master=False).first().name)  # type: ignore[union-attr]
    add_finished_missions(channel.sessions.get(), 14, text=_korean_text)
    session_start_new(channel=channel)
    [failed] = add_finished_missions(
        channel.sessions.get(closed_at__isnull=True), 1, text=_korean_text
    )
    Mission.objects.filter(pk=failed.pk).update(
        status=MissionStatus.FAILED, error="모델 서버가 응답하지 않았어요.", reply=""
    )
    target = Target(office=office, scope=MemoryScope.OFFICE, employee=None, channel=None)
    for kind, text in (
        (MemoryKind.RULE, "보고서는 항상 표로 정리해요."),
        (MemoryKind.FACT, "본사는 서울에 있어요."),
        (MemoryKind.PREFERENCE, "회의는 오전이 좋아요."),
        (MemoryKind.DECISION, "예산은 800만 원으로 정했어요."),
    ):
        memory_item_create(
            target=target, kind=kind, text=text, origin=MemoryOrigin.ADMIN, pinned=False
        )


def _user_data(office: Office) -> list[str]:
    """What people named things: employees keep their names whatever the language."""
    data = [office.name, office.owner.get_username(), "지수", OFFICE_STAFF_GROUP]
    for employee in office.employees.all():
        data += [employee.name, employee.role]
    data += [channel.name for channel in office.channels.all()]
    return data


def _ok(response: Any, url: str) -> str:
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def _admin_screens(client: Client) -> Iterator[tuple[str, str]]:
    """Every screen of the admin, with what an operator would click through."""
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
        if model_admin.has_add_permission(_request_of(client)):
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


def _request_of(client: Client) -> HttpRequest:
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = User.objects.get(username="운영자")
    return request


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
        (
            "office",
            "employee",
            "retire",
            office.employees.filter(is_master=True),  # refused: a warning per row
        ),
        ("office", "employee", "retire", office.employees.filter(is_master=False)[:1]),
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


def _user_pages(client: Client, office: Office) -> Iterator[tuple[str, str]]:
    urls = ["/", "/cost/", "/accounts/password_change/", "/accounts/password_change/done/"]
    urls += [f"/c/{channel.pk}/" for channel in office.channels.all()]
    urls += [f"/employees/{employee.pk}/" for employee in office.employees.all()]
    for url in urls:
        yield url, _ok(client.get(url), url)
    anonymous = Client(HTTP_ACCEPT_LANGUAGE="ko")
    for url in ("/accounts/login/", "/signup/", "/admin/login/"):
        yield url, _ok(anonymous.get(url), url)


def test_with_korean_chosen_no_page_or_admin_screen_shows_english() -> None:
    _, office, client = _korean_operator()
    _history(office)
    data = _user_data(office)
    screens = [
        *_user_pages(client, office),
        *_admin_screens(client),
        *_custom_screens(client, office),
        *_action_screens(client, office),
    ]
    assert len(screens) > 60
    leftovers = {}
    for name, page in screens:
        assert 'lang="ko"' in page, name
        words = english_words(visible_text(page), allowed=ALLOWED, data=data)
        if words:
            leftovers[name] = words
    assert not leftovers, f"English on Korean screens: {leftovers}"
