"""Request bodies: what a large unauthenticated POST costs the web server's memory.

For each server and each way of sending, a fresh server process is started on a scratch
SQLite file, and one client POSTs a body of --size-mib MiB of zeros to the log-in page,
unauthenticated, as `head -c 1G /dev/zero | curl -X POST -T - .../accounts/login/` does:

- "length": with a Content-Length header and the body right behind it (no
  "Expect: 100-continue": the client sends without waiting for a go-ahead);
- "chunked": Transfer-Encoding: chunked, in 64 KiB chunks.

The client stops sending when the server answers or closes. Figures: the answer, the bytes
the client got to send, the server's RSS before, its peak (VmHWM) and after. Servers:
"daphne" (the bare `daphne` command, as the office was served before issue 42) and
"office" (`python -m config.serve`, which refuses bodies over MAX_REQUEST_BODY_BYTES where
they are read).

    .venv/bin/python bench/request_body.py                 # 1 GiB, both servers
    .venv/bin/python bench/request_body.py --size-mib 256 --servers office"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402
from bench.harness.sampling import status_kib  # noqa: E402
from bench.report import Table, emit  # noqa: E402

PIECE = 64 * 1024
HEADER: tuple[str, ...] = ("server", "body", "answer", "sent", "client time", "RSS before")
HEADER += ("peak", "RSS after", "peak - before")
SERVERS = {
    "daphne": [str(Path(harness.PYTHON).parent / "daphne")],
    "office": [harness.PYTHON, "-m", "config.serve"],
}


def _alive(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        raise harness.BenchError(f"the server exited with {proc.returncode}")


def post(port: int, *, size: int, chunked: bool) -> tuple[str, int, float]:
    """POST `size` zero bytes; returns the status line, the bytes sent and the seconds."""
    sock = socket.create_connection(("127.0.0.1", port), 10)
    sock.settimeout(300)
    head = [
        "POST /accounts/login/ HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/octet-stream",
        "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}",
    ]
    answer: list[bytes] = []
    answered = threading.Event()

    def read() -> None:
        with contextlib.suppress(OSError):
            while data := sock.recv(65536):
                answer.append(data)
                if b"\r\n" in b"".join(answer):
                    answered.set()
        answered.set()

    reader = threading.Thread(target=read, daemon=True)
    started = time.monotonic()
    sent = 0
    piece = bytes(PIECE)
    try:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        reader.start()
        while sent < size and not answered.is_set():
            chunk = piece[: min(PIECE, size - sent)]
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            sent += len(chunk)
        if chunked and not answered.is_set():
            sock.sendall(b"0\r\n\r\n")
    except OSError:
        pass  # the server closed: what it answered is read below
    answered.wait(600)
    elapsed = time.monotonic() - started
    sock.close()
    status = b"".join(answer).split(b"\r\n", 1)[0].decode(errors="replace") or "(no answer)"
    return status, sent, elapsed


def measure(server: str, *, size: int, chunked: bool, database: str) -> tuple[str, ...]:
    port = harness.free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{database}",
        "LOG_LEVEL": "warning",
    }
    argv = [*SERVERS[server], "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"]
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        harness.wait_healthy(port, lambda: _alive(proc), 180)
        time.sleep(1)
        before = status_kib(proc.pid)[1]
        status, sent, elapsed = post(port, size=size, chunked=chunked)
        time.sleep(2)
        peak, after = status_kib(proc.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    body = "chunked" if chunked else "length"
    harness.log(f"{server} {body}: {status}, {sent / 2**20:,.1f} MiB sent")
    return (
        server,
        "chunked" if chunked else "Content-Length",
        status.removeprefix("HTTP/1.1 "),
        f"{sent / 2**20:,.1f} MiB",
        f"{elapsed:.2f} s",
        *(f"{kib / 1024:,.0f} MiB" for kib in (before, peak, after)),
        f"{(peak - before) / 1024:+,.0f} MiB",
    )


def main(argv: list[str] | None = None) -> int:
    parser = harness.benchmark_parser(__doc__)
    parser.add_argument("--size-mib", type=int, default=1024, help="the body's size")
    parser.add_argument("--servers", default="daphne,office", help="daphne, office or both")
    parser.add_argument(
        "--no-record", action="store_true", help="do not append the figures to docs/benchmarks.md"
    )
    args = parser.parse_args(argv)
    size = args.size_mib * 2**20
    rows: list[tuple[str, ...]] = [HEADER]
    with tempfile.TemporaryDirectory(prefix="request-body-") as scratch:
        database = str(Path(scratch) / "db.sqlite3")
        subprocess.run(
            [harness.PYTHON, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": f"sqlite:///{database}"},
            check=True,
            capture_output=True,
        )
        for server in [s.strip() for s in args.servers.split(",") if s.strip()]:
            for chunked in (False, True):
                rows.append(measure(server, size=size, chunked=chunked, database=database))
    title = f"A {args.size_mib:,} MiB unauthenticated POST to /accounts/login/"
    emit(
        f"request_body.py ({args.size_mib:,} MiB)", [Table(title, rows)], record=not args.no_record
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
