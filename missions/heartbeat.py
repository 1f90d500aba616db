"""Signs of life of the replies this process is running.

One thread per process, not one per reply: every MISSION_HEARTBEAT_INTERVAL seconds it
stamps all the missions this process holds in one UPDATE, so a reply that waits on the
model for minutes (before its first token, or between tokens) never looks abandoned to
the sweeper, while a mission whose worker died stops being stamped and is re-queued
MISSION_STUCK_AFTER seconds later.

When the process stops (SIGTERM to the embedded server: the interpreter exits and would
wait for every reply thread to finish its stream), the missions it holds are handed back
to the queue at once and the reply loops stop reading: a restart answers them again."""

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import close_old_connections, connection

from missions.lifecycle import mission_hand_back, mission_heartbeat

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_runs: dict[int, str] = {}
_thread: threading.Thread | None = None
_wake = threading.Event()
_stopping = threading.Event()


def stopping() -> bool:
    """The process is shutting down: a reply loop stops reading its stream."""
    return _stopping.is_set()


def _hand_back_on_exit() -> None:
    _stopping.set()
    with _lock:
        runs = dict(_runs)
    if not runs:
        return
    try:
        handed = mission_hand_back(runs=runs)
        logger.warning("stopping: %d running mission(s) handed back to the queue", handed)
    except Exception:
        logger.exception("stopping: could not hand back %d running mission(s)", len(runs))


def _beat_forever() -> None:
    last = time.monotonic()
    while True:
        # Short naps, so a changed interval takes effect within a second.
        _wake.wait(min(settings.MISSION_HEARTBEAT_INTERVAL, 1.0))
        _wake.clear()
        if time.monotonic() - last < settings.MISSION_HEARTBEAT_INTERVAL:
            continue
        last = time.monotonic()
        with _lock:
            runs = dict(_runs)
        if not runs:
            continue
        failed = False
        try:
            close_old_connections()
            mission_heartbeat(runs=runs)
        except Exception:
            # A database blip: the next beat tries again, well before MISSION_STUCK_AFTER.
            failed = True
            logger.warning("heartbeat of %d running missions failed", len(runs), exc_info=True)
        finally:
            if failed or connection.vendor != "sqlite":
                connection.close()  # back to the pool (or a fresh one) for the next beat


@contextmanager
def beating(mission_id: int, run_token: str) -> Iterator[None]:
    """Keep the mission stamped as alive for as long as the block runs."""
    global _thread
    with _lock:
        _runs[mission_id] = run_token
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_beat_forever, name="mission-heartbeat", daemon=True)
            _thread.start()
            # Runs before the thread pools are joined at interpreter exit (hooks run last
            # registered first; concurrent.futures registered its own when imported).
            threading._register_atexit(_hand_back_on_exit)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        with _lock:
            if _runs.get(mission_id) == run_token:
                del _runs[mission_id]
