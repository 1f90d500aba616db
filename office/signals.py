"""Edge hooks on Django's auth: they only hand the change to office.logins. A password or
is_active can change through many doors (the password-change view, the admin, a shell's
set_password and save), so the hook sits on the model's save rather than on each door."""

from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import pre_save
from django.dispatch import receiver

from office.logins import login_sockets_close, user_login_changed

# Saves that cannot change a password or is_active (the log-in's last_login) read nothing.
_LOGIN_FIELDS = frozenset({"password", "is_active"})


@receiver(user_logged_out, dispatch_uid="office.close_sockets_on_logout")
def _on_logged_out(sender: Any, request: Any, user: User | None, **kwargs: Any) -> None:
    if user is not None and user.pk is not None:
        login_sockets_close(user_id=user.pk)


@receiver(pre_save, sender=User, dispatch_uid="office.close_sockets_on_login_change")
def _on_user_saved(sender: Any, instance: User, update_fields: Any = None, **kwargs: Any) -> None:
    if update_fields is not None and not _LOGIN_FIELDS & set(update_fields):
        return
    if user_login_changed(user=instance):
        login_sockets_close(user_id=instance.pk)
