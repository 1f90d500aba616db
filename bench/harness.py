"""Shared machinery of the end-to-end benchmarks (bench/realtime.py, bench/load.py,
bench/concurrency.py).

`Stack` brings up, on 127.0.0.1 only, everything a deployment runs and tears it down
again, bounded in time, even when the run fails. Two runtimes (DESIGN.md §8):

- production (the default): a scratch PostgreSQL database with a unique name (dropped at
  the end, WITH (FORCE)); a dedicated Redis database index (refused when it already holds
  keys, flushed at the start and at the end) for the channel layer and the Celery broker;
  Daphne; Celery workers for the two queues, as docker-compose.yml runs them: W `replies`
  workers (`-Q replies`, threads by default, --concurrency 64, DATABASE_POOL_MAX 16) and
  `background` workers (`-Q background`, threads, --concurrency 8);
- embedded (`StackConfig.embedded`): Daphne alone, TASK_RUNNER=thread (the replies and
  background lanes are thread pools inside the web process), a scratch SQLite file
  (/tmp/<run id>.sqlite3, removed at the end, with its -wal and -shm), no REDIS_URL (the
  in-memory channel layer); no Redis, no workers, no database connections to count.

In both: the local OpenAI-compatible server (`python -m tests.fake_openai`, counting its
requests by kind at GET /_fake/stats) in its own process; `manage.py migrate`, then N
users, each with an office (office_create_with_team), a logged-in session cookie and,
optionally, K finished missions already in the session of the 1:1 channel the client
will use - done by this file run as a Django-configured subprocess (`setup`). Daphne
serves `bench.bench_asgi:application` (the office's application, plus a token-guarded
hook to queue tasks by name and to see the embedded lanes drain). Every service is waited
for until ready (/healthz answers 200; every worker answers a Celery ping), and can be
restarted with another model delay or environment (`restart_services`) on the same
database. Two sampling threads record the peak RSS of every process started (VmHWM and
VmRSS from /proc/<pid>/status, children included, plus the peak PSS of each process tree)
and the peak connections to the scratch PostgreSQL database (pg_stat_activity).

`run_clients` / `drive_clients` drive the WebSocket clients (one per user, on that user's
1:1 channel, one instruction at a time), `check_database` counts what was stored, and the
`print_*` helpers render the tables the benchmarks print.

Run directly only as the setup subprocess:  python bench/harness.py setup SPEC OUT
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/postgres"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
CLIENT_ID_PREFIX = "bench-"
SAMPLE_INTERVAL = 0.25


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


def _require_loopback(url: str, what: str) -> None:
    host = urlsplit(url).hostname or ""
    if host not in LOOPBACK:
        raise BenchError(f"{what} must be on 127.0.0.1 (got host {host!r})")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- Configuration and fixtures ---------------------------------------------------------


POOLS = ("threads", "prefork", "solo")
HOOK_PREFIX = "/__bench__/"
QUEUES = ("replies", "background")


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


# --- Sampling: peak RSS of the process trees, peak database connections ------------------


def _proc_children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1:
            children[int(fields[1])].append(int(entry.name))
    return children


def _status_kib(pid: int) -> tuple[int, int]:
    """(VmHWM, VmRSS) in KiB; (0, 0) once the process is gone."""
    hwm = rss = 0
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
    except OSError:
        pass
    return hwm, rss


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _stat_cpu_seconds(path: str) -> float | None:
    """User + system CPU seconds from a /proc stat file (None: the process or thread is
    gone)."""
    try:
        with open(path) as handle:
            fields = handle.read().rsplit(")", 1)[-1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU seconds of a process and its live descendants so far."""
    children = _proc_children()
    pending: list[int] = [root]
    seen: set[int] = set()
    total = 0.0
    while pending and len(seen) < 1000:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        pending.extend(children.get(pid, []))
        total += _stat_cpu_seconds(f"/proc/{pid}/stat") or 0.0
    return total


