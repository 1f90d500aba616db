import threading
from typing import Any

import pytest

from config.celery import app, wait_for_background_tasks

seen: list[str] = []


@app.task
def record_thread_name() -> None:
    seen.append(threading.current_thread().name)


@pytest.mark.django_db
def test_the_embedded_runner_runs_tasks_off_the_calling_thread(settings: Any) -> None:
    settings.TASK_RUNNER = "thread"
    seen.clear()
    record_thread_name.delay()
    wait_for_background_tasks()
    assert len(seen) == 1
    assert seen[0] != threading.current_thread().name
    assert seen[0].startswith("office-tasks")


def test_the_inline_runner_runs_tasks_in_the_caller(settings: Any) -> None:
    settings.TASK_RUNNER = "inline"
    seen.clear()
    record_thread_name.delay()
    assert seen == [threading.current_thread().name]
