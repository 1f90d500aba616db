"""The web server: Daphne, with a cap on request bodies where they are read, and the
process warmed up once it listens.

    python -m config.serve -b 127.0.0.1 -p 8000 config.asgi:application

It takes every option of the `daphne` command (`--websocket_connect_timeout 20`, ...). What it adds:

- **Request bodies.** Twisted reads a request's whole body (to memory, or to a temporary
  file past 100 kB) before Daphne hands the request to the application, and Daphne then
  queues all of it for the application at once: a 1 GiB POST to the log-in page took the
  process from 360 to 1,408 MiB before the application's own cap (config/bodylimit.py)
  could answer. Here a request whose Content-Length is over `MAX_REQUEST_BODY_BYTES` is
  answered 413 as soon as its headers are in, before a byte of its body is read (and the
  client is never told "100 Continue"), and a chunked body is counted as it arrives and
  cut off at the cap. Whatever the client sends after that is read and dropped, for a
  short while, so that it reads the 413 rather than a reset connection; then the
  connection is closed.
- **Warm-up.** Once the server listens, `config.warmup` loads what the first missions
  need on a thread of its own; `/healthz` answers 503 (`"ready": false`) until it is done.
"""

# Daphne's server module installs the asyncio reactor: it must come before anything that
# imports Twisted's reactor.
import daphne.server  # isort: skip

import logging
import os
from typing import Any, cast

from daphne.cli import CommandLineInterface as DaphneCommandLine
from daphne.http_protocol import HTTPFactory, WebRequest
from django.conf import settings
from twisted.internet import reactor
from twisted.internet.base import DelayedCall

from config import warmup
from config.bodylimit import TOO_LARGE, body_cap

# Named, not __name__: run as `python -m config.serve` the module is "__main__".
logger = logging.getLogger("config.serve")

# How long the rest of a refused body is read and dropped before the connection is cut:
# long enough for a client on a slow link to read the 413, short enough that a client that
# keeps sending costs nothing but that time.
LINGER_SECONDS = 2.0

REFUSAL = (
    b"HTTP/1.1 413 Content Too Large\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: " + str(len(TOO_LARGE)).encode() + b"\r\n"
    b"Connection: close\r\n"
    b"\r\n" + TOO_LARGE
)


def _discard(data: bytes) -> None:
    return None


class CappedRequest(WebRequest):
    """Daphne's request, refused with 413 once its body is known to pass the cap."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_body_bytes: int = self.server.max_request_body_bytes
        self.body_received = 0
        self.refused = False
        self._linger: DelayedCall | None = None

    def gotLength(self, length: int | None) -> None:
        # The request line is in (Twisted's channel keeps its path): an upload's cap.
        path = getattr(self.channel, "_path", b"") or b""
        self.max_body_bytes = body_cap(
            path.split(b"?", 1)[0].decode("latin-1"), default=self.max_body_bytes
        )
        if length is not None and length > self.max_body_bytes:
            # Twisted answers "Expect: 100-continue" right after this call; this request
            # has its answer already, and the client must not be told to send the body.
            self.requestHeaders.removeHeader(b"Expect")
            super().gotLength(0)  # an empty in-memory file: nothing will be written to it
            self._refuse(f"{length} bytes declared")
            return
        super().gotLength(length)

    def handleContentChunk(self, data: bytes) -> None:
        if self.refused:
            return
        self.body_received += len(data)
        if self.body_received > self.max_body_bytes:
            self._refuse(f"over {self.max_body_bytes} bytes sent")
            return
        super().handleContentChunk(data)

    def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
        # A refused body may still end inside the data already being parsed.
        if not self.refused:
            super().requestReceived(command, path, version)

    def connectionLost(self, reason: Any) -> None:
        if self._linger is not None and self._linger.active():
            self._linger.cancel()
        super().connectionLost(reason)

    def _refuse(self, why: str) -> None:
        self.refused = True
        channel = self.channel
        transport = channel.transport
        peer = transport.getPeer()
        logger.info(
            "413 to %s: request body too large (%s; MAX_REQUEST_BODY_BYTES=%s)",
            getattr(peer, "host", peer),
            why,
            self.max_body_bytes,
        )
        # From now on whatever this client sends is dropped as it is read (Twisted stops
        # parsing a connection the same way once it will not be kept alive).
        channel.dataReceived = channel.lineReceived = channel.rawDataReceived = _discard
        transport.write(REFUSAL)
        if hasattr(transport, "loseWriteConnection"):
            # Half-close: the client gets the answer and the end of the stream, while its
            # body is still read. Closing at once, with its bytes unread, would make the
            # kernel reset the connection, and a client may then lose the answer.
            transport.loseWriteConnection()
            # (Twisted's interfaces type the reactor's methods without `self`.)
            self._linger = cast(Any, reactor).callLater(LINGER_SECONDS, transport.abortConnection)
        else:
            transport.loseConnection()


class CappedHTTPFactory(HTTPFactory):
    def buildProtocol(self, addr: Any) -> Any:
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = CappedRequest
        return protocol


class Server(daphne.server.Server):
    """Daphne's server with `CappedHTTPFactory`, warming the process up once it listens."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("ready_callable", warmup.start)
        super().__init__(*args, **kwargs)
        self.max_request_body_bytes = int(settings.MAX_REQUEST_BODY_BYTES)
        # /healthz says "not ready" from the first request on, not only once warming starts.
        warmup.expect()

    # Daphne's run() makes its HTTP factory and hands it to the listeners in the same
    # method: the factory it stores here is replaced by one that builds capped requests.
    @property
    def http_factory(self) -> HTTPFactory:
        return self._http_factory

    @http_factory.setter
    def http_factory(self, factory: HTTPFactory) -> None:
        self._http_factory = CappedHTTPFactory(self)


class CommandLineInterface(DaphneCommandLine):
    description = (
        "The office's web server: Daphne (same options), refusing request bodies over "
        "MAX_REQUEST_BODY_BYTES before reading them, and warming up before /healthz says ready"
    )
    server_class = Server


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