def thread_cpu_seconds(pid: int) -> dict[int, float]:
    """User + system CPU seconds of each live thread of one process so far, by thread id."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    seconds = {int(tid): _stat_cpu_seconds(f"/proc/{pid}/task/{tid}/stat") for tid in tids}
    return {tid: spent for tid, spent in seconds.items() if spent is not None}


@dataclass
class PidPeak:
    pid: int
    role: str  # "main" or "child"
    hwm_kib: int = 0
    rss_kib: int = 0


@dataclass
class TreePeak:
    name: str
    pids: dict[int, PidPeak] = field(default_factory=dict)
    tree_rss_kib: int = 0
    tree_pss_kib: int = 0


class Sampler:
    """Samples the process trees and pg_stat_activity until stopped (bounded by max_seconds)."""

    def __init__(self, *, pg_url: str | None, database: str, max_seconds: float) -> None:
        self.pg_url = pg_url
        self.database = database
        self.max_seconds = max_seconds
        self.trees: dict[str, TreePeak] = {}
        self._roots: dict[str, int] = {}
        self.peak_connections = 0
        self.peak_active = 0
        self.connection_samples = 0
        self.rss_samples = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self.errors: list[str] = []

    def watch(self, name: str, pid: int) -> None:
        with self._lock:
            self._roots[name] = pid
            self.trees[name] = TreePeak(name=name)

    def start(self) -> None:
        loops: list[tuple[Callable[[], None], str]] = [(self._rss_loop, "rss")]
        if self.pg_url is not None:
            loops.append((self._pg_loop, "pg"))
        for target, name in loops:
            thread = threading.Thread(target=target, name=f"bench-sampler-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def reset(self) -> None:
        """Forget the peaks so far: the next figures are those of one phase."""
        with self._lock:
            self.trees = {name: TreePeak(name=name) for name in self._roots}
            self.peak_connections = 0
            self.peak_active = 0
            self.connection_samples = 0
            self.rss_samples = 0

    def forget(self, name: str) -> None:
        """Stop watching a process tree (a service that was stopped)."""
        with self._lock:
            self._roots.pop(name, None)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)

    def sample_rss(self) -> None:
        with self._lock:
            roots = dict(self._roots)
            trees = dict(self.trees)
        children = _proc_children()
        for name, root in roots.items():
            tree = trees.get(name)
            if tree is None:
                continue
            pending: list[int] = [root]
            seen: set[int] = set()
            total_rss = total_pss = 0
            while pending and len(seen) < 1000:
                pid = pending.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                pending.extend(children.get(pid, []))
                hwm, rss = _status_kib(pid)
                if not hwm and not rss:
                    continue
                peak = tree.pids.setdefault(
                    pid, PidPeak(pid=pid, role="main" if pid == root else "child")
                )
                peak.hwm_kib = max(peak.hwm_kib, hwm)
                peak.rss_kib = max(peak.rss_kib, rss)
                total_rss += rss
                total_pss += _pss_kib(pid)
            tree.tree_rss_kib = max(tree.tree_rss_kib, total_rss)
            tree.tree_pss_kib = max(tree.tree_pss_kib, total_pss)
        self.rss_samples += 1

    def _rss_loop(self) -> None:
        deadline = time.monotonic() + self.max_seconds
        while time.monotonic() < deadline:
            try:
                self.sample_rss()
            except Exception as exc:  # a sampler must never take the run down
                self.errors.append(f"rss: {exc!r}")
            if self._stop.wait(SAMPLE_INTERVAL):
                return

    def _pg_loop(self) -> None:
        import psycopg

        assert self.pg_url is not None
        deadline = time.monotonic() + self.max_seconds
        try:
            conn = psycopg.connect(self.pg_url, autocommit=True, connect_timeout=5)
        except Exception as exc:
            self.errors.append(f"pg: {exc!r}")
            return
        with conn:
            while time.monotonic() < deadline:
                try:
                    row = conn.execute(
                        "SELECT count(*), count(*) FILTER (WHERE state = 'active') "
                        "FROM pg_stat_activity WHERE datname = %s",
                        (self.database,),
                    ).fetchone()
                    if row is not None:
                        self.peak_connections = max(self.peak_connections, int(row[0]))
                        self.peak_active = max(self.peak_active, int(row[1]))
                        self.connection_samples += 1
                except Exception as exc:
                    self.errors.append(f"pg: {exc!r}")
                    return
                if self._stop.wait(SAMPLE_INTERVAL / 2):
                    return


# --- The stack --------------------------------------------------------------------------


class Stack:
    """Everything the benchmark runs against. Use as a context manager: whatever happens
    inside, every process is stopped, the scratch database dropped (or the SQLite file
    removed) and Redis flushed."""

    def __init__(self, config: StackConfig, *, max_seconds: float) -> None:
        self.config = config
        self.max_seconds = max_seconds
        token = secrets.token_hex(3)
        self.run_id = f"{config.label}_{os.getpid()}_{token}"
        self.db_name = f"bench_{self.run_id}".lower()
        self.sqlite_path: Path | None = None
        if config.embedded:
            self.sqlite_path = Path(f"/tmp/{self.db_name}.sqlite3")
            self.db_url = f"sqlite:///{self.sqlite_path}"
        else:
            base = urlsplit(config.pg_url)
            self.db_url = base._replace(path=f"/{self.db_name}").geturl()
        self.redis_url = f"redis://127.0.0.1:6379/{config.redis_db}"
        self.log_dir = Path(f"/tmp/{self.run_id}")
        # Every process ever started (stopped ones included: their logs are read at the end).
        self.procs: list[Proc] = []
        self.users: list[UserFixture] = []
        self.fake_url = ""
        self.http_port = 0
        self.worker_names: list[str] = []
        self.sampler: Sampler | None = None
        self.hook_token = secrets.token_hex(16)
        self.generation = 0
        self.delay_ms = config.delay_ms
        self.service_env: dict[str, str] = {}
        self._db_created = False
        self._redis_used = False
        self._failed = False

    @property
    def embedded(self) -> bool:
        return self.config.embedded

    # -- lifecycle

    def __enter__(self) -> Stack:
        if not self.embedded:
            _require_loopback(self.config.pg_url, "the PostgreSQL URL")
        for name in ignored_settings(os.environ):
            how = SET_BY_THE_BENCHMARK[name]
            log(f"{name} from the environment is ignored: the benchmark sets it ({how})")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._start()
        except BaseException:
            self._failed = True
            self.close()
            raise
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            self._failed = True
        self.close()

    def _start(self) -> None:
        started = time.monotonic()
        if not self.embedded:
            self._redis_prepare()
        self._create_database()
        self._migrate()
        self._setup_users()
        self.sampler = Sampler(
            pg_url=None if self.embedded else self.config.pg_url,
            database=self.db_name,
            max_seconds=self.max_seconds,
        )
        self.sampler.start()
        self.start_services()
        log(
            f"{self.config.runtime} stack ready in {time.monotonic() - started:.1f} s "
            f"(logs in {self.log_dir})"
        )

    def start_services(self) -> None:
        """The model server, Daphne and (production) the workers, waited for until ready."""
        self.generation += 1
        self._start_fake_model()
        self._start_daphne()
        if not self.embedded:
            self._start_workers()
        self._wait_ready()

    def restart_services(
        self, *, delay_ms: float | None = None, env: dict[str, str] | None = None
    ) -> None:
        """Stop every service and start them again on the same database, with another model
        delay and/or extra environment (e.g. FOLD_BATCH). Redis is flushed in between."""
        self.stop_services()
        if not self.embedded:
            self._redis_flush()
        if delay_ms is not None:
            self.delay_ms = delay_ms
        if env is not None:
            self.service_env = dict(env)
        self.start_services()

    def mark_failed(self) -> None:
        """Keep the logs when the run closes."""
        self._failed = True

    def stop_procs(self, procs: list[Proc]) -> None:
        """Stop these processes, bounded: SIGTERM, then SIGKILL to each one's process group
        after a grace period (prefork children a killed main process would orphan)."""
        live = [proc for proc in procs if not proc.stopped]
        for proc in reversed(live):
            if proc.popen.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.popen.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for proc in reversed(live):
            remaining = max(0.1, deadline - time.monotonic())
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.popen.wait(timeout=remaining)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.popen.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.popen.wait(timeout=5)
            proc.stopped = proc.popen.poll() is not None
            if self.sampler is not None:
                self.sampler.forget(proc.name)

    def stop_services(self) -> None:
        """Stop Daphne, the workers and the model server (a last RSS sample first)."""
        if self.sampler is not None:
            with contextlib.suppress(Exception):
                self.sampler.sample_rss()
        self.stop_procs(self.procs)

    def close(self) -> None:
        try:
            self.stop_services()
            if self.sampler is not None:
                self.sampler.stop()
        finally:
            try:
                self._drop_database()
            finally:
                self._redis_flush()
        if self._failed or self.config.keep_logs:
            log(f"logs kept in {self.log_dir}")
        else:
            for path in self.log_dir.glob("*"):
                with contextlib.suppress(OSError):
                    path.unlink()
            with contextlib.suppress(OSError):
                self.log_dir.rmdir()

    # -- Redis

    def _redis_client(self) -> Any:
        import redis

        return redis.Redis.from_url(self.redis_url, socket_timeout=5, socket_connect_timeout=5)

    def _redis_prepare(self) -> None:
        client = self._redis_client()
        try:
            keys = int(client.dbsize())
            if keys and not self.config.redis_force:
                raise BenchError(
                    f"Redis DB {self.config.redis_db} holds {keys} keys: it may be someone "
                    "else's. Pick another --redis-db, or pass --redis-force to flush it."
                )
            client.flushdb()
            self._redis_used = True
        finally:
            client.close()

    def _redis_flush(self) -> None:
        if not self._redis_used:
            return
        try:
            client = self._redis_client()
            try:
                client.flushdb()
            finally:
                client.close()
        except Exception as exc:
            log(f"could not flush Redis DB {self.config.redis_db}: {exc!r}")

    def queue_idle(self) -> bool:
        """No task waiting and none running: in production, nothing in the two queues (or
        their priority variants) and nothing delivered but unacknowledged (tasks are
        acknowledged late, after they ran); embedded, the web process's lanes are empty."""
        if self.embedded:
            return int(self.hook("GET", "pending")["pending"]) == 0
        client = self._redis_client()
        try:
            waiting = 0
            for queue in QUEUES:
                for key in client.scan_iter(f"{queue}*", count=1000, _type="list"):
                    waiting += int(client.llen(key))
            return waiting == 0 and int(client.hlen("unacked")) == 0
        finally:
            client.close()

    # -- The scratch database

    def _create_database(self) -> None:
        if self.sqlite_path is not None:
            self._db_created = True
            log(f"scratch SQLite database {self.sqlite_path}")
            return
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.config.pg_url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.db_name)))
        self._db_created = True
        log(f"scratch database {self.db_name}")

    def _drop_database(self) -> None:
        if not self._db_created:
            return
        if self.sqlite_path is not None:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    Path(f"{self.sqlite_path}{suffix}").unlink()
            self._db_created = False
            return
        import psycopg
        from psycopg import sql

        try:
            with psycopg.connect(self.config.pg_url, autocommit=True, connect_timeout=10) as conn:
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                        sql.Identifier(self.db_name)
                    )
                )
            self._db_created = False
        except Exception as exc:
            log(f"could not drop {self.db_name}: {exc!r}")

    @contextlib.contextmanager
    def scratch(self) -> Iterator[ScratchDb]:
        """A connection to the scratch database (read by the checks)."""
        if self.sqlite_path is not None:
            import sqlite3

            conn = sqlite3.connect(str(self.sqlite_path), timeout=30)
            try:
                yield ScratchDb(conn, sqlite=True)
            finally:
                conn.close()
        else:
            import psycopg

            with psycopg.connect(self.db_url, autocommit=True, connect_timeout=10) as pg:
                yield ScratchDb(pg, sqlite=False)

    # -- processes

    def env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.lower().endswith("_proxy")
            and key
            not in (
                "DATABASE_URL",
                "REDIS_URL",
                "TASK_RUNNER",
                "TEST_DATABASE_NAME",
                "LLM_PROVIDER",
                "OPENAI_API_KEY",
                "OPENAI_BASE_URL",
                "OPENAI_MODEL",
                "ALLOWED_HOSTS",
                "OFFICE_ENV",
                "DJANGO_SETTINGS_MODULE",
                *SET_BY_THE_BENCHMARK,
            )
        }
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "DATABASE_URL": self.db_url,
                "LLM_PROVIDER": "openai",
                "OPENAI_API_KEY": "sk-fake",
                "OPENAI_MODEL": "fake-model",
                "ALLOWED_HOSTS": "127.0.0.1,localhost",
                "DEBUG": "0",
                "LOG_LEVEL": "warning",
                "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost",
                "PYTHONUNBUFFERED": "1",
                "BENCH_HOOK_TOKEN": self.hook_token,
                "REPLY_CPU_SLOTS": str(self.config.reply_cpu_slots),
            }
        )
        if self.embedded:
            env["TASK_RUNNER"] = "thread"
        else:
            env["REDIS_URL"] = self.redis_url
            env["TASK_RUNNER"] = "celery"
        if self.fake_url:
            env["OPENAI_BASE_URL"] = self.fake_url
        env.update(self.config.extra_env)
        env.update(self.service_env)
        return env

    def spawn(self, name: str, argv: list[str], *, env: dict[str, str] | None = None) -> Proc:
        """Start a process of this run (stopped with the stack), logging to its own file."""
        suffix = f"-{self.generation}" if self.generation > 1 else ""
        log_path = self.log_dir / f"{name.replace(' ', '-')}{suffix}.log"
        handle = open(log_path, "wb")  # noqa: SIM115 - the child keeps it; closed below
        try:
            popen = subprocess.Popen(
                argv,
                cwd=ROOT,
                env={**self.env(), **(env or {})},
                stdin=subprocess.DEVNULL,
                stdout=handle,
                stderr=subprocess.STDOUT,
                # Its own process group: the whole tree can be stopped by the group id.
                start_new_session=True,
            )
        finally:
            handle.close()
        proc = Proc(name=name, popen=popen, log_path=log_path)
        self.procs.append(proc)
        if self.sampler is not None:
            self.sampler.watch(name, popen.pid)
        return proc

    def _run_step(self, name: str, argv: list[str], timeout: float) -> None:
        log_path = self.log_dir / f"{name}.log"
        started = time.monotonic()
        with open(log_path, "wb") as handle:
            try:
                result = subprocess.run(
                    argv,
                    cwd=ROOT,
                    env=self.env(),
                    stdin=subprocess.DEVNULL,
                    stdout=handle,
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                )
            except subprocess.TimeoutExpired as exc:
                raise BenchError(f"{name} took over {timeout:.0f} s; see {log_path}") from exc
        if result.returncode != 0:
            raise BenchError(f"{name} failed: {_tail(log_path)}")
        log(f"{name} done in {time.monotonic() - started:.1f} s")

    def _start_fake_model(self) -> None:
        proc = self.spawn(
            "fake model",
            [
                PYTHON,
                "-m",
                "tests.fake_openai",
                "--port",
                str(free_port()),
                "--delay-ms",
                str(self.delay_ms),
            ],
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            first = proc.log_path.read_text(errors="replace").splitlines()
            if first and first[0].startswith("http://127.0.0.1:"):
                self.fake_url = first[0].strip()
                log(f"fake model at {self.fake_url} (delay {self.delay_ms:g} ms)")
                return
            if proc.popen.poll() is not None:
                break
            time.sleep(0.05)
        raise BenchError(f"the fake model server did not start: {_tail(proc.log_path)}")

    def model_stats(self) -> dict[str, Any]:
        """The model server's request counts: requests, in_flight, by_kind."""
        base = urlsplit(self.fake_url)
        url = f"{base.scheme}://{base.netloc}/_fake/stats"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(url, timeout=10) as response:
            return dict(json.loads(response.read()))

    def hook(self, method: str, name: str, payload: dict[str, Any] | None = None) -> Any:
        """Call the benchmark hook of the web process (bench/bench_asgi.py)."""
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.http_port}{HOOK_PREFIX}{name}",
            data=data,
            method=method,
            headers={"X-Bench-Token": self.hook_token, "Content-Type": "application/json"},
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise BenchError(f"bench hook {name}: {exc.code} {exc.read()[:300]!r}") from exc

    def queue_tasks(self, task: str, arg_lists: list[list[Any]]) -> int:
        """Queue `task` once per argument list inside the web process, by name, exactly as a
        service does (config.celery.queue_task): the embedded lanes, or the broker."""
        return int(self.hook("POST", "queue", {"task": task, "args": arg_lists})["queued"])

    def _migrate(self) -> None:
        self._run_step("migrate", [PYTHON, "manage.py", "migrate", "--noinput"], timeout=300)

    def _setup_users(self) -> None:
        spec_path = self.log_dir / "setup-spec.json"
        out_path = self.log_dir / "setup-out.json"
        spec_path.write_text(json.dumps({"run_id": self.run_id, "prefill": self.config.prefill}))
        self._run_step(
            "setup",
            [PYTHON, str(Path(__file__).resolve()), "setup", str(spec_path), str(out_path)],
            timeout=900,
        )
        self.users = [UserFixture(**row) for row in json.loads(out_path.read_text())]
        log(
            f"{len(self.users)} users with offices and session cookies "
            f"({sum(u.prefill for u in self.users)} missions pre-filled)"
        )

    def _start_daphne(self) -> None:
        self.http_port = free_port()
        self.spawn(
            "daphne",
            [
                str(VENV_BIN / "daphne"),
                "-b",
                "127.0.0.1",
                "-p",
                str(self.http_port),
                "bench.bench_asgi:application",
            ],
        )

    def _worker_argv(self, queue: str, pool: str, concurrency: int, node: str) -> list[str]:
        return [
            str(VENV_BIN / "celery"),
            "-A",
            "config",
            "worker",
            "-Q",
            queue,
            f"--pool={pool}",
            f"--concurrency={concurrency}",
            "-n",
            node,
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
        ]

    def _start_workers(self) -> None:
        config = self.config
        self.worker_names = []
        lanes = (
            ("replies", config.workers, config.pool, config.concurrency),
            (
                "background",
                config.background_workers,
                config.background_pool,
                config.background_concurrency,
            ),
        )
        for queue, count, pool, concurrency in lanes:
            for number in range(1, count + 1):
                node = f"{queue}{number}.{self.run_id}@127.0.0.1"
                self.worker_names.append(node)
                env = {}
                if queue == "replies":
                    env["DATABASE_POOL_MAX"] = str(config.replies_pool_max)
                self.spawn(
                    f"{queue} worker {number}",
                    self._worker_argv(queue, pool, concurrency, node),
                    env=env,
                )

    def _check_alive(self) -> None:
        for proc in self.procs:
            if proc.stopped:
                continue
            code = proc.popen.poll()
            if code is not None:
                raise BenchError(f"{proc.name} exited with {code}: {_tail(proc.log_path)}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 90
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        url = f"http://127.0.0.1:{self.http_port}/healthz"
        healthy = False
        last = ""
        while time.monotonic() < deadline and not healthy:
            self._check_alive()
            try:
                with opener.open(url, timeout=5) as response:
                    healthy = response.status == 200
            except urllib.error.HTTPError as exc:
                last = f"{exc.code}: {exc.read()[:300]!r}"
            except OSError as exc:
                last = repr(exc)
            if not healthy:
                time.sleep(0.25)
        if not healthy:
            raise BenchError(f"Daphne never answered /healthz with 200 (last: {last})")
        log(f"daphne ready on 127.0.0.1:{self.http_port}")
        if self.embedded:
            return
        from celery import Celery

        app = Celery("bench-ping", broker=self.redis_url)
        try:
            pending = set(self.worker_names)
            while pending and time.monotonic() < deadline:
                self._check_alive()
                for reply in app.control.ping(timeout=1.0) or []:
                    pending -= set(reply)
            if pending:
                raise BenchError(f"workers never answered a ping: {sorted(pending)}")
        finally:
            app.close()
        log(f"{len(self.worker_names)} worker(s) ready: {self.workers_summary()}")

    def workers_summary(self) -> str:
        config = self.config
        if self.embedded:
            replies = self.env().get("REPLY_CONCURRENCY") or "64"
            background = self.env().get("BACKGROUND_CONCURRENCY") or "2"
            return (
                f"tasks in the web process: replies lane {replies} threads "
                f"({config.reply_cpu_slots} CPU slots), background lane {background} threads"
            )
        return (
            f"{config.workers} replies worker(s) --pool={config.pool} "
            f"--concurrency={config.concurrency} ({config.reply_cpu_slots} CPU slots, "
            f"DATABASE_POOL_MAX {config.replies_pool_max}), "
            f"{config.background_workers} background worker(s) --pool={config.background_pool} "
            f"--concurrency={config.background_concurrency}"
        )

    def start_echo(self) -> tuple[Proc, int]:
        """Daphne serving the bare Channels echo (bench/echo_asgi.py); stop it with
        `stop_procs([proc])`. Returns the process and its port once it accepts connections."""
        port = free_port()
        proc = self.spawn(
            "echo daphne",
            [
                str(VENV_BIN / "daphne"),
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "bench.echo_asgi:application",
            ],
            env={"DJANGO_SETTINGS_MODULE": ""},
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.popen.poll() is not None:
                break
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                log(f"echo daphne ready on 127.0.0.1:{port}")
                return proc, port
            time.sleep(0.1)
        raise BenchError(f"the echo server did not start: {_tail(proc.log_path)}")

    def wait_queue_idle(self, timeout: float) -> bool:
        """Wait until no task waits or runs for two polls in a row (tasks that follow a
        reply, like the long-session check, folds and extraction, may still be running)."""
        deadline = time.monotonic() + timeout
        idle_in_a_row = 0
        while time.monotonic() < deadline:
            idle_in_a_row = idle_in_a_row + 1 if self.queue_idle() else 0
            if idle_in_a_row >= 2:
                return True
            time.sleep(0.25)
        return False

    def service_failures(self) -> list[str]:
        """Processes that died during the run, and error lines in their logs."""
        failures = []
        for proc in self.procs:
            code = proc.popen.poll()
            if code is not None and code not in (0, -signal.SIGTERM, -signal.SIGKILL):
                failures.append(f"{proc.name} exited with {code}")
            try:
                text = proc.log_path.read_text(errors="replace")
            except OSError:
                continue
            errors = Counter(
                line.split(" ", 2)[-1][:200]
                for line in text.splitlines()
                if " ERROR " in line or " CRITICAL " in line or "Traceback" in line
            )
            for line, count in errors.most_common(5):
                failures.append(f"{proc.name}: {count} x {line}")
        return failures


class ScratchDb:
    """Queries written once for both databases: `%s` placeholders (a list parameter
    expands in place, for `IN (%s)`), `{strpos}` for the substring position function."""

    def __init__(self, conn: Any, *, sqlite: bool) -> None:
        self.conn = conn
        self.sqlite = sqlite

    def rows(self, query: str, params: tuple[Any, ...] = ()) -> list[Any]:
        mark = "?" if self.sqlite else "%s"
        parts = query.replace("{strpos}", "instr" if self.sqlite else "strpos").split("%s")
        if len(parts) != len(params) + 1:
            raise ValueError("one parameter per %s")
        text, values = parts[0], []
        for param, part in zip(params, parts[1:], strict=True):
            if isinstance(param, list):
                text += ", ".join([mark] * len(param)) or "NULL"
                values.extend(param)
            else:
                text += mark
                values.append(param)
            text += part
        return list(self.conn.execute(text, values).fetchall())


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return f"(no log at {path})"
    return f"see {path}; last lines:\n    " + "\n    ".join(text[-lines:])


# --- WebSocket clients ------------------------------------------------------------------


@dataclass
class Instruction:
    client_id: str
    sent: float = 0.0
    mission: int | None = None
    first_delta: float | None = None
    done: float | None = None
    done_frames: int = 0
    employee_frames: int = 0
    error: str = ""
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def to_first_delta(self) -> float | None:
        return None if self.first_delta is None else self.first_delta - self.sent

    @property
    def to_done(self) -> float | None:
        return None if self.done is None else self.done - self.sent


@dataclass
class ClientRun:
    user: UserFixture
    instructions: list[Instruction] = field(default_factory=list)
    notices: list[dict[str, Any]] = field(default_factory=list)
    error_frames: list[str] = field(default_factory=list)
    unmatched: Counter[str] = field(default_factory=Counter)
    failure: str = ""
    # How the server closed the socket before the client did, if it did.
    closed_by_server: str = ""


@dataclass
class ClientsOutcome:
    runs: list[ClientRun]
    started: float
    finished: float
    queue_idle: bool

    @property
    def instructions(self) -> list[Instruction]:
        return [i for run in self.runs for i in run.instructions]

    @property
    def elapsed(self) -> float:
        return max(self.finished - self.started, 1e-9)


class _ClientState:
    def __init__(self, run: ClientRun) -> None:
        self.run = run
        self.by_client_id: dict[str, Instruction] = {}
        self.by_mission: dict[int, Instruction] = {}
        # Frames about a mission whose instruction echo has not arrived yet.
        self.early: dict[int, list[tuple[str, float]]] = defaultdict(list)
        self.current: Instruction | None = None
        self.last_frame = time.perf_counter()

    def _apply(self, item: Instruction, kind: str, at: float) -> None:
        if kind == "delta":
            if item.first_delta is None:
                item.first_delta = at
        elif kind == "done":
            item.done_frames += 1
            if item.done is None:
                item.done = at
                item.finished.set()
        elif kind == "employee":
            item.employee_frames += 1
        elif kind == "error":
            item.error = item.error or "mission failed (error message)"
            item.finished.set()

    def _about_mission(self, mission: Any, kind: str, at: float) -> None:
        if not isinstance(mission, int):
            self.run.unmatched[kind] += 1
            return
        item = self.by_mission.get(mission)
        if item is None:
            self.early[mission].append((kind, at))
        else:
            self._apply(item, kind, at)

    def handle(self, raw: str | bytes, at: float) -> None:
        frame = json.loads(raw)
        kind = frame.get("type")
        if kind == "reply.delta":
            self._about_mission(frame.get("mission"), "delta", at)
        elif kind == "reply.done":
            self._about_mission(frame.get("mission"), "done", at)
            # The saved reply comes with it (a separate employee message would be a second).
            if (frame.get("message") or {}).get("kind") == "employee":
                self._about_mission(frame.get("mission"), "employee", at)
        elif kind == "notice":
            self.run.notices.append(frame.get("message") or {})
        elif kind == "message":
            message = frame.get("message") or {}
            message_kind = message.get("kind")
            if message_kind == "user":
                client_id = (message.get("payload") or {}).get("client_id", "")
                item = self.by_client_id.get(client_id)
                mission = message.get("mission")
                if item is None or not isinstance(mission, int):
                    self.run.unmatched["user"] += 1
                    return
                if item.mission is not None and item.mission != mission:
                    item.error = f"echoed with two missions: {item.mission} and {mission}"
                item.mission = mission
                self.by_mission[mission] = item
                for early_kind, early_at in self.early.pop(mission, []):
                    self._apply(item, early_kind, early_at)
            elif message_kind == "employee":
                self._about_mission(message.get("mission"), "employee", at)
            elif message_kind == "error":
                self._about_mission(message.get("mission"), "error", at)
        elif kind == "error":
            text = f"{frame.get('code')}: {frame.get('message')}"
            self.run.error_frames.append(text)
            if self.current is not None and not self.current.finished.is_set():
                self.current.error = text
                self.current.finished.set()


async def _client(
    *,
    ws_url: str,
    origin: str,
    run: ClientRun,
    count: int,
    run_token: str,
    connected: asyncio.Event,
    go: asyncio.Event,
    sent_all: asyncio.Event,
    release: asyncio.Event,
    per_instruction_timeout: float,
    linger: float,
    between: Callable[[], None] | None = None,
) -> None:
    from websockets.asyncio.client import connect
    from websockets.typing import Origin

    user = run.user
    state = _ClientState(run)
    try:
        async with connect(
            f"{ws_url}/ws/channels/{user.channel_id}/",
            origin=Origin(origin),
            additional_headers={"Cookie": f"{user.cookie_name}={user.cookie}"},
            compression=None,
            ping_interval=None,
            open_timeout=60,
            close_timeout=5,
            max_size=2**22,
        ) as ws:

            async def reader() -> None:
                async for raw in ws:
                    state.last_frame = time.perf_counter()
                    state.handle(raw, state.last_frame)

            reading = asyncio.create_task(reader())
            connected.set()
            try:
                await go.wait()
                for number in range(count):
                    if number and between is not None:
                        await asyncio.to_thread(between)
                    client_id = f"{CLIENT_ID_PREFIX}{run_token}-{user.index}-{number}"
                    item = Instruction(client_id=client_id)
                    state.by_client_id[client_id] = item
                    state.current = item
                    run.instructions.append(item)
                    text = f"Request {number + 1} from client {user.index}: status of task {number}"
                    item.sent = time.perf_counter()
                    await ws.send(
                        json.dumps({"type": "instruction", "text": text, "client_id": client_id})
                    )
                    waiter = asyncio.create_task(item.finished.wait())
                    await asyncio.wait(
                        {waiter, reading},
                        timeout=per_instruction_timeout,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    waiter.cancel()
                    if not item.finished.is_set():
                        item.error = item.error or (
                            "the server closed the socket before reply.done"
                            if reading.done()
                            else f"no reply.done within {per_instruction_timeout:g} s"
                        )
                    if reading.done():
                        run.failure = (
                            f"the server closed the socket (code {ws.close_code}) after "
                            f"{len(run.instructions)} of {count} instructions"
                        )
                        break
                last_reply = time.perf_counter()
                sent_all.set()
                # Stay connected while the queue drains: late notices still arrive here.
                await release.wait()
                await asyncio.sleep(max(0.3, linger - (time.perf_counter() - last_reply)))
                if reading.done():
                    run.closed_by_server = (
                        f"code {ws.close_code} {ws.close_reason!r}, "
                        f"{time.perf_counter() - state.last_frame:.1f} s after the last frame"
                    )
            finally:
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reading
    except Exception as exc:
        run.failure = run.failure or f"{type(exc).__name__}: {exc}"
    finally:
        connected.set()
        sent_all.set()


async def _drive_clients(
    *,
    port: int,
    users: list[UserFixture],
    instructions: int,
    per_instruction_timeout: float,
    phase_timeout: float,
    linger: float,
    wait_idle: Callable[[float], bool] | None,
    before_go: Callable[[], None] | None,
    between: Callable[[], None] | None = None,
) -> ClientsOutcome:
    ws_url = f"ws://127.0.0.1:{port}"
    origin = f"http://127.0.0.1:{port}"
    run_token = secrets.token_hex(3)
    go, release = asyncio.Event(), asyncio.Event()
    runs = [ClientRun(user=user) for user in users]
    connected = [asyncio.Event() for _ in runs]
    sent_all = [asyncio.Event() for _ in runs]
    tasks = [
        asyncio.create_task(
            _client(
                ws_url=ws_url,
                origin=origin,
                run=run,
                count=instructions,
                run_token=run_token,
                connected=connected[n],
                go=go,
                sent_all=sent_all[n],
                release=release,
                per_instruction_timeout=per_instruction_timeout,
                linger=linger,
                between=between,
            )
        )
        for n, run in enumerate(runs)
    ]
    phase_deadline = time.monotonic() + phase_timeout
    queue_idle = wait_idle is None
    started = finished = time.perf_counter()
    try:
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in connected)), timeout=120)
        failed = [run for run in runs if run.failure]
        log(f"{len(runs) - len(failed)} of {len(runs)} clients connected")
        if before_go is not None:
            await asyncio.to_thread(before_go)
        started = time.perf_counter()
        go.set()
        remaining = max(1.0, phase_deadline - time.monotonic())
        try:
            await asyncio.wait_for(
                asyncio.gather(*(event.wait() for event in sent_all)), timeout=remaining
            )
        except TimeoutError:
            log(f"the client phase hit its {phase_timeout:g} s limit")
        done_times = [i.done for run in runs for i in run.instructions if i.done is not None]
        finished = max(done_times) if done_times else time.perf_counter()
        log(f"all clients finished after {time.perf_counter() - started:.1f} s; draining")
        if wait_idle is not None:
            queue_idle = await asyncio.to_thread(wait_idle, 120.0)
            if not queue_idle:
                log("the task queues did not drain within 120 s")
    finally:
        release.set()
        try:
            await asyncio.wait_for(
                asyncio.gather(*tasks, return_exceptions=True), timeout=linger + 30
            )
        except TimeoutError:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    return ClientsOutcome(runs=runs, started=started, finished=finished, queue_idle=queue_idle)


