"""Full-text ranking for recall and memory: a stored PostgreSQL tsvector with a GIN index
in production, SQLite's FTS5 in the embedded default (indexes made in the migrations
`context.0002_fulltext`, `context.0003_fulltext_channel` and `memory.0002_fulltext`).

Queries OR the instruction's terms together, so that a question that shares one rare
word with an old mission still finds it; ranking is BM25, so the passages that share the
most, and the rarest, terms come first and words most passages hold weigh little: FTS5's
bm25() on SQLite; on PostgreSQL each term's IDF over the channel's passages (counted
once and kept a while, `STATS_SECONDS`) with BM25's length normalisation. Over a
channel's history only each term's newest matches are ranked (TERM_MATCHES), so the cost
stays flat as the history grows. Passages are matched on text normalised by
language.analysis, so Korean particles and English word forms do not matter."""

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, connections
from django.db.models import QuerySet

from config.prepared import Fragments
from context.models import Passage
from language.analysis import query_terms
from memory.models import MemoryItem

# Over a channel's history each query term brings at most its newest TERM_MATCHES matches
# into the ranking. A term that rare brings all of them, so a question's informative
# words are ranked exactly; a term in more of the channel's passages than that holds in
# too many to tell them apart, and scoring every one of its matches made ranking cost grow
# with the history. Every term still weighs in the score of what the pool holds.
TERM_MATCHES = 64


@dataclass(frozen=True)
class Candidates:
    """Candidate rows as SQL on their own table, for a ranking statement: their conditions
    (`where`) and an id subquery (`ids`), each with its parameters. Made by
    `candidate_fragments`, for the fixed-shape candidates of every mission through
    `config.prepared.PreparedSql` (compiled once with settings.COMPILED_QUERIES)."""

    where: str
    where_params: list[Any]
    ids: str
    ids_params: list[Any]

    @classmethod
    def of(cls, fragments: Fragments) -> "Candidates":
        (where, where_params), (ids, ids_params) = fragments
        return cls(where, where_params, ids, ids_params)


def candidate_fragments(candidates: QuerySet[Any]) -> Fragments:
    """The candidates' conditions and their id subquery as SQL: what `Candidates` holds."""
    table = candidates.model._meta.db_table
    return [_where(candidates, table), _ids(candidates)]


def _ids(candidates: QuerySet[Any]) -> tuple[str, list[Any]]:
    inner, inner_params = candidates.order_by().values("id").query.sql_with_params()
    return inner, list(inner_params)


def _where(candidates: QuerySet[Any], table: str) -> tuple[str, list[Any]]:
    """The candidates' conditions as SQL on `table` itself, when they need no join (the
    planner then filters during the index scan); else an id subquery. Joins the ORM set
    up and then trimmed stay in `alias_map` without a reference: they do not count."""
    query = candidates.order_by().values("id").query
    used = [alias for alias in query.alias_map if query.alias_refcount[alias]]
    if len(used) == 1 and query.where:
        sql, params = query.get_compiler(connection=connection).compile(query.where)
        return sql, list(params)
    inner, inner_params = _ids(candidates)
    return f'"{table}"."id" IN ({inner})', inner_params


def _fts_terms(terms: list[str]) -> str:
    """An FTS5 query for any of the terms, in the `terms` column only."""
    return "terms : (" + " OR ".join(f'"{t}"' for t in terms) + ")"


