"""Throttles on the doors of the office: log-ins (the form, the admin and HTTP Basic all go
through this backend), the password-change form, sign-ups, hires, projects, memory items,
new sessions and password resets. Counters live in the cache (config.throttle); the
log-in's fall back on the database when it is unreachable.

The log-in throttle punishes the source that fails, not the owner. A log-in attempt is
counted before its password is hashed, atomically, so of any number of guesses sent at
once at most the limit are checked. Each attempt comes from a source: this browser, if it
carries a signed cookie saying it logged in to the account before (a known device), else
the requesting address. Every source has a small budget of its own per account
(LOGIN_FAILURE_SOURCE_LIMIT). A source the account has logged in from before — a known
device, or an address a right password came from within LOGIN_DEVICE_MAX_AGE (how an API
client with no cookies is recognised) — is held to that budget alone. Any other source
also spends the account's budget for unknown sources (LOGIN_FAILURE_LIMIT) and its
address's budget across accounts (LOGIN_FAILURE_ADDRESS_LIMIT).

So guesses from anywhere at an account (even ten every window, for ever) keep out only
sources it has never logged in from: the owner's browsers, the owner's network and the
owner's API client still get in with the right password. A known source that keeps
failing (a stolen laptop, a script with an old password, a guesser behind the owner's
NAT) stops itself after LOGIN_FAILURE_SOURCE_LIMIT, and nobody else. What a password
check cannot do is tell the owner at a brand-new address from a guesser there: while the
account is under attack that one waits for the window (or resets the password by e-mail).
A right password gives back what its attempt was charged."""

import logging
import secrets
import unicodedata
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.core.signing import BadSignature
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext

from config.throttle import Verdict, Window, cache_key, throttle_hit, throttle_refund
from office.attempts import attempts_recorded

logger = logging.getLogger(__name__)

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
        Window("login-source", settings.LOGIN_FAILURE_SOURCE_LIMIT, seconds),
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


def _known_address_key(account: str, address: str) -> str:
    return cache_key("login-known", account, address)


def address_known(*, username: str, address: str) -> bool:
    """Whether a right password for `username` came from `address` within
    LOGIN_DEVICE_MAX_AGE (an unreachable cache knows no address)."""
    try:
        return bool(cache.get(_known_address_key(_account(username), address)))
    except Exception as exc:
        logger.warning("log-in throttle: cache unreachable (%s); address taken as unknown", exc)
        return False


def remember_address(*, username: str, address: str) -> None:
    """Mark `address` as one `username` logged in from (after a right password)."""
    try:
        cache.set(
            _known_address_key(_account(username), address),
            1,
            timeout=settings.LOGIN_DEVICE_MAX_AGE,
        )
    except Exception as exc:
        logger.info("log-in throttle: could not remember an address (%s)", exc)


def login_attempt_allowed(
    *, username: str, address: str, device: str | None = None
) -> tuple[Verdict, list[Verdict]]:
    """Count one log-in attempt before its password is checked: against its source's own
    budget for the account and, from a source the account has never logged in from, the
    account's budget for unknown sources and the address's across accounts. The verdict,
    and the charges to give back if the password turns out right."""
    account, by_address, by_source = _login_windows()
    who = _account(username)
    source = f"device:{device}" if device else f"address:{address}"
    # The stricter, source's own budget first: a failing source stops there and spends
    # nothing of the account's.
    counted = [(by_source, f"{who}|{source}")]
    if not device and not address_known(username=who, address=address):
        counted += [(account, who), (by_address, address)]
    charges: list[Verdict] = []
    for window, key in counted:
        verdict = throttle_hit(window, key, fallback=attempts_recorded)
        if not verdict.allowed:
            for charge in charges:
                throttle_refund(charge)
            return verdict, []
        charges.append(verdict)
    return Verdict(True), charges


def login_attempt_allowed_for(
    request: HttpRequest | None, username: str
) -> tuple[Verdict, list[Verdict]]:
    """`login_attempt_allowed` for a request: its known device, else its address."""
    return login_attempt_allowed(
        username=username, address=client_address(request), device=known_device(request, username)
    )


