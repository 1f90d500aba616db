"""A server process keeps its threads on one CPU (config.cpu, PIN_CPU): the embedded web
process by default, a production process only when told which CPU. Every case that pins
runs in a fresh interpreter: pinning the test process would pin everything it starts."""

import json
import os
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.cpu import pin_server_process
from tests.fresh import WORKER_START, embedded_env, python_error, run_python

ALLOWED = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
pytestmark = pytest.mark.skipif(len(ALLOWED) < 2, reason="needs a process allowed two CPUs")

# Affinities (as sorted lists) of the main thread, of a thread started before `step` and of
# one started after it, and what `step` left in `cpu`.
PROBE = """
import json, os, threading
started = threading.Event()
done = threading.Event()
def wait(): started.set(); done.wait()
before = threading.Thread(target=wait); before.start(); started.wait()
cpu = None
{step}
seen = []
after = threading.Thread(target=lambda: seen.append(sorted(os.sched_getaffinity(0))))
after.start(); after.join()
print(json.dumps({{
    "cpu": cpu,
    "main": sorted(os.sched_getaffinity(0)),
    "before": sorted(os.sched_getaffinity(before.native_id)),
    "after": seen[0],
}}))
done.set()
"""


def _probe(step: str, **env: str) -> dict[str, object]:
    script = PROBE.format(step=step)
    output = run_python(
        "-c", script, env=embedded_env(DJANGO_SETTINGS_MODULE="config.settings", **env)
    )
    return dict(json.loads(output.strip().splitlines()[-1]))


def test_every_thread_of_the_process_moves_to_the_cpu_it_runs_on() -> None:
    seen = _probe("from config.cpu import pin_to_one_cpu\ncpu = pin_to_one_cpu()")
    assert seen["cpu"] in ALLOWED
    assert seen["main"] == seen["before"] == seen["after"] == [seen["cpu"]]


@pytest.mark.parametrize("cpu", [ALLOWED[0], ALLOWED[-1]] if ALLOWED else [])
def test_a_named_cpu_is_the_one_kept(cpu: int) -> None:
    seen = _probe(f"from config.cpu import pin_to_one_cpu\ncpu = pin_to_one_cpu({cpu})")
    assert seen["main"] == seen["before"] == seen["after"] == [cpu]


def test_the_embedded_web_process_pins_itself_once_started() -> None:
    seen = _probe("import config.asgi")
    assert len(seen["main"]) == 1  # type: ignore[arg-type]
    assert seen["main"] == seen["before"] == seen["after"]


@pytest.mark.parametrize(
    "env",
    [
        {"PIN_CPU": "off"},
        # Production: processes share the machine, the scheduler places them.
        {"TASK_RUNNER": "celery", "REDIS_URL": "redis://127.0.0.1:6379/0"},
    ],
)
def test_otherwise_the_web_process_is_left_to_the_scheduler(env: dict[str, str]) -> None:
    seen = _probe("import config.asgi", **env)
    assert seen["main"] == seen["before"] == seen["after"] == ALLOWED


def test_a_production_process_keeps_to_the_cpu_it_is_given() -> None:
    env = {"TASK_RUNNER": "celery", "REDIS_URL": "redis://127.0.0.1:6379/0"}
    seen = _probe("import config.asgi", PIN_CPU=str(ALLOWED[-1]), **env)
    assert seen["main"] == seen["before"] == seen["after"] == [ALLOWED[-1]]
    # A task worker, when it starts.
    assert _probe(WORKER_START, PIN_CPU=str(ALLOWED[0]), **env)["main"] == [ALLOWED[0]]
    assert _probe(WORKER_START, **env)["main"] == ALLOWED


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("two", "PIN_CPU must be auto, off or a CPU number, got 'two'"),
        ("4096", "PIN_CPU=4096: CPU 4096 is not one this process may run on"),
    ],
)
def test_a_cpu_it_cannot_have_stops_start_up_with_a_clear_error(value: str, message: str) -> None:
    error = python_error(
        "-c",
        "import config.asgi",
        env=embedded_env(DJANGO_SETTINGS_MODULE="config.settings", PIN_CPU=value),
    )
    assert message in error


def _forbidden(*args: object) -> None:
    raise PermissionError(1, "Operation not permitted")


def test_where_pinning_is_forbidden_auto_starts_unpinned_and_says_so(
    settings: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    settings.TASK_RUNNER = "thread"
    settings.PIN_CPU = "auto"
    monkeypatch.setattr(os, "sched_setaffinity", _forbidden)
    assert pin_server_process() is None
    assert "could not keep this process on one CPU" in caplog.text


def test_where_pinning_is_forbidden_a_named_cpu_stops_start_up(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.PIN_CPU = str(ALLOWED[0])
    monkeypatch.setattr(os, "sched_setaffinity", _forbidden)
    with pytest.raises(ImproperlyConfigured, match=f"PIN_CPU={ALLOWED[0]}: .*not permitted"):
        pin_server_process()