def drive_clients(
    *,
    port: int,
    users: list[UserFixture],
    instructions: int,
    per_instruction_timeout: float,
    phase_timeout: float,
    linger: float = 0.0,
    wait_idle: Callable[[float], bool] | None = None,
    before_go: Callable[[], None] | None = None,
    between: Callable[[], None] | None = None,
) -> ClientsOutcome:
    """Connect one client per user to the server on `port`, start them together (after
    `before_go`, run once every client is connected), wait for every reply, then keep the
    sockets open until `wait_idle` says the server's tasks have drained (and at least
    `linger` seconds after each client's last reply). `between` runs (in a thread) before
    each instruction but the first, e.g. to wait until the server is idle again."""
    return asyncio.run(
        _drive_clients(
            port=port,
            users=users,
            instructions=instructions,
            per_instruction_timeout=per_instruction_timeout,
            phase_timeout=phase_timeout,
            linger=linger,
            wait_idle=wait_idle,
            before_go=before_go,
            between=between,
        )
    )


def run_clients(
    stack: Stack,
    *,
    instructions: int,
    per_instruction_timeout: float,
    phase_timeout: float,
    linger: float = 0.0,
    users: list[UserFixture] | None = None,
    before_go: Callable[[], None] | None = None,
) -> ClientsOutcome:
    """`drive_clients` against the stack's Daphne, for its users (or the ones given),
    draining the stack's task queues at the end."""
    return drive_clients(
        port=stack.http_port,
        users=stack.users if users is None else users,
        instructions=instructions,
        per_instruction_timeout=per_instruction_timeout,
        phase_timeout=phase_timeout,
        linger=linger,
        wait_idle=stack.wait_queue_idle,
        before_go=before_go,
    )


