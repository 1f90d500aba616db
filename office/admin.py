import unicodedata
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy

from context.selectors import context_for_next
from missions.selectors import mission_cost_report, plan_cost_report
from office.forms import AdminLoginForm
from office.models import Channel, Employee, Office, OfficeMember
from office.selectors import owned_by
from office.services import (
    NameTaken,
    channel_edit,
    employee_edit,
    employee_hire,
    employee_name_check,
    employee_retire,
    employee_set_model,
    office_create,
    office_edit,
)
from office.ui import chat_strings
from office.views import ThrottledPasswordChangeView
from sessions.selectors import session_current

# The admin's log-in says so when the log-in throttle refused it (office.auth).
admin.site.login_form = AdminLoginForm


def admin_password_change(request: HttpRequest) -> HttpResponseBase:
    """The admin's own password-change page (Django's checks the old password unthrottled):
    the throttled view of /accounts/password_change/ in the admin's frame. Routed ahead
    of the admin's URLs (config/urls.py), behind its staff check."""
    request.current_app = admin.site.name
    view = ThrottledPasswordChangeView.as_view(
        success_url=reverse("admin:password_change_done", current_app=admin.site.name),
        extra_context=admin.site.each_context(request),
    )
    return view(request)


# Django stores a permission's name in English when it migrates ("Can add office"); the
# lists of permissions say it in the reader's language from its codename instead.
PERMISSION_ACTIONS = {
    "add": gettext_lazy("Can add %(model)s"),
    "change": gettext_lazy("Can change %(model)s"),
    "delete": gettext_lazy("Can delete %(model)s"),
    "view": gettext_lazy("Can view %(model)s"),
}


def permission_label(permission: Permission) -> str:
    """ "App | model | what it allows", translated; a custom permission as it is named."""
    action, _, model_name = permission.codename.partition("_")
    model = permission.content_type.model_class()
    template = PERMISSION_ACTIONS.get(action)
    if model is None or template is None or model_name != model._meta.model_name:
        return str(permission)
    allows = str(template) % {"model": model._meta.verbose_name}
    return f"{permission.content_type} | {allows}"


def _with_permission_labels(field: Any, db_field: Any) -> Any:
    if field is not None and db_field.related_model is Permission:
        field.label_from_instance = permission_label
    return field


class TranslatedGroupAdmin(GroupAdmin):
    """Django's group admin, its permissions said in the reader's language."""

    def formfield_for_manytomany(
        self, db_field: Any, request: HttpRequest | None = None, **kwargs: Any
    ) -> Any:
        field = super().formfield_for_manytomany(db_field, request, **kwargs)
        return _with_permission_labels(field, db_field)


class TranslatedUserAdmin(UserAdmin):
    """Django's user admin, its permissions said in the reader's language."""

    def formfield_for_manytomany(
        self, db_field: Any, request: HttpRequest | None = None, **kwargs: Any
    ) -> Any:
        field = super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[arg-type]
        return _with_permission_labels(field, db_field)


admin.site.unregister(Group)
admin.site.register(Group, TranslatedGroupAdmin)
admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), TranslatedUserAdmin)


class OfficeScopedAdmin(admin.ModelAdmin):
    """An admin whose rows belong to one office each: a staff user who is not a superuser
    sees, picks and acts on the rows of their own offices only. Lists, change pages,
    actions, filters, raw-id pop-ups and autocomplete all start from `get_queryset`;
    custom views must fetch through `scoped_object` too."""

    # The lookup from this model to its Office ("" for the Office itself).
    office_path: str = "office"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return owned_by(super().get_queryset(request), self.office_path, request.user)

    def scoped_object(self, request: HttpRequest, pk: Any, **filters: Any) -> Any:
        """One row the user may view: another office's answers as a missing one does."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        if not str(pk or "").isdigit():
            raise Http404(gettext("No such row."))
        return get_object_or_404(self.get_queryset(request), pk=int(pk), **filters)

    def _choices(self, request: HttpRequest, related: type[Model]) -> QuerySet[Any] | None:
        if request.user.is_superuser:
            return None
        if related is get_user_model():
            return related._default_manager.filter(pk=request.user.pk or 0)
        related_admin = self.admin_site._registry.get(related)
        if isinstance(related_admin, OfficeScopedAdmin):
            return related_admin.get_queryset(request)
        return None

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        choices = self._choices(request, db_field.related_model)
        if choices is not None:
            kwargs["queryset"] = choices
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        choices = self._choices(request, db_field.related_model)
        if choices is not None:
            kwargs["queryset"] = choices
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description=gettext_lazy("office"), ordering="office__name")
    def office_name(self, obj: Any) -> str:
        office = obj
        for step in self.office_path.split("__") if self.office_path else []:
            office = getattr(office, step)
        return str(office)


# The only filter on a related office that lists nothing of other offices.
OFFICE_FILTER = ("office", admin.RelatedOnlyFieldListFilter)


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


class MemberInline(admin.TabularInline):
    """The office's people, read-only: they join by invitation and leave from the office
    page (office.people.services), which also closes their open sockets."""

    model = OfficeMember
    extra = 0
    fields = ("user", "joined_at")
    readonly_fields = fields
    can_delete = False
    verbose_name_plural = gettext_lazy("people")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Office)
class OfficeAdmin(OfficeScopedAdmin):
    office_path = ""
    list_display = ("name", "owner", "language", "created_at", "cost_link")
    search_fields = ("name", "owner__username")
    list_select_related = ("owner",)
    inlines = [EmployeeInline, MemberInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("owner",) if obj is not None else ()

    def has_add_permission(self, request: HttpRequest) -> bool:
        # An office is made by signing up; only an operator makes one for somebody else.
        return request.user.is_superuser and super().has_add_permission(request)

    def save_model(self, request: HttpRequest, obj: Office, form: Any, change: bool) -> None:
        if change:
            office_edit(office=obj, name=obj.name, language=obj.language)
            return
        created = office_create(owner=obj.owner, name=obj.name)
        office_edit(office=created, name=created.name, language=obj.language)
        obj.pk = created.pk

    @admin.display(description=gettext_lazy("cost"))
    def cost_link(self, obj: Office) -> SafeString:
        return format_html(
            '<a href="{}?office={}">{}</a>',
            reverse("admin:office_office_cost"),
            obj.pk,
            gettext("prompt cost"),
        )

    def get_urls(self) -> list[Any]:
        return [
            path("cost/", self.admin_site.admin_view(self.cost_view), name="office_office_cost"),
            *super().get_urls(),
        ]

    def cost_view(self, request: HttpRequest) -> HttpResponse:
        """Per day, office and channel: prompts actually sent against the full history."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        office_id = request.GET.get("office")
        days = request.GET.get("days", "30")
        period = int(days) if days.isdigit() else 30
        office = int(office_id) if office_id and office_id.isdigit() else None
        owner = None if request.user.is_superuser else request.user
        rows = mission_cost_report(days=period, office_id=office, owner=owner)
        return render(
            request,
            "admin/office/cost.html",
            {
                **self.admin_site.each_context(request),
                "title": gettext("Prompt cost"),
                "rows": rows,
                "plans": plan_cost_report(days=period, office_id=office, owner=owner),
                "totals": {
                    "prompt_chars": sum(r["prompt_chars"] for r in rows),
                    "full_history_chars": sum(r["full_history_chars"] for r in rows),
                    "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
                    "cached_tokens": sum(r["cached_tokens"] for r in rows),
                },
            },
        )


