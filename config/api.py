"""The JSON API (/api/), for non-browser clients: the same actions as the WebSocket.
Its OpenAPI schema is at /api/openapi.json and the interactive docs at /api/docs."""

from typing import Any

from django.contrib.auth import authenticate
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from ninja import NinjaAPI
from ninja.security import HttpBasicAuth, SessionAuth

from office.auth import Throttled, login_retry_after, throttled_message


class BasicAuth(HttpBasicAuth):
    """Username and password on each request, for scripts and other servers."""

    def authenticate(self, request: HttpRequest, username: str, password: str) -> Any:
        user = authenticate(request, username=username, password=password)
        if user is not None and user.is_active:
            request.user = user
            return user
        retry_after = login_retry_after(request)
        if retry_after is not None:
            raise Throttled(throttled_message(retry_after), retry_after)
        return None


class BrowserSession(SessionAuth):
    """The browser's login session, with Django's CSRF check. A request without the
    session cookie is not refused here: it may carry Basic credentials instead."""

    def _get_key(self, request: HttpRequest) -> str | None:
        if self.param_name not in request.COOKIES:
            return None
        return super()._get_key(request)


api = NinjaAPI(
    title="Virtual office API",
    version="1",
    description="Instructions, timelines and sessions of a virtual office of AI employees.",
    auth=[BasicAuth(), BrowserSession()],
    urls_namespace="api",
)
api.add_router("/", "missions.api.router")


@api.exception_handler(Throttled)
def throttled(request: HttpRequest, exc: Throttled) -> HttpResponse:
    response = api.create_response(
        request,
        {"code": "rate_limited", "message": exc.message, "retry_after": exc.retry_after},
        status=429,
    )
    response["Retry-After"] = str(exc.retry_after)
    return response


@api.exception_handler(OverflowError)
def id_out_of_range(request: HttpRequest, exc: OverflowError) -> HttpResponse:
    """An id beyond any row's (SQLite cannot even bind it): the same answer as an id that
    names nothing, not a server error."""
    return api.create_response(
        request, {"code": "not_found", "message": gettext("No such object.")}, status=404
    )


api.add_router("/", "memory.api.router")
api.add_router("/", "summaries.api.router")
api.add_router("/", "office.api.router")