# --- What the database holds afterwards -------------------------------------------------


@dataclass
class ChannelCheck:
    user: UserFixture
    expected: int
    found: int = 0
    other_missions: int = 0
    duplicate_client_ids: int = 0
    not_done: list[str] = field(default_factory=list)
    empty_replies: int = 0
    foreign_replies: int = 0
    reply_counts: Counter[int] = field(default_factory=Counter)
    instruction_counts: Counter[int] = field(default_factory=Counter)
    mission_count: int = 0
    notices: int = 0
    notice_expected: int = 0
    sessions: int = 0

    @property
    def lost(self) -> int:
        return max(0, self.expected - self.found)

    @property
    def doubled(self) -> int:
        return self.duplicate_client_ids + self.other_missions + max(0, self.found - self.expected)


@dataclass
class DatabaseCheck:
    channels: list[ChannelCheck]
    missions_elsewhere: int
    failed_missions: int
    error_messages: int
    threshold: int

    @property
    def expected(self) -> int:
        return sum(c.expected for c in self.channels)

    @property
    def found(self) -> int:
        return sum(c.found for c in self.channels)

    @property
    def lost(self) -> int:
        return sum(c.lost for c in self.channels)

    @property
    def doubled(self) -> int:
        return sum(c.doubled for c in self.channels) + self.missions_elsewhere

    @property
    def not_done(self) -> int:
        return sum(len(c.not_done) for c in self.channels)

    @property
    def empty_replies(self) -> int:
        return sum(c.empty_replies for c in self.channels)

    @property
    def foreign_replies(self) -> int:
        return sum(c.foreign_replies for c in self.channels)

    @property
    def bad_reply_counts(self) -> int:
        return sum(1 for c in self.channels for n in c.reply_counts.values() if n != 1) + sum(
            c.found - len(c.reply_counts) for c in self.channels
        )

    @property
    def bad_instruction_counts(self) -> int:
        return sum(1 for c in self.channels for n in c.instruction_counts.values() if n != 1)

    @property
    def bad_session_counts(self) -> int:
        return sum(1 for c in self.channels if c.mission_count != c.user.prefill + c.expected)

    @property
    def count_ok(self) -> bool:
        return not (
            self.lost
            or self.doubled
            or self.not_done
            or self.empty_replies
            or self.foreign_replies
            or self.bad_reply_counts
            or self.bad_instruction_counts
            or self.bad_session_counts
        )