def login_attempt_succeeded(
    request: HttpRequest | None, username: str, charges: list[Verdict]
) -> None:
    """A right password is not a guess: it leaves the budgets as it found them, and its
    address is one the account logs in from (an API client carries no device cookie)."""
    for charge in charges:
        throttle_refund(charge)
    if request is not None:
        remember_address(username=username, address=client_address(request))


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
        verdict, charges = login_attempt_allowed_for(request, name)
        if not verdict.allowed:
            if request is not None:
                request.login_retry_after = verdict.retry_after  # type: ignore[attr-defined]
            raise PermissionDenied  # authenticate() stops at this backend
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            login_attempt_succeeded(request, name, charges)
        return user


def login_retry_after(request: HttpRequest) -> int | None:
    """Set on the request when the log-in throttle refused it."""
    return getattr(request, "login_retry_after", None)


def throttled_message(retry_after: int) -> str:
    if retry_after >= 60:
        minutes = max(1, round(retry_after / 60))
        return gettext("Too many attempts; try again in %(minutes)d min.") % {"minutes": minutes}
    return gettext("Too many attempts; try again in %(seconds)d s.") % {"seconds": retry_after}


def _allowed(window: Window, who: str) -> None:
    verdict = throttle_hit(window, who)
    if not verdict.allowed:
        raise Throttled(throttled_message(verdict.retry_after), verdict.retry_after)


def signup_allowed(*, address: str) -> None:
    """Raises Throttled when this address has made its sign-ups for the window."""
    _allowed(Window("signup", settings.SIGNUP_RATE_LIMIT, settings.SIGNUP_RATE_WINDOW), address)


def session_new_allowed(*, user_id: int) -> None:
    """Raises Throttled when the user has started their new sessions for the window."""
    window = Window(
        "session-new", settings.SESSION_NEW_RATE_LIMIT, settings.SESSION_NEW_RATE_WINDOW
    )
    _allowed(window, str(user_id))


def hire_allowed(*, user_id: int) -> None:
    """Raises Throttled when the user has made their hires for the window (each hire is
    a row, a channel and a persona in every prompt of it)."""
    _allowed(Window("hire", settings.HIRE_RATE_LIMIT, settings.HIRE_RATE_WINDOW), str(user_id))


def project_allowed(*, user_id: int) -> None:
    """Raises Throttled when the user has opened their projects for the window (each is a
    channel, with a session, named in the prompts of its members)."""
    window = Window("project", settings.PROJECT_RATE_LIMIT, settings.PROJECT_RATE_WINDOW)
    _allowed(window, str(user_id))


def invite_allowed(*, user_id: int) -> None:
    """Raises Throttled when the owner has made their invitations for the window."""
    _allowed(
        Window("invite", settings.INVITE_RATE_LIMIT, settings.INVITE_RATE_WINDOW), str(user_id)
    )


def memory_write_allowed(*, user_id: int) -> None:
    """Raises Throttled when the user has written their memory items for the window (each
    is a row that memory search, and possibly every prompt of its scope, reads)."""
    _allowed(
        Window("memory", settings.MEMORY_RATE_LIMIT, settings.MEMORY_RATE_WINDOW), str(user_id)
    )


def _recipient(email: str) -> str:
    """One inbox however its address is typed (Django matches it case-insensitively)."""
    return unicodedata.normalize("NFKC", email).strip().casefold()


def password_reset_allowed(*, address: str, email: str) -> None:
    """Raises Throttled when this address has asked for its reset e-mails for the window,
    or when this inbox has been sent its own, whatever addresses asked (an attacker with
    many addresses would otherwise fill one person's inbox). Counted whether or not an
    account has that e-mail: the answer tells nobody which e-mails exist."""
    seconds = settings.PASSWORD_RESET_RATE_WINDOW
    _allowed(Window("password-reset", settings.PASSWORD_RESET_RATE_LIMIT, seconds), address)
    window = Window("password-reset-recipient", settings.PASSWORD_RESET_RECIPIENT_LIMIT, seconds)
    _allowed(window, _recipient(email))