def _postgres_rank(
    table: str, where: str, where_params: list[Any], terms: list[str], limit: int
) -> tuple[str, list[Any]]:
    """Among a few candidates (a summary item's evidence, memory items): each matching
    term counts by how rare it is among the candidates that match (ln(1 + matches /
    matches holding it)), its weight computed once."""
    literals = [f"'{t}'" for t in terms]
    pool = (
        f'SELECT "{table}"."id" FROM "{table}" WHERE ({where}) AND '
        f'"{table}"."search_vector" @@ to_tsquery(\'simple\', %s)'
    )
    params: list[Any] = [*where_params, " | ".join(literals)]
    present = ["(m.sv @@ %s::tsquery)" for _ in terms]
    frequency = ", ".join(f"count(*) FILTER (WHERE {p}) AS d{i}" for i, p in enumerate(present))
    weight = ", ".join(f"ln(1 + n::float / greatest(d{i}, 1)) AS w{i}" for i in range(len(terms)))
    score = " + ".join(f"CASE WHEN {p} THEN w.w{i} ELSE 0 END" for i, p in enumerate(present))
    sql = (
        f"WITH pool AS MATERIALIZED ({pool}), "
        f'm AS MATERIALIZED (SELECT "{table}"."id" AS id, "{table}"."search_vector" AS sv '
        f'FROM "{table}" WHERE "{table}"."id" IN (SELECT id FROM pool)), '
        f"w AS MATERIALIZED (SELECT {weight} FROM (SELECT count(*) AS n, {frequency} FROM m) df) "
        f"SELECT m.id FROM m CROSS JOIN w ORDER BY ({score}) DESC, m.id DESC LIMIT %s"
    )
    return sql, [*params, *literals, *literals, limit]


# BM25's parameters (Robertson's usual values). PostgreSQL's vectors are stored stripped
# (context.migrations.0002_fulltext: ranking reads every match's vector, and without
# positions that is several times cheaper), so a term counts once per passage there: its
# weight is the channel's IDF, normalised by the passage's length (distinct terms)
# against the ranked passages' average.
BM25_K1 = 1.2
BM25_B = 0.75
# A term's passages in a channel are counted up to this: past it the term is common and
# its IDF near its floor, and counting further would make the count grow with the history.
DF_CAP = 2_048
# How long a channel's passage count and its terms' document frequencies are reused: they
# move slowly as a history grows, and counting them on every mission costs what grows
# with the history. Writes of this process forget their channel's at once.
STATS_SECONDS = 300.0


@dataclass
class _ChannelStats:
    at: float
    passages: int | None = None
    frequency: dict[str, int] = field(default_factory=dict)
    added: int = 0  # passages this process wrote to the channel since


_STATS: dict[tuple[str, int], _ChannelStats] = {}
_STATS_LOCK = threading.Lock()


def channel_stats_grew(*, channel_id: int, passages: int) -> None:
    """`passages` were written to the channel: its cached statistics are dropped once it
    has grown by a tenth since they were counted (a term's weight then has moved)."""
    with _STATS_LOCK:
        for key in [k for k in _STATS if k[1] == channel_id]:
            stats = _STATS[key]
            stats.added += passages
            if stats.passages is None or stats.added * 10 > stats.passages:
                del _STATS[key]


def _cached_stats(channel_id: int) -> _ChannelStats:
    key = (str(connection.settings_dict["NAME"]), channel_id)
    now = time.monotonic()
    with _STATS_LOCK:
        stats = _STATS.get(key)
        if stats is None or now - stats.at > STATS_SECONDS:
            if len(_STATS) > 4_096:
                _STATS.clear()
            stats = _STATS[key] = _ChannelStats(at=now)
        return stats


