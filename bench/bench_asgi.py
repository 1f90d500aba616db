"""The office's ASGI application as the benchmarks serve it.

It is `config.asgi.application` itself (every WebSocket and page goes straight to it: the
wrapper looks at the path once per connection, never at a frame), plus two HTTP endpoints
under /__bench__/ that only the benchmark harness calls, from 127.0.0.1 and with the
token it put in BENCH_HOOK_TOKEN (without a token the endpoints do not exist):

- GET  /__bench__/pending  tasks the embedded runner's lanes have not finished (the way
  to know, from outside the web process, that background work has drained);
- GET  /__bench__/threads  this process's threads, {"threads": {native id: name}} (the
  harness reads each thread's CPU from the kernel and needs to know which is which);
- POST /__bench__/queue    {"task": name, "args": [[...], ...]}: queue the task once per
  argument list with `config.celery.queue_task`, exactly as a service does (the thread
  lanes in the embedded runtime, the broker with Celery).

Served by Daphne as `bench.bench_asgi:application` (bench/harness/ does that).
"""

from __future__ import annotations

import hmac
import json
import os
import threading
from typing import Any

from asgiref.sync import sync_to_async

from config.asgi import application as office_application

PREFIX = "/__bench__/"
TOKEN = os.environ.get("BENCH_HOOK_TOKEN", "")
LOOPBACK = {"127.0.0.1", "::1"}
MAX_BODY = 1 << 20


def _pending() -> int:
    from config import celery

    lanes = celery._lanes
    with lanes._lock:
        return len(lanes._pending)


def _queue(task: str, arg_lists: list[list[Any]]) -> int:
    from config.celery import queue_task

    for args in arg_lists:
        queue_task(task, *args)
    return len(arg_lists)


async def _read_body(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        body += message.get("body", b"")
        if len(body) > MAX_BODY or not message.get("more_body"):
            break
    return body


async def _respond(send: Any, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


async def _hook(scope: dict[str, Any], receive: Any, send: Any) -> None:
    headers = dict(scope.get("headers") or [])
    given = headers.get(b"x-bench-token", b"").decode("latin-1")
    client = (scope.get("client") or ("", 0))[0]
    if not TOKEN or client not in LOOPBACK or not hmac.compare_digest(given, TOKEN):
        await _respond(send, 404, {"error": "not found"})
        return
    path = scope["path"][len(PREFIX) :]
    try:
        if path == "pending" and scope["method"] == "GET":
            pending = await sync_to_async(_pending, thread_sensitive=False)()
            await _respond(send, 200, {"pending": pending})
        elif path == "threads" and scope["method"] == "GET":
            names = {str(t.native_id): t.name for t in threading.enumerate()}
            await _respond(send, 200, {"threads": names})
        elif path == "queue" and scope["method"] == "POST":
            request = json.loads(await _read_body(receive))
            task, arg_lists = str(request["task"]), list(request["args"])
            queued = await sync_to_async(_queue, thread_sensitive=False)(task, arg_lists)
            await _respond(send, 200, {"queued": queued})
        else:
            await _respond(send, 404, {"error": "not found"})
    except Exception as exc:
        await _respond(send, 500, {"error": f"{type(exc).__name__}: {exc}"[:500]})


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if TOKEN and scope["type"] == "http" and scope["path"].startswith(PREFIX):
        await _hook(scope, receive, send)
        return
    await office_application(scope, receive, send)
