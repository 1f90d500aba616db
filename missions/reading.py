"""What a person has read of their channels: the marker they move by opening a channel,
and the frame that tells their other pages a channel has something new."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from missions.models import Message, Mission, ReadMarker
from office.models import Channel
from push.events import send_office_frame_on_commit
from push.frames import ChannelUnreadFrame


def channel_mark_read(*, user_id: int, channel: Channel, through_message_id: int) -> int:
    """The person was shown the channel up to `through_message_id`: what is older is
    read. The marker only moves forward (an older page marking late changes nothing) and
    never past the channel's newest message (a made-up id cannot hide what comes next).
    Returns the marker's message id."""
    newest = (
        Message.objects.filter(channel=channel, id__lte=through_message_id)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    ) or 0
    moved = ReadMarker.objects.filter(
        user_id=user_id, channel=channel, last_message_id__lt=newest
    ).update(last_message_id=newest, updated_at=timezone.now())
    if not moved and newest:
        try:
            with transaction.atomic():
                ReadMarker.objects.get_or_create(
                    user_id=user_id, channel=channel, defaults={"last_message_id": newest}
                )
        except IntegrityError:
            pass  # marked at the same moment by another page: that one holds
    marker = (
        ReadMarker.objects.filter(user_id=user_id, channel=channel)
        .values_list("last_message_id", flat=True)
        .first()
    )
    return int(marker or 0)


def unread_announce(*, mission: Mission, message: Message) -> None:
    """Once committed, tell every open page of the channel's office, whoever's, that the
    channel holds something new (the sidebar's counts). The office comes with the
    mission when it was read with its channel (a running reply): no query then."""
    if Mission.channel.is_cached(mission):
        office_id: int | None = mission.channel.office_id
    else:
        office_id = (
            Channel.objects.filter(pk=mission.channel_id)
            .values_list("office_id", flat=True)
            .first()
        )
    if office_id is None:
        return
    send_office_frame_on_commit(
        office_id,
        ChannelUnreadFrame(channel=mission.channel_id, message_id=message.pk, mission=mission.pk),
        except_channel=mission.channel_id,
    )
