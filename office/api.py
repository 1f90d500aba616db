"""The person's own settings in the JSON API: which channels they muted, their time zone."""

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.translation import gettext
from ninja import Router, Schema
from ninja.errors import HttpError
from ninja.responses import Status
from pydantic import Field

from office.selectors import channel_get_for_user
from office.services import channel_mute_set, user_set_time_zone

router = Router(tags=["settings"])


class MuteIn(Schema):
    muted: bool


class MuteOut(Schema):
    channel: int
    muted: bool


class TimeZoneIn(Schema):
    time_zone: str = Field(..., max_length=64, description="An IANA name; blank: the browser's.")


class TimeZoneOut(Schema):
    time_zone: str


class Refusal(Schema):
    code: str
    message: str


@router.put(
    "channels/{channel_id}/mute",
    response=MuteOut,
    summary="Mute a channel (no notification, no count in the title) or unmute it",
)
def mute(request: HttpRequest, channel_id: int, body: MuteIn) -> dict[str, Any]:
    user: User = request.user  # type: ignore[assignment]
    channel = channel_get_for_user(user=user, channel_id=channel_id)
    if channel is None:
        raise HttpError(404, gettext("No such channel."))
    return {
        "channel": channel.pk,
        "muted": channel_mute_set(user=user, channel=channel, muted=body.muted),
    }


@router.put(
    "me/time_zone",
    response={200: TimeZoneOut, 400: Refusal},
    summary="The time zone your times are shown in (and your office's replies write)",
)
def time_zone(request: HttpRequest, body: TimeZoneIn) -> Any:
    user: User = request.user  # type: ignore[assignment]
    try:
        profile = user_set_time_zone(user=user, time_zone=body.time_zone.strip())
    except ValueError as exc:
        return Status(400, {"code": "unknown_time_zone", "message": str(exc)})
    return {"time_zone": profile.time_zone}
