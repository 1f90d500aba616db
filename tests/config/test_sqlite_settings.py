"""The embedded database's connection settings, seen from SQLite itself: write-ahead log,
transactions that take the write lock when they begin, and a writer that waits for another
connection's lock instead of failing. (The writer queue of config/sqlite lines up the
threads of one process; these settings are what holds between connections and processes,
a management command beside the running server for one.)"""

from pathlib import Path

from tests.fresh import embedded_env, run_python

SCRIPT = """
import sqlite3, threading, time
import django
django.setup()
from django.conf import settings
from django.db import connection, transaction

with connection.cursor() as cursor:
    cursor.execute("PRAGMA journal_mode")
    mode = cursor.fetchone()[0]
    cursor.execute("PRAGMA busy_timeout")
    busy = cursor.fetchone()[0]
other = sqlite3.connect(
    settings.DATABASES["default"]["NAME"], timeout=0, isolation_level=None,
    check_same_thread=False,
)
with transaction.atomic():  # begun, nothing written yet
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        held = "free"
    except sqlite3.OperationalError as error:
        held = str(error)
other.execute("BEGIN IMMEDIATE")  # another connection writes for half a second
threading.Timer(0.5, lambda: other.execute("COMMIT")).start()
started = time.monotonic()
with transaction.atomic(), connection.cursor() as cursor:
    cursor.execute("CREATE TABLE written (n INTEGER)")
waited = time.monotonic() - started
print(mode, busy, settings.SQLITE_BUSY_TIMEOUT * 1000, round(waited, 2), held, sep="|")
"""


def test_sqlite_runs_in_wal_with_immediate_transactions_and_waits_for_another_writer(
    tmp_path: Path,
) -> None:
    output = run_python(
        "-c",
        SCRIPT,
        env=embedded_env(DATABASE_URL=f"sqlite:///{tmp_path}/office.sqlite3"),
    )
    mode, busy, configured, waited, held = output.strip().splitlines()[-1].split("|")
    assert mode == "wal"
    assert int(busy) == int(configured) > 0
    # A transaction holds the write lock from BEGIN: no read-then-write upgrade to fail.
    assert held == "database is locked"
    # The write waited for the other connection's commit (0.5 s) and then went through.
    assert float(waited) >= 0.4
