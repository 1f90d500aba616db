"""The admin for an office's own staff: every page, list, filter, action and custom view
shows and changes the rows of the user's own offices only, and the demo user can use it
out of the box. Two staff users of two offices walk every admin URL."""

from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db.models import Model
from django.test import Client
from django.urls import reverse

from memory.models import MemoryItem
from missions.attachments import attachment_upload
from missions.models import Attachment, Mission, MissionStatus
from office.models import Office
from office.services import staff_access_grant
from summaries.models import RollingSummary, SummaryRevision
from tests.factories import add_finished_missions, dm_channel, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "zebraquartz"  # in every row of the other office, and nowhere else
OUR_APPS = {"office", "chat_sessions", "missions", "summaries", "memory"}


def _office_with_history(owner: User, name: str, word: str) -> Office:
    office = make_office(owner, name=name)
    session = dm_channel(office).sessions.get()
    add_finished_missions(
        session,
        14,
        text=lambda n: (f"Task {n}: the {word} launch plan, part {n}.", f"{word} part {n} done."),
    )
    MemoryItem.objects.create(
        office=office, scope="office", kind="fact", text=f"The {word} budget is 9", origin="user"
    )
    attachment_upload(
        channel=session.channel, user_id=owner.pk, name=f"{word}-notes.txt", data=b"notes"
    )
    return office


def _staff_of_own_office(name: str, word: str) -> tuple[Client, Office]:
    user = make_user(name)
    office = _office_with_history(user, f"{word.capitalize()} office", word)
    staff_access_grant(user=user)
    client = Client()
    client.force_login(user)
    return client, office


@pytest.fixture
def two_offices() -> tuple[Client, Office, Office]:
    ours_client, ours = _staff_of_own_office("alice", "alpha")
    _, theirs = _staff_of_own_office("bob", SECRET)
    return ours_client, ours, theirs


def _rows_of(model: type[Model], office: Office) -> list[Model]:
    model_admin = admin.site._registry[model]
    path = model_admin.office_path  # type: ignore[attr-defined]
    lookup = f"{path}__pk" if path else "pk"
    return list(model._default_manager.filter(**{lookup: office.pk}))


def _our_admins() -> list[tuple[type[Model], Any]]:
    return [(m, a) for m, a in admin.site._registry.items() if m._meta.app_label in OUR_APPS]


def test_every_admin_page_of_another_office_is_out_of_reach(
    two_offices: tuple[Client, Office, Office],
) -> None:
    client, ours, theirs = two_offices
    walked = 0
    for model, _ in _our_admins():
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        info = prefix
        changelist = client.get(reverse(f"{prefix}_changelist"))
        assert changelist.status_code == 200, info
        assert SECRET not in changelist.content.decode().lower(), info
        # Every list names the office of its rows, so alike rows are told apart.
        assert "Alpha office" in changelist.content.decode(), info
        foreign = _rows_of(model, theirs)
        own = _rows_of(model, ours)
        assert foreign and own, info
        for row in foreign:
            for view in ("change", "history", "delete"):
                response = client.get(reverse(f"{prefix}_{view}", args=[row.pk]))
                assert response.status_code in (302, 403, 404), (info, view)
                assert SECRET not in response.content.decode().lower()
                walked += 1
        own_page = client.get(reverse(f"{prefix}_change", args=[own[0].pk]))
        assert own_page.status_code == 200, info
        # Searching for the other office's words finds nothing.
        if admin.site._registry[model].search_fields:
            found = client.get(reverse(f"{prefix}_changelist"), {"q": SECRET})
            assert found.context["cl"].result_count == 0, info
    assert walked >= 3 * 8


def test_custom_views_answer_another_office_as_missing(
    two_offices: tuple[Client, Office, Office],
) -> None:
    client, ours, theirs = two_offices
    their_channel, our_channel = dm_channel(theirs), dm_channel(ours)
    context = "admin:office_channel_context"
    assert client.get(reverse(context, args=[their_channel.pk])).status_code == 404
    assert client.get(reverse(context, args=[our_channel.pk])).status_code == 200

    their_rev = SummaryRevision.objects.filter(summary__session__channel=their_channel).first()
    our_rev = SummaryRevision.objects.filter(summary__session__channel=our_channel).first()
    assert their_rev is not None and our_rev is not None
    diff = reverse("admin:summaries_summaryrevision_diff")
    assert client.get(diff, {"a": their_rev.pk}).status_code == 404
    assert client.get(diff, {"a": our_rev.pk, "b": their_rev.pk}).status_code == 404
    assert client.get(diff, {"a": "not-a-number"}).status_code == 404
    assert client.get(diff, {"a": our_rev.pk}).status_code == 200

    their_summary = RollingSummary.objects.get(session__channel=their_channel)
    version = their_summary.version
    rollback = reverse("admin:summaries_summaryrevision_rollback", args=[their_rev.pk])
    assert client.post(rollback).status_code == 404
    their_summary.refresh_from_db()
    assert their_summary.version == version

    cost = client.get(reverse("admin:office_office_cost")).content.decode()
    assert "Alpha office" in cost and SECRET not in cost.lower()
    asked = client.get(reverse("admin:office_office_cost"), {"office": theirs.pk})
    assert SECRET not in asked.content.decode().lower()


