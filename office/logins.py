"""Writes about a person's login: when it stops holding (they logged out, their password
changed, their account was deactivated) every socket they have open is closed at once, after
the change commits, so nothing more reaches or leaves a page that no longer has a login."""

from django.contrib.auth.models import User
from django.db import transaction

from push.events import send_login_ended


def login_sockets_close(*, user_id: int) -> None:
    """Close the person's sockets once the current transaction (if any) commits."""
    transaction.on_commit(lambda: send_login_ended(user_id))


def user_login_changed(*, user: User) -> bool:
    """Whether saving `user` ends its logins: a new password (every session was made with
    the old one) or a deactivation. One read of the stored row."""
    if user.pk is None:
        return False
    stored = User.objects.filter(pk=user.pk).values_list("password", "is_active").first()
    if stored is None:
        return False
    password, was_active = stored
    return password != user.password or (was_active and not user.is_active)
