"""Reads of chat sessions."""

from office.models import Channel
from sessions.models import ChatSession


def session_current(*, channel: Channel) -> ChatSession | None:
    """The channel's open session; None only for a channel that never had one."""
    return ChatSession.objects.filter(channel=channel, closed_at__isnull=True).first()


def session_list(*, channel: Channel) -> list[ChatSession]:
    """The channel's sessions, newest first."""
    return list(ChatSession.objects.filter(channel=channel).order_by("-number"))


def session_currents(*, channel_ids: list[int]) -> dict[int, ChatSession]:
    """Channel id → its open session, in one query."""
    rows = ChatSession.objects.filter(channel_id__in=channel_ids, closed_at__isnull=True)
    return {s.channel_id: s for s in rows}
