"""The stack a run drives: the model server, Daphne and (production) the Celery workers,
started, waited for, restarted and stopped, bounded in time."""

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
    _require_loopback,
    free_port,
    ignored_settings,
    log,
    wait_healthy,
)
from bench.harness.sampling import Sampler
from bench.harness.stores import ScratchStores

# --- The stack --------------------------------------------------------------------------


class Stack(ScratchStores):
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

    # -- the queues

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
                pattern = f"{self.redis_prefix}:{queue}*"
                for key in client.scan_iter(pattern, count=1000, _type="list"):
                    waiting += int(client.llen(key))
            return waiting == 0 and int(client.hlen(f"{self.redis_prefix}:unacked")) == 0
        finally:
            client.close()

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
            env["REDIS_PREFIX"] = self.redis_prefix
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
            [PYTHON, "-m", "bench.harness.users", str(spec_path), str(out_path)],
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
                # The office's own entry to Daphne, as `make run` and docker-compose run it.
                PYTHON,
                "-m",
                "config.serve",
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
                if (" ERROR " in line or " CRITICAL " in line or "Traceback" in line)
                and WARMING_UP not in line
            )
            for line, count in errors.most_common(5):
                failures.append(f"{proc.name}: {count} x {line}")
        return failures


# Django logs every 5xx at ERROR: the 503s /healthz answers while the server warms up
# (config/warmup.py) are the answers to the stack's own readiness polls, not failures.
WARMING_UP = "Service Unavailable: /healthz"


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return f"(no log at {path})"
    return f"see {path}; last lines:\n    " + "\n    ".join(text[-lines:])
