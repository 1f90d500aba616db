"""The stack a run drives: the model server, Daphne and (production) the Celery workers,
started, waited for, restarted and stopped, bounded in time; and its scratch stores, its
Redis database index and its database (PostgreSQL or a SQLite file), made at the start and
removed at the end."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.harness.base import (
    HOOK_PREFIX,
    PYTHON,
    QUEUES,
    ROOT,
    SET_BY_THE_BENCHMARK,
    VENV_BIN,
    BenchError,
    Proc,
    StackConfig,
    UserFixture,
    free_port,
    ignored_settings,
    local_opener,
    log,
    wait_healthy,
)
from bench.harness.sampling import Sampler

# The environment's values of these never reach the services: the stack sets its own.
REPLACED_SETTINGS = {
    *("DATABASE_URL", "REDIS_URL", "TASK_RUNNER", "TEST_DATABASE_NAME", "LLM_PROVIDER"),
    *("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "ALLOWED_HOSTS", "OFFICE_ENV"),
    "DJANGO_SETTINGS_MODULE",
    *SET_BY_THE_BENCHMARK,
}
# Django logs every 5xx at ERROR: the 503s /healthz answers while the server warms up
# (config/warmup.py) are the answers to the stack's own readiness polls, not failures.
WARMING_UP = "Service Unavailable: /healthz"


class Stack:
    """Everything the benchmark runs against. Use as a context manager: whatever happens
    inside, every process is stopped, the scratch database dropped (or the SQLite file
    removed) and Redis flushed."""

    def __init__(self, config: StackConfig, *, max_seconds: float) -> None:
        self.config = config
        self.max_seconds = max_seconds
        self.run_id = f"{config.label}_{os.getpid()}_{secrets.token_hex(3)}"
        self.db_name = f"bench_{self.run_id}".lower()
        self.sqlite_path: Path | None = None
        if config.embedded:
            self.sqlite_path = Path(f"/tmp/{self.db_name}.sqlite3")
            self.db_url = f"sqlite:///{self.sqlite_path}"
        else:
            self.db_url = urlsplit(config.pg_url)._replace(path=f"/{self.db_name}").geturl()
        self.redis_url = f"redis://127.0.0.1:6379/{config.redis_db}"
        # The stack's names in Redis (its queues, events and counters), said outright so
        # that this process can look at its queues and ping its workers under them.
        self.redis_prefix = f"bench-{secrets.token_hex(4)}"
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
            host = urlsplit(self.config.pg_url).hostname or ""
            if host not in ("127.0.0.1", "localhost", "::1"):
                raise BenchError(f"the PostgreSQL URL must be on 127.0.0.1 (got host {host!r})")
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
        self._run_step("migrate", [PYTHON, "manage.py", "migrate", "--noinput"], timeout=300)
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
        self.http_port = free_port()
        # The office's own entry to Daphne, as `make run` and docker-compose run it.
        serve = [PYTHON, "-m", "config.serve", "-b", "127.0.0.1", "-p", str(self.http_port)]
        self.spawn("daphne", [*serve, "bench.bench_asgi:application"])
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

    # -- the queues

    def queue_idle(self) -> bool:
        """No task waiting and none running: in production, nothing in the two queues (or
        their priority variants) and nothing delivered but unacknowledged (tasks are
        acknowledged late, after they ran); embedded, the web process's lanes are empty."""
        if self.embedded:
            return int(self.hook("GET", "pending")["pending"]) == 0
        with contextlib.closing(self._redis_client()) as client:
            waiting = 0
            for queue in QUEUES:
                pattern = f"{self.redis_prefix}:{queue}*"
                for key in client.scan_iter(pattern, count=1000, _type="list"):
                    waiting += int(client.llen(key))
            return waiting == 0 and int(client.hlen(f"{self.redis_prefix}:unacked")) == 0

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

    def queue_tasks(self, task: str, arg_lists: list[list[Any]]) -> int:
        """Queue `task` once per argument list inside the web process, by name, exactly as a
        service does (config.celery.queue_task): the embedded lanes, or the broker."""
        return int(self.hook("POST", "queue", {"task": task, "args": arg_lists})["queued"])

    # -- processes

    def env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.lower().endswith("_proxy") and key not in REPLACED_SETTINGS
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
            env.update(REDIS_URL=self.redis_url, REDIS_PREFIX=self.redis_prefix)
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

    def _setup_users(self) -> None:
        spec_path = self.log_dir / "setup-spec.json"
        out_path = self.log_dir / "setup-out.json"
        spec_path.write_text(json.dumps({"run_id": self.run_id, "prefill": self.config.prefill}))
        argv = [PYTHON, "-m", "bench.harness.users", str(spec_path), str(out_path)]
        self._run_step("setup", argv, timeout=900)
        self.users = [UserFixture(**row) for row in json.loads(out_path.read_text())]
        log(
            f"{len(self.users)} users with offices and session cookies "
            f"({sum(u.prefill for u in self.users)} missions pre-filled)"
        )

    def _start_fake_model(self) -> None:
        argv = [PYTHON, "-m", "tests.fake_openai", "--port", str(free_port())]
        proc = self.spawn("fake model", [*argv, "--delay-ms", str(self.delay_ms)])
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
                argv = [str(VENV_BIN / "celery"), "-A", "config", "worker", "-Q", queue]
                argv += [f"--pool={pool}", f"--concurrency={concurrency}", "-n", node]
                argv += ["--loglevel=WARNING", "--without-gossip", "--without-mingle"]
                env = {"DATABASE_POOL_MAX": str(config.replies_pool_max)}
                self.spawn(f"{queue} worker {number}", argv, env=env if queue == "replies" else {})

    def _check_alive(self) -> None:
        for proc in self.procs:
            code = None if proc.stopped else proc.popen.poll()
            if code is not None:
                raise BenchError(f"{proc.name} exited with {code}: {_tail(proc.log_path)}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 90
        wait_healthy(self.http_port, self._check_alive, 90)
        log(f"daphne ready on 127.0.0.1:{self.http_port}")
        if self.embedded:
            return
        from celery import Celery

        app = Celery("bench-ping", broker=self.redis_url)
        app.conf.broker_transport_options = {"global_keyprefix": f"{self.redis_prefix}:"}
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
        argv = [str(VENV_BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port)]
        argv.append("bench.echo_asgi:application")
        proc = self.spawn("echo daphne", argv, env={"DJANGO_SETTINGS_MODULE": ""})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.popen.poll() is not None:
                break
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                log(f"echo daphne ready on 127.0.0.1:{port}")
                return proc, port
            time.sleep(0.1)
        raise BenchError(f"the echo server did not start: {_tail(proc.log_path)}")

    def model_stats(self) -> dict[str, Any]:
        """The model server's request counts: requests, in_flight, by_kind."""
        base = urlsplit(self.fake_url)
        url = f"{base.scheme}://{base.netloc}/_fake/stats"
        with local_opener().open(url, timeout=10) as response:
            return dict(json.loads(response.read()))

    def hook(self, method: str, name: str, payload: dict[str, Any] | None = None) -> Any:
        """Call the benchmark hook of the web process (bench/bench_asgi.py)."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.http_port}{HOOK_PREFIX}{name}",
            data=None if payload is None else json.dumps(payload).encode(),
            method=method,
            headers={"X-Bench-Token": self.hook_token, "Content-Type": "application/json"},
        )
        try:
            with local_opener().open(request, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise BenchError(f"bench hook {name}: {exc.code} {exc.read()[:300]!r}") from exc

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
                if (" ERROR " in line or " CRITICAL " in line or "Traceback" in line)
                and WARMING_UP not in line
            )
            for line, count in errors.most_common(5):
                failures.append(f"{proc.name}: {count} x {line}")
        return failures

    # -- the scratch stores

    def _redis_client(self) -> Any:
        import redis

        return redis.Redis.from_url(self.redis_url, socket_timeout=5, socket_connect_timeout=5)

    def _redis_prepare(self) -> None:
        with contextlib.closing(self._redis_client()) as client:
            keys = int(client.dbsize())
            if keys and not self.config.redis_force:
                raise BenchError(
                    f"Redis DB {self.config.redis_db} holds {keys} keys: it may be someone "
                    "else's. Pick another --redis-db, or pass --redis-force to flush it."
                )
            client.flushdb()
            self._redis_used = True

    def _redis_flush(self) -> None:
        if not self._redis_used:
            return
        try:
            with contextlib.closing(self._redis_client()) as client:
                client.flushdb()
        except Exception as exc:
            log(f"could not flush Redis DB {self.config.redis_db}: {exc!r}")

    def _pg_admin(self, statement: str) -> None:
        """Run `statement` ({} is the scratch database's name) on the maintenance database."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.config.pg_url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL(statement).format(sql.Identifier(self.db_name)))

    def _create_database(self) -> None:
        if self.sqlite_path is not None:
            log(f"scratch SQLite database {self.sqlite_path}")
        else:
            self._pg_admin("CREATE DATABASE {}")
            log(f"scratch database {self.db_name}")
        self._db_created = True

    def _drop_database(self) -> None:
        if not self._db_created:
            return
        if self.sqlite_path is not None:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    Path(f"{self.sqlite_path}{suffix}").unlink()
            self._db_created = False
            return
        try:
            self._pg_admin("DROP DATABASE IF EXISTS {} WITH (FORCE)")
            self._db_created = False
        except Exception as exc:
            log(f"could not drop {self.db_name}: {exc!r}")

    @contextlib.contextmanager
    def scratch(self) -> Iterator[ScratchDb]:
        """A connection to the scratch database (read by the checks)."""
        if self.sqlite_path is not None:
            import sqlite3

            with contextlib.closing(sqlite3.connect(str(self.sqlite_path), timeout=30)) as conn:
                yield ScratchDb(conn, sqlite=True)
        else:
            import psycopg

            with psycopg.connect(self.db_url, autocommit=True, connect_timeout=10) as pg:
                yield ScratchDb(pg, sqlite=False)


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
