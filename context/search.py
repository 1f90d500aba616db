"""Full-text ranking for recall and memory: a stored PostgreSQL tsvector with a GIN index
in production, SQLite's FTS5 in the embedded default (indexes made in the migrations
`context.0002_fulltext`, `context.0003_fulltext_channel` and `memory.0002_fulltext`).

Queries OR the instruction's terms together, so that a question that shares one rare
word with an old mission still finds it; ranking (BM25, ts_rank) puts the passages that
share the most, and the rarest, terms first. Passages are matched on text normalised by
language.analysis, so Korean particles and English word forms do not matter."""

from typing import Any

from django.db import connection, connections
from django.db.models import QuerySet

from context.models import Passage
from language.analysis import query_terms
from memory.models import MemoryItem


def _where(candidates: QuerySet[Any], table: str) -> tuple[str, list[Any]]:
    """The candidates' conditions as SQL on `table` itself, when they need no join (the
    planner then filters during the full-text scan); else an id subquery. Joins the ORM
    set up and then trimmed stay in `alias_map` without a reference: they do not count."""
    query = candidates.order_by().values("id").query
    used = [alias for alias in query.alias_map if query.alias_refcount[alias]]
    if len(used) == 1 and query.where:
        sql, params = query.get_compiler(connection=connection).compile(query.where)
        return sql, list(params)
    inner, inner_params = query.sql_with_params()
    return f'"{table}"."id" IN ({inner})', list(inner_params)


def _rank(candidates: QuerySet[Any], table: str, fts: str, text: str, limit: int) -> list[int]:
    """Ids of rows of `table` among the candidates whose normalised `terms` match the
    text's, best first: BM25 on SQLite FTS5 (`fts`), a tf-less BM25 (rare terms weigh
    more) on PostgreSQL."""
    terms = query_terms(text)
    if not terms:
        return []
    where, where_params = _where(candidates, table)
    params: list[Any]
    if connection.vendor == "postgresql":
        # PostgreSQL has no BM25: each matching term counts by how rare it is among the
        # matches (ln(1 + matches / matches holding it)), in one statement. The weights are
        # materialised once: inlined, a plan may recount them for every match.
        literals = [f"'{t}'" for t in terms]
        present = ["(m.sv @@ %s::tsquery)" for _ in terms]
        frequency = ", ".join(f"count(*) FILTER (WHERE {p}) AS d{i}" for i, p in enumerate(present))
        weight = ", ".join(
            f"ln(1 + n::float / greatest(d{i}, 1)) AS w{i}" for i in range(len(terms))
        )
        score = " + ".join(f"CASE WHEN {p} THEN w.w{i} ELSE 0 END" for i, p in enumerate(present))
        sql = (
            f'WITH m AS MATERIALIZED (SELECT "{table}"."id" AS id, "{table}"."search_vector" '
            f'AS sv FROM "{table}" WHERE ({where}) AND "{table}"."search_vector" @@ '
            "to_tsquery('simple', %s)), "
            f"w AS MATERIALIZED (SELECT {weight} FROM "
            f"(SELECT count(*) AS n, {frequency} FROM m) df) "
            f"SELECT m.id FROM m CROSS JOIN w ORDER BY ({score}) DESC, m.id DESC LIMIT %s"
        )
        params = [*where_params, " | ".join(literals), *literals, *literals, limit]
    else:
        sql = (
            f'SELECT "{table}"."id" FROM {fts} f JOIN "{table}" ON "{table}"."id" = f.rowid '
            f"WHERE {fts} MATCH %s AND ({where}) "
            f'ORDER BY bm25({fts}), "{table}"."id" DESC LIMIT %s'
        )
        # The passages' index also holds their channel: the query names its column.
        params = ["terms : (" + " OR ".join(f'"{t}"' for t in terms) + ")", *where_params, limit]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def rank_passages(*, candidates: QuerySet[Passage], text: str, limit: int) -> list[int]:
    """Ids of the candidate passages most relevant to the text, best first."""
    return _rank(candidates, "context_passage", "context_passage_fts", text, limit)


def rank_memory_items(*, candidates: QuerySet[MemoryItem], text: str, limit: int) -> list[int]:
    """Ids of the candidate memory items most relevant to the text, best first."""
    return _rank(candidates, "memory_memoryitem", "memory_memoryitem_fts", text, limit)


# SQLite rebuilds a table to alter it, and the rebuild drops the table's triggers: after
# any migration the FTS5 triggers are put back (and the index rebuilt if they were gone).
# The columns are the index's own (the passages' index also holds their channel).
_SQLITE_TRIGGERS = {
    "context_passage_fts": "context_passage",
    "memory_memoryitem_fts": "memory_memoryitem",
}


def ensure_sqlite_fulltext(using: str = "default") -> list[str]:
    """Recreate missing FTS5 sync triggers; returns the indexes that were rebuilt."""
    conn = connections[using]
    if conn.vendor != "sqlite":
        return []
    rebuilt = []
    with conn.cursor() as cursor:
        for fts, table in _SQLITE_TRIGGERS.items():
            cursor.execute("SELECT name FROM sqlite_master WHERE type='table' AND name=%s", [fts])
            if cursor.fetchone() is None:
                continue  # before the migration that creates it
            cursor.execute(f"SELECT * FROM {fts} LIMIT 0")
            columns = [column[0] for column in cursor.description]
            cols = ", ".join(columns)
            new = ", ".join(f"new.{c}" for c in columns)
            old = ", ".join(f"old.{c}" for c in columns)
            wanted = {
                f"{fts}_ai": f"AFTER INSERT ON {table} BEGIN INSERT INTO {fts}(rowid, {cols}) "
                f"VALUES (new.id, {new}); END",
                f"{fts}_ad": f"AFTER DELETE ON {table} BEGIN INSERT INTO {fts}({fts}, rowid, "
                f"{cols}) VALUES ('delete', old.id, {old}); END",
                f"{fts}_au": f"AFTER UPDATE OF {cols} ON {table} BEGIN INSERT INTO {fts}({fts}, "
                f"rowid, {cols}) VALUES ('delete', old.id, {old}); INSERT INTO "
                f"{fts}(rowid, {cols}) VALUES (new.id, {new}); END",
            }
            missing = False
            for name, body in wanted.items():
                cursor.execute(
                    "SELECT 1 FROM sqlite_master WHERE type='trigger' AND name=%s", [name]
                )
                if cursor.fetchone() is None:
                    missing = True
                    cursor.execute(f"CREATE TRIGGER {name} {body}")
            if missing:
                cursor.execute(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')")
                rebuilt.append(fts)
    return rebuilt
