"""Run by tests/config/test_parallel.py in pytest-xdist workers (`--dist each`: every
worker runs it), never collected by itself (its name is not test_*.py): what one worker has.
"""

import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

import config.asgi  # noqa: F401  (tests/ws.py and others import it: it pins nothing)
from missions.models import Mission


@pytest.mark.django_db
def test_what_this_worker_has(settings: Any) -> None:
    layer = settings.CHANNEL_LAYERS["default"]
    facts = {
        "database": connection.settings_dict["NAME"],
        "missions": Mission.objects.count(),
        "layer": layer.get("CONFIG", {}).get("prefix") if "Redis" in layer["BACKEND"] else None,
        "cache": settings.CACHES["default"].get("KEY_PREFIX"),
        "cpus": sorted(os.sched_getaffinity(0)),
    }
    worker = os.environ["PYTEST_XDIST_WORKER"]
    Path(os.environ["XDIST_PROBE_DIR"], f"{worker}.json").write_text(json.dumps(facts))
