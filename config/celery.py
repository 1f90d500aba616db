"""The Celery app, and how a task runs in each runtime mode (settings.TASK_RUNNER).

- celery: sent to the broker, run by a worker process.
- thread: run on this process's thread pools, one per lane (the embedded default), so a
  reply never runs inside the request or the WebSocket consumer that queued it.
- inline: run in the caller (tests only).

Services queue work by task name (`queue_task`, `queue_task_on_commit`); only this
module knows the difference between the modes.
"""

import fnmatch
import logging
import os
import sys
import threading
import time
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, cast

from celery import Celery
from celery.contrib.django.task import DjangoTask
from celery.exceptions import NotRegistered
from celery.signals import worker_init

from config.cpu import pin_server_process
from config.heap import freeze_startup_objects
from language import meaning
from language.analysis import warm_up

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger(__name__)

# The two lanes (docs/design.md §8): replies are latency-critical; folds, memory extraction,
# carry-over, re-folds and the sweepers are background work. Each lane has its own pool
# in the embedded runner and its own queue (and workers) with Celery, so a backlog of
# background work never delays a reply.
REPLIES = "replies"
BACKGROUND = "background"


def lane_of(task_name: str) -> str:
    """The lane (queue) a task runs in, from CELERY_TASK_ROUTES (names or globs)."""
    from django.conf import settings

    routes = cast(dict[str, dict[str, str]], settings.CELERY_TASK_ROUTES)
    for pattern, route in routes.items():
        if fnmatch.fnmatchcase(task_name, pattern):
            return route["queue"]
    return str(settings.CELERY_TASK_DEFAULT_QUEUE)


class _Lanes:
    """The embedded runner's pools: model calls are network waits, so each lane runs many
    tasks at once on threads (every thread has its own database connection)."""

    def __init__(self) -> None:
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._pending: set[Future[Any]] = set()
        self._lock = threading.Lock()

    def submit(self, lane: str, fn: Any, *args: Any) -> Future[Any]:
        from django.conf import settings

        with self._lock:
            pool = self._pools.get(lane)
            if pool is None:
                size = (
                    settings.REPLY_CONCURRENCY
                    if lane == REPLIES
                    else settings.BACKGROUND_CONCURRENCY
                )
                pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix=f"office-{lane}")
                self._pools[lane] = pool
            future = pool.submit(fn, *args)
            self._pending.add(future)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Future[Any]) -> None:
        with self._lock:
            self._pending.discard(future)

    def wait(self, timeout: float) -> None:
        """Until every task queued so far, and every task those queued, has run."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                pending = list(self._pending)
            if not pending:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{len(pending)} background task(s) still running")
            futures.wait(pending, timeout=left)


_lanes = _Lanes()


def _run_in_thread(task: "OfficeTask", args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from django.db import connections

    try:
        for conn in connections.all(initialized_only=True):
            if conn.vendor != "sqlite":
                conn.close_if_unusable_or_obsolete()
        result = task.apply(args=args, kwargs=kwargs)
        if result.failed():
            logger.error("task %s failed: %r", task.name, result.result)
        return result.result
    except Exception:
        # Nobody reads this future: a failure must at least reach the log.
        logger.exception("task %s could not run", task.name)
        return None
    finally:
        # A pooled server connection goes back to its pool; a SQLite connection (a file
        # handle of this thread) stays open for the thread's next task.
        for conn in connections.all(initialized_only=True):
            if conn.vendor != "sqlite":
                conn.close()


def wait_for_background_tasks(timeout: float = 120.0) -> None:
    """Block until every task the embedded runner was given so far has run."""
    _lanes.wait(timeout)


_broker_state: dict[str, float | bool] = {"checked": 0.0, "up": True}
BROKER_CHECK_TTL = 2.0


class BrokerUnavailable(ConnectionError):
    pass


def broker_reachable() -> bool:
    """Whether the broker answers, remembered for a couple of seconds. Publishing to a
    broker that is down would otherwise block the caller for many seconds of retries."""
    now = time.monotonic()
    if now - float(_broker_state["checked"]) < BROKER_CHECK_TTL:
        return bool(_broker_state["up"])
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=1)
        up = True
    except Exception:
        up = False
    _broker_state.update(checked=time.monotonic(), up=up)
    return up


class OfficeTask(DjangoTask):
    def delay_on_commit(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Queue after commit; if the broker is unreachable then, log it and go on: the
        caller's transaction is already committed, and the sweeper recovers what matters
        (replies and folds)."""
        from django.db import transaction

        def send() -> None:
            try:
                self.delay(*args, **kwargs)
            except Exception as exc:
                logger.warning("could not queue %s: %s", self.name, exc)

        transaction.on_commit(send)

    def apply_async(
        self,
        args=None,
        kwargs=None,
        task_id=None,
        producer=None,
        link=None,
        link_error=None,
        shadow=None,
        **options,
    ):
        from django.conf import settings

        runner = settings.TASK_RUNNER
        if runner == "celery":
            if not broker_reachable():
                raise BrokerUnavailable("the task queue is unreachable")
            return super().apply_async(
                args, kwargs, task_id, producer, link, link_error, shadow, **options
            )
        if runner == "inline":
            return self.apply(args=args, kwargs=kwargs, task_id=task_id)
        return _lanes.submit(
            lane_of(self.name), _run_in_thread, self, tuple(args or ()), dict(kwargs or {})
        )


