from django.contrib import admin
from django.utils.translation import gettext_lazy

from office.admin import OfficeScopedAdmin
from sessions.models import ChatSession


@admin.register(ChatSession)
class ChatSessionAdmin(OfficeScopedAdmin):
    office_path = "channel__office"
    list_display = (
        "__str__",
        "office_name",
        "channel",
        "number",
        "mission_count",
        "started_at",
        "closed_at",
        "long_notice_sent_at",
        "long_notice_trigger",
        "watermark",
    )
    list_filter = (
        "channel__kind",
        "long_notice_trigger",
        ("closed_at", admin.EmptyFieldListFilter),
        ("long_notice_sent_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("channel__name", "channel__office__name")
    list_select_related = ("channel", "channel__office", "summary")
    raw_id_fields = ("channel", "carried_over_from")
    readonly_fields = ("mission_count", "long_notice_sent_at", "long_notice_trigger")

    @admin.display(description=gettext_lazy("summary watermark"))
    def watermark(self, obj: ChatSession) -> str:
        summary = getattr(obj, "summary", None)
        return f"#{summary.folded_through_seq} (v{summary.version})" if summary else "-"
