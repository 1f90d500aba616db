from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from llm.models import ModelPrice


@admin.register(ModelPrice)
class ModelPriceAdmin(admin.ModelAdmin):
    """The price table is the operator's: an office's staff see it, only superusers
    change it."""

    list_display = ("model", "currency", "prompt", "cached_prompt", "completion")
    search_fields = ("model",)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_active and request.user.is_staff)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_superuser)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)
