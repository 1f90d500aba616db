"""What a server process loads before it says it is ready.

Left to the first missions, a fresh process loaded the model client (its TLS context and
HTTP modules: created once per thread that got there first, all at once), every app's
tasks module, the mission path's modules, and compiled the first queries, all while
twenty people waited for their first words: first reply p50 2.4 to 2.9 s right after a
start, 2.1 to 2.2 s on the same server warm (2 s model, docs/benchmarks.md). Here that is
done once, at start-up, and `/healthz` answers 503 until it is.

- The web process (`python -m config.serve`) starts `start()` once it listens: the
  warm-up runs on a thread of its own while /healthz says `"warm_up": "running"`.
  Importing `config.asgi` does none of this.
- A Celery worker runs `run()` before it takes its first task: the worker imports this
  module at start (CELERY_IMPORTS), and it answers the worker's `worker_init` signal,
  after config/celery.py's own start-up (the Korean analyser, freezing, pinning).
- Any other process (tests, management commands, an ASGI server other than
  `config.serve`) never warms up, and its /healthz does not wait for it (`"off"`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from celery.signals import worker_init
from django.contrib.auth import get_user_model
from django.db import connection
from django.urls import get_resolver

from config.celery import app
from config.heap import freeze_startup_objects
from language import meaning
from language.analysis import query_terms, terms, warm_up
from llm.base import ProviderError
from llm.gateway import get_provider

logger = logging.getLogger(__name__)

OFF = "off"  # this process does not warm up
WAITING = "waiting"  # it will, once it listens
RUNNING = "running"
DONE = "done"
FAILED = "failed"

_lock = threading.Lock()
_state = {"status": OFF, "error": ""}

# Text in both languages the office speaks: the analysers' first calls build what they
# keep (the Korean model's working memory, compiled patterns, the stemmer's tables).
_SAMPLE = (
    "예산은 3월 14일까지 80만원으로 정했어요. 브랜드색상 회의는 다음 주에 하기로 했습니다. "
    "Remember: the launch budget is $800 and we decided to ship on March 14."
)


def _analysers() -> None:
    warm_up()
    terms(_SAMPLE)
    query_terms(_SAMPLE)


def _meaning() -> None:
    """The sentence-embedding model (language.meaning; nothing with MEANING_MODEL=off), and
    a question in each language through it."""
    meaning.warm_up()


def _tasks() -> None:
    """Every app's tasks module and the mission path's modules they import, registered
    with Celery (which a web process otherwise does on the first task it queues)."""
    app.loader.import_default_modules()
    app.finalize()


def _model_client() -> None:
    """The provider's client: its HTTP stack's modules and TLS context, made once."""
    try:
        get_provider()
    except ProviderError as exc:
        # A model server set up wrong is not this process's health: every mission says so
        # to the person who sent it, as it would have without the warm-up.
        logger.warning("the model client could not be made: %s", exc)


def _urls_and_database() -> None:
    """The URL resolver, and what Django builds on the first query of a process."""
    get_resolver().url_patterns  # noqa: B018 - building the resolver is the point
    try:
        get_user_model().objects.filter(pk=0).exists()
    finally:
        # This thread's own connection (with a pool: back to the pool); it serves nothing else.
        connection.close()


def _freeze() -> None:
    """What warming up loaded lives as long as the process: the collector need not walk
    it (config/heap.py)."""
    freeze_startup_objects()


STEPS: list[tuple[str, Callable[[], None]]] = [
    ("analysers", _analysers),
    ("meaning", _meaning),
    ("tasks", _tasks),
    ("model client", _model_client),
    ("urls and database", _urls_and_database),
    ("freeze", _freeze),
]


def status() -> tuple[str, str]:
    """This process's warm-up: (status, the error if it failed)."""
    with _lock:
        return _state["status"], _state["error"]


def ready() -> bool:
    return status()[0] in (OFF, DONE)


def _set(value: str, error: str = "") -> None:
    with _lock:
        _state["status"], _state["error"] = value, error


def expect() -> None:
    """This process will warm up: until it has, it is not ready."""
    with _lock:
        if _state["status"] == OFF:
            _state["status"] = WAITING


def run() -> None:
    """Warm this process up, here and now. A step that fails leaves the process not ready
    (`/healthz` says which step and why) and raises."""
    _set(RUNNING)
    started = time.monotonic()
    took: list[str] = []
    for name, step in STEPS:
        began = time.monotonic()
        try:
            step()
        except Exception as exc:
            _set(FAILED, f"{name}: {type(exc).__name__}: {exc}"[:300])
            raise
        took.append(f"{name} {time.monotonic() - began:.1f} s")
    _set(DONE)
    logger.info("warmed up in %.1f s (%s)", time.monotonic() - started, ", ".join(took))


def start() -> threading.Thread:
    """Warm up on a thread of its own (the server goes on serving meanwhile)."""
    _set(RUNNING)

    def warm() -> None:
        try:
            run()
        except Exception:
            logger.exception("warming up failed: /healthz answers 503")

    thread = threading.Thread(target=warm, name="office-warm-up", daemon=True)
    thread.start()
    return thread


@worker_init.connect
def _warm_worker(**_: Any) -> None:
    try:
        run()
    except Exception:
        # A worker that could not warm up still works: its first tasks load the rest.
        logger.exception("warming up failed")
