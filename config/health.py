"""/healthz: is each thing this process depends on reachable right now, and has the
process loaded what its first missions need (config/warmup.py)?"""

import asyncio
import uuid
from collections.abc import Callable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from config import warmup
from config.celery import app


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


async def _roundtrip_channel_layer() -> None:
    layer = get_channel_layer()
    assert layer is not None, "no channel layer configured"
    channel = await layer.new_channel("healthz.")
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "healthz", "token": token})
    message = await asyncio.wait_for(layer.receive(channel), timeout=2)
    assert message["token"] == token, "channel layer returned another message"


def _channel_layer() -> str:
    async_to_sync(_roundtrip_channel_layer)()
    backend = str(settings.CHANNEL_LAYERS["default"]["BACKEND"])
    return backend.rsplit(".", 1)[-1]


def _broker() -> str:
    if settings.TASK_RUNNER != "celery":
        return f"in-process ({settings.TASK_RUNNER})"
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return "redis"


def _probe(check: Callable[[], str]) -> dict[str, object]:
    try:
        return {"ok": True, "detail": check()}
    except Exception as exc:
        return {"ok": False, "detail": f"{type(exc).__name__}: {exc}"[:300]}


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {
        "database": _probe(_database),
        "channel_layer": _probe(_channel_layer),
        "broker": _probe(_broker),
    }
    warm_up, error = warmup.status()
    ready = warmup.ready()
    healthy = ready and all(c["ok"] for c in checks.values())
    body: dict[str, object] = {"ok": healthy, "ready": ready, "warm_up": warm_up, "checks": checks}
    if not getattr(request.user, "is_superuser", False):
        # Error strings name hosts, ports and versions: for operators only (an office's
        # owner is staff of their office's admin, not an operator).
        body["checks"] = {name: {"ok": check["ok"]} for name, check in checks.items()}
    elif error:
        body["warm_up_error"] = error
    return JsonResponse(body, status=200 if healthy else 503)