class EmployeeAdminForm(forms.ModelForm):
    """The hiring form's rule on names in the admin too: none a reader cannot tell from a
    colleague's (language.names)."""

    class Meta:
        model = Employee
        fields = ("office", "name", "role", "persona", "model", "is_master", "is_active")

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        name = cleaned.get("name")
        office = cleaned.get("office") or (self.instance.office if self.instance.pk else None)
        if name and office is not None:
            name = cleaned["name"] = unicodedata.normalize("NFKC", name)
            try:
                employee_name_check(office=office, name=name, employee_id=self.instance.pk)
            except NameTaken as taken:
                self.add_error("name", str(taken))
        return cleaned


@admin.register(Employee)
class EmployeeAdmin(OfficeScopedAdmin):
    form = EmployeeAdminForm
    list_display = ("name", "role", "office", "is_master", "is_active", "model")
    list_filter = ("is_master", "is_active", OFFICE_FILTER)
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

    @admin.action(description=gettext_lazy("Retire selected employees (their history is kept)"))
    def retire(self, request: HttpRequest, queryset: Any) -> None:
        retired = 0
        for employee in queryset:
            if employee.is_master:
                self.message_user(
                    request,
                    gettext("%(name)s: the chief of staff cannot be retired.")
                    % {"name": employee.name},
                    level="warning",
                )
                continue
            employee_retire(employee=employee)
            self.log_change(request, employee, gettext("retired"))
            retired += 1
        if retired:
            self.message_user(
                request, gettext("Employees retired: %(count)d.") % {"count": retired}
            )


@admin.register(Channel)
class ChannelAdmin(OfficeScopedAdmin):
    list_display = (
        "name",
        "kind",
        "office",
        "employee",
        "lead",
        "detail_budget_chars",
        "context_link",
    )
    list_filter = ("kind", OFFICE_FILTER)
    search_fields = ("name", "office__name", "employee__name")
    list_select_related = ("office", "employee", "lead")
    filter_horizontal = ("members",)
    readonly_fields = ("office", "kind", "employee", "retired_lead")

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

    @admin.display(description=gettext_lazy("context"))
    def context_link(self, obj: Channel) -> SafeString:
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:office_channel_context", args=[obj.pk]),
            gettext("preview"),
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
        channel = self.scoped_object(request, channel_id)
        session = session_current(channel=channel)
        if session is None:
            raise Http404(gettext("This channel has no session."))
        instruction = request.GET.get("instruction", "")
        context = context_for_next(channel=channel, session=session, instruction=instruction)
        report = context.report()
        names: dict[str, str] = chat_strings()["sections"]  # type: ignore[assignment]
        return render(
            request,
            "admin/office/context.html",
            {
                **self.admin_site.each_context(request),
                "title": gettext("Context of the next mission in %(channel)s")
                % {"channel": channel},
                "channel": channel,
                "instruction": instruction,
                "report": report,
                # Each section with its name in the reader's language, as the chat's panel.
                "sections": [(names.get(s["name"], s["name"]), s) for s in report["sections"]],
                # The number the person will see on it (seq is the session's order).
                "seq": context.label or context.seq,
            },
        )
