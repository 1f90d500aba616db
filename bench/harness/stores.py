"""The run's scratch stores: its Redis database index and its scratch database
(PostgreSQL or a SQLite file), made at the start and removed at the end, and the
connection the checks read it through."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.harness.base import BenchError, StackConfig, log


class ScratchStores:
    """Redis and the scratch database of a Stack (its base class)."""

    config: StackConfig
    db_name: str
    db_url: str
    sqlite_path: Path | None
    redis_url: str
    _db_created: bool
    _redis_used: bool

    # -- Redis

    def _redis_client(self) -> Any:
        import redis

        return redis.Redis.from_url(self.redis_url, socket_timeout=5, socket_connect_timeout=5)

    def _redis_prepare(self) -> None:
        client = self._redis_client()
        try:
            keys = int(client.dbsize())
            if keys and not self.config.redis_force:
                raise BenchError(
                    f"Redis DB {self.config.redis_db} holds {keys} keys: it may be someone "
                    "else's. Pick another --redis-db, or pass --redis-force to flush it."
                )
            client.flushdb()
            self._redis_used = True
        finally:
            client.close()

    def _redis_flush(self) -> None:
        if not self._redis_used:
            return
        try:
            client = self._redis_client()
            try:
                client.flushdb()
            finally:
                client.close()
        except Exception as exc:
            log(f"could not flush Redis DB {self.config.redis_db}: {exc!r}")

    # -- The scratch database

    def _create_database(self) -> None:
        if self.sqlite_path is not None:
            self._db_created = True
            log(f"scratch SQLite database {self.sqlite_path}")
            return
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.config.pg_url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.db_name)))
        self._db_created = True
        log(f"scratch database {self.db_name}")

    def _drop_database(self) -> None:
        if not self._db_created:
            return
        if self.sqlite_path is not None:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    Path(f"{self.sqlite_path}{suffix}").unlink()
            self._db_created = False
            return
        import psycopg
        from psycopg import sql

        try:
            with psycopg.connect(self.config.pg_url, autocommit=True, connect_timeout=10) as conn:
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                        sql.Identifier(self.db_name)
                    )
                )
            self._db_created = False
        except Exception as exc:
            log(f"could not drop {self.db_name}: {exc!r}")

    @contextlib.contextmanager
    def scratch(self) -> Iterator[ScratchDb]:
        """A connection to the scratch database (read by the checks)."""
        if self.sqlite_path is not None:
            import sqlite3

            conn = sqlite3.connect(str(self.sqlite_path), timeout=30)
            try:
                yield ScratchDb(conn, sqlite=True)
            finally:
                conn.close()
        else:
            import psycopg

            with psycopg.connect(self.db_url, autocommit=True, connect_timeout=10) as pg:
                yield ScratchDb(pg, sqlite=False)


class ScratchDb:
    """Queries written once for both databases: `%s` placeholders (a list parameter
    expands in place, for `IN (%s)`), `{strpos}` for the substring position function."""

    def __init__(self, conn: Any, *, sqlite: bool) -> None:
        self.conn = conn
        self.sqlite = sqlite

    def rows(self, query: str, params: tuple[Any, ...] = ()) -> list[Any]:
        mark = "?" if self.sqlite else "%s"
        parts = query.replace("{strpos}", "instr" if self.sqlite else "strpos").split("%s")
        if len(parts) != len(params) + 1:
            raise ValueError("one parameter per %s")
        text, values = parts[0], []
        for param, part in zip(params, parts[1:], strict=True):
            if isinstance(param, list):
                text += ", ".join([mark] * len(param)) or "NULL"
                values.extend(param)
            else:
                text += mark
                values.append(param)
            text += part
        return list(self.conn.execute(text, values).fetchall())
