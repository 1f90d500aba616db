"""The broker transport (config.broker): kombu's Redis transport with one client per
channel, against a real Redis."""

import uuid
from typing import Any

import pytest
import redis
from django.conf import settings
from kombu import Connection

from config.broker import Channel

pytestmark = pytest.mark.redis


def test_production_settings_choose_it_and_keep_tls_to_kombu() -> None:
    assert settings.CELERY_BROKER_TRANSPORT == "config.broker:Transport"
    # With TLS kombu keeps its own transport: it turns TLS on from the scheme only then.
    assert Connection("rediss://127.0.0.1:6379/0").ssl


def test_messages_go_through_and_one_client_serves_every_publish_and_ack(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[Any] = []
    real_init = redis.Redis.__init__

    def counting_init(self: redis.Redis, *args: Any, **kwargs: Any) -> None:
        built.append(self)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counting_init)
    name = f"broker-test-{uuid.uuid4().hex}"
    with Connection(settings.REDIS_URL, transport=settings.CELERY_BROKER_TRANSPORT) as conn:
        channel = conn.default_channel
        assert isinstance(channel, Channel)
        queue = conn.SimpleQueue(name)
        before = len(built)
        for n in range(5):
            queue.put({"n": n, "text": "안녕"})
        got = []
        for _ in range(5):
            message = queue.get(timeout=5)
            got.append(message.payload["n"])
            message.ack()  # the unacknowledged-message bookkeeping, done and undone
        queue.close()
        # Five publishes, five receipts and five acks built at most one more client
        # (kombu's own transport built twenty here).
        assert got == [0, 1, 2, 3, 4]
        assert len(built) - before <= 1, len(built) - before
        assert redis.Redis.from_url(settings.REDIS_URL).llen(name) == 0
