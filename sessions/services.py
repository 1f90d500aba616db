"""Writes for chat sessions."""

from django.db import IntegrityError, transaction
from django.utils import timezone

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


def session_start_new(*, channel: Channel, expected_session_id: int | None = None) -> ChatSession:
    """Close the channel's current session and open the next, carrying the summary over.

    `expected_session_id` is the session the person was looking at: if it is no longer
    current (a double click, two tabs), the session the first click opened is returned
    and nothing else happens."""
    from memory.models import RollingSummary
    from memory.tasks import carry_over_session

    with transaction.atomic():
        current = (
            ChatSession.objects.select_for_update()
            .filter(channel=channel, closed_at__isnull=True)
            .first()
        )
        if current is None or (
            expected_session_id is not None and current.pk != expected_session_id
        ):
            return session_get_or_open_current(channel=channel)
        current.closed_at = timezone.now()
        current.save(update_fields=["closed_at"])
        new = ChatSession.objects.create(
            channel=channel, number=current.number + 1, carried_over_from=current
        )
        RollingSummary.objects.create(session=new, carry_over_pending=True)
        carry_over_session.delay_on_commit(new.pk)  # type: ignore[attr-defined]
    return new
