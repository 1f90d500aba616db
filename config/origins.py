"""WebSocket origins matched in full: scheme, host and port.

Channels' AllowedHostsOriginValidator compares the Origin's host name with ALLOWED_HOSTS
only, so a page served from another port of the same host (http://127.0.0.1:9999, any
local program) could open sockets with the person's cookies. A socket is accepted here
when its Origin is the origin the browser addressed this server by (its Host header, with
the scheme of the connection) or one of CSRF_TRUSTED_ORIGINS."""

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings

DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_key(origin: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def _headers(scope: dict[str, Any]) -> dict[bytes, bytes]:
    return {name.lower(): value for name, value in scope.get("headers", [])}


def _connection_scheme(scope: dict[str, Any], headers: dict[bytes, bytes]) -> str:
    if scope.get("scheme") in ("wss", "https"):
        return "https"
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    forwarded = headers.get(b"x-forwarded-proto", b"").decode("latin-1").lower()
    return "https" if proxy and forwarded == "https" else "http"


def origin_allowed(scope: dict[str, Any]) -> bool:
    headers = _headers(scope)
    origin = _origin_key(headers.get(b"origin", b"").decode("latin-1"))
    host = headers.get(b"host", b"").decode("latin-1")
    if origin is None or not host:
        return False
    own = _origin_key(f"{_connection_scheme(scope, headers)}://{host}")
    trusted = {_origin_key(o) for o in settings.CSRF_TRUSTED_ORIGINS}
    return origin == own or origin in trusted


class SameOriginValidator:
    """Refuses (403 at the handshake) a WebSocket from any other origin."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