def check_database(
    stack: Stack,
    *,
    sent: dict[int, int],
    threshold: int = 20,
    users: list[UserFixture] | None = None,
) -> DatabaseCheck:
    """Count, per client channel, the missions, replies and notices the run stored.

    `sent` is the number of instructions each channel's client sent (a client whose socket
    the server closed sends fewer; that is reported as a client-side problem, not here).
    `users` narrows the check to the users of one phase (default: all of the stack's);
    missions in a channel of none of the stack's users count as doubled."""
    checked = stack.users if users is None else users
    channel_ids = [u.channel_id for u in checked]
    all_channel_ids = [u.channel_id for u in stack.users]
    by_channel = {
        u.channel_id: ChannelCheck(user=u, expected=sent.get(u.channel_id, 0)) for u in checked
    }
    prefix = CLIENT_ID_PREFIX + "%"
    with stack.scratch() as db:
        rows = db.rows(
            """
            SELECT m.id, m.channel_id, m.client_id, m.status, length(m.reply),
                   {strpos}(m.reply, m.instruction) > 0,
                   (SELECT count(*) FROM missions_message x
                     WHERE x.mission_id = m.id AND x.kind = 'employee'),
                   (SELECT count(*) FROM missions_message x
                     WHERE x.mission_id = m.id AND x.kind = 'user')
              FROM missions_mission m
             WHERE m.channel_id IN (%s) AND m.client_id LIKE %s
            """,
            (channel_ids, prefix),
        )
        client_ids: dict[int, Counter[str]] = defaultdict(Counter)
        for mission, channel, client_id, status, reply_len, echoes, replies, users_ in rows:
            check = by_channel[channel]
            check.found += 1
            client_ids[channel][client_id] += 1
            if status != "done":
                check.not_done.append(f"{mission}:{status}")
            if not reply_len:
                check.empty_replies += 1
            elif not echoes:
                # The model server echoes the prompt's last message, the current mission:
                # a reply without its own instruction answered some other mission.
                check.foreign_replies += 1
            check.reply_counts[mission] = int(replies)
            check.instruction_counts[mission] = int(users_)
        for channel, counter in client_ids.items():
            by_channel[channel].duplicate_client_ids = sum(n - 1 for n in counter.values())
        others = db.rows(
            """
            SELECT channel_id, count(*) FROM missions_mission
             WHERE channel_id IN (%s) AND client_id NOT LIKE %s
             GROUP BY channel_id
            """,
            (channel_ids, prefix),
        )
        for channel, count in others:
            check = by_channel[channel]
            # The pre-filled missions are expected; anything more was not sent by a client.
            check.other_missions = max(0, int(count) - check.user.prefill)
        for channel, mission_count, sessions in db.rows(
            """
            SELECT channel_id, sum(mission_count), count(*) FROM chat_sessions_chatsession
             WHERE channel_id IN (%s) GROUP BY channel_id
            """,
            (channel_ids,),
        ):
            by_channel[channel].mission_count = int(mission_count)
            by_channel[channel].sessions = int(sessions)
        for channel, count in db.rows(
            """
            SELECT channel_id, count(*) FROM missions_message
             WHERE channel_id IN (%s) AND kind = 'notice' GROUP BY channel_id
            """,
            (channel_ids,),
        ):
            by_channel[channel].notices = int(count)
        elsewhere_rows = db.rows(
            "SELECT count(*) FROM missions_mission WHERE NOT (channel_id IN (%s))",
            (all_channel_ids,),
        )
        failed_rows = db.rows(
            "SELECT count(*) FROM missions_mission WHERE status = 'failed' AND channel_id IN (%s)",
            (channel_ids,),
        )
        errors_rows = db.rows(
            "SELECT count(*) FROM missions_message WHERE kind = 'error' AND channel_id IN (%s)",
            (channel_ids,),
        )
    for check in by_channel.values():
        total = check.user.prefill + check.expected
        check.notice_expected = 1 if total >= threshold else 0
    return DatabaseCheck(
        channels=list(by_channel.values()),
        missions_elsewhere=int(elsewhere_rows[0][0]) if elsewhere_rows else 0,
        failed_missions=int(failed_rows[0][0]) if failed_rows else 0,
        error_messages=int(errors_rows[0][0]) if errors_rows else 0,
        threshold=threshold,
    )


