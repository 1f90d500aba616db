from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy

from context.search import rank_memory_items
from memory.models import MemoryItem, MemoryOrigin
from memory.services import (
    MemoryRejected,
    Target,
    memory_item_create,
    memory_item_edit,
    memory_item_retire,
    memory_target,
    memory_text_clean,
)
from office.admin import OFFICE_FILTER, OfficeScopedAdmin

PREVIEW_CHARS = 100


class MemoryItemForm(forms.ModelForm):
    """The admin's form checks what the memory services check, so a bad value is a form
    error rather than a failed save."""

    class Meta:
        model = MemoryItem
        fields = (
            "office",
            "scope",
            "employee",
            "channel",
            "kind",
            "text",
            "pinned",
            "source_mission",
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        try:
            if "text" in data and "kind" in data:
                data["text"] = memory_text_clean(data["text"], data["kind"])
            if self.instance.pk is None and data.get("office") is not None:
                memory_target(
                    office=data["office"],
                    scope=data.get("scope", ""),
                    employee=data.get("employee"),
                    channel=data.get("channel"),
                )
        except MemoryRejected as exc:
            raise forms.ValidationError(str(exc)) from None
        return data


class SupersededFilter(admin.SimpleListFilter):
    title = gettext_lazy("superseded")
    parameter_name = "superseded"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", gettext("superseded")), ("no", gettext("not superseded"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(superseded_by__isnull=False)
        if self.value() == "no":
            return queryset.filter(superseded_by__isnull=True)
        return queryset


@admin.register(MemoryItem)
class MemoryItemAdmin(OfficeScopedAdmin):
    list_display = (
        "id",
        "text_preview",
        "kind",
        "scope",
        "office",
        "target",
        "origin",
        "pinned",
        "active",
        "source",
        "updated_at",
    )
    list_display_links = ("id",)
    list_filter = (OFFICE_FILTER, "scope", "kind", "origin", "pinned", "active", SupersededFilter)
    search_fields = ("text",)
    list_select_related = ("office", "employee", "channel", "source_mission")
    raw_id_fields = ("employee", "channel", "source_mission", "superseded_by", "created_by")
    form = MemoryItemForm
    readonly_fields = ("chain", "source_span", "created_at", "updated_at", "last_used_at")
    # Provenance and lifecycle change only through the services (retire, supersede).
    fixed_after_creation = (
        "office",
        "scope",
        "employee",
        "channel",
        "origin",
        "active",
        "superseded_by",
        "source_mission",
        "created_by",
    )
    actions = ["pin", "unpin", "retire"]

    @admin.display(description=gettext_lazy("text"), ordering="text")
    def text_preview(self, obj: MemoryItem) -> SafeString:
        """One line in the list, the whole text on hover and on the item's page: a long
        item must not push the other columns off the screen."""
        short = obj.text if len(obj.text) <= PREVIEW_CHARS else obj.text[: PREVIEW_CHARS - 1] + "…"
        return format_html('<span title="{}">{}</span>', obj.text, short)

    @admin.display(description=gettext_lazy("for"))
    def target(self, obj: MemoryItem) -> str:
        return str(obj.employee or obj.channel or gettext("whole office"))

    @admin.display(description=gettext_lazy("source mission"))
    def source(self, obj: MemoryItem) -> SafeString | str:
        if obj.source_mission_id is None:
            return "-"
        url = reverse("admin:missions_mission_change", args=[obj.source_mission_id])
        return format_html(
            '<a href="{}">{}</a>',
            url,
            gettext("mission %(id)s") % {"id": obj.source_mission_id},
        )

    @admin.display(description=gettext_lazy("supersession chain"))
    def chain(self, obj: MemoryItem) -> SafeString:
        older = []
        current: MemoryItem | None = obj
        seen = set()
        while current is not None and current.pk not in seen:
            seen.add(current.pk)
            older.append(current)
            current = current.supersedes.first()
        newer = []
        nxt = obj.superseded_by
        while nxt is not None and nxt.pk not in seen:
            seen.add(nxt.pk)
            newer.append(nxt)
            nxt = nxt.superseded_by
        chain = [*reversed(older[1:]), obj, *newer]
        items = "".join(
            format_html(
                '<li>{}<a href="{}">{}</a>: {}{}</li>',
                "→ " if i else "",
                reverse("admin:memory_memoryitem_change", args=[m.pk]),
                m.pk,
                m.text,
                " ({})".format(gettext("this one")) if m.pk == obj.pk else "",
            )
            for i, m in enumerate(chain)
        )
        return format_html("<ol>{}</ol>", SafeString(items))

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[MemoryItem], search_term: str
    ) -> tuple[QuerySet[MemoryItem], bool]:
        """Full-text search (the same index the prompts use), then plain substring."""
        if not search_term.strip():
            return queryset, False
        ids = rank_memory_items(candidates=queryset, text=search_term, limit=500)
        substring = queryset.filter(text__icontains=search_term)
        return queryset.filter(pk__in=ids) | substring, False

    def _bulk(
        self,
        request: HttpRequest,
        queryset: QuerySet[MemoryItem],
        verb: str,
        done: Callable[[int], str],
        **change: Any,
    ) -> None:
        changed = 0
        for item in queryset:
            try:
                if change.get("retire"):
                    memory_item_retire(item=item)
                else:
                    memory_item_edit(item=item, pinned=change["pinned"])
            except MemoryRejected as exc:
                self.message_user(request, f"{item.pk}: {exc}", level="warning")
                continue
            self.log_change(request, item, verb)
            changed += 1
        self.message_user(request, done(changed))

    @admin.action(description=gettext_lazy("Pin selected items"))
    def pin(self, request: HttpRequest, queryset: QuerySet[MemoryItem]) -> None:
        self._bulk(
            request,
            queryset,
            gettext("pinned"),
            lambda n: gettext("Items pinned: %(count)d.") % {"count": n},
            pinned=True,
        )

    @admin.action(description=gettext_lazy("Unpin selected items"))
    def unpin(self, request: HttpRequest, queryset: QuerySet[MemoryItem]) -> None:
        self._bulk(
            request,
            queryset,
            gettext("unpinned"),
            lambda n: gettext("Items unpinned: %(count)d.") % {"count": n},
            pinned=False,
        )

    @admin.action(description=gettext_lazy("Retire selected items"))
    def retire(self, request: HttpRequest, queryset: QuerySet[MemoryItem]) -> None:
        self._bulk(
            request,
            queryset,
            gettext("retired"),
            lambda n: gettext("Items retired: %(count)d.") % {"count": n},
            retire=True,
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return (*self.readonly_fields, "origin", "active", "superseded_by", "created_by")
        return (*self.readonly_fields, *self.fixed_after_creation)

    def save_model(self, request: HttpRequest, obj: MemoryItem, form: Any, change: bool) -> None:
        """Writes go through the memory services, with their validation."""
        if change:
            memory_item_edit(
                item=MemoryItem.objects.get(pk=obj.pk),
                text=obj.text,
                kind=obj.kind,
                pinned=obj.pinned,
            )
            obj.refresh_from_db()
            return
        created = memory_item_create(
            target=Target(
                office=obj.office, scope=obj.scope, employee=obj.employee, channel=obj.channel
            ),
            kind=obj.kind,
            text=obj.text,
            origin=MemoryOrigin.ADMIN,
            pinned=obj.pinned,
            source_mission=obj.source_mission,
            created_by=request.user,  # type: ignore[arg-type]
        )
        obj.pk = created.pk
