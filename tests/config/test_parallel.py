"""`make test` runs the suite in several pytest-xdist workers at once (Makefile): each has
its own test database and its own names in Redis, and keeps every CPU it was given."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.fresh import CPUS_AT_START, ROOT


@pytest.mark.slow(90)
def test_workers_share_no_database_no_redis_names_and_no_cpu_pinning(tmp_path: Path) -> None:
    # Not this run's own xdist worker, if it is one.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}
    env["XDIST_PROBE_DIR"] = str(tmp_path)
    if env.get("TEST_DATABASE_NAME"):
        # Databases of their own, never this run's (`…_gw0` would be dropped under it).
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        env["TEST_DATABASE_NAME"] += f"_probe_{worker}"
    probe = ["-n", "2", "--dist", "each", "tests/config/xdist_probe.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *probe],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    facts = {path.stem: json.loads(path.read_text()) for path in tmp_path.glob("gw*.json")}
    assert sorted(facts) == ["gw0", "gw1"]
    first, second = facts["gw0"], facts["gw1"]
    assert first["database"] != second["database"]
    assert first["missions"] == second["missions"] == 0
    if settings.REDIS_URL:
        assert None not in (first["layer"], second["layer"])
        assert first["layer"] != second["layer"]
        assert first["cache"] != second["cache"]
    # Importing the application (as socket tests do) left each worker every CPU.
    assert first["cpus"] == second["cpus"] == CPUS_AT_START
