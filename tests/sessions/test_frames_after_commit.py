"""Save first, push second (docs/design.md §7) for the sessions' services: a new session and
the long-session notice reach the sockets only once the transaction that stored them
commits, and never when it rolls back."""

from typing import Any

import pytest
from django.db import transaction

from missions.models import Message, MessageKind
from sessions.models import ChatSession
from sessions.services import (
    long_session_check_on_entry,
    long_session_check_on_instruction,
    session_get_or_open_current,
    session_start_new,
)
from tests.factories import add_finished_missions, dm_channel, make_office
from tests.realtime.capture import SentFrames, captured_frames  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


class Rollback(Exception):
    pass


def _rolled_back_then_committed(frames: SentFrames, act: Any) -> list[dict[str, Any]]:
    frames.clear()
    with pytest.raises(Rollback), transaction.atomic():
        act()
        raise Rollback
    assert frames.sent == [], "a frame about a write that was rolled back was sent"
    with transaction.atomic():
        act()
        assert frames.sent == [], "a frame left before its transaction committed"
    return [frame for _, frame in frames.sent]


def test_a_new_session_is_pushed_only_once_committed(frames: SentFrames) -> None:
    channel = dm_channel(make_office())
    first = session_get_or_open_current(channel=channel)

    sent = _rolled_back_then_committed(frames, lambda: session_start_new(channel=channel))

    [started] = [f for f in sent if f["type"] == "session.started"]
    new = ChatSession.objects.get(channel=channel, closed_at__isnull=True)
    assert started["session"] == {"id": new.pk, "number": 2, "previous": first.pk}


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("trigger", ["instruction", "entry"])
def test_the_long_session_notice_is_pushed_only_once_committed(
    frames: SentFrames,
    settings: Any,
    language: str,
    trigger: str,
) -> None:
    settings.LONG_SESSION_MISSIONS = 3
    office = make_office()
    office.language = language
    office.save(update_fields=["language"])
    channel = dm_channel(office)
    session = session_get_or_open_current(channel=channel)
    [*_, last] = add_finished_missions(session, 3)

    def check() -> bool:
        if trigger == "instruction":
            return long_session_check_on_instruction(mission_id=last.pk)
        return long_session_check_on_entry(channel_id=channel.pk)

    sent = _rolled_back_then_committed(frames, check)

    notice = Message.objects.get(session=session, kind=MessageKind.NOTICE)
    assert [(f["type"], f["message"]["id"]) for f in sent] == [("notice", notice.pk)]
