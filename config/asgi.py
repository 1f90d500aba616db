import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402
from django.core.exceptions import SuspiciousFileOperation  # noqa: E402
from django.http import FileResponse, Http404, HttpRequest, HttpResponse  # noqa: E402

from config.bodylimit import BodyLimit  # noqa: E402
from config.celery import start_embedded_beat  # noqa: E402
from config.cpu import pin_once_serving  # noqa: E402
from config.origins import SameOriginValidator  # noqa: E402
from config.textguard import SocketTextGuard  # noqa: E402
from realtime.routing import websocket_urlpatterns  # noqa: E402


class StaticFiles(ASGIStaticFilesHandler):
    """Django's static files under Daphne; a path that climbs out of the static folders
    (/static/%2e%2e/…) is a plain 404, not a server error."""

    def serve(self, request: HttpRequest) -> HttpResponse | FileResponse:
        try:
            return super().serve(request)
        except SuspiciousFileOperation:
            raise Http404("No such file.") from None


start_embedded_beat()
# What the first missions need (the Korean analyser, the model client, ...) is loaded by
# the server once it listens (config/serve.py, config/warmup.py), not on import.
http_app = StaticFiles(django_asgi_app) if settings.SERVE_STATIC else django_asgi_app

application = ProtocolTypeRouter(
    {
        "http": BodyLimit(http_app, max_bytes=settings.MAX_REQUEST_BODY_BYTES),
        "websocket": AllowedHostsOriginValidator(
            SameOriginValidator(
                SocketTextGuard(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
            )
        ),
    }
)
# One interpreter runs one thread at a time: its threads hand the lock over in place, once
# the server runs (never on import: whoever imports this would be pinned, with all it starts).
pin_once_serving()
