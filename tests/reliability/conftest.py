"""Fixtures of the log-in throttle's tests (test_login_throttle.py, test_owner_throttles.py)."""

import threading
from typing import Any

import pytest
from django.contrib.auth.backends import ModelBackend

from tests.caching import clear_cache


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The usernames whose password Django's backend checked, from any thread."""
    checked: list[str] = []
    lock = threading.Lock()
    real = ModelBackend.authenticate

    def spy(self: Any, request: Any, username: Any = None, password: Any = None, **kw: Any) -> Any:
        with lock:
            checked.append(username)
        return real(self, request, username=username, password=password, **kw)

    monkeypatch.setattr(ModelBackend, "authenticate", spy)
    return checked


@pytest.fixture
def limits(settings: Any) -> Any:
    clear_cache()
    settings.LOGIN_FAILURE_LIMIT = 10
    settings.LOGIN_FAILURE_SOURCE_LIMIT = 5
    settings.LOGIN_FAILURE_ADDRESS_LIMIT = 50
    settings.LOGIN_FAILURE_WINDOW = 900
    return settings
