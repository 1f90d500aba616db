from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext, gettext_lazy

from missions.lifecycle import mission_requeue
from missions.models import Message, Mission, MissionStatus
from missions.selectors import missions_stuck
from missions.texts import message_text, mission_title
from office.admin import OfficeScopedAdmin


class AttentionFilter(admin.SimpleListFilter):
    title = gettext_lazy("needs attention")
    parameter_name = "attention"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("failed", gettext("failed")), ("stuck", gettext("stuck (running too long)"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "failed":
            return queryset.filter(status=MissionStatus.FAILED)
        if self.value() == "stuck":
            return queryset.filter(pk__in=missions_stuck().values("pk"))
        return queryset


@admin.register(Mission)
class MissionAdmin(OfficeScopedAdmin):
    office_path = "channel__office"
    list_display = (
        "title",
        "office_name",
        "channel",
        "session",
        "label",
        "seq",
        "source",
        "assignee",
        "status",
        "attempts",
        "created_at",
        "duration",
        "prompt_chars",
        "prompt_tokens",
        "cached_tokens",
        "completion_tokens",
    )
    list_filter = (AttentionFilter, "status", "source", "channel__kind")
    search_fields = ("instruction", "reply", "error", "client_id")
    list_select_related = (
        "channel__office",
        "session",
        "session__channel",
        "assignee",
        "parent",
    )
    raw_id_fields = ("session", "channel", "assignee", "parent")
    readonly_fields = (
        "created_at",
        "started_at",
        "finished_at",
        "attempts",
        "prompt_chars",
        "prompt_tokens",
        "cached_tokens",
        "completion_tokens",
    )
    date_hierarchy = "created_at"
    actions = ["requeue"]

    @admin.display(description=gettext_lazy("mission"), ordering="id")
    def title(self, obj: Mission) -> str:
        """The mission as the person sees it listed: its number and instruction, and a
        synthesis by what it is (its instruction is the office's brief to the model)."""
        plan = obj.parent.label if obj.parent_id and obj.parent else None
        shown = mission_title(source=obj.source, instruction=obj.instruction, plan_label=plan)
        return f"{obj.tag} {shown[:60]}"

    @admin.display(description=gettext_lazy("took"))
    def duration(self, obj: Mission) -> str:
        if obj.started_at and obj.finished_at:
            seconds = (obj.finished_at - obj.started_at).total_seconds()
            return gettext("%(seconds).1f s") % {"seconds": seconds}
        return "-"

    @admin.action(description=gettext_lazy("Re-queue selected failed or stuck missions"))
    def requeue(self, request: HttpRequest, queryset: QuerySet[Mission]) -> None:
        moved = 0
        for mission in queryset:
            if mission_requeue(mission=mission):
                moved += 1
                self.log_change(request, mission, gettext("re-queued"))
        self.message_user(request, gettext("Missions re-queued: %(count)d.") % {"count": moved})


@admin.register(Message)
class MessageAdmin(OfficeScopedAdmin):
    office_path = "channel__office"
    list_display = ("id", "office_name", "channel", "kind", "author", "short_text", "created_at")
    list_filter = ("kind", "channel__kind")
    search_fields = ("text",)
    list_select_related = ("channel__office", "author")
    raw_id_fields = ("channel", "session", "mission", "author")

    @admin.display(description=gettext_lazy("text"))
    def short_text(self, obj: Message) -> str:
        return message_text(obj)[:80]