def _postgres_channel_rank(
    table: str,
    where: str,
    where_params: list[Any],
    terms: list[str],
    limit: int,
    channel_id: int,
    stats: _ChannelStats,
) -> tuple[str, list[Any]]:
    """BM25 over each term's newest TERM_MATCHES matches in the channel, with each term's
    IDF over the whole channel (N passages, df holding the term): ln(1 + (N - df + 0.5) /
    (df + 0.5)). N and df come from `stats` when known, else are counted in the same
    statement (df up to DF_CAP) and returned with every row, to be kept. Each term's
    newest matches come from the GIN index (a rare term) or a backward scan that stops
    early (a common one): the planner chooses by its statistics. At least one row comes
    back (its id NULL when nothing matched), so the counts are kept either way."""
    literals = [f"'{t}'" for t in terms]
    params: list[Any] = []
    pool = " UNION ".join(
        f'(SELECT "{table}"."id" FROM "{table}" WHERE ({where}) AND '
        f'"{table}"."search_vector" @@ %s::tsquery ORDER BY "{table}"."id" DESC LIMIT %s)'
        for _ in terms
    )
    for literal in literals:
        params += [*where_params, literal, TERM_MATCHES]
    counts: list[str] = []
    if stats.passages is None:
        counts.append(f'(SELECT count(*) FROM "{table}" WHERE "{table}"."channel_id" = %s)')
        params.append(channel_id)
    else:
        counts.append("%s")
        params.append(stats.passages)
    for term, literal in zip(terms, literals, strict=True):
        if term in stats.frequency:
            counts.append("%s")
            params.append(stats.frequency[term])
        else:
            counts.append(
                f'(SELECT count(*) FROM (SELECT 1 FROM "{table}" WHERE "{table}"."channel_id" '
                f'= %s AND "{table}"."search_vector" @@ %s::tsquery LIMIT {DF_CAP}) c)'
            )
            params += [channel_id, literal]
    columns = ", ".join(f"{c}::float AS c{i}" for i, c in enumerate(counts))
    idf = ", ".join(
        f"ln(1 + greatest(c0 - c{i + 1} + 0.5, 0.5) / (c{i + 1} + 0.5)) AS w{i}"
        for i in range(len(terms))
    )
    present = ["(m.sv @@ %s::tsquery)" for _ in terms]
    norm = f"({BM25_K1} * (1 - {BM25_B} + {BM25_B} * m.dl / greatest(a.avgdl, 1)))"
    score = " + ".join(
        f"CASE WHEN {p} THEN w.w{i} * {BM25_K1 + 1} / (1 + {norm}) ELSE 0 END"
        for i, p in enumerate(present)
    )
    returned = ", ".join(f"w.c{i}" for i in range(len(counts)))
    sql = (
        f"WITH pool AS MATERIALIZED ({pool}), "
        f'm AS MATERIALIZED (SELECT "{table}"."id" AS id, "{table}"."search_vector" AS sv, '
        f'length("{table}"."search_vector") AS dl '
        f'FROM "{table}" WHERE "{table}"."id" IN (SELECT id FROM pool)), '
        f"a AS MATERIALIZED (SELECT avg(m.dl)::float AS avgdl FROM m), "
        f"w AS MATERIALIZED (SELECT *, {idf} FROM (SELECT {columns}) c) "
        f"SELECT r.id, {returned} FROM w LEFT JOIN LATERAL ("
        f"SELECT m.id FROM m CROSS JOIN a ORDER BY ({score}) DESC, m.id DESC LIMIT %s"
        f") r ON true"
    )
    return sql, [*params, *literals, limit]


def _sqlite_channel_rank(
    table: str,
    fts: str,
    where: str,
    where_params: list[Any],
    terms: list[str],
    limit: int,
    channel_id: int,
) -> tuple[str, list[Any]]:
    """BM25 over each term's newest matches in the channel. The index holds the channel:
    FTS5 walks one channel's matches of a term newest first and stops at the pool's size
    (CROSS JOIN keeps that walk outermost; the candidates' own conditions are checked on
    those rows only). The pool is a filter on the last scan (`+`): a rowid lookup per
    pool row would recount the terms' statistics each time."""
    per_term = " UNION ".join(
        f'SELECT id FROM (SELECT f.rowid AS id FROM {fts} f CROSS JOIN "{table}" '
        f'ON "{table}"."id" = f.rowid WHERE {fts} MATCH %s AND ({where}) '
        "ORDER BY f.rowid DESC LIMIT %s)"
        for _ in terms
    )
    params: list[Any] = []
    for term in terms:
        params += [f'channel_id : "{channel_id}" AND terms : "{term}"', *where_params]
        params.append(TERM_MATCHES)
    sql = (
        f"WITH pool(id) AS ({per_term}) "
        f"SELECT f.rowid FROM {fts} f WHERE {fts} MATCH %s AND +f.rowid IN pool "
        f"ORDER BY bm25({fts}), f.rowid DESC LIMIT %s"
    )
    return sql, [*params, _fts_terms(terms), limit]


