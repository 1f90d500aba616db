import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings

import tests.fresh  # noqa: F401  (reads the CPUs this process has, before any test module)
from llm.gateway import set_provider_override
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401


def pytest_configure(config: pytest.Config) -> None:
    """The embedded sweepers' timer belongs to a served process: started here (importing
    config.asgi starts it) it would fire into whichever later test runs tasks on threads."""
    from config import celery

    celery._beat_started = True


def pytest_unconfigure(config: pytest.Config) -> None:
    """The lanes' threads keep their SQLite connections open, so the test database file
    goes but its write-ahead log and index may stay behind."""
    if settings.IS_POSTGRES:
        return
    name = str(settings.DATABASES["default"]["TEST"]["NAME"])  # type: ignore[index]
    for leftover in (f"{name}-wal", f"{name}-shm"):
        if os.path.exists(leftover):
            os.remove(leftover)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    has_postgres = settings.IS_POSTGRES
    has_redis = bool(settings.REDIS_URL)
    if os.environ.get("CI") and not (has_postgres and has_redis):
        raise pytest.UsageError(
            "CI must run against PostgreSQL and Redis: set DATABASE_URL and REDIS_URL (see .ci/run)"
        )
    for item in items:
        if "postgres" in item.keywords and not has_postgres:
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL"))
        if "redis" in item.keywords and not has_redis:
            item.add_marker(pytest.mark.skip(reason="needs Redis: set REDIS_URL"))


@pytest.fixture(autouse=True)
def _tasks_run_inline(settings: Any) -> None:
    """Unit tests run queued tasks in the caller; tests of the runners override this."""
    settings.TASK_RUNNER = "inline"


@pytest.fixture(autouse=True)
def _doors_unthrottled(settings: Any) -> None:
    """The log-in, sign-up and new-session throttles count across tests in one process (and
    one Redis); tests/office/test_throttles.py turns them on with a clean slate."""
    settings.LOGIN_FAILURE_LIMIT = 0
    settings.LOGIN_FAILURE_ADDRESS_LIMIT = 0
    settings.SIGNUP_RATE_LIMIT = 0
    settings.SESSION_NEW_RATE_LIMIT = 0
    settings.HIRE_RATE_LIMIT = 0
    settings.PASSWORD_RESET_RATE_LIMIT = 0


@pytest.fixture(autouse=True)
def _fold_each_mission(settings: Any) -> None:
    """Unit tests of folding see a fold as soon as a mission leaves the detail window;
    the tests of batched folds (tests/summaries/test_batches.py) set FOLD_BATCH back."""
    settings.FOLD_BATCH = 1


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> Iterator[None]:
    """Each test runs on its own event loop; the Redis channel layer binds its locks to the
    first loop that uses it, so every test gets a new layer (Daphne has one loop)."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def model(request: pytest.FixtureRequest) -> Iterator[FakeOpenAI]:
    """Every model call goes through the real OpenAI SDK to the local fake server.

    The provider's patience comes from the test's `model` marker, e.g.
    `pytest.mark.model(max_attempts=1, timeout=10.0)` for a slow model whose requests are
    counted; without one, two attempts of one second each."""
    marker = request.node.get_closest_marker("model")
    options: dict[str, Any] = {"max_attempts": 2, "timeout": 1.0}
    if marker is not None:
        options.update(marker.kwargs)
    server: FakeOpenAI = request.getfixturevalue("fake_openai")
    set_provider_override(server.provider(**options))
    try:
        yield server
    finally:
        set_provider_override(None)
