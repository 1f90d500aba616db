"""Reads for offices and channels, always scoped to what a user may see."""

import functools
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends.base import SessionBase
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.db.models import QuerySet
from django.utils import timezone

from config.prepared import prepared
from office.models import Channel, Employee, Office, Profile

# A login's stored session while it lasts: read for every instruction a socket takes.
_LIVE_SESSION = prepared(
    lambda *, key, now: Session.objects.filter(session_key=key, expire_date__gt=now).values_list(
        "session_data", flat=True
    )[:1]
)


def login_user_id(*, session: SessionBase) -> str | None:
    """The user a login session (Django's, not a chat session) belongs to as it is stored
    now: None once it was deleted (logged out), expired or rotated away. With the
    database session engine, one compiled query; other engines load as Django does."""
    key = session.session_key
    if not key:
        return None
    if isinstance(session, DatabaseSessionStore) and session.get_model_class() is Session:
        data = _LIVE_SESSION.first(key=key, now=timezone.now())
        return None if data is None else _stored_user_id(session, data)
    return _auth_user_id(session.__class__(session_key=key).load())


# Decoded login sessions by what decodes them: checking a signature costs more than the
# read (a socket checks its login on every instruction) and the same stored text always
# decodes to the same user. A rotated or rewritten session is new text.
@functools.lru_cache(maxsize=4096)
def _decoded_user_id(store: type[SessionBase], secret_key: str, data: str) -> str | None:
    return _auth_user_id(store().decode(data))


def _auth_user_id(session_data: dict[str, Any]) -> str | None:
    user_id = session_data.get(SESSION_KEY)
    return None if user_id is None else str(user_id)


def _stored_user_id(session: SessionBase, data: str) -> str | None:
    # `__class__`, not type(): the socket's session is a lazy proxy of the store.
    return _decoded_user_id(session.__class__, settings.SECRET_KEY, data)


def office_get_for_user(*, user: User | AnonymousUser) -> Office | None:
    """The user's office (the first, if an operator gave them several); None if none yet."""
    if not user.is_authenticated:
        return None
    return Office.objects.filter(owner=user).order_by("id").first()


def channel_get_for_user(*, user: User | AnonymousUser, channel_id: int) -> Channel | None:
    """The channel if this user owns its office; None for missing and foreign alike."""
    if not user.is_authenticated:
        return None
    return (
        Channel.objects.select_related("office", "employee", "lead")
        .filter(pk=channel_id, office__owner=user)
        .first()
    )


def channel_list_for_office(*, office: Office) -> QuerySet[Channel]:
    return office.channels.select_related("employee", "lead").order_by("kind", "name")


def channel_default_assignee(*, channel: Channel) -> Employee:
    """Who answers an instruction that names nobody: the 1:1 employee, the project lead,
    else the office's master employee (master and all-hands channels)."""
    if channel.employee_id is not None and channel.employee is not None:
        return channel.employee
    if channel.lead is not None and channel.lead.is_active:
        return channel.lead
    return Employee.objects.get(office_id=channel.office_id, is_master=True)


def channel_list_for_user(*, user: User | AnonymousUser) -> QuerySet[Channel]:
    if not user.is_authenticated:
        return Channel.objects.none()
    return (
        Channel.objects.filter(office__owner=user)
        .select_related("employee", "office")
        .order_by("office_id", "kind", "name")
    )


def owned_by(queryset: QuerySet[Any], office_path: str, user: Any) -> QuerySet[Any]:
    """The rows of `queryset` in offices `user` owns (all of them for a superuser).
    `office_path` is the lookup from the rows' model to its Office ("" for offices)."""
    if getattr(user, "is_superuser", False):
        return queryset
    if not getattr(user, "is_authenticated", False):
        return queryset.none()
    return queryset.filter(**{f"{office_path}__owner" if office_path else "owner": user})


def user_language(*, user: User | AnonymousUser) -> str | None:
    """The interface language a signed-in person sees: their own choice, else their
    office's; None for someone with neither (the browser's preference then decides)."""
    if not user.is_authenticated:
        return None
    chosen = Profile.objects.filter(user=user).values_list("language", flat=True).first()
    if chosen:
        return str(chosen)
    office = Office.objects.filter(owner=user).order_by("id").values_list("language", flat=True)
    first = office.first()
    return str(first) if first else None


def channel_reader_language(*, channel_id: int) -> str:
    """The language the person a channel belongs to reads: the office owner's own choice,
    else the channel's office's, else LANGUAGE_CODE. One query."""
    row = (
        Channel.objects.filter(pk=channel_id)
        .values_list("office__owner__office_profile__language", "office__language")
        .first()
    )
    if row is None:
        return str(settings.LANGUAGE_CODE)
    return str(row[0] or row[1] or settings.LANGUAGE_CODE)
