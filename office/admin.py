from typing import Any

from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from context.selectors import context_for_next
from missions.selectors import mission_cost_report, plan_cost_report
from office.models import Channel, Employee, Office
from office.services import (
    channel_edit,
    employee_edit,
    employee_hire,
    employee_retire,
    employee_set_model,
    office_create,
    office_edit,
)
from sessions.selectors import session_current


class EmployeeInline(admin.TabularInline):
    """Read-only list; hiring goes through the employee admin, which makes the 1:1 channel."""

    model = Employee
    extra = 0
    fields = ("name", "role", "is_master", "is_active", "model")
    readonly_fields = fields
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Office)
class OfficeAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "language", "created_at", "cost_link")
    search_fields = ("name", "owner__username")
    list_select_related = ("owner",)
    inlines = [EmployeeInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("owner",) if obj is not None else ()

    def save_model(self, request: HttpRequest, obj: Office, form: Any, change: bool) -> None:
        if change:
            office_edit(office=obj, name=obj.name, language=obj.language)
            return
        created = office_create(owner=obj.owner, name=obj.name)
        office_edit(office=created, name=created.name, language=obj.language)
        obj.pk = created.pk

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
        office_id = request.GET.get("office")
        days = request.GET.get("days", "30")
        period = int(days) if days.isdigit() else 30
        office = int(office_id) if office_id and office_id.isdigit() else None
        rows = mission_cost_report(days=period, office_id=office)
        return render(
            request,
            "admin/office/cost.html",
            {
                **self.admin_site.each_context(request),
                "title": "Prompt cost",
                "rows": rows,
                "plans": plan_cost_report(days=period, office_id=office),
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

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # Retiring keeps the history; re-activation and a new chief of staff are not
        # offered here because no service does them safely.
        return ("office", "is_master", "is_active") if obj is not None else ("is_active",)

    def save_model(self, request: HttpRequest, obj: Employee, form: Any, change: bool) -> None:
        """Writes go through the office services: a hire makes the 1:1 channel."""
        if not change:
            hired = employee_hire(
                office=obj.office,
                name=obj.name,
                role=obj.role,
                persona=obj.persona,
                is_master=obj.is_master,
                model=obj.model,
            )
            obj.pk = hired.pk
            return
        employee = Employee.objects.get(pk=obj.pk)
        employee_edit(employee=employee, name=obj.name, role=obj.role, persona=obj.persona)
        employee_set_model(employee=employee, model=obj.model)

    actions = ["retire"]

    @admin.action(description="Retire selected employees (their history is kept)")
    def retire(self, request: HttpRequest, queryset: Any) -> None:
        for employee in queryset:
            try:
                employee_retire(employee=employee)
                self.log_change(request, employee, "retired")
            except ValueError as exc:
                self.message_user(request, f"{employee.name}: {exc}", level="warning")


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
    readonly_fields = ("office", "kind", "employee")

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Channels are made with their office, a hire or a project (on the office page).
        return False

    def save_model(self, request: HttpRequest, obj: Channel, form: Any, change: bool) -> None:
        """Saved in save_related, through the service, once the members are known."""

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        data = form.cleaned_data
        channel_edit(
            channel=Channel.objects.get(pk=form.instance.pk),
            name=data["name"],
            detail_budget_chars=data.get("detail_budget_chars"),
            lead=data.get("lead"),
            members=data.get("members"),
        )

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
        channel = get_object_or_404(
            Channel.objects.select_related("office", "employee", "lead"), pk=channel_id
        )
        session = session_current(channel=channel)
        if session is None:
            raise Http404("This channel has no session.")
        instruction = request.GET.get("instruction", "")
        context = context_for_next(channel=channel, session=session, instruction=instruction)
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
