"""Signs of life of the replies this process is running.

One thread per process, not one per reply: every MISSION_HEARTBEAT_INTERVAL seconds it
stamps all the missions this process holds in one UPDATE, so a reply that waits on the
model for minutes (before its first token, or between tokens) never looks abandoned to
the sweeper, while a mission whose worker died stops being stamped and is re-queued
MISSION_STUCK_AFTER seconds later.

The beat also tells each reply whether it still holds its mission. A process that was
frozen (SIGSTOP, a paused VM) past MISSION_STUCK_AFTER comes back to find its missions
answered by another worker: until a beat confirms the hold again, a reply sends no
`reply.delta` (`hold_confirmed`), so no stale text follows another run's `reply.done`.

When the process stops (SIGTERM to the embedded server: the interpreter exits and would
wait for every reply thread to finish its stream), the missions it holds are handed back
to the queue at once and the reply loops stop reading: a restart answers them again."""

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection

from missions.lifecycle import (
    mission_hand_back,
    mission_heartbeat,
    mission_runs_held,
    stop_flag_key,
)

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_runs: dict[int, str] = {}
_thread: threading.Thread | None = None
_wake = threading.Event()
_stopping = threading.Event()
# When each run's hold was last confirmed (time.monotonic()), and the runs found to have
# lost their mission (another run holds it, or it was finished or handed back).
_confirmed: dict[int, float] = {}
_lost: set[int] = set()
# Set by a reply that needs its hold confirmed now rather than at the next interval.
_urgent = threading.Event()
# The runs whose person asked them to stop (seen in the cache or by a beat), and when each
# run last looked at the cache: at most every STOP_CHECK_INTERVAL seconds, not per piece.
_stop_asked: set[int] = set()
_stop_checked: dict[int, float] = {}
STOP_CHECK_INTERVAL = 0.1


def stop_asked(mission_id: int) -> bool:
    """Whether the person asked to stop this run's reply: the shared cache's flag (set by
    missions.lifecycle.mission_stop), looked at every STOP_CHECK_INTERVAL seconds, or the
    database's, brought by the last beat."""
    now = time.monotonic()
    with _lock:
        if mission_id in _stop_asked:
            return True
        if now - _stop_checked.get(mission_id, 0.0) < STOP_CHECK_INTERVAL:
            return False
        _stop_checked[mission_id] = now
    try:
        asked = bool(cache.get(stop_flag_key(mission_id)))
    except Exception:
        logger.warning("could not read the stop flag of mission %s", mission_id, exc_info=True)
        return False
    if asked:
        with _lock:
            _stop_asked.add(mission_id)
    return asked


def hold_confirmed(mission_id: int) -> bool | None:
    """Whether this process's run still holds the mission: True if a beat (or the claim)
    confirmed it within the last interval, False if a beat found it lost, None if that
    is not known now (this process was not running: frozen, or starved); a beat is then
    asked for at once."""
    with _lock:
        if mission_id in _lost:
            return False
        confirmed = _confirmed.get(mission_id)
    if confirmed is not None and time.monotonic() - confirmed <= _fresh_for():
        return True
    _urgent.set()
    _wake.set()
    return None


def _fresh_for() -> float:
    # A beat comes every interval; a little slack for the beat's own query.
    return float(settings.MISSION_HEARTBEAT_INTERVAL) + 2.0


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
        if not _urgent.is_set() and time.monotonic() - last < settings.MISSION_HEARTBEAT_INTERVAL:
            continue
        _urgent.clear()
        last = time.monotonic()
        with _lock:
            runs = dict(_runs)
        if not runs:
            continue
        failed = False
        try:
            close_old_connections()
            mission_heartbeat(runs=runs)
            held = mission_runs_held(runs=runs)
            now = time.monotonic()
            with _lock:
                for mission_id, token in runs.items():
                    if _runs.get(mission_id) != token:
                        continue  # that run ended meanwhile
                    if mission_id in held:
                        _confirmed[mission_id] = now
                        if held[mission_id]:
                            _stop_asked.add(mission_id)
                    else:
                        _lost.add(mission_id)
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
        _confirmed[mission_id] = time.monotonic()  # the claim just took it
        _lost.discard(mission_id)
        _stop_asked.discard(mission_id)
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
                _confirmed.pop(mission_id, None)
                _lost.discard(mission_id)
                _stop_asked.discard(mission_id)
                _stop_checked.pop(mission_id, None)
