from django.contrib import admin

from office.models import Channel, Employee, Office


class EmployeeInline(admin.TabularInline):
    model = Employee
    extra = 0
    fields = ("name", "role", "is_master", "is_active", "model")
    show_change_link = True


@admin.register(Office)
class OfficeAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "created_at")
    search_fields = ("name", "owner__username")
    list_select_related = ("owner",)
    inlines = [EmployeeInline]


@admin.register(Employee)
class EmployeeAdmin(admin.ModelAdmin):
    list_display = ("name", "role", "office", "is_master", "is_active", "model")
    list_filter = ("is_master", "is_active", "office")
    search_fields = ("name", "role", "persona", "office__name")
    list_select_related = ("office",)


@admin.register(Channel)
class ChannelAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "office", "employee", "lead", "detail_budget_chars")
    list_filter = ("kind", "office")
    search_fields = ("name", "office__name", "employee__name")
    list_select_related = ("office", "employee", "lead")
    filter_horizontal = ("members",)
