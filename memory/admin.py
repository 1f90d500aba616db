from django.contrib import admin

from memory.models import MemoryItem, RollingSummary, SummaryRevision


class SummaryRevisionInline(admin.TabularInline):
    model = SummaryRevision
    extra = 0
    fields = ("version", "kind", "folded_through_seq", "provider", "created_at")
    readonly_fields = fields
    show_change_link = True
    can_delete = False


@admin.register(RollingSummary)
class RollingSummaryAdmin(admin.ModelAdmin):
    list_display = ("session", "version", "folded_through_seq", "updated_at")
    search_fields = ("text", "session__channel__name")
    list_filter = ("session__channel__kind",)
    list_select_related = ("session", "session__channel")
    raw_id_fields = ("session",)
    inlines = [SummaryRevisionInline]


@admin.register(SummaryRevision)
class SummaryRevisionAdmin(admin.ModelAdmin):
    list_display = ("summary", "version", "kind", "folded_through_seq", "provider", "created_at")
    list_filter = ("kind", "provider")
    search_fields = ("after_text",)
    raw_id_fields = ("summary",)


@admin.register(MemoryItem)
class MemoryItemAdmin(admin.ModelAdmin):
    list_display = (
        "short_text",
        "kind",
        "scope",
        "office",
        "employee",
        "channel",
        "origin",
        "pinned",
        "active",
        "updated_at",
    )
    list_filter = ("scope", "kind", "origin", "pinned", "active", "office")
    search_fields = ("text",)
    list_select_related = ("office", "employee", "channel")
    raw_id_fields = ("employee", "channel", "source_mission", "superseded_by", "created_by")

    @admin.display(description="text")
    def short_text(self, obj: MemoryItem) -> str:
        return obj.text[:80]
