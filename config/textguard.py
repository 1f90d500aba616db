"""Control characters in the request itself, refused with a 400 before anything reads it.

Forms, the JSON API's bodies and the socket's frames check their own text fields
(language.storable). What no field checks is checked here: the address (path and query),
the cookies (a NUL in the session cookie reached PostgreSQL, a 500) and HTTP Basic
credentials (a NUL in the user name did too, unauthenticated)."""

import base64
import binascii
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from channels.security.websocket import WebsocketDenier
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.cookie import parse_cookie
from django.utils.translation import gettext_noop

from language.storable import BAD_TEXT, text_problem


def request_text_problem(request: HttpRequest) -> str | None:
    """Why the request's address, cookies or credentials cannot be accepted; None if they
    can."""
    address = [request.path, *request.GET.keys()]
    address += [value for values in request.GET.lists() for value in values[1]]
    for value in address:
        problem = text_problem(value, what=gettext_noop("The address"))
        if problem:
            return problem
    for value in (text for cookie in request.COOKIES.items() for text in cookie):
        problem = text_problem(_as_sent(value), what=gettext_noop("A cookie"))
        if problem:
            return problem
    credentials = _basic_credentials(request)
    if credentials is not None:
        return text_problem(credentials, what=gettext_noop("The user name or password"))
    return None


def _as_sent(header_text: str) -> str:
    """A cookie's text as the browser wrote it. Headers reach Django decoded as Latin-1, so
    UTF-8 text (a sibling site's Korean cookie) would read as C1 control characters."""
    try:
        return header_text.encode("latin-1").decode("utf-8", "replace")
    except UnicodeEncodeError:  # not from a header: already text
        return header_text


def _basic_credentials(request: HttpRequest) -> str | None:
    scheme, _, encoded = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        return base64.b64decode(encoded.strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None  # not credentials at all: the API refuses them as such


class TextGuardMiddleware:
    """After LocaleMiddleware (the refusal is said in the person's language) and before
    anything reads the session or the credentials."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = request_text_problem(request)
        if problem is None:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return JsonResponse({"code": BAD_TEXT, "message": problem}, status=400)
        return HttpResponse(problem, status=400, content_type="text/plain; charset=utf-8")


class SocketTextGuard:
    """The same rule for a socket's handshake (its path, query and cookies), before the
    session is looked up: a handshake that breaks it is denied (403), as one from a
    foreign origin is."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and _handshake_problem(scope):
            denier = WebsocketDenier()
            return await denier(scope, receive, send)
        return await self.app(scope, receive, send)


def _handshake_problem(scope: Any) -> bool:
    query = scope.get("query_string", b"").decode("utf-8", "replace")
    texts = [scope.get("path", ""), *(t for pair in parse_qsl(query) for t in pair)]
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            cookies = parse_cookie(value.decode("latin-1"))
            texts += [_as_sent(t) for cookie in cookies.items() for t in cookie]
    return any(text_problem(text) for text in texts)
