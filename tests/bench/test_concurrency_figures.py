"""The concurrency benchmark's derived figures: what they add up and what they leave out."""

from __future__ import annotations

from bench.concurrency import CLIENTS, MODEL, _gauged, _servers_ms


def test_servers_cpu_leaves_out_the_model_and_the_clients() -> None:
    cpu_ms = {"daphne": 12.0, "celery replies": 3.0, MODEL: 1.5, CLIENTS: 2.0}

    assert _servers_ms(cpu_ms) == 15.0
    assert _gauged(cpu_ms) == 10.0


def test_no_gauge_without_the_model_s_cpu() -> None:
    assert _gauged({"daphne": 12.0, CLIENTS: 2.0}) is None
    assert _gauged({"daphne": 12.0, MODEL: 0.0}) is None
