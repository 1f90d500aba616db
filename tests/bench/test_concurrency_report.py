"""The concurrency benchmark's derived figures: what they add up and what they leave out."""

from __future__ import annotations

from bench.concurrency import _allowed_ms, _cores, _gauged, _servers_ms
from bench.concurrency_scenarios import CLIENTS, MODEL
from bench.harness import ignored_settings


def test_servers_cpu_leaves_out_the_model_and_the_clients() -> None:
    cpu_ms = {"daphne": 12.0, "celery replies": 3.0, MODEL: 1.5, CLIENTS: 2.0}

    assert _servers_ms(cpu_ms) == 15.0
    assert _gauged(cpu_ms) == 10.0


def test_no_gauge_without_the_model_s_cpu() -> None:
    assert _gauged({"daphne": 12.0, CLIENTS: 2.0}) is None
    assert _gauged({"daphne": 12.0, MODEL: 0.0}) is None


def test_cores_busy_are_missions_per_second_times_the_servers_cpu_per_mission() -> None:
    # 50 missions/s at 20 ms of the servers' CPU each: one core busy; the model's and the
    # clients' CPU are not the servers'.
    cores = _cores(50.0, {"daphne": 14.0, "celery replies": 6.0, MODEL: 1.5, CLIENTS: 2.0})

    assert cores == 1.0
    assert _allowed_ms(cores, 80.0) == 12.5
    assert _allowed_ms(2 * cores, 80.0) == 25.0


def test_a_setting_the_benchmark_overrides_is_named_when_the_environment_sets_it() -> None:
    # Runs meant to vary REPLY_CPU_SLOTS through the environment once ran the default.
    environ = {"REPLY_CPU_SLOTS": "3", "FOLD_BATCH": "", "PATH": "/usr/bin", "PIN_CPU": "off"}

    assert ignored_settings(environ) == ["REPLY_CPU_SLOTS"]
    assert ignored_settings({}) == []
