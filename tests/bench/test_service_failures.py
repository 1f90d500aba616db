"""The stack's log check counts real errors of its services, not the 503s /healthz answers
to the stack's own readiness polls while a server warms up."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from bench.harness.stack import Stack


def test_warm_up_503s_of_healthz_are_not_failures_but_other_errors_are(tmp_path: Path) -> None:
    log = tmp_path / "daphne.log"
    log.write_text(
        "2026-12-06 03:53:01 ERROR django.request: Service Unavailable: /healthz\n"
        "2026-12-06 03:53:01 ERROR django.request: Service Unavailable: /healthz\n"
        "2026-12-06 03:53:02 INFO daphne: ready\n"
        "2026-12-06 03:53:09 ERROR django.request: Internal Server Error: /ws/channels/4/\n",
        encoding="utf-8",
    )
    proc = SimpleNamespace(name="daphne", popen=SimpleNamespace(poll=lambda: None), log_path=log)
    stack = SimpleNamespace(procs=[proc])

    failures = Stack.service_failures(stack)  # type: ignore[arg-type]

    assert failures == ["daphne: 1 x ERROR django.request: Internal Server Error: /ws/channels/4/"]
