"""Typed readers of environment variables that fail loudly, naming the variable.

A bad value stops start-up with one clear line instead of surfacing later as a
confusing error deep inside a request.
"""

import hashlib
import os
import re
import secrets
from pathlib import Path
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class EnvError(ImproperlyConfigured):
    pass


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None else value.strip()


def env_str(name: str, default: str = "") -> str:
    value = _raw(name)
    return default if value is None or value == "" else value


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise EnvError(f"{name} must be a boolean (1/0, true/false, yes/no, on/off), got {value!r}")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise EnvError(f"{name} must be a whole number, got {value!r}") from None
    if number < minimum:
        raise EnvError(f"{name} must be at least {minimum}, got {number}")
    return number


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except ValueError:
        raise EnvError(f"{name} must be a number, got {value!r}") from None
    if number < minimum:
        raise EnvError(f"{name} must be at least {minimum}, got {number}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None or value == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env_str(name, default).lower()
    if value not in choices:
        raise EnvError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def env_url(name: str, schemes: tuple[str, ...]) -> str:
    """A URL with one of the given schemes, or "" when unset."""
    value = env_str(name)
    if not value:
        return ""
    parsed = urlparse(value)
    if parsed.scheme not in schemes:
        raise EnvError(
            f"{name} must be a URL starting with {' or '.join(s + '://' for s in schemes)}, "
            f"got {value.split('://')[0]!r} scheme"
        )
    if parsed.scheme not in ("sqlite",) and not parsed.hostname:
        raise EnvError(f"{name} has no host: {value!r}")
    return value


def env_path(name: str, default: Path) -> Path:
    value = _raw(name)
    return Path(value).expanduser() if value else default


def secret_key_file(path: Path) -> str:
    """This install's own secret key, made on first run and kept in `path` (readable by
    its owner only); every later start reads the same key, so sessions survive restarts."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_text().strip()
        if len(key) < 50:
            raise EnvError(
                f"{path} holds no usable secret key; delete it to make a new one"
            ) from None
        return key
    key = secrets.token_urlsafe(50)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key + "\n")
    return key


# What a Redis key, a pub/sub channel and a channel-layer name can all carry.
_PREFIX = re.compile(r"[A-Za-z0-9_.-]{1,40}")


def env_redis_prefix(name: str, *, secret_key: str) -> str:
    """The prefix of everything one deployment keeps in Redis or publishes there.

    Redis publish/subscribe ignores database numbers, so two deployments on one server
    (even on distinct databases) hear each other's events unless their names differ. The
    default is derived from SECRET_KEY: every process of a deployment has the same one
    (its sessions and signed links depend on it), and two deployments must not (else one's
    signed links would open the other). A one-way hash, so the key is not readable in
    Redis. Set it to keep the prefix across a change of SECRET_KEY."""
    value = env_str(name)
    if not value:
        digest = hashlib.sha256(f"office redis prefix\0{secret_key}".encode()).hexdigest()
        return f"office-{digest[:12]}"
    if not _PREFIX.fullmatch(value):
        raise EnvError(f"{name} must be 1 to 40 letters, digits, '_', '.' or '-', got {value!r}")
    return value


# A secret key is judged by how many guesses zxcvbn (Dropbox's estimator: dictionaries,
# keyboard walks, repeats, sequences, dates) says finding it would take. A random key of n
# characters scores about 10^n: zxcvbn counts at most 10 guesses a character. A key must
# be 50 characters (Django's own W009), score 10^40 (about 133 bits), and look random
# throughout: score at least 85 % of what a random key of its length does. Measured: keys
# of Django's, secrets.token_urlsafe's and token_hex's generators score 94 to 100 % of it
# (the least of 800 token_hex(32) keys: 89 %); English sentences of 50 to 60 characters 68 to 80 %,
# repeats under 15 %.
SECRET_KEY_MIN_CHARS = 50
SECRET_KEY_MIN_GUESSES_LOG10 = 40.0
SECRET_KEY_MIN_RANDOMNESS = 0.85
_ZXCVBN_READS = 72


def secret_key_problem(key: str) -> str | None:
    """Why `key` is too weak to sign a production deployment's sessions and links, in one
    line naming SECRET_KEY; None when it is strong."""
    how = "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
    if not all("!" <= c <= "~" for c in key):
        # What every generator makes. zxcvbn knows English words only: Hangul or another
        # script would be judged as random characters, and spaces mean a phrase.
        return f"SECRET_KEY must be printable ASCII without spaces in production; {how}"
    if len(key) < SECRET_KEY_MIN_CHARS or key.startswith("django-insecure-"):
        return (
            f"SECRET_KEY must be at least {SECRET_KEY_MIN_CHARS} random characters in "
            f"production; {how}"
        )
    from zxcvbn import zxcvbn  # only production judges its key: ~0.2 s, once

    # zxcvbn refuses longer input (its cost grows faster than the length): the first 72
    # characters are judged, and must be strong on their own.
    guesses = float(zxcvbn(key[:_ZXCVBN_READS])["guesses_log10"])
    randomness = guesses / min(len(key), _ZXCVBN_READS)
    if guesses < SECRET_KEY_MIN_GUESSES_LOG10 or randomness < SECRET_KEY_MIN_RANDOMNESS:
        return (
            f"SECRET_KEY is too easy to guess for production (about 10^{guesses:.0f} guesses, "
            f"{guesses * 3.32:.0f} bits: words, repeats or patterns); {how}"
        )
    return None
