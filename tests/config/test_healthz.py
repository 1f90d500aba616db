from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_healthz_reports_each_dependency() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True
    assert set(body["checks"]) == {"database", "channel_layer", "broker"}
    assert all(check["ok"] for check in body["checks"].values())


def _operator() -> Client:
    from tests.factories import make_user

    user = make_user()
    user.is_staff = user.is_superuser = True
    user.save()
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.redis
def test_healthz_reaches_the_real_broker(settings: Any) -> None:
    settings.TASK_RUNNER = "celery"
    body = _operator().get("/healthz").json()
    assert body["checks"]["broker"] == {"ok": True, "detail": "redis"}


@pytest.fixture
def broker_unreachable(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from config.celery import app

    settings.TASK_RUNNER = "celery"
    monkeypatch.setitem(app.conf, "broker_url", "redis://127.0.0.1:1/0")


def test_healthz_fails_when_the_broker_is_unreachable(broker_unreachable: None) -> None:
    response = Client().get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True


def test_healthz_tells_only_operators_what_failed(broker_unreachable: None) -> None:
    anonymous = Client().get("/healthz")
    assert anonymous.status_code == 503
    assert anonymous.json()["checks"]["broker"] == {"ok": False}
    assert "127.0.0.1" not in anonymous.content.decode()
    staff = _operator().get("/healthz").json()
    assert staff["checks"]["broker"]["ok"] is False and staff["checks"]["broker"]["detail"]


def test_an_office_owner_in_the_admin_is_not_told_what_failed(broker_unreachable: None) -> None:
    from office.services import office_open_for_user
    from tests.factories import make_user

    owner = make_user()
    office_open_for_user(user=owner)
    owner.refresh_from_db()
    assert owner.is_staff and not owner.is_superuser
    client = Client()
    client.force_login(owner)
    assert client.get("/healthz").json()["checks"]["broker"] == {"ok": False}
