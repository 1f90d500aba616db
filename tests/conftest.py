import contextlib
import copy
import os
import sys
import uuid
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone, translation

import tests.fresh  # noqa: F401  (reads the CPUs this process has, before any test module)
from llm.gateway import set_provider_override
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401

# Hypothesis, when a property fails, writes a patch adding the failing case as an example
# if libcst can be imported (mutmut brings it). With zope.interface loaded (Daphne's
# Twisted), libcst stops on `__provides__`, and the whole run ends in an INTERNALERROR
# that hides which test failed and how. No patch, then: the failure reads as any other.
sys.modules.setdefault("hypothesis.extra._patching", None)  # type: ignore[arg-type]

# The pytest-xdist worker this process is ("gw0", …; `make test` runs several), or None.
WORKER = os.environ.get("PYTEST_XDIST_WORKER")
# What this worker's channel-layer groups and cache keys are named under in the one Redis
# all workers share (a database number would part the keys, never the pub/sub channels),
# apart from every earlier run's too: test databases number their rows from 1 again, so a
# counter keyed by a user's id, or a task a run cut short left queued, would otherwise
# reach the next run.
REDIS_PREFIX = f"office-test-{WORKER or 'main'}-{uuid.uuid4().hex[:8]}"


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
        # A browser module starts its own server and browser once (module fixtures): under
        # pytest-xdist (`make test`, --dist loadgroup) its tests stay on one worker, where
        # spread over several each would pay the start again.
        if item.path.parent.name == "browser":
            item.add_marker(pytest.mark.xdist_group(f"browser-{item.path.stem}"))
            if item.get_closest_marker("slow") is None:
                item.add_marker(pytest.mark.slow(20))
        if "postgres" in item.keywords and not has_postgres:
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL"))
        if "redis" in item.keywords and not has_redis:
            item.add_marker(pytest.mark.skip(reason="needs Redis: set REDIS_URL"))
    _longest_modules_first(items)


# Seconds a test without the `slow` marker may take (setup, call and teardown together).
UNMARKED_BUDGET = 10.0
_took: defaultdict[str, float] = defaultdict(float)
_budgets: dict[str, float] = {}


def _longest_modules_first(items: list[pytest.Item]) -> None:
    """Modules in order of the time their `slow` tests are budgeted, the longest first;
    the rest in their usual order. Under pytest-xdist the workers take tests in this order,
    so that no worker is left running one long scenario alone at the end. A module stays
    whole: its module fixtures (a browser, a server) are set up once."""
    per_module: defaultdict[str, float] = defaultdict(float)
    for item in items:
        marker = item.get_closest_marker("slow")
        if marker is not None:
            budget = float(marker.args[0])
            item.user_properties.append(("budget", budget))
            per_module[str(item.path)] += budget
    items.sort(key=lambda item: -per_module[str(item.path)])


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _took[report.nodeid] += report.duration
    for name, value in report.user_properties:
        if name == "budget":
            _budgets[report.nodeid] = float(str(value))


# How many of the modules that took longest the summary lists.
MODULES_SHOWN = 15


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The modules that took longest (where the suite's time goes), then the tests that
    took longer than their budget: a new slow test to mark, or a slow one grown slower (or
    a machine busy with other work: the figures are wall-clock)."""
    per_module: defaultdict[str, float] = defaultdict(float)
    for nodeid, took in _took.items():
        per_module[nodeid.split("::")[0]] += took
    if per_module:
        terminalreporter.section("time by module (all workers together)")
        total = sum(per_module.values())
        terminalreporter.write_line(f"{total:7.0f} s  in all")
        for module, took in sorted(per_module.items(), key=lambda kv: -kv[1])[:MODULES_SHOWN]:
            terminalreporter.write_line(f"{took:7.0f} s  {module}")
    over = sorted(
        (took, _budgets.get(nodeid, UNMARKED_BUDGET), nodeid)
        for nodeid, took in _took.items()
        if took > _budgets.get(nodeid, UNMARKED_BUDGET)
    )
    if not over:
        return
    terminalreporter.section("over their time budget (pytest.mark.slow)")
    for took, budget, nodeid in reversed(over):
        terminalreporter.write_line(f"{took:7.1f} s  (budget {budget:.0f} s)  {nodeid}")


@pytest.fixture(autouse=True)
def _language_and_zone_of_no_one() -> Iterator[None]:
    """Every test starts and ends with no language or time zone activated in its thread: a
    request through the test client activates the person's (the middleware's job), and
    the thread keeps it; the next test would read the office's texts in that language."""
    translation.deactivate()
    timezone.deactivate()
    yield
    translation.deactivate()
    timezone.deactivate()


