"""The JSON API (/api/), for non-browser clients: the same actions as the WebSocket.
Its OpenAPI schema is at /api/openapi.json and the interactive docs at /api/docs."""

from typing import Any

from django.contrib.auth import authenticate
from django.http import HttpRequest
from ninja import NinjaAPI
from ninja.security import HttpBasicAuth, django_auth


class BasicAuth(HttpBasicAuth):
    """Username and password on each request, for scripts and other servers."""

    def authenticate(self, request: HttpRequest, username: str, password: str) -> Any:
        user = authenticate(request, username=username, password=password)
        if user is not None and user.is_active:
            request.user = user
            return user
        return None


api = NinjaAPI(
    title="Virtual office API",
    version="1",
    description="Instructions, timelines and sessions of a virtual office of AI employees.",
    auth=[django_auth, BasicAuth()],
    urls_namespace="api",
)
api.add_router("/", "missions.api.router")
api.add_router("/", "memory.api.router")
