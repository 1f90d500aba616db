"""A cap on HTTP request bodies at the ASGI edge, before Django reads them.

Django's ASGI handler spools a whole body to memory and disk before any view runs, and
DATA_UPLOAD_MAX_MEMORY_SIZE is checked only afterwards. Here a declared Content-Length
over the cap is answered 413 without reading a byte of what the server hands on, and a
body without one (chunked) is counted as it arrives and cut off at the cap. A body within
the cap is handed on as it came.

Under Daphne this comes too late on its own: Daphne hands the application a request only
once Twisted has read its whole body, and then queues all of it at once (a 1 GiB POST took
the process to 1.4 GiB). The office's server, `python -m config.serve`, refuses there, as
the bytes arrive; this cap is what holds under any other ASGI server."""

import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
# Django's handler and Channels' routers type their arguments each their own way.
App = Callable[..., Awaitable[None]]

TOO_LARGE = b"Request body too large."

# The one address whose bodies may be larger: a file upload (missions.api.upload).
UPLOAD_PATH = re.compile(r"/api/channels/[0-9]+/attachments/?")
# Room for the multipart form around the file.
UPLOAD_OVERHEAD_BYTES = 64 * 1024


def body_cap(path: str, *, default: int) -> int:
    """The largest body a request to `path` may send: `default`, or for an upload the
    largest file (ATTACHMENT_MAX_BYTES) and its form, whichever is larger."""
    if UPLOAD_PATH.fullmatch(path):
        from django.conf import settings

        return max(default, int(settings.ATTACHMENT_MAX_BYTES) + UPLOAD_OVERHEAD_BYTES)
    return default


class BodyLimit:
    def __init__(self, app: App, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = body_cap(scope.get("path", ""), default=self.max_bytes)
        declared = _content_length(scope)
        if declared is not None and declared > cap:
            await _refuse(send)
            return
        # Read the body here, counting, then replay it: nothing past the cap is kept.
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break  # the client went away: Django sees it too
            size += len(message.get("body", b""))
            if size > cap:
                await _refuse(send)
                return
            if not message.get("more_body", False):
                break
        pending = iter(messages)

        async def replay() -> Message:
            for message in pending:
                return message
            return await receive()

        await self.app(scope, replay, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(TOO_LARGE)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": TOO_LARGE})
