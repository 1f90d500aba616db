"""The SQLite backend's in-process writer queue (config/sqlite): a thread's write
transaction holds it from BEGIN to COMMIT or ROLLBACK, a write outside a transaction
holds it for its statement, and a writer that waits longer than the busy timeout gets
SQLite's own error."""

import threading
from typing import Any

import pytest
from django.db import OperationalError, connection, connections, transaction

from config.sqlite.base import _writer_lock
from sessions.models import ChatSession
from sessions.services import session_get_or_open_current
from tests.factories import dm_channel, make_office

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite backend"),
]


def _lock() -> threading.Lock:
    return _writer_lock(str(connection.settings_dict["NAME"]))


def _session() -> ChatSession:
    return session_get_or_open_current(channel=dm_channel(make_office()))


def _in_thread(fn: Any) -> threading.Thread:
    def run() -> None:
        try:
            fn()
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _hold_a_write(session: ChatSession, count: int) -> tuple[threading.Thread, threading.Event]:
    """A thread whose write transaction stays open until the event is set."""
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            ChatSession.objects.filter(pk=session.pk).update(mission_count=count)
            holding.set()
            release.wait(10)

    thread = _in_thread(hold)
    assert holding.wait(10)
    return thread, release


def test_a_write_transaction_holds_the_queue_until_it_commits() -> None:
    session = _session()
    connection.ensure_connection()
    lock = _lock()
    assert not lock.locked()
    with transaction.atomic():
        ChatSession.objects.filter(pk=session.pk).update(mission_count=1)
        assert lock.locked()
    assert not lock.locked()


def test_a_rolled_back_transaction_gives_the_queue_back() -> None:
    session = _session()
    with pytest.raises(RuntimeError), transaction.atomic():
        ChatSession.objects.filter(pk=session.pk).update(mission_count=5)
        raise RuntimeError("no")
    assert not _lock().locked()
    session.refresh_from_db()
    assert session.mission_count == 0


def test_a_second_writer_waits_for_the_first_then_sees_its_write() -> None:
    session = _session()
    seen: list[int] = []

    def second() -> None:
        with transaction.atomic():
            current = ChatSession.objects.get(pk=session.pk)
            seen.append(current.mission_count)
            ChatSession.objects.filter(pk=session.pk).update(
                mission_count=current.mission_count + 1
            )

    a, release = _hold_a_write(session, 10)
    b = _in_thread(second)
    b.join(0.3)
    assert b.is_alive() and seen == []  # queued behind the first writer
    release.set()
    a.join(10)
    b.join(10)
    # Its transaction began after the first committed: it read 10, not the 0 before.
    assert seen == [10]
    session.refresh_from_db()
    assert session.mission_count == 11


def test_a_writer_that_waits_past_the_busy_timeout_gets_database_is_locked(
    settings: Any,
) -> None:
    session = _session()
    errors: list[str] = []

    def second() -> None:
        connections["default"].settings_dict["OPTIONS"]["timeout"] = 0.2
        try:
            ChatSession.objects.filter(pk=session.pk).update(mission_count=2)
        except OperationalError as exc:
            errors.append(str(exc))

    timeout = connection.settings_dict["OPTIONS"]["timeout"]
    a, release = _hold_a_write(session, 1)
    try:
        b = _in_thread(second)
        b.join(10)
    finally:
        release.set()
        a.join(10)
        connection.settings_dict["OPTIONS"]["timeout"] = timeout
    assert errors == ["database is locked"]
    session.refresh_from_db()
    assert session.mission_count == 1


def test_many_threads_writing_at_once_lose_no_update() -> None:
    session = _session()
    threads, writes = 8, 20

    def writer() -> None:
        for _ in range(writes):
            with transaction.atomic():
                current = ChatSession.objects.get(pk=session.pk)
                ChatSession.objects.filter(pk=session.pk).update(
                    mission_count=current.mission_count + 1
                )

    running = [_in_thread(writer) for _ in range(threads)]
    for thread in running:
        thread.join(60)
    session.refresh_from_db()
    assert session.mission_count == threads * writes
    assert not _lock().locked()