def _sqlite_rank(
    inner: str, inner_params: list[Any], fts: str, terms: list[str], limit: int
) -> tuple[str, list[Any]]:
    """BM25 over every match among a few candidates: their ids are a list built once and
    checked during the index scan."""
    sql = (
        f"SELECT f.rowid FROM {fts} f WHERE {fts} MATCH %s AND +f.rowid IN ({inner}) "
        f"ORDER BY bm25({fts}), f.rowid DESC LIMIT %s"
    )
    return sql, [_fts_terms(terms), *inner_params, limit]


@contextmanager
def _planned_for_values() -> Iterator[None]:
    """A channel's ranking is planned for its own terms on every run, never prepared.
    With prepared statements on (settings.DATABASE_PREPARED) a statement run often is
    prepared on the server, and after a few runs PostgreSQL may keep one generic plan for
    any values. This statement's best plan depends on its terms (a rare term's matches
    come from the GIN index, a common one's from a backward scan that stops early): the
    generic plan's cost grew with the history (measured at 1,000 missions: 6.6 ms a
    ranking, against 1.3 ms planned for its terms). Rankings among a few candidates keep
    one plan whatever the terms, and stay prepared."""
    db = connection.connection
    threshold = getattr(db, "prepare_threshold", None)
    if connection.vendor != "postgresql" or threshold is None:
        yield
        return
    db.prepare_threshold = None
    try:
        yield
    finally:
        db.prepare_threshold = threshold


def _rank(
    candidates: QuerySet[Any] | Candidates,
    table: str,
    fts: str,
    text: str,
    limit: int,
    channel_id: int | None = None,
) -> list[int]:
    """Ids of rows of `table` among the candidates whose normalised `terms` match the
    text's, best first, in one statement: BM25 on SQLite FTS5 (`fts`); on PostgreSQL a
    tf-less BM25 whose IDF is the channel's (`channel_id`) or, among a few candidates,
    the matching candidates'. With `channel_id` (the candidates are that channel's
    history), the pool of each term's newest TERM_MATCHES matches is ranked."""
    terms = query_terms(text)
    if not terms:
        return []

    def where() -> tuple[str, list[Any]]:
        if isinstance(candidates, Candidates):
            return candidates.where, candidates.where_params
        return _where(candidates, table)

    if connection.vendor == "postgresql" and channel_id is not None:
        stats = _cached_stats(channel_id)
        sql, params = _postgres_channel_rank(table, *where(), terms, limit, channel_id, stats)
        with connection.cursor() as cursor, _planned_for_values():
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if rows:
            stats.passages = int(rows[0][1])
            stats.frequency.update(
                {term: int(count) for term, count in zip(terms, rows[0][2:], strict=True)}
            )
        return [row[0] for row in rows if row[0] is not None]
    if connection.vendor == "postgresql":
        sql, params = _postgres_rank(table, *where(), terms, limit)
    elif channel_id is not None:
        sql, params = _sqlite_channel_rank(table, fts, *where(), terms, limit, channel_id)
    else:
        inner, inner_params = (
            (candidates.ids, candidates.ids_params)
            if isinstance(candidates, Candidates)
            else _ids(candidates)
        )
        sql, params = _sqlite_rank(inner, inner_params, fts, terms, limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def rank_passages(
    *,
    candidates: QuerySet[Passage] | Candidates,
    text: str,
    limit: int,
    channel_id: int | None = None,
) -> list[int]:
    """Ids of the candidate passages most relevant to the text, best first. Pass the
    channel when the candidates are its history, however long (recall): then each term
    takes part through its newest TERM_MATCHES matches, and the cost does not grow with
    the history. Without it every match among the candidates is ranked (a few missions'
    passages: a summary item's evidence)."""
    return _rank(candidates, "context_passage", "context_passage_fts", text, limit, channel_id)


def rank_memory_items(
    *, candidates: QuerySet[MemoryItem] | Candidates, text: str, limit: int
) -> list[int]:
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
