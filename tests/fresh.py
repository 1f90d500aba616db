"""Running code in a fresh interpreter with the embedded default (tests of what a process
does when it starts, or of SQLite under threads, that the test process cannot show)."""

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAPHNE = Path(sys.executable).parent / "daphne"
# The CPUs this test process may run on, read before any test module is imported (the
# root conftest imports this module): a test can tell if something pinned the process.
CPUS_AT_START: list[int] = (
    sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
)
# A Celery worker's start, as far as the project's own handlers see it (`worker_init`).
WORKER_START = (
    "import django\n"
    "django.setup()\n"
    "from celery.signals import worker_init\n"
    "from config.celery import app\n"
    "worker_init.send(sender=None)\n"
)


def embedded_env(**overrides: str) -> dict[str, str]:
    """This environment without the production servers (the suite may run on PostgreSQL
    and Redis), plus `overrides`."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(overrides)
    return env


def _python(
    args: tuple[str, ...], env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_python(*args: str, env: dict[str, str], timeout: float = 120) -> str:
    """`python *args` from the project's root; its output, once it exited cleanly (its
    error output is the failure's message otherwise)."""
    result = _python(args, env, timeout)
    assert result.returncode == 0, result.stderr
    return result.stdout


def python_error(*args: str, env: dict[str, str], timeout: float = 120) -> str:
    """`python *args` from the project's root, which must fail; its error output."""
    result = _python(args, env, timeout)
    assert result.returncode != 0, result.stdout
    return result.stderr


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(url: str) -> bool:
    """Whether an HTTP server answered at all (any status): a port accepts connections
    as soon as it listens, before the server's loop runs."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=2):
            return True
    except urllib.error.HTTPError:
        return True
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def daphne_serving(*, env: dict[str, str], timeout: float = 120) -> Iterator[int]:
    """`daphne config.asgi:application` on a free loopback port, as the README runs it;
    yields its process id once it has answered a request."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [str(DAPHNE), "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + timeout
            while not _answers(f"http://127.0.0.1:{port}/healthz"):
                if process.poll() is not None:
                    log.seek(0)
                    output = log.read().decode(errors="replace")[-3000:]
                    raise AssertionError(f"daphne exited with {process.returncode}:\n{output}")
                assert time.monotonic() < deadline, f"daphne gave no answer in {timeout:.0f} s"
                time.sleep(0.2)
            yield process.pid
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def daphne_error(*, env: dict[str, str], timeout: float = 120) -> str:
    """`daphne config.asgi:application`, which must stop by itself with an error; its
    error output."""
    result = subprocess.run(
        [str(DAPHNE), "-b", "127.0.0.1", "-p", str(free_port()), "config.asgi:application"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode != 0, result.stderr
    return result.stderr


def thread_cpus(pid: int) -> list[list[int]]:
    """The CPUs each thread of process `pid` may run on, one sorted list per thread."""
    seen = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(ProcessLookupError, FileNotFoundError):
            seen.append(sorted(os.sched_getaffinity(int(task.name))))
    return seen
