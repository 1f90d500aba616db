"""Writes for chat sessions."""

from django.db import IntegrityError, transaction

from office.models import Channel
from sessions.models import ChatSession


def session_open_first(*, channel: Channel) -> ChatSession:
    return ChatSession.objects.create(channel=channel, number=1)


def session_get_or_open_current(*, channel: Channel) -> ChatSession:
    """The channel's current session, opening session 1 if it never had one."""
    current = ChatSession.objects.filter(channel=channel, closed_at__isnull=True).first()
    if current is not None:
        return current
    try:
        with transaction.atomic():
            last = ChatSession.objects.filter(channel=channel).order_by("-number").first()
            return ChatSession.objects.create(
                channel=channel, number=(last.number + 1) if last else 1
            )
    except IntegrityError:
        # Someone else opened it at the same moment: the constraint picked one winner.
        return ChatSession.objects.get(channel=channel, closed_at__isnull=True)
