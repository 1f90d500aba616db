"""A server process keeps its threads on one CPU (config.cpu, PIN_CPU): the embedded web
process by default, a production process only when told which CPU, and only once it serves:
importing config.asgi pins nothing. Every case that pins runs in another process (a fresh
interpreter, or Daphne itself): pinning the test process would pin everything it starts."""

import json
import os
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

import config.asgi  # noqa: F401  (as tests/ws.py and a few test modules do)
from config.cpu import pin_server_process
from tests.fresh import (
    CPUS_AT_START,
    WORKER_START,
    daphne_error,
    daphne_serving,
    embedded_env,
    run_python,
    thread_cpus,
)

ALLOWED = CPUS_AT_START
pytestmark = [
    pytest.mark.skipif(len(ALLOWED) < 2, reason="needs a process allowed two CPUs"),
    # Each starts a fresh interpreter or Daphne itself.
    pytest.mark.slow(15),
]

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


def test_importing_the_application_pins_nothing() -> None:
    # This test process imported config.asgi above (and so does every test of the
    # sockets): it, and all it starts, keep every CPU they had.
    assert sorted(os.sched_getaffinity(0)) == ALLOWED
    seen = _probe("import config.asgi")
    assert seen["main"] == seen["before"] == seen["after"] == ALLOWED


def _web(**env: str) -> dict[str, str]:
    return embedded_env(DJANGO_SETTINGS_MODULE="config.settings", **env)


def test_the_embedded_web_process_pins_itself_once_it_serves() -> None:
    with daphne_serving(env=_web()) as pid:
        threads = thread_cpus(pid)
    assert len(threads) > 1  # Daphne's, the embedded beat's, Django's
    [cpu] = threads[0]
    assert cpu in ALLOWED
    assert all(cpus == [cpu] for cpus in threads)


# Production: processes share the machine, the scheduler places them.
PRODUCTION = {"TASK_RUNNER": "celery", "REDIS_URL": "redis://127.0.0.1:6379/0"}


@pytest.mark.parametrize("env", [{"PIN_CPU": "off"}, PRODUCTION])
def test_otherwise_the_web_process_is_left_to_the_scheduler(env: dict[str, str]) -> None:
    with daphne_serving(env=_web(**env)) as pid:
        threads = thread_cpus(pid)
    assert threads and all(cpus == ALLOWED for cpus in threads)


def test_a_production_process_keeps_to_the_cpu_it_is_given() -> None:
    with daphne_serving(env=_web(PIN_CPU=str(ALLOWED[-1]), **PRODUCTION)) as pid:
        threads = thread_cpus(pid)
    assert threads and all(cpus == [ALLOWED[-1]] for cpus in threads)
    # A task worker, when it starts.
    assert _probe(WORKER_START, PIN_CPU=str(ALLOWED[0]), **PRODUCTION)["main"] == [ALLOWED[0]]
    assert _probe(WORKER_START, **PRODUCTION)["main"] == ALLOWED


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("two", "PIN_CPU must be auto, off or a CPU number, got 'two'"),
        ("4096", "PIN_CPU=4096: CPU 4096 is not one this process may run on"),
    ],
)
def test_a_cpu_it_cannot_have_stops_start_up_with_a_clear_error(value: str, message: str) -> None:
    assert message in daphne_error(env=_web(PIN_CPU=value))


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
