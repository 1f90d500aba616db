"""Throttles on the doors of the office: log-ins (the form, the admin and HTTP Basic all go
through this backend), sign-ups, hires and new sessions. Counters live in the cache
(config.throttle); the log-in's fall back on the database when it is unreachable.

A log-in attempt is counted before its password is hashed, atomically, per account and per
address separately: of any number of guesses sent at once, at most the limit are checked.
A browser that has logged in to an account before carries a signed cookie naming it (a
known device): its attempts on that account are counted apart, so guesses from elsewhere,
at that account or across many accounts from one address, never lock its owner out."""

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.core.signing import BadSignature
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext

from config.throttle import Verdict, Window, throttle_hit, throttle_refund
from office.attempts import attempts_recorded

DEVICE_COOKIE = "office_device"
_DEVICE_SALT = "office.auth.known-device"


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


def _login_windows() -> tuple[Window, Window, Window]:
    seconds = settings.LOGIN_FAILURE_WINDOW
    return (
        Window("login-account", settings.LOGIN_FAILURE_LIMIT, seconds),
        Window("login-address", settings.LOGIN_FAILURE_ADDRESS_LIMIT, seconds),
        Window("login-device", settings.LOGIN_FAILURE_LIMIT, seconds),
    )


def _account(username: str) -> str:
    return username.strip().lower()


def known_device(request: HttpRequest | None, username: str) -> str | None:
    """This browser's device id if it has logged in to `username` before, else None."""
    if request is None or not hasattr(request, "get_signed_cookie"):
        return None
    try:
        value = request.get_signed_cookie(
            DEVICE_COOKIE, salt=_DEVICE_SALT, max_age=settings.LOGIN_DEVICE_MAX_AGE
        )
    except (KeyError, BadSignature):
        return None
    account, _, device = str(value).rpartition("|")
    return device if device and account == _account(username) else None


def remember_device(response: HttpResponse, *, request: HttpRequest, username: str) -> None:
    """Mark this browser as a known device of `username` (after a right password)."""
    device = known_device(request, username) or secrets.token_urlsafe(12)
    response.set_signed_cookie(
        DEVICE_COOKIE,
        f"{_account(username)}|{device}",
        salt=_DEVICE_SALT,
        max_age=settings.LOGIN_DEVICE_MAX_AGE,
        httponly=True,
        secure=settings.SESSION_COOKIE_SECURE,
        samesite="Lax",
    )


def login_attempt_allowed(
    *, username: str, address: str, device: str | None = None
) -> tuple[Verdict, list[Verdict]]:
    """Count one log-in attempt before its password is checked: per account and per
    address, or, from a known device, for that device and account alone. The verdict, and
    the charges to give back if the password turns out right."""
    account, by_address, by_device = _login_windows()
    who = _account(username)
    counted = (
        [(by_device, f"{who}|{device}")] if device else [(account, who), (by_address, address)]
    )
    charges: list[Verdict] = []
    for window, key in counted:
        verdict = throttle_hit(window, key, fallback=attempts_recorded)
        if not verdict.allowed:
            for charge in charges:
                throttle_refund(charge)
            return verdict, []
        charges.append(verdict)
    return Verdict(True), charges


class ThrottledModelBackend(ModelBackend):
    """Django's own backend behind the log-in throttle: each attempt is counted first, and
    one over the limit is refused before the password is hashed (so a flood of guesses
    costs the server nothing and tells the guesser nothing)."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        name = username or str(kwargs.get("username") or "")
        verdict, charges = login_attempt_allowed(
            username=name, address=client_address(request), device=known_device(request, name)
        )
        if not verdict.allowed:
            if request is not None:
                request.login_retry_after = verdict.retry_after  # type: ignore[attr-defined]
            raise PermissionDenied  # authenticate() stops at this backend
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            # A right password is not a guess: it leaves the budget as it found it.
            for charge in charges:
                throttle_refund(charge)
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


def hire_allowed(*, user_id: int) -> None:
    """Raises Throttled when the user has made their hires for the window (each hire is
    a row, a channel and a persona in every prompt of it)."""
    window = Window("hire", settings.HIRE_RATE_LIMIT, settings.HIRE_RATE_WINDOW)
    verdict = throttle_hit(window, str(user_id))
    if not verdict.allowed:
        raise Throttled(throttled_message(verdict.retry_after), verdict.retry_after)


def password_reset_allowed(*, address: str) -> None:
    """Raises Throttled when this address has asked for its reset e-mails for the window."""
    window = Window(
        "password-reset", settings.PASSWORD_RESET_RATE_LIMIT, settings.PASSWORD_RESET_RATE_WINDOW
    )
    verdict = throttle_hit(window, address)
    if not verdict.allowed:
        raise Throttled(throttled_message(verdict.retry_after), verdict.retry_after)
