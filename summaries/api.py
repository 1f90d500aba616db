from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest
from ninja import Router
from ninja.errors import HttpError

from office.selectors import channel_get_for_user
from sessions.selectors import session_current
from summaries.selectors import summary_shown

router = Router(tags=["summaries"])


@router.get("channels/{channel_id}/summary", summary="The rolling summary of the current session")
def channel_summary(request: HttpRequest, channel_id: int) -> dict[str, Any]:
    user: User = request.user  # type: ignore[assignment]
    channel = channel_get_for_user(user=user, channel_id=channel_id)
    if channel is None:
        raise HttpError(404, "No such channel.")
    session = session_current(channel=channel)
    if session is None:
        raise HttpError(404, "The channel has no session yet.")
    shown = summary_shown(session=session)
    return {
        "session": session.pk,
        "number": session.number,
        "state": shown.shown.state if shown.shown else {},
        "text": shown.text,
        "version": shown.shown.version if shown.shown else 0,
        "folded_through_seq": shown.watermark,
        "carry_over_pending": bool(shown.summary and shown.summary.carry_over_pending),
    }
