"""Running code in a fresh interpreter with the embedded default (tests of what a process
does when it starts, or of SQLite under threads, that the test process cannot show)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
