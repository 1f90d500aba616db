"""Throttles on the doors of the office: log-ins (the form, the admin and HTTP Basic all go
through this backend), sign-ups and new sessions. Counters live in the cache
(config.throttle) and fail open when it is unreachable."""

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.utils.translation import gettext

from config.throttle import Verdict, Window, throttle_check, throttle_count, throttle_hit


class Throttled(Exception):
    """Over a limit; `retry_after` in seconds, `message` for a person."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


def client_address(request: HttpRequest | None) -> str:
    """The peer's address as the server sees it (Daphne behind a proxy sets it from the
    proxy's headers when run with --proxy-headers)."""
    if request is None:
        return "unknown"
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def _login_windows() -> tuple[Window, Window]:
    return (
        Window("login-account", settings.LOGIN_FAILURE_LIMIT, settings.LOGIN_FAILURE_WINDOW),
        Window(
            "login-address", settings.LOGIN_FAILURE_ADDRESS_LIMIT, settings.LOGIN_FAILURE_WINDOW
        ),
    )


def login_throttled(*, username: str, address: str) -> Verdict:
    account, by_address = _login_windows()
    for window, who in ((account, username.strip().lower()), (by_address, address)):
        verdict = throttle_check(window, who)
        if not verdict.allowed:
            return verdict
    return Verdict(True)


def login_failed(*, username: str, address: str) -> None:
    account, by_address = _login_windows()
    throttle_count(account, username.strip().lower())
    throttle_count(by_address, address)


class ThrottledModelBackend(ModelBackend):
    """Django's own backend behind the log-in throttle: an account or address over its
    failures is refused before the password is hashed (so a flood of guesses costs the
    server nothing and tells the guesser nothing)."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        name = username or str(kwargs.get("username") or "")
        address = client_address(request)
        verdict = login_throttled(username=name, address=address)
        if not verdict.allowed:
            if request is not None:
                request.login_retry_after = verdict.retry_after  # type: ignore[attr-defined]
            raise PermissionDenied  # authenticate() stops at this backend
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            login_failed(username=name, address=address)
        return user


def login_retry_after(request: HttpRequest) -> int | None:
    """Set on the request when the log-in throttle refused it."""
    return getattr(request, "login_retry_after", None)


def throttled_message(retry_after: int) -> str:
    if retry_after >= 60:
        minutes = max(1, round(retry_after / 60))
        return gettext("Too many attempts; try again in %(minutes)d min.") % {"minutes": minutes}
    return gettext("Too many attempts; try again in %(seconds)d s.") % {"seconds": retry_after}


def signup_allowed(*, address: str) -> None:
    """Raises Throttled when this address has made its sign-ups for the window."""
    window = Window("signup", settings.SIGNUP_RATE_LIMIT, settings.SIGNUP_RATE_WINDOW)
    verdict = throttle_hit(window, address)
    if not verdict.allowed:
        raise Throttled(throttled_message(verdict.retry_after), verdict.retry_after)


def session_new_allowed(*, user_id: int) -> None:
    """Raises Throttled when the user has started their new sessions for the window."""
    window = Window(
        "session-new", settings.SESSION_NEW_RATE_LIMIT, settings.SESSION_NEW_RATE_WINDOW
    )
    verdict = throttle_hit(window, str(user_id))
    if not verdict.allowed:
        raise Throttled(throttled_message(verdict.retry_after), verdict.retry_after)
