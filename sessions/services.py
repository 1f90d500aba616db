"""Writes for chat sessions, and the long-session notice (docs/design.md §6)."""

from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from language.storable import text_problem
from missions.models import Message, MessageKind, Mission
from missions.texts import LONG_SESSION_NOTICE as LONG_SESSION_NOTICE
from missions.texts import office_text
from missions.timeline import message_post
from office.models import Channel
from push.events import send_frame_on_commit
from push.frames import SessionData, SessionStartedFrame
from sessions.models import SESSION_TITLE_CHARS, ChatSession, NoticeTrigger
from sessions.selectors import session_current
from summaries.services import summary_begin_carry_over


class SessionNameRejected(ValueError):
    """A name a session cannot take; the message is for a person."""


def session_rename(*, session: ChatSession, title: str) -> ChatSession:
    """Name a session (blank: by its number only), in the person's words, one line."""
    clean = " ".join(title.split())
    problem = text_problem(clean, what=gettext("The name"))
    if problem:
        raise SessionNameRejected(problem)
    if len(clean) > SESSION_TITLE_CHARS:
        raise SessionNameRejected(
            gettext("The name has %(chars)d characters; the limit is %(limit)d.")
            % {"chars": len(clean), "limit": SESSION_TITLE_CHARS}
        )
    session.title = clean
    session.save(update_fields=["title"])
    return session


def session_open_first(*, channel: Channel) -> ChatSession:
    return ChatSession.objects.create(channel=channel, number=1)


def session_get_or_open_current(*, channel: Channel) -> ChatSession:
    """The channel's current session, opening the next one if it has none."""
    current = session_current(channel=channel)
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


def session_lock(*, session: ChatSession) -> ChatSession:
    """The session's row, locked until the transaction ends."""
    return ChatSession.objects.select_for_update().get(pk=session.pk)


_SESSION_COLUMNS = ", ".join(f'"{f.column}"' for f in ChatSession._meta.concrete_fields)


def _count_current(channel_id: int) -> ChatSession | None:
    # One statement for the row lock, the read and the count (Django's update() returns
    # no row). The channel has at most one open session (a constraint); a session closed
    # while this waited for its lock no longer matches (PostgreSQL re-checks the
    # condition on the row it waited for).
    table = ChatSession._meta.db_table
    sql = (
        f'UPDATE "{table}" SET "mission_count" = "mission_count" + 1 '
        f'WHERE "channel_id" = %s AND "closed_at" IS NULL RETURNING {_SESSION_COLUMNS}'
    )
    return next(iter(ChatSession.objects.raw(sql, [channel_id])), None)


def session_count_current(*, channel: Channel) -> ChatSession:
    """The channel's current session with one more mission counted (the new mission's
    seq is the row's `mission_count`), its row locked until the transaction ends, in one
    statement (opening the next session if it has none). A session closed while this
    waited for its lock is not counted: the one opened after it is."""
    counted = _count_current(channel.pk)
    if counted is not None:
        return counted
    session = session_lock(session=session_get_or_open_current(channel=channel))
    session_count_mission(session=session)
    return session


def session_count_mission(*, session: ChatSession, synthesis: bool = False) -> int:
    """One more mission in the session (a `synthesis`: one more of those too); returns
    its seq. Call with the row locked (`session_lock`), so that seqs and the person's
    numbers have no gaps."""
    counts: dict[str, Any] = {"mission_count": F("mission_count") + 1}
    if synthesis:
        counts["synthesis_count"] = F("synthesis_count") + 1
    ChatSession.objects.filter(pk=session.pk).update(**counts)
    session.mission_count += 1
    session.synthesis_count += int(synthesis)
    return session.mission_count


def session_start_new(*, channel: Channel, expected_session_id: int | None = None) -> ChatSession:
    """Close the channel's current session and open the next, carrying the summary over.

    `expected_session_id` is the session the person was looking at: if it is no longer
    current (a double click, two tabs), the session the first click opened is returned
    and nothing else happens."""
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
        summary_begin_carry_over(session=new)
        send_frame_on_commit(
            channel.pk,
            SessionStartedFrame(
                session=SessionData(id=new.pk, number=new.number, previous=current.pk)
            ),
        )
    return new


def _long_session_notify(
    *, session_id: int, trigger: str, after_message_id: int | None = None
) -> bool:
    """Save and push the notice if this session crossed the threshold and nobody did yet.

    The conditional update on long_notice_sent_at IS NULL has exactly one winner, however
    many checks race; only the winner writes the message."""
    threshold = settings.LONG_SESSION_MISSIONS
    with transaction.atomic():
        won = ChatSession.objects.filter(
            pk=session_id,
            long_notice_sent_at__isnull=True,
            closed_at__isnull=True,
            mission_count__gte=threshold,
        ).update(long_notice_sent_at=timezone.now(), long_notice_trigger=trigger)
        if not won:
            return False
        session = ChatSession.objects.get(pk=session_id)
        message_post(
            channel_id=session.channel_id,
            session_id=session.pk,
            kind=MessageKind.NOTICE,
            office_text=office_text("long_session"),
            payload={
                "notice": "long_session",
                "trigger": trigger,
                "after_message": after_message_id,
                # Its label is said in the reader's language when the message is shown.
                "action": {"type": "session.new", "session_id": session.pk},
            },
        )
    return True


def long_session_check_on_instruction(*, mission_id: int) -> bool:
    """Check 1: right after an instruction was accepted (any route)."""
    mission = Mission.objects.filter(pk=mission_id).only("session_id").first()
    if mission is None:
        return False
    instruction = (
        Message.objects.filter(mission_id=mission_id, kind=MessageKind.USER)
        .values_list("id", flat=True)
        .first()
    )
    return _long_session_notify(
        session_id=mission.session_id,
        trigger=NoticeTrigger.INSTRUCTION,
        after_message_id=instruction,
    )


def long_session_check_on_entry(*, channel_id: int) -> bool:
    """Check 2: when the person opens the channel. A channel with no session: nothing."""
    session_id = (
        ChatSession.objects.filter(channel_id=channel_id, closed_at__isnull=True)
        .values_list("id", flat=True)
        .first()
    )
    if session_id is None:
        return False
    return _long_session_notify(session_id=session_id, trigger=NoticeTrigger.ENTRY)