def test_actions_and_forms_cannot_touch_another_office(
    two_offices: tuple[Client, Office, Office],
) -> None:
    client, _, theirs = two_offices
    their_item = MemoryItem.objects.get(office=theirs)
    client.post(
        reverse("admin:memory_memoryitem_changelist"),
        {"action": "retire", "_selected_action": [their_item.pk]},
    )
    their_item.refresh_from_db()
    assert their_item.active

    failed = Mission.objects.filter(channel__office=theirs).order_by("id").first()
    assert failed is not None
    Mission.objects.filter(pk=failed.pk).update(status=MissionStatus.FAILED)
    client.post(
        reverse("admin:missions_mission_changelist"),
        {"action": "requeue", "_selected_action": [failed.pk]},
    )
    failed.refresh_from_db()
    assert failed.status == MissionStatus.FAILED

    add = reverse("admin:memory_memoryitem_add")
    form = client.get(add).content.decode()
    assert "Alpha office" in form and SECRET not in form.lower()
    before = MemoryItem.objects.count()
    response = client.post(
        add, {"office": theirs.pk, "scope": "office", "kind": "fact", "text": "planted"}
    )
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert MemoryItem.objects.count() == before


def test_a_superuser_sees_every_office(two_offices: tuple[Client, Office, Office]) -> None:
    operator = User.objects.create_superuser("operator", password="pw-operator-1")
    client = Client()
    client.force_login(operator)
    page = client.get(reverse("admin:memory_memoryitem_changelist")).content.decode()
    assert "alpha budget" in page and f"{SECRET} budget" in page


def test_staff_without_permissions_reach_no_custom_view(
    two_offices: tuple[Client, Office, Office],
) -> None:
    _, ours, _ = two_offices
    bare = make_user("bare")
    bare.is_staff = True
    bare.save()
    client = Client()
    client.force_login(bare)
    assert client.get(reverse("admin:office_office_cost")).status_code == 403
    channel = dm_channel(ours)
    assert client.get(reverse("admin:office_channel_context", args=[channel.pk])).status_code in (
        403,
        404,
    )


def test_the_demo_user_can_use_the_admin_for_its_office() -> None:
    call_command("seed_demo", "--password", "demo-pw-123")
    client = Client()
    assert client.login(username="demo", password="demo-pw-123")
    index = client.get("/admin/").content.decode()
    assert "have permission to view or edit anything" not in index
    for name in ("memory_memoryitem", "summaries_rollingsummary", "missions_mission"):
        assert client.get(reverse(f"admin:{name}_changelist")).status_code == 200
    add = client.post(
        reverse("admin:memory_memoryitem_add"),
        {
            "office": Office.objects.get(owner__username="demo").pk,
            "scope": "office",
            "kind": "fact",
            "text": "예산은 3천만 원이다",
        },
    )
    assert add.status_code == 302
    assert MemoryItem.objects.filter(text="예산은 3천만 원이다", origin="admin").exists()


def test_seed_demo_makes_an_operator_on_request() -> None:
    call_command("seed_demo", "--superuser", "root-op", "--superuser-password", "pw-root-op-1")
    operator = User.objects.get(username="root-op")
    assert operator.is_superuser and operator.check_password("pw-root-op-1")
    assert not User.objects.get(username="demo").is_superuser


