import os
from typing import Any

import pytest
from django.conf import settings

from tests.fake_openai import fake_openai  # noqa: F401


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
