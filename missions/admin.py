from django.contrib import admin

from missions.models import Message, Mission


@admin.register(Mission)
class MissionAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "channel",
        "session",
        "seq",
        "source",
        "assignee",
        "status",
        "created_at",
        "finished_at",
        "prompt_chars",
        "prompt_tokens",
        "cached_tokens",
        "completion_tokens",
    )
    list_filter = ("status", "source", "channel__kind")
    search_fields = ("instruction", "reply", "error", "client_id")
    list_select_related = ("channel", "session", "session__channel", "assignee")
    raw_id_fields = ("session", "channel", "assignee", "parent")
    date_hierarchy = "created_at"


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("id", "channel", "kind", "author", "short_text", "created_at")
    list_filter = ("kind", "channel__kind")
    search_fields = ("text",)
    list_select_related = ("channel", "author")
    raw_id_fields = ("channel", "session", "mission", "author")

    @admin.display(description="text")
    def short_text(self, obj: Message) -> str:
        return obj.text[:80]