app = Celery("office", task_cls=OfficeTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _ready_worker(**_: Any) -> None:
    """A worker assembles prompts and indexes passages: load the Korean analyser and the
    sentence-embedding model before the first task needs them (loaded by the first
    missions instead, 64 threads wait on the load together, past the broker's visibility
    timeout); then freeze what starting made (config.heap), before a
    prefork worker forks its children; and keep to the CPU that `PIN_CPU` names, if it
    names one (config.cpu: for a worker of one process, the threads pool; a prefork
    worker's children would all share it)."""
    warm_up()
    meaning.warm_up()
    freeze_startup_objects()
    pin_server_process()


def registered_task(name: str) -> Any:
    """The task registered as `name`, importing every app's tasks module on first use (a
    worker does that at start; the web process and commands only when they queue)."""
    try:
        return app.tasks[name]
    except NotRegistered:
        app.loader.import_default_modules()
        return app.tasks[name]


def queue_task(name: str, *args: Any) -> None:
    """Send the task registered as `name` the way tasks run in this mode. Raises when the
    broker cannot be reached, so the caller can tell the person (see `queue_task_on_commit`).

    Services queue by name: they never import a tasks module (tasks import services)."""
    registered_task(name).delay(*args)


def queue_task_on_commit(name: str, *args: Any) -> None:
    """Queue after the current transaction commits; a broker outage is logged (the
    sweepers recover what matters: replies and folds)."""
    task = registered_task(name)
    assert isinstance(task, OfficeTask)
    task.delay_on_commit(*args)


def task_signature(name: str, *args: Any) -> Any:
    """A signature for canvases (groups, chords) of tasks known by name."""
    return registered_task(name).s(*args)


_beat_started = False


def start_embedded_beat() -> None:
    """In the embedded default there is no Celery beat: a daemon thread of the web process
    queues the entries of CELERY_BEAT_SCHEDULE (the sweepers) on their intervals."""
    global _beat_started
    from django.conf import settings

    if settings.TASK_RUNNER != "thread" or _beat_started:
        return
    _beat_started = True
    entries = cast(dict[str, dict[str, Any]], settings.CELERY_BEAT_SCHEDULE)
    schedule = [(str(entry["task"]), float(entry["schedule"])) for entry in entries.values()]

    def loop() -> None:
        due = {name: time.monotonic() + interval for name, interval in schedule}
        while True:
            time.sleep(1.0)
            if settings.TASK_RUNNER != "thread":  # tests switch runners at run time
                continue
            now = time.monotonic()
            for name, interval in schedule:
                if now >= due[name]:
                    due[name] = now + interval
                    try:
                        queue_task(name)
                    except RuntimeError as exc:
                        # The process is stopping: its pools take no more work (the
                        # message is concurrent.futures'); the next process sweeps.
                        if sys.is_finalizing() or "interpreter shutdown" in str(exc):
                            return
                        logger.exception("queueing %s failed", name)
                    except Exception:
                        logger.exception("queueing %s failed", name)

    threading.Thread(target=loop, name="office-beat", daemon=True).start()


def run_canvas(canvas: Any) -> None:
    """Send a group or chord the way tasks run in this mode: to the workers, on the
    background thread (executed there in order), or right here."""
    from django.conf import settings

    runner = settings.TASK_RUNNER
    if runner == "celery":
        canvas.apply_async()
    elif runner == "inline":
        canvas.apply()
    else:

        def run() -> None:
            from django.db import close_old_connections, connections

            close_old_connections()
            try:
                canvas.apply()
            except Exception:
                logger.exception("background canvas failed")
            finally:
                connections.close_all()

        _lanes.submit(BACKGROUND, run)
