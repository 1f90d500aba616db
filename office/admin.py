from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from office.models import Channel, Employee, Office


class EmployeeInline(admin.TabularInline):
    model = Employee
    extra = 0
    fields = ("name", "role", "is_master", "is_active", "model")
    show_change_link = True


@admin.register(Office)
class OfficeAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "language", "created_at", "cost_link")
    search_fields = ("name", "owner__username")
    list_select_related = ("owner",)
    inlines = [EmployeeInline]

    @admin.display(description="cost")
    def cost_link(self, obj: Office) -> SafeString:
        return format_html(
            '<a href="{}?office={}">prompt cost</a>', reverse("admin:office_office_cost"), obj.pk
        )

    def get_urls(self) -> list[Any]:
        return [
            path("cost/", self.admin_site.admin_view(self.cost_view), name="office_office_cost"),
            *super().get_urls(),
        ]

    def cost_view(self, request: HttpRequest) -> HttpResponse:
        """Per day, office and channel: prompts actually sent against the full history."""
        from memory.admin_views import cost_rows

        office_id = request.GET.get("office")
        days = request.GET.get("days", "30")
        rows = cost_rows(
            days=int(days) if days.isdigit() else 30,
            office_id=int(office_id) if office_id and office_id.isdigit() else None,
        )
        return render(
            request,
            "admin/office/cost.html",
            {
                **self.admin_site.each_context(request),
                "title": "Prompt cost",
                "rows": rows,
                "totals": {
                    "prompt_chars": sum(r["prompt_chars"] for r in rows),
                    "full_history_chars": sum(r["full_history_chars"] for r in rows),
                    "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
                    "cached_tokens": sum(r["cached_tokens"] for r in rows),
                },
            },
        )


@admin.register(Employee)
class EmployeeAdmin(admin.ModelAdmin):
    list_display = ("name", "role", "office", "is_master", "is_active", "model")
    list_filter = ("is_master", "is_active", "office")
    search_fields = ("name", "role", "persona", "office__name")
    list_select_related = ("office",)


@admin.register(Channel)
class ChannelAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "kind",
        "office",
        "employee",
        "lead",
        "detail_budget_chars",
        "context_link",
    )
    list_filter = ("kind", "office")
    search_fields = ("name", "office__name", "employee__name")
    list_select_related = ("office", "employee", "lead")
    filter_horizontal = ("members",)

    @admin.display(description="context")
    def context_link(self, obj: Channel) -> SafeString:
        return format_html(
            '<a href="{}">preview</a>', reverse("admin:office_channel_context", args=[obj.pk])
        )

    def get_urls(self) -> list[Any]:
        return [
            path(
                "<int:channel_id>/context/",
                self.admin_site.admin_view(self.context_view),
                name="office_channel_context",
            ),
            *super().get_urls(),
        ]

    def context_view(self, request: HttpRequest, channel_id: int) -> HttpResponse:
        """The context report of the channel's next mission (as `manage.py context`)."""
        from memory.context import context_for_next

        channel = get_object_or_404(Channel.objects.select_related("office"), pk=channel_id)
        instruction = request.GET.get("instruction", "")
        context = context_for_next(channel=channel, instruction=instruction)
        return render(
            request,
            "admin/office/context.html",
            {
                **self.admin_site.each_context(request),
                "title": f"Context of the next mission in {channel}",
                "channel": channel,
                "instruction": instruction,
                "report": context.report(),
                "seq": context.seq,
            },
        )
