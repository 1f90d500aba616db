"""A served process loads what its first missions need before /healthz says it is ready
(config/warmup.py); importing config.asgi loads none of it."""

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from config import warmup
from language import analysis
from llm import gateway

ROOT = Path(__file__).resolve().parents[2]
# Everything but freezing the heap: in the test process that would keep every object the
# tests made so far out of garbage collection.
STEPS_WITHOUT_FREEZE = [step for step in warmup.STEPS if step[0] != "freeze"]

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(warmup, "_state", {"status": warmup.OFF, "error": ""})
    yield


def _staff(*, operator: bool = False) -> Client:
    from tests.factories import make_user

    user = make_user()
    user.is_staff = True
    user.is_superuser = operator
    user.save()
    client = Client()
    client.force_login(user)
    return client


def test_healthz_is_not_ready_until_the_warm_up_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    entered, release = threading.Event(), threading.Event()

    def slow_step() -> None:
        entered.set()
        release.wait(30)

    monkeypatch.setattr(warmup, "STEPS", [("analysers", slow_step)])
    warmup.expect()  # as the server does before it listens
    waiting = Client().get("/healthz")
    assert waiting.status_code == 503
    assert waiting.json()["ready"] is False
    assert waiting.json()["warm_up"] == "waiting"

    thread = warmup.start()
    assert entered.wait(10)
    running = Client().get("/healthz")
    assert running.status_code == 503
    assert (running.json()["ok"], running.json()["ready"]) == (False, False)
    assert running.json()["warm_up"] == "running"
    # The dependencies are still checked and reported while warming up.
    assert all(check["ok"] for check in running.json()["checks"].values())

    release.set()
    thread.join(10)
    done = Client().get("/healthz")
    assert done.status_code == 200
    assert (done.json()["ok"], done.json()["ready"], done.json()["warm_up"]) == (True, True, "done")


def test_a_failed_warm_up_keeps_the_process_not_ready_and_tells_operators_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken() -> None:
        raise OSError("the Korean model file is missing")

    monkeypatch.setattr(warmup, "STEPS", [("analysers", broken)])
    warmup.start().join(10)
    anonymous = Client().get("/healthz")
    assert anonymous.status_code == 503
    assert anonymous.json()["warm_up"] == "failed"
    assert "warm_up_error" not in anonymous.json()
    # An office's owner is staff of their own office's admin, not an operator.
    assert "warm_up_error" not in _staff().get("/healthz").json()
    operator = _staff(operator=True).get("/healthz").json()
    assert operator["warm_up_error"] == "analysers: OSError: the Korean model file is missing"


def test_a_process_that_does_not_warm_up_is_ready_as_before() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert (response.json()["ready"], response.json()["warm_up"]) == (True, "off")


def test_warming_up_loads_the_korean_analyser_and_the_model_client(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.SEARCH_KOREAN_ANALYSER = "kiwi"
    settings.LLM_PROVIDER = "openai"
    settings.OPENAI_API_KEY = "sk-warm-up"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"  # never called
    monkeypatch.setattr(analysis, "_kiwi_instance", None)
    monkeypatch.setattr(warmup, "STEPS", STEPS_WITHOUT_FREEZE)
    gateway._openai_provider.cache_clear()
    try:
        warmup.start().join(120)
        assert warmup.status() == (warmup.DONE, "")
        # The analyser itself, loaded: it splits Korean words into their morphemes.
        kiwi = analysis._kiwi_instance
        assert kiwi is not None
        assert [t.form for t in kiwi.tokenize("예산은")][:1] == ["예산"]
        # The model client the first mission will use is already built.
        assert gateway._openai_provider.cache_info().currsize == 1
    finally:
        gateway._openai_provider.cache_clear()


def test_importing_the_asgi_application_loads_neither_analyser_nor_model_client() -> None:
    code = (
        "import config.asgi, language.analysis as a, llm.gateway as g; "
        "print(a._kiwi_instance is None, g._openai_provider.cache_info().currsize)"
    )
    env = {**os.environ, "LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-import"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "0"]


def _database_url() -> str:
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "postgresql":
        return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    return f"sqlite:///{db['NAME']}"


def test_a_celery_worker_warms_up_before_its_first_task() -> None:
    # As a worker starts: it imports its modules (CELERY_IMPORTS among them), then says
    # worker_init; only then does it take tasks.
    code = (
        "import django\n"
        "django.setup()\n"
        "from celery.signals import worker_init\n"
        "from config.celery import app\n"
        "app.loader.init_worker()\n"
        "worker_init.send(sender=None)\n"
        "from config import warmup\n"
        "import language.analysis as a, llm.gateway as g\n"
        "print(warmup.status()[0], a._kiwi_instance is not None,"
        " g._openai_provider.cache_info().currsize)\n"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": _database_url(),
        "SEARCH_KOREAN_ANALYSER": "kiwi",
        "LLM_PROVIDER": "openai",
        "OPENAI_API_KEY": "sk-worker",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",  # never called
    }
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-3:] == ["done", "True", "1"]
