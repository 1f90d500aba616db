from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy

from missions.lifecycle import mission_requeue
from missions.models import Attachment, Message, Mission, MissionStatus
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
    raw_id_fields = ("channel", "session", "mission", "author", "sender")

    @admin.display(description=gettext_lazy("text"))
    def short_text(self, obj: Message) -> str:
        return message_text(obj)[:80]


@admin.register(Attachment)
class AttachmentAdmin(OfficeScopedAdmin):
    """The files people gave with their instructions: what each is, where it went and
    whether its text was read. Read-only (a file is what the person sent); deleting one
    takes it out of every later prompt. Its bytes are never shown here: the download
    link is the API's, which checks the owner as the chat does."""

    office_path = "channel__office"
    list_display = (
        "file_name",
        "office_name",
        "channel",
        "mission_link",
        "kind",
        "size",
        "text_status",
        "created_at",
    )
    list_filter = ("kind", "channel__kind")
    search_fields = ("name", "text")
    list_select_related = ("channel__office", "mission")
    fields = (
        "file_name",
        "channel",
        "mission",
        "uploaded_by",
        "kind",
        "media_type",
        "size",
        "digest",
        "created_at",
        "extracted_at",
        "extract_error",
        "text_preview",
        "download",
    )
    readonly_fields = fields
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a file comes with an instruction, from the chat or the API

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        # The bytes and vectors stay in the database: no list or page reads them.
        return super().get_queryset(request).defer("data", "vectors")

    # The file's name, type and digest are data, as the person's file gave them: never
    # translated (HTML's translate="no").
    @admin.display(description=gettext_lazy("file name"), ordering="name")
    def file_name(self, obj: Attachment) -> str:
        return format_html('<span translate="no">{}</span>', obj.name)

    @admin.display(description=gettext_lazy("content type"))
    def media_type(self, obj: Attachment) -> str:
        return format_html('<span translate="no">{}</span>', obj.content_type)

    @admin.display(description=gettext_lazy("SHA-256"))
    def digest(self, obj: Attachment) -> str:
        return format_html('<span translate="no">{}</span>', obj.sha256)

    @admin.display(description=gettext_lazy("mission"), ordering="mission__id")
    def mission_link(self, obj: Attachment) -> str:
        return obj.mission.tag if obj.mission_id and obj.mission else gettext("not sent yet")

    @admin.display(description=gettext_lazy("text"))
    def text_status(self, obj: Attachment) -> str:
        if obj.extract_error:
            return gettext("not read: %(reason)s") % {"reason": obj.extract_error}
        if obj.extracted_at is None:
            return gettext("waiting to be read")
        return gettext("%(count)d chars read") % {"count": len(obj.text)}

    @admin.display(description=gettext_lazy("extracted text"))
    def text_preview(self, obj: Attachment) -> str:
        return format_html('<div translate="no">{}</div>', obj.text[:2_000])

    @admin.display(description=gettext_lazy("download"))
    def download(self, obj: Attachment) -> str:
        url = reverse("api:attachment_file", kwargs={"attachment_id": obj.pk})
        return format_html('<a href="{}" download translate="no">{}</a>', url, obj.name)
