"""Reads for offices and channels, always scoped to what a user may see."""

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from office.models import Channel, Employee, Office


def office_list_for_user(*, user: User | AnonymousUser) -> QuerySet[Office]:
    if not user.is_authenticated:
        return Office.objects.none()
    return Office.objects.filter(owner=user).order_by("created_at")


def channel_get_for_user(*, user: User | AnonymousUser, channel_id: int) -> Channel | None:
    """The channel if this user owns its office; None for missing and foreign alike."""
    if not user.is_authenticated:
        return None
    return (
        Channel.objects.select_related("office", "employee", "lead")
        .filter(pk=channel_id, office__owner=user)
        .first()
    )


def channel_list_for_office(*, office: Office) -> QuerySet[Channel]:
    return office.channels.select_related("employee", "lead").order_by("kind", "name")


def employee_list_for_office(*, office: Office) -> QuerySet[Employee]:
    return office.employees.filter(is_active=True)
