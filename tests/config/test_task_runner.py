import threading
from concurrent.futures import Future
from typing import Any

import pytest

from config.celery import app, lane_of, wait_for_background_tasks
from tests.fresh import embedded_env, run_python

seen: list[str] = []
REPLY_TASK = "tests.config.test_task_runner.reply_like"


@app.task
def record_thread_name() -> None:
    seen.append(threading.current_thread().name)


@app.task(name=REPLY_TASK)
def reply_like(barrier_id: int) -> None:
    _barriers[barrier_id].wait()
    seen.append(threading.current_thread().name)


@app.task
def blocked_background(event_id: int) -> None:
    _events[event_id].wait(timeout=30)


_barriers: dict[int, threading.Barrier] = {}
_events: dict[int, threading.Event] = {}


@pytest.fixture
def reply_route(settings: Any) -> None:
    settings.TASK_RUNNER = "thread"
    settings.CELERY_TASK_ROUTES = {**settings.CELERY_TASK_ROUTES, REPLY_TASK: {"queue": "replies"}}


def test_tasks_are_routed_to_their_lane() -> None:
    assert lane_of("missions.tasks.mission_run") == "replies"
    assert lane_of("sessions.tasks.long_session_check_on_instruction") == "replies"
    assert lane_of("summaries.tasks.summary_fold") == "background"
    assert lane_of("memory.tasks.memory_extract_from_mission") == "background"
    assert lane_of("missions.tasks.mission_sweep_stuck") == "background"


@pytest.mark.django_db
def test_the_embedded_runner_runs_tasks_off_the_calling_thread(settings: Any) -> None:
    settings.TASK_RUNNER = "thread"
    seen.clear()
    record_thread_name.delay()
    wait_for_background_tasks()
    assert len(seen) == 1
    assert seen[0] != threading.current_thread().name
    assert seen[0].startswith("office-background")


@pytest.mark.django_db
def test_64_replies_run_at_once_in_the_embedded_runner(reply_route: None) -> None:
    # Every task waits until all 64 have started: with fewer threads the barrier breaks.
    _barriers[1] = threading.Barrier(64, timeout=20)
    seen.clear()
    for _ in range(64):
        reply_like.delay(1)
    wait_for_background_tasks(timeout=30)
    assert len(seen) == 64
    assert all(name.startswith("office-replies") for name in seen)


@pytest.mark.django_db
def test_a_backlog_of_background_work_does_not_delay_a_reply(
    reply_route: None, settings: Any
) -> None:
    _events[2] = threading.Event()
    for _ in range(settings.BACKGROUND_CONCURRENCY * 3):
        blocked_background.delay(2)  # the background lane is full and has a queue
    _barriers[3] = threading.Barrier(1, timeout=5)
    seen.clear()
    reply = reply_like.delay(3)
    try:
        assert isinstance(reply, Future)  # what the embedded runner hands back
        reply.result(timeout=10)
        assert len(seen) == 1
    finally:
        _events[2].set()
        wait_for_background_tasks(timeout=30)


def test_the_inline_runner_runs_tasks_in_the_caller(settings: Any) -> None:
    settings.TASK_RUNNER = "inline"
    seen.clear()
    record_thread_name.delay()
    assert seen == [threading.current_thread().name]


def test_a_fresh_process_finds_every_task_a_service_names_without_importing_it() -> None:
    """Services queue tasks by name; a web process that never imported a tasks module
    must still find them (a chord of block folds once failed with NotRegistered)."""
    names = [
        "missions.tasks.mission_run",
        "sessions.tasks.long_session_check_on_instruction",
        "summaries.tasks.summary_fold",
        "summaries.tasks.compaction_block_fold",
        "summaries.tasks.compaction_merge",
        "memory.tasks.memory_extract_from_mission",
        "context.tasks.passages_index_session",
        "context.tasks.passages_index",
    ]
    script = (
        "import django, os\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
        "django.setup()\n"
        "import sys\n"
        "from config.celery import registered_task, task_signature\n"
        "assert not any(m.endswith('.tasks') for m in sys.modules if m.split('.')[0] in "
        "('missions', 'summaries', 'memory', 'context', 'sessions'))\n"
        f"for name in {names!r}:\n"
        "    assert task_signature(name, 1).type.name == name\n"
        "    assert registered_task(name).name == name\n"
        "print('ok')\n"
    )
    assert run_python("-c", script, env=embedded_env()).strip() == "ok"


def test_the_embedded_beat_stops_quietly_when_the_process_shuts_down(
    settings: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import threading

    from config import celery as runner

    settings.TASK_RUNNER = "thread"
    settings.CELERY_BEAT_SCHEDULE = {"sweep": {"task": "missions.tasks.x", "schedule": 0.1}}
    calls: list[str] = []

    def shut_down(name: str) -> None:
        calls.append(name)
        raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    monkeypatch.setattr(runner, "queue_task", shut_down)
    monkeypatch.setattr(runner, "_beat_started", False)
    before = set(threading.enumerate())
    runner.start_embedded_beat()
    [beat] = [t for t in threading.enumerate() if t not in before and t.name == "office-beat"]
    beat.join(timeout=5)

    assert not beat.is_alive() and calls == ["missions.tasks.x"]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
