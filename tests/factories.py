"""Small builders for test data, on top of the real services."""

from itertools import count

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from office.models import Channel, ChannelKind, Office
from office.services import office_create_with_team

_numbers = count(1)


def make_user(username: str | None = None, *, password: str = "pw-for-tests-1") -> User:
    User = get_user_model()
    user = User.objects.create_user(username=username or f"user{next(_numbers)}", password=password)
    return user


def make_office(owner: User | None = None, *, name: str = "Test office") -> Office:
    return office_create_with_team(owner=owner or make_user(), name=name)


def channel_of(office: Office, kind: str, name: str | None = None) -> Channel:
    channels = office.channels.filter(kind=kind)
    if name is not None:
        channels = channels.filter(name=name)
    return channels.order_by("id").first()  # type: ignore[return-value]


def dm_channel(office: Office, employee_name: str = "Theo") -> Channel:
    return office.channels.get(kind=ChannelKind.DM, employee__name=employee_name)