@pytest.fixture(autouse=True, scope="session")
def _passwords_hashed_cheaply() -> Iterator[None]:
    """Django's production hasher spends ~0.3 s of CPU on each password (PBKDF2, a million
    rounds), on every user a test makes: about a fifth of the suite's CPU. The tests' own
    processes store passwords with one round of the same algorithm (Django's advice for
    tests is a cheap hasher): the servers that the browser and outage tests start, on the
    same database, check them with production's hasher. The throttle tests count checks,
    not their cost."""
    with override_settings(
        PASSWORD_HASHERS=[
            "tests.hashers.OneRoundPBKDF2PasswordHasher",
            "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        ]
    ):
        yield


@pytest.fixture(autouse=True, scope="session")
def _redis_names_of_this_worker() -> Iterator[None]:
    """Under pytest-xdist every worker has its own database (pytest-django's `_gwN`
    suffix), but all share the Redis of REDIS_URL: this one names everything it puts there
    apart (`REDIS_PREFIX`, as two deployments do): its channel-layer groups, cached
    counters and task queues, and those of the processes its tests start (Daphne, task
    workers), which inherit the name from the environment. So no worker hears another's
    events, counts its log-in failures or takes its tasks, nor those of an earlier run;
    what the run left there is deleted at its end."""
    if not settings.REDIS_URL:
        yield
        return
    from config.celery import app

    layers: dict[str, dict[str, Any]] = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"].setdefault("CONFIG", {})["prefix"] = REDIS_PREFIX
    caches: dict[str, dict[str, Any]] = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = REDIS_PREFIX
    transport = {
        "CELERY_BROKER_TRANSPORT_OPTIONS": {
            **settings.CELERY_BROKER_TRANSPORT_OPTIONS,
            "global_keyprefix": f"{REDIS_PREFIX}:",
        },
        "CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS": {
            **settings.CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS,
            "global_keyprefix": f"{REDIS_PREFIX}:",
        },
    }
    before = (
        os.environ.get("REDIS_PREFIX"),
        app.conf.broker_transport_options,
        app.conf.result_backend_transport_options,
    )
    os.environ["REDIS_PREFIX"] = REDIS_PREFIX
    app.conf.broker_transport_options = transport["CELERY_BROKER_TRANSPORT_OPTIONS"]
    app.conf.result_backend_transport_options = transport["CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS"]
    try:
        with override_settings(
            REDIS_PREFIX=REDIS_PREFIX, CHANNEL_LAYERS=layers, CACHES=caches, **transport
        ):
            yield
    finally:
        if before[0] is None:
            os.environ.pop("REDIS_PREFIX", None)
        else:
            os.environ["REDIS_PREFIX"] = before[0]
        app.conf.broker_transport_options, app.conf.result_backend_transport_options = before[1:]
        _forget_redis_keys(REDIS_PREFIX)


def _forget_redis_keys(prefix: str) -> None:
    """What this run left in Redis under its prefix (counters, queues, groups), deleted."""
    import redis

    with contextlib.suppress(redis.RedisError):
        client = redis.Redis.from_url(settings.REDIS_URL)
        try:
            for key in client.scan_iter(f"{prefix}*", count=1000):
                client.delete(key)
        finally:
            client.close()


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
    settings.LOGIN_FAILURE_SOURCE_LIMIT = 0
    settings.SIGNUP_RATE_LIMIT = 0
    settings.SESSION_NEW_RATE_LIMIT = 0
    settings.HIRE_RATE_LIMIT = 0
    settings.PASSWORD_RESET_RATE_LIMIT = 0
    settings.PASSWORD_RESET_RECIPIENT_LIMIT = 0
    settings.PROJECT_RATE_LIMIT = 0
    settings.MEMORY_RATE_LIMIT = 0


@pytest.fixture(autouse=True)
def _no_vectors_of_another_test() -> Iterator[None]:
    """A process keeps the vectors it read (context.dense), by row id; a test's rolled-back
    rows give their ids to the next test's, so each test starts with none kept."""
    from context import dense

    dense.forget()
    yield
    dense.forget()


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