# --- Figures and tables -----------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    """Linear interpolation between closest ranks; nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _ms(seconds: float) -> str:
    return "-" if seconds != seconds else f"{seconds * 1000:,.0f} ms"


def print_table(title: str, rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print(f"\n{title}")
    for number, row in enumerate(rows):
        print("  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if number == 0:
            print("  " + "  ".join("-" * w for w in widths))


def print_latency(outcome: ClientsOutcome, percentiles: tuple[int, ...]) -> None:
    items = outcome.instructions
    first = [d for i in items if (d := i.to_first_delta) is not None]
    done = [d for i in items if (d := i.to_done) is not None]
    header = ("from instruction to", "n", *(f"p{p}" for p in percentiles), "mean", "max")
    rows: list[tuple[str, ...]] = [header]
    for label, values in (("first reply.delta", first), ("reply.done", done)):
        rows.append(
            (
                label,
                str(len(values)),
                *(_ms(percentile(values, p)) for p in percentiles),
                _ms(statistics.fmean(values) if values else float("nan")),
                _ms(max(values) if values else float("nan")),
            )
        )
    print_table("Latency", rows)


MODEL_KINDS = (
    ("stream", "replies"),
    ("SummaryState", "folds"),
    ("MemoryCandidates", "extractions"),
)


def stats_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, int]:
    """Model requests between two `Stack.model_stats()` readings, by kind."""
    kinds = set(before.get("by_kind", {})) | set(after.get("by_kind", {}))
    delta = {
        kind: int(after.get("by_kind", {}).get(kind, 0))
        - int(before.get("by_kind", {}).get(kind, 0))
        for kind in kinds
    }
    return {kind: n for kind, n in delta.items() if n}


def describe_calls(calls: dict[str, int]) -> str:
    named = dict(MODEL_KINDS)
    parts = [f"{named.get(kind, kind)} {n}" for kind, n in sorted(calls.items())]
    return ", ".join(parts) or "none"


def print_throughput(outcome: ClientsOutcome, calls: dict[str, int]) -> None:
    items = outcome.instructions
    done = sum(1 for i in items if i.done is not None)
    total = sum(calls.values())
    rows: list[tuple[str, ...]] = [
        ("throughput", "value"),
        ("instructions sent", str(sum(1 for i in items if i.sent))),
        ("reply.done received", str(done)),
        ("wall time (first send to last reply.done)", f"{outcome.elapsed:.1f} s"),
        ("missions per second", f"{done / outcome.elapsed:.2f}"),
        (
            "model calls (until the queues drained)",
            f"{total} ({total / max(done, 1):.2f} per mission: {describe_calls(calls)})",
        ),
    ]
    print_table("Throughput", rows)


def client_problems(outcome: ClientsOutcome) -> list[str]:
    problems: list[str] = []
    for run in outcome.runs:
        who = f"client {run.user.index} (channel {run.user.channel_id})"
        if run.failure:
            problems.append(f"{who}: {run.failure}")
        for item in run.instructions:
            if item.error:
                problems.append(f"{who} {item.client_id}: {item.error}")
            elif item.done_frames != 1:
                problems.append(f"{who} {item.client_id}: {item.done_frames} reply.done frames")
            elif item.employee_frames != 1:
                problems.append(
                    f"{who} {item.client_id}: {item.employee_frames} saved replies received"
                )
        if run.error_frames:
            problems.append(f"{who}: error frames {run.error_frames[:3]}")
        if run.unmatched:
            problems.append(f"{who}: frames matching no instruction {dict(run.unmatched)}")
    return problems


def print_counts(check: DatabaseCheck, outcome: ClientsOutcome, *, with_notices: bool) -> list[str]:
    """Print the count check; return the problems found (empty when all is well)."""
    client_side = client_problems(outcome)
    received_done = sum(1 for i in outcome.instructions if i.done is not None)
    rows: list[tuple[str, ...]] = [
        ("count check", "value", "expected"),
        ("missions stored for the instructions sent", str(check.found), str(check.expected)),
        ("lost (instruction without a mission)", str(check.lost), "0"),
        ("doubled (extra missions or duplicates)", str(check.doubled), "0"),
        ("missions not done", str(check.not_done), "0"),
        ("done with an empty reply", str(check.empty_replies), "0"),
        ("replies that do not answer their own instruction", str(check.foreign_replies), "0"),
        ("missions without exactly one saved reply", str(check.bad_reply_counts), "0"),
        ("missions without exactly one instruction", str(check.bad_instruction_counts), "0"),
        ("sessions whose mission_count is off", str(check.bad_session_counts), "0"),
        ("missions in other channels", str(check.missions_elsewhere), "0"),
        (
            "failed missions / error messages",
            f"{check.failed_missions} / {check.error_messages}",
            "0 / 0",
        ),
        ("reply.done received by the clients", str(received_done), str(check.expected)),
        ("client-side problems", str(len(client_side)), "0"),
        (
            "sockets the server closed before the client did",
            str(sum(1 for run in outcome.runs if run.closed_by_server)),
            "0",
        ),
    ]
    print_table("Count check", rows)
    problems: list[str] = []
    if not check.count_ok:
        for channel in check.channels:
            if (
                channel.lost
                or channel.doubled
                or channel.not_done
                or channel.empty_replies
                or channel.foreign_replies
            ):
                problems.append(
                    f"channel {channel.user.channel_id} (client {channel.user.index}): "
                    f"found {channel.found}/{channel.expected}, doubled {channel.doubled}, "
                    f"not done {channel.not_done[:5]}, empty {channel.empty_replies}, "
                    f"foreign {channel.foreign_replies}"
                )
            bad = {m: n for m, n in channel.reply_counts.items() if n != 1}
            if bad:
                problems.append(
                    f"channel {channel.user.channel_id}: reply messages per mission {bad}"
                )
            if channel.mission_count != channel.user.prefill + channel.expected:
                problems.append(
                    f"channel {channel.user.channel_id}: session mission_count "
                    f"{channel.mission_count}, expected {channel.user.prefill + channel.expected}"
                )
        if not problems:
            problems.append("count check failed")
    if check.missions_elsewhere:
        problems.append(f"{check.missions_elsewhere} missions in channels no client used")
    problems.extend(client_side)
    if with_notices:
        problems.extend(print_notices(check, outcome))
    return problems


def print_notices(check: DatabaseCheck, outcome: ClientsOutcome) -> list[str]:
    received = {run.user.channel_id: len(run.notices) for run in outcome.runs}
    crossing = [c for c in check.channels if c.notice_expected]
    staying = [c for c in check.channels if not c.notice_expected]
    rows: list[tuple[str, ...]] = [
        ("long-session notices", "stored", "received", "expected"),
        (
            f"sessions that reached {check.threshold} ({len(crossing)})",
            str(sum(c.notices for c in crossing)),
            str(sum(received.get(c.user.channel_id, 0) for c in crossing)),
            str(len(crossing)),
        ),
        (
            f"sessions that stayed below ({len(staying)})",
            str(sum(c.notices for c in staying)),
            str(sum(received.get(c.user.channel_id, 0) for c in staying)),
            "0",
        ),
    ]
    print_table("Notices (exactly one per session that crossed the threshold)", rows)
    problems = []
    for c in check.channels:
        got = received.get(c.user.channel_id, 0)
        if c.notices != c.notice_expected or got != c.notice_expected:
            problems.append(
                f"channel {c.user.channel_id} (prefill {c.user.prefill}): "
                f"{c.notices} notice(s) stored, {got} received, {c.notice_expected} expected"
            )
    return problems


def print_resources(stack: Stack) -> None:
    sampler = stack.sampler
    if sampler is None:
        return
    rows: list[tuple[str, ...]] = [
        ("process", "pid", "peak RSS (VmHWM)", "children", "largest child", "tree PSS peak")
    ]
    for name, tree in sampler.trees.items():
        mains = [p for p in tree.pids.values() if p.role == "main"]
        kids = [p for p in tree.pids.values() if p.role == "child"]
        main = mains[0] if mains else None
        rows.append(
            (
                name,
                str(main.pid) if main else "-",
                _mib(max(main.hwm_kib, main.rss_kib)) if main else "-",
                str(len(kids)),
                _mib(max(max(k.hwm_kib, k.rss_kib) for k in kids)) if kids else "-",
                _mib(tree.tree_pss_kib),
            )
        )
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rows.append(("benchmark clients (this process)", str(os.getpid()), _mib(own), "0", "-", "-"))
    print_table(f"Peak memory ({sampler.rss_samples} samples)", rows)
    if stack.embedded:
        print_table(
            "Database", [("connections to the scratch database", "peak"), ("SQLite file", "-")]
        )
    else:
        print_table(
            "Database",
            [
                ("PostgreSQL connections to the scratch database", "peak"),
                ("all (pg_stat_activity)", str(sampler.peak_connections)),
                ("active at once", str(sampler.peak_active)),
                ("samples", str(sampler.connection_samples)),
            ],
        )
    if sampler.errors:
        print(f"  sampler errors: {sampler.errors[:3]}")


def stack_config(
    args: Any, *, prefill: list[int], label: str, embedded: bool = False
) -> StackConfig:
    """The StackConfig of the common command-line options (add_common_arguments)."""
    return StackConfig(
        users=len(prefill),
        prefill=prefill,
        embedded=embedded,
        workers=args.workers,
        pool=args.pool,
        concurrency=args.concurrency,
        replies_pool_max=args.replies_pool_max,
        background_workers=args.background_workers,
        background_pool=args.background_pool,
        background_concurrency=args.background_concurrency,
        reply_cpu_slots=args.reply_cpu_slots,
        delay_ms=args.delay_ms,
        redis_db=args.redis_db,
        redis_force=args.redis_force,
        pg_url=args.pg_url,
        keep_logs=args.keep_logs,
        label=label,
    )


def run_benchmark(
    args: Any,
    *,
    title: str,
    prefill: list[int],
    percentiles: tuple[int, ...],
    notices_must_match: bool,
) -> int:
    """Bring the stack up, run the clients, check the database, print the tables.

    Returns the exit code: 1 if the count check (and, if asked, the notice check) failed,
    2 if the run could not be completed (a service did not start, the deadline passed)."""
    threshold = int(os.environ.get("LONG_SESSION_MISSIONS") or 20)
    config = stack_config(args, prefill=prefill, label=title.split()[0].lower())
    budget = args.timeout + 600  # setup and teardown on top of the client phase
    try:
        with run_deadline(budget), Stack(config, max_seconds=budget) as stack:
            before = stack.model_stats()
            outcome = run_clients(
                stack,
                instructions=args.instructions,
                per_instruction_timeout=args.instruction_timeout,
                phase_timeout=args.timeout,
                linger=args.linger,
            )
            calls = stats_delta(before, stack.model_stats())
            workers = stack.workers_summary()
            stack.stop_services()
            check = check_database(
                stack,
                sent={run.user.channel_id: len(run.instructions) for run in outcome.runs},
                threshold=threshold,
            )
            pre_filled = [n for n in prefill if n]
            print(
                f"\n{title}: {args.clients} clients x {args.instructions} instructions; "
                f"{workers}; "
                f"model delay {args.delay_ms:g} ms; {len(pre_filled)} sessions pre-filled "
                f"with {max(pre_filled, default=0)} missions; notice threshold {threshold}"
            )
            print_throughput(outcome, calls)
            print_latency(outcome, percentiles)
            problems = print_counts(check, outcome, with_notices=False)
            notice_problems = print_notices(check, outcome)
            print_resources(stack)
            failed = bool(problems) or (notices_must_match and bool(notice_problems))
            if _print_findings(stack, outcome, failed, [*problems, *notice_problems]):
                stack.mark_failed()
    except BenchError as exc:
        print(f"\nBenchmark stopped: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nBenchmark interrupted", file=sys.stderr)
        return 130
    return 1 if failed else 0


def _print_findings(
    stack: Stack, outcome: ClientsOutcome, failed: bool, problems: list[str]
) -> bool:
    """Print the verdict and what else was seen; True when there is anything to look at."""
    print("\nResult: " + ("FAILED" if failed else "OK"))
    for line in problems[:40]:
        print(f"  - {line}")
    closed = [
        f"client {run.user.index} (channel {run.user.channel_id}): {run.closed_by_server}"
        for run in outcome.runs
        if run.closed_by_server
    ]
    if closed:
        print(f"Sockets closed by the server while their client still listened: {len(closed)}")
        for line in closed[:10]:
            print(f"  - {line}")
    service = stack.service_failures()
    if not outcome.queue_idle:
        service.append("the task queues had not drained 120 s after the last reply")
    if service:
        print("Service log findings:")
        for line in service:
            print(f"  - {line}")
    return bool(problems or closed or service)


def _mib(kib: int) -> str:
    return f"{kib / 1024:,.1f} MiB"


@contextlib.contextmanager
def run_deadline(seconds: float) -> Iterator[None]:
    """SIGALRM after `seconds`, SIGTERM at any time: both unwind through every cleanup."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        raise BenchError(f"stopped by {signal.Signals(signum).name}")

    previous_alarm = signal.signal(signal.SIGALRM, on_signal)
    previous_term = signal.signal(signal.SIGTERM, on_signal)
    signal.alarm(max(1, int(seconds)))
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous_alarm)
        signal.signal(signal.SIGTERM, previous_term)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def add_stack_arguments(parser: Any) -> None:
    """Options of the services: workers, pools, Redis DB, PostgreSQL, logs."""
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="Celery workers of the replies queue (-Q replies)",
    )
    parser.add_argument(
        "--pool", choices=POOLS, default="threads", help="pool of the replies workers"
    )
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=64,
        help="threads (or children) per replies worker",
    )
    parser.add_argument(
        "--replies-pool-max",
        type=positive_int,
        default=16,
        help="DATABASE_POOL_MAX of each replies worker (as in docker-compose.yml)",
    )
    parser.add_argument(
        "--background-workers",
        type=positive_int,
        default=1,
        help="Celery workers of the background queue (-Q background)",
    )
    parser.add_argument(
        "--background-pool", choices=POOLS, default="threads", help="pool of the background workers"
    )
    parser.add_argument(
        "--background-concurrency",
        type=positive_int,
        default=8,
        help="threads (or children) per background worker",
    )
    parser.add_argument(
        "--reply-cpu-slots",
        type=positive_int,
        default=8,
        help="REPLY_CPU_SLOTS of the web process (embedded) and of each replies worker",
    )
    parser.add_argument(
        "--redis-db", type=int, default=11, help="Redis DB index for this run (must be empty)"
    )
    parser.add_argument(
        "--redis-force", action="store_true", help="flush the Redis DB even if it holds keys"
    )
    parser.add_argument(
        "--pg-url",
        default=os.environ.get("BENCH_PG_URL") or PG_DEFAULT,
        help="maintenance database on 127.0.0.1 the scratch database is created from",
    )
    parser.add_argument("--keep-logs", action="store_true", help="keep the processes' logs")


def add_common_arguments(
    parser: Any, *, clients: int, instructions: int, workers: int, delay_ms: float
) -> None:
    parser.add_argument(
        "--clients", type=positive_int, default=clients, help="concurrent WebSocket clients"
    )
    parser.add_argument(
        "--delay-ms", type=float, default=delay_ms, help="the model server's wait before a reply"
    )
    parser.add_argument(
        "--instructions", type=positive_int, default=instructions, help="instructions per client"
    )
    add_stack_arguments(parser)
    parser.set_defaults(workers=workers)
    parser.add_argument(
        "--instruction-timeout", type=float, default=120.0, help="seconds to wait for a reply"
    )
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds the client phase may take"
    )
    parser.add_argument(
        "--linger",
        type=float,
        default=0.0,
        help="seconds each client stays connected after its last reply (idle sockets)",
    )


# --- The setup subprocess (Django-configured) ---------------------------------------------


def _setup_main(spec_path: str, out_path: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from datetime import timedelta

    from django.conf import settings
    from django.contrib.auth.models import User
    from django.db import transaction
    from django.test import Client
    from django.utils import timezone

    from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
    from office.models import Channel, ChannelKind
    from office.services import office_create_with_team
    from sessions.models import ChatSession

    spec = json.loads(Path(spec_path).read_text())
    run_id: str = spec["run_id"]
    out: list[dict[str, Any]] = []
    now = timezone.now()
    for index, prefill in enumerate(spec["prefill"]):
        user = User(username=f"bench{index}-{run_id}"[:150])
        user.set_unusable_password()
        user.save()
        office = office_create_with_team(owner=user, name="Bench office")
        channel = (
            Channel.objects.select_related("employee")
            .filter(office=office, kind=ChannelKind.DM, employee__is_master=False)
            .order_by("employee_id")
            .first()
        )
        assert channel is not None and channel.employee is not None
        session = ChatSession.objects.get(channel=channel, closed_at__isnull=True)
        if prefill:
            with transaction.atomic():
                missions = Mission.objects.bulk_create(
                    Mission(
                        session=session,
                        channel=channel,
                        seq=seq,
                        source=MissionSource.DM,
                        assignee=channel.employee,
                        instruction=f"Earlier request {seq}: draft item {seq} of the plan.",
                        reply=f"Done: item {seq} of the plan is drafted and shared.",
                        status=MissionStatus.DONE,
                        attempts=1,
                        created_at=now - timedelta(minutes=prefill - seq + 1),
                        started_at=now - timedelta(minutes=prefill - seq + 1),
                        finished_at=now - timedelta(minutes=prefill - seq + 1),
                    )
                    for seq in range(1, prefill + 1)
                )
                Message.objects.bulk_create(
                    message
                    for mission in missions
                    for message in (
                        Message(
                            channel=channel,
                            session=session,
                            mission=mission,
                            kind=MessageKind.USER,
                            text=mission.instruction,
                            payload={"client_id": "", "seq": mission.seq},
                            created_at=mission.created_at,
                        ),
                        Message(
                            channel=channel,
                            session=session,
                            mission=mission,
                            kind=MessageKind.EMPLOYEE,
                            author=channel.employee,
                            text=mission.reply,
                            payload={"seq": mission.seq},
                            created_at=mission.created_at,
                        ),
                    )
                )
                ChatSession.objects.filter(pk=session.pk).update(mission_count=prefill)
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        out.append(
            {
                "index": index,
                "username": user.username,
                "cookie_name": settings.SESSION_COOKIE_NAME,
                "cookie": cookie,
                "channel_id": channel.pk,
                "session_id": session.pk,
                "employee": channel.employee.name,
                "prefill": prefill,
            }
        )
    Path(out_path).write_text(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "setup":
        _setup_main(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: harness.py setup SPEC OUT (the benchmarks are realtime.py and load.py)")
