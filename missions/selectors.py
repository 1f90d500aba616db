"""Reads for missions and the timeline, scoped to what a user may see."""

from django.contrib.auth.models import AnonymousUser, User

from missions.models import Message, Mission
from office.models import Channel


def mission_get_for_user(*, user: User | AnonymousUser, mission_id: int) -> Mission | None:
    """The mission if this user owns its office; None for missing and foreign alike."""
    if not user.is_authenticated:
        return None
    return (
        Mission.objects.select_related("assignee", "channel")
        .filter(pk=mission_id, channel__office__owner=user)
        .first()
    )


def message_list_after(*, channel: Channel, after_id: int, limit: int) -> list[Message]:
    return list(
        Message.objects.filter(channel=channel, id__gt=after_id)
        .select_related("author")
        .order_by("id")[:limit]
    )
