"""What a benchmark run is made of: its configuration, its users, its processes, and
the errors and log lines of the harness."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The project's own virtualenv, else the one running the benchmark (a checkout without
# .venv): celery and daphne are taken from beside its python.
VENV_BIN = ROOT / ".venv" / "bin"
if not (VENV_BIN / "python").exists():
    VENV_BIN = Path(sys.executable).parent
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/postgres"
CLIENT_ID_PREFIX = "bench-"
SAMPLE_INTERVAL = 0.25
POOLS = ("threads", "prefork", "solo")
HOOK_PREFIX = "/__bench__/"
QUEUES = ("replies", "background")

# Settings of the servers that every run sets itself, from its options, so that a run is
# what its options say: a value left in the environment does not reach the servers.
SET_BY_THE_BENCHMARK = {
    "DATABASE_POOL_MAX": "--replies-pool-max for a replies worker; the default elsewhere",
    "REPLY_CONCURRENCY": "--concurrency for a replies worker; 64 threads embedded",
    "BACKGROUND_CONCURRENCY": "--background-concurrency for a background worker; 2 embedded",
    "REPLY_CPU_SLOTS": "--reply-cpu-slots",
    "FOLD_BATCH": "per scenario",
}


def ignored_settings(environ: Mapping[str, str]) -> list[str]:
    """The settings in `environ` that a run would drop without a word."""
    return [name for name in SET_BY_THE_BENCHMARK if environ.get(name)]


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class BenchError(Exception):
    """A step of the harness failed; the message says which and where its log is."""


def local_opener() -> urllib.request.OpenerDirector:
    """A urllib opener that never goes through a proxy (every server here is local)."""
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def wait_healthy(port: int, check_alive: Callable[[], None], timeout: float) -> None:
    """Until the server on `port` answers /healthz with 200 (it has warmed up);
    `check_alive` raises when the server's process has died."""
    opener = local_opener()
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        check_alive()
        try:
            with opener.open(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
                if response.status == 200:
                    return
        except urllib.error.HTTPError as exc:
            last = f"{exc.code}: {exc.read()[:300]!r}"
        except OSError as exc:
            last = repr(exc)
        time.sleep(0.25)
    raise BenchError(f"the server on port {port} never answered /healthz with 200 ({last})")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class StackConfig:
    users: int
    # Finished missions already in each user's session, one entry per user.
    prefill: list[int]
    # The embedded runtime: Daphne alone, thread lanes, SQLite, in-memory channel layer.
    embedded: bool = False
    # Celery workers of the `replies` queue (production only).
    workers: int = 1
    pool: str = "threads"
    concurrency: int = 64
    # DATABASE_POOL_MAX of each replies worker (docker-compose.yml: 16).
    replies_pool_max: int = 16
    # Celery workers of the `background` queue (production only).
    background_workers: int = 1
    background_pool: str = "threads"
    background_concurrency: int = 8
    # REPLY_CPU_SLOTS of the process that runs replies (web process or replies worker).
    reply_cpu_slots: int = 8
    delay_ms: float = 0.0
    redis_db: int = 11
    redis_force: bool = False
    pg_url: str = PG_DEFAULT
    keep_logs: bool = False
    label: str = "bench"
    extra_env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.prefill) != self.users:
            raise ValueError("prefill needs one entry per user")
        if self.pool not in POOLS or self.background_pool not in POOLS:
            raise ValueError(f"pools are one of {POOLS}")

    @property
    def runtime(self) -> str:
        return "embedded" if self.embedded else "production"


@dataclass(frozen=True)
class UserFixture:
    index: int
    username: str
    cookie_name: str
    cookie: str
    channel_id: int
    session_id: int
    employee: str
    prefill: int


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log_path: Path
    # Stopped and reaped by the harness: its process group id may belong to someone else.
    stopped: bool = False
