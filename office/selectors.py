"""Reads for offices and channels, always scoped to what a user may see."""

import functools
import zoneinfo
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends.base import SessionBase
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.db.models import Case, OuterRef, QuerySet, Subquery, When
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from config.prepared import prepared
from language.names import name_skeleton
from office.models import (
    Channel,
    ChannelMute,
    Employee,
    Office,
    OfficeInvitation,
    OfficeMember,
    Profile,
)

# A login's stored session while it lasts: read for every instruction a socket takes.
_LIVE_SESSION = prepared(
    lambda *, key, now: Session.objects.filter(session_key=key, expire_date__gt=now).values_list(
        "session_data", flat=True
    )[:1]
)


def login_user_id(*, session: SessionBase) -> str | None:
    """The user a login session (Django's, not a chat session) belongs to as it is stored
    now: None once it was deleted (logged out), expired or rotated away. With the
    database session engine, one query; other engines load as Django does."""
    stored = _stored_login(session=session)
    return None if stored is None else stored[0]


def login_holds(*, session: SessionBase, user_id: int) -> bool:
    """Whether the login still holds for `user_id` as Django's own request check would
    see it: the stored session names the user, the user is active, and the session was
    made with the password the user has now (its auth hash; Django's log-in and
    password-change views keep it current). Two queries."""
    stored = _stored_login(session=session)
    if stored is None or stored[0] != str(user_id) or not stored[1]:
        return False
    password = _ACTIVE_PASSWORD.first(user_id=user_id)
    if password is None:
        return False
    return _hash_matches(password, stored[1])


_ACTIVE_PASSWORD = prepared(
    lambda *, user_id: User.objects.filter(pk=user_id, is_active=True).values_list(
        "password", flat=True
    )[:1]
)


# Django's own salt for the session auth hash (AbstractBaseUser.get_session_auth_hash).
_AUTH_HASH_SALT = "django.contrib.auth.models.AbstractBaseUser.get_session_auth_hash"


def _hash_matches(password: str, session_hash: str) -> bool:
    # Sessions made before a key rotation hold while the old key is a fallback.
    return any(
        constant_time_compare(
            session_hash,
            salted_hmac(_AUTH_HASH_SALT, password, secret=key, algorithm="sha256").hexdigest(),
        )
        for key in (settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS)
    )


def _stored_login(*, session: SessionBase) -> tuple[str, str | None] | None:
    key = session.session_key
    if not key:
        return None
    if isinstance(session, DatabaseSessionStore) and session.get_model_class() is Session:
        data = _LIVE_SESSION.first(key=key, now=timezone.now())
        return None if data is None else _stored_user(session, data)
    return _auth_user(session.__class__(session_key=key).load())


# Decoded login sessions by what decodes them: checking a signature costs more than the
# read (a socket checks its login on every instruction) and the same stored text always
# decodes to the same user. A rotated or rewritten session is new text.
@functools.lru_cache(maxsize=4096)
def _decoded_user(
    store: type[SessionBase], secret_key: str, data: str
) -> tuple[str, str | None] | None:
    return _auth_user(store().decode(data))


def _auth_user(session_data: dict[str, Any]) -> tuple[str, str | None] | None:
    user_id = session_data.get(SESSION_KEY)
    if user_id is None:
        return None
    auth_hash = session_data.get(HASH_SESSION_KEY)
    return str(user_id), None if auth_hash is None else str(auth_hash)


def _stored_user(session: SessionBase, data: str) -> tuple[str, str | None] | None:
    # `__class__`, not type(): the socket's session is a lazy proxy of the store.
    return _decoded_user(session.__class__, settings.SECRET_KEY, data)


def office_get_for_user(
    *, user: User | AnonymousUser, preferred: int | None = None
) -> Office | None:
    """The office the user works in: `preferred` (the one they last chose) while they
    are still one of its people, else their own, else the first they joined; None if
    they have none yet."""
    if not user.is_authenticated:
        return None
    offices = offices_for_user(user=user)
    if preferred is not None:
        chosen = offices.filter(pk=preferred).first()
        if chosen is not None:
            return chosen
    return offices.first()


