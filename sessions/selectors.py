"""Reads of chat sessions."""

from django.conf import settings

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


def long_notice_due(*, channel_id: int) -> bool:
    """Whether the channel's open session has crossed the threshold and was not told yet:
    one indexed read, so that opening a channel queues the (asynchronous) check only when
    it can post something. The check itself decides, under its conditional update."""
    return ChatSession.objects.filter(
        channel_id=channel_id,
        closed_at__isnull=True,
        long_notice_sent_at__isnull=True,
        mission_count__gte=settings.LONG_SESSION_MISSIONS,
    ).exists()
