"""SQLite with one in-process queue for its single writer.

SQLite lets one connection write at a time; the others wait in its busy handler, which
polls the lock with sleeps that grow to 100 ms. With a pool of threads writing (the
embedded runtime's two lanes and the socket consumer's thread) the lock is often free
while every waiter sleeps. Here the threads of one process queue on a Python lock
instead, taken at ``BEGIN IMMEDIATE`` (or around a write outside a transaction) and given
back at commit, rollback or close, so the next writer starts the moment the last one
ends. Other processes (a management command beside the server) still meet SQLite's own
busy timeout, and a writer that waits longer than that timeout here gets the same
"database is locked" error SQLite would raise.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

from django.db import OperationalError
from django.db.backends.sqlite3 import base

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")

# Django rewrites every statement's "%s" placeholders to SQLite's "?" with a regular
# expression, on every execution (about 9 µs for the detail window's query). The mission
# path runs the same few dozen statements over and over, so each rewrite is remembered;
# the cache is emptied when it fills (statements built with varying IN-lists, say).
_QMARK_CACHE_SIZE = 1024
_qmark: dict[str, str] = {}


def _writer_lock(name: str) -> threading.Lock:
    lock = _locks.get(name)
    if lock is None:
        with _locks_guard:
            lock = _locks.setdefault(name, threading.Lock())
    return lock


def _is_write(sql: str) -> bool:
    return sql.lstrip()[:7].upper().startswith(_WRITES)


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The lock in hand while this connection writes (None: not writing).
        self._writer: threading.Lock | None = None
        wrapper = self

        class Cursor(base.SQLiteCursorWrapper):
            def convert_query(self, query: str, *, param_names: Any = None) -> str:
                if param_names is not None:
                    return str(super().convert_query(query, param_names=param_names))
                converted = _qmark.get(query)
                if converted is None:
                    converted = str(super().convert_query(query))
                    if len(_qmark) >= _QMARK_CACHE_SIZE:
                        _qmark.clear()
                    _qmark[query] = converted
                return converted

            # A write outside a transaction is a transaction of its own: it queues too.
            def execute(self, query: str, params: Any = None) -> Any:
                run = super().execute
                return wrapper._queued(self.connection, query, lambda: run(query, params))

            def executemany(self, query: str, param_list: Any) -> Any:
                run = super().executemany
                return wrapper._queued(self.connection, query, lambda: run(query, param_list))

        self._cursor_class = Cursor

    def _queued(self, connection: sqlite3.Connection, query: str, run: Any) -> Any:
        if self._writer or connection.in_transaction or not _is_write(query):
            return run()
        self._take_writer()
        try:
            return run()
        finally:
            self._give_writer()

    def _take_writer(self) -> None:
        # Looked up by the file's name when taken: the test runner renames the database
        # after some connections were made.
        lock = _writer_lock(str(self.settings_dict["NAME"]))
        timeout = float(self.settings_dict["OPTIONS"].get("timeout", 5))
        if not lock.acquire(timeout=timeout):
            raise OperationalError("database is locked")
        self._writer = lock

    def _give_writer(self) -> None:
        lock, self._writer = self._writer, None
        if lock is not None:
            lock.release()

    def create_cursor(self, name: str | None = None) -> sqlite3.Cursor:
        return self.connection.cursor(factory=self._cursor_class)

    def _start_transaction_under_autocommit(self) -> None:
        self._take_writer()
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]
        except BaseException:
            self._give_writer()
            raise

    def _commit(self) -> None:
        try:
            super()._commit()  # type: ignore[misc]  # not in the stubs
        finally:
            if self.connection is None or not self.connection.in_transaction:
                self._give_writer()

    def _rollback(self) -> None:
        try:
            super()._rollback()  # type: ignore[misc]
        finally:
            self._give_writer()

    def _close(self) -> None:
        try:
            super()._close()  # type: ignore[misc]
        finally:
            self._give_writer()