def offices_for_user(*, user: User | AnonymousUser) -> QuerySet[Office]:
    """Every office the user works in: those they own first, then by when they joined."""
    if not user.is_authenticated:
        return Office.objects.none()
    joined = OfficeMember.objects.filter(office=OuterRef("pk"), user=user).values("joined_at")
    return (
        Office.objects.filter(memberships__user=user)
        .annotate(joined_at=Subquery(joined[:1]))
        .order_by(Case(When(owner=user, then=0), default=1), "joined_at", "id")
    )


def office_member(*, user_id: int, office_id: int) -> bool:
    """Whether the user is one of the office's people (its owner included)."""
    return OfficeMember.objects.filter(user_id=user_id, office_id=office_id).exists()


def office_people(*, office: Office) -> list[OfficeMember]:
    """The office's people, the owner first, then by when they joined."""
    return list(
        OfficeMember.objects.filter(office=office)
        .select_related("user")
        .order_by(Case(When(user_id=office.owner_id, then=0), default=1), "joined_at", "id")
    )


def invitations_open(*, office_id: int) -> list[OfficeInvitation]:
    """The office's invitations that can still be used, newest first."""
    return list(
        OfficeInvitation.objects.filter(
            office_id=office_id,
            accepted_at__isnull=True,
            withdrawn_at__isnull=True,
            expires_at__gt=timezone.now(),
        ).order_by("-created_at", "-id")
    )


def channel_get_for_user(*, user: User | AnonymousUser, channel_id: int) -> Channel | None:
    """The channel if this user is one of its office's people; None for missing and
    foreign alike."""
    if not user.is_authenticated:
        return None
    return (
        Channel.objects.select_related("office", "employee", "lead", "retired_lead")
        .filter(pk=channel_id, office__memberships__user=user)
        .first()
    )


def channel_list_for_office(*, office: Office) -> QuerySet[Channel]:
    return office.channels.select_related("employee", "lead", "retired_lead").order_by(
        "kind", "name"
    )


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
        Channel.objects.filter(office__memberships__user=user)
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
    return user_settings(user=user)[0]


def user_settings(*, user: User | AnonymousUser) -> tuple[str | None, str]:
    """A signed-in person's interface language (as `user_language`) and the time zone
    they chose (blank: none, their browser's is used)."""
    if not user.is_authenticated:
        return None, ""
    row = Profile.objects.filter(user=user).values_list("language", "time_zone").first()
    chosen, time_zone = row or ("", "")
    if chosen:
        return str(chosen), str(time_zone)
    first = offices_for_user(user=user).values_list("language", flat=True).first()
    return (str(first) if first else None), str(time_zone)


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


def employee_look_alike(
    *, office_id: int, name: str, exclude_id: int | None = None
) -> Employee | None:
    """The employee of the office whose name a reader cannot tell from `name` (UTS #39
    skeletons: language.names), retired ones too: their channels and @mentions stay."""
    others = Employee.objects.filter(office_id=office_id).order_by("pk")
    if exclude_id is not None:
        others = others.exclude(pk=exclude_id)
    skeleton = name_skeleton(name)
    return next((e for e in others.only("pk", "name") if name_skeleton(e.name) == skeleton), None)


def channel_ids_muted(*, user_id: int, office_id: int) -> list[int]:
    """The channels of an office this person muted."""
    return list(
        ChannelMute.objects.filter(user_id=user_id, channel__office_id=office_id)
        .order_by("channel_id")
        .values_list("channel_id", flat=True)
    )


@functools.cache
def _zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def time_zone_names() -> list[str]:
    """Every time zone a person may choose, in order."""
    return sorted(_zone_names())


def time_zone_known(name: str) -> bool:
    return name in _zone_names()


def office_time_zone(*, office_id: int) -> str:
    """The time zone an office's replies write times in: its owner's (blank: none chosen)."""
    row = Office.objects.filter(pk=office_id).values_list("owner__office_profile__time_zone")
    first = row.first()
    return str(first[0] or "") if first else ""
