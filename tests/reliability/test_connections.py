"""Scenario 13: sockets and missions do not leak PostgreSQL connections."""

from typing import Any

import psycopg
import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection

from missions.intake import instruction_accept
from tests.factories import dm_channel, make_office, make_user
from tests.ws import open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _connections_to_test_db() -> int:
    params: dict[str, Any] = connection.get_connection_params()
    dbname = connection.settings_dict["NAME"]
    with psycopg.connect(
        host=params.get("host"),
        port=params.get("port"),
        user=params.get("user"),
        password=params.get("password"),
        dbname="postgres",
        autocommit=True,
    ) as probe:
        row = probe.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [dbname]
        ).fetchone()
    return int(row[0]) if row else 0


async def _cycles(count: int, channel_id: int, user: Any) -> None:
    for _ in range(count):
        connected, _, socket = await open_socket(channel_id, user)
        assert connected
        await socket.send_json_to({"type": "ping"})
        assert (await socket.receive_json_from(timeout=5))["type"] == "pong"
        await socket.disconnect()


async def test_200_socket_cycles_and_200_missions_leave_no_connection_behind() -> None:
    user = await database_sync_to_async(make_user)()
    channel = await database_sync_to_async(lambda: dm_channel(make_office(user)))()
    await _cycles(5, channel.pk, user)
    baseline = await database_sync_to_async(_connections_to_test_db)()
    await _cycles(100, channel.pk, user)
    halfway = await database_sync_to_async(_connections_to_test_db)()
    await _cycles(100, channel.pk, user)
    for n in range(200):
        await database_sync_to_async(instruction_accept)(channel=channel, text=f"mission {n}")
    after = await database_sync_to_async(_connections_to_test_db)()
    pool_max = settings.DATABASE_POOL_MAX if settings.DATABASE_POOL else 0
    # Pooled connections may stay open up to the pool's size; nothing grows beyond it.
    assert after <= max(baseline, halfway) + pool_max
    assert after <= pool_max + 3, (baseline, halfway, after)