class _FormOwners(HTMLParser):
    """Which form each submit button belongs to, as a browser decides it: a <form> start
    tag inside an open form is ignored (HTML's form element pointer), and a button's
    `form` attribute names its form by id."""

    def __init__(self) -> None:
        super().__init__()
        self.open: dict[str, str] | None = None
        self.forms: dict[str, dict[str, str]] = {}
        self.buttons: list[tuple[dict[str, str], dict[str, str] | None]] = []
        self._pending: dict[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "form":
            if self.open is None:
                self.open = values
                if "id" in values:
                    self.forms[values["id"]] = values
        elif tag == "button" or (tag == "input" and values.get("type") == "submit"):
            owner = self.forms.get(values["form"]) if "form" in values else self.open
            self._pending = values
            self._text = []
            self.buttons.append((values, owner))

    def handle_data(self, data: str) -> None:
        if self._pending is not None:
            self._pending["text"] = self._pending.get("text", "") + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.open = None
        if tag == "button":
            self._pending = None


def test_the_roll_back_button_on_the_revision_page_rolls_back() -> None:
    user = make_user("carol")
    office = _office_with_history(user, "Carol office", "carol")
    staff_access_grant(user=user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    summary = RollingSummary.objects.get(session__channel__office=office)
    first = summary.revisions.order_by("version").first()
    assert first is not None and summary.version > 1
    page = client.get(reverse("admin:summaries_summaryrevision_change", args=[first.pk]))
    parser = _FormOwners()
    parser.feed(page.content.decode())
    (owner,) = [form for button, form in parser.buttons if "Roll back" in button.get("text", "")]
    assert owner is not None
    action = owner["action"]
    assert action == reverse("admin:summaries_summaryrevision_rollback", args=[first.pk])
    token = page.cookies["csrftoken"].value
    response = client.post(action, {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    summary.refresh_from_db()
    latest = summary.revisions.order_by("-version").first()
    assert latest is not None and latest.kind == "rollback"


def test_the_diff_with_the_previous_revision_names_both_versions() -> None:
    user = make_user("dave")
    office = _office_with_history(user, "Dave office", "dave")
    staff_access_grant(user=user)
    client = Client()
    client.force_login(user)
    summary = RollingSummary.objects.get(session__channel__office=office)
    latest = summary.revisions.order_by("-version").first()
    assert latest is not None and latest.version >= 2
    previous = summary.revisions.get(version=latest.version - 1)
    html = client.get(reverse("admin:summaries_summaryrevision_diff"), {"a": latest.pk})
    text = html.content.decode()
    assert (
        f"Version {previous.version} ({previous.get_kind_display()}) → "
        f"version {latest.version} ({latest.get_kind_display()})" in text
    )


def test_the_memory_list_shows_long_items_on_one_short_line() -> None:
    user = make_user("erin")
    office = make_office(user, name="Erin office")
    staff_access_grant(user=user)
    long_text = "고객 인터뷰 요약: " + "the launch checklist keeps growing " * 40
    MemoryItem.objects.create(
        office=office, scope="office", kind="fact", text=long_text, origin="user"
    )
    client = Client()
    client.force_login(user)
    page = client.get(reverse("admin:memory_memoryitem_changelist")).content.decode()
    cell = page.split('class="field-text_preview">', 1)[1].split("</td>", 1)[0]
    shown = cell.split(">", 1)[1].split("</span>", 1)[0]
    assert len(shown) <= 100 and shown.startswith("고객 인터뷰 요약") and shown.endswith("…")
    assert f'title="{long_text}"' in cell


def test_the_owner_sees_reads_and_deletes_the_files_of_their_office_in_the_admin(
    two_offices: tuple[Client, Office, Office],
) -> None:
    client, ours, theirs = two_offices
    own = Attachment.objects.get(channel__office=ours)
    foreign = Attachment.objects.get(channel__office=theirs)
    listed = client.get(reverse("admin:missions_attachment_changelist")).content.decode()
    assert own.name in listed and foreign.name not in listed
    page = client.get(reverse("admin:missions_attachment_change", args=[own.pk])).content.decode()
    # Its text was read (extracted inline in tests) and the download is the chat's own.
    assert "5 chars read" in listed
    link = reverse("api:attachment_file", kwargs={"attachment_id": own.pk})
    assert f'href="{link}"' in page
    downloaded = client.get(link)
    assert downloaded.status_code == 200 and bytes(downloaded.content) == b"notes"
    # The other office's file cannot be downloaded from here either.
    other = reverse("api:attachment_file", kwargs={"attachment_id": foreign.pk})
    assert client.get(other).status_code == 404
    # Files are not added or edited here; deleting one takes it away.
    assert client.get(reverse("admin:missions_attachment_add")).status_code == 403
    deleted = client.post(
        reverse("admin:missions_attachment_delete", args=[own.pk]), {"post": "yes"}
    )
    assert deleted.status_code == 302
    assert not Attachment.objects.filter(pk=own.pk).exists()
    assert Attachment.objects.filter(pk=foreign.pk).exists()
