"""Full-text ranking for recall and memory: a stored PostgreSQL tsvector with a GIN index
in production, SQLite's FTS5 in the embedded default (indexes made in the migrations
`missions.0002_fulltext` and `memory.0002_fulltext`).

Queries OR the instruction's terms together, so that a question that shares one rare
word with an old mission still finds it; ranking puts the missions sharing most terms
first."""

import re

from django.db import connection

_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "done",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "like",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "please",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "again",
        "tell",
        "remind",
        "said",
        "say",
    ]
)
MAX_TERMS = 24


def search_terms(text: str) -> list[str]:
    """Distinct, lowercased, meaningful words of the text, in order of appearance."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS or (word.isdigit() and len(word) < 2):
            continue
        if len(word) < 3 and word.isascii():
            continue
        seen.setdefault(word, None)
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)


def _pg_tsquery(terms: list[str]) -> str:
    # Terms are \w+ only, so they need no quoting; a prefix match forgives plurals.
    return " | ".join(f"{t}:*" if len(t) >= 4 else t for t in terms)


def _fts5_query(terms: list[str]) -> str:
    return " OR ".join(f'"{t}"*' if len(t) >= 4 else f'"{t}"' for t in terms)


def rank_folded_missions(
    *, channel_id: int, session_id: int, folded_through_seq: int, text: str, limit: int
) -> list[int]:
    """Ids of the channel's folded missions most relevant to the text, best first: the
    done missions of earlier sessions and this session's up to the fold watermark."""
    terms = search_terms(text)
    if not terms:
        return []
    params: list[str | int]
    if connection.vendor == "postgresql":
        sql = (
            "SELECT m.id FROM missions_mission m, to_tsquery('simple', %s) q "
            "WHERE m.channel_id = %s AND m.status = 'done' "
            "AND (m.session_id <> %s OR m.seq <= %s) "
            "AND m.search_vector @@ q "
            "ORDER BY ts_rank(m.search_vector, q) DESC, m.id DESC LIMIT %s"
        )
        params = [_pg_tsquery(terms), channel_id, session_id, folded_through_seq, limit]
    else:
        sql = (
            "SELECT m.id FROM missions_mission_fts f JOIN missions_mission m ON m.id = f.rowid "
            "WHERE missions_mission_fts MATCH %s AND m.channel_id = %s AND m.status = 'done' "
            "AND (m.session_id <> %s OR m.seq <= %s) "
            "ORDER BY bm25(missions_mission_fts), m.id DESC LIMIT %s"
        )
        params = [_fts5_query(terms), channel_id, session_id, folded_through_seq, limit]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def rank_memory_items(
    *, candidate_sql: str, candidate_params: list[str | int], text: str, limit: int
) -> list[int]:
    """Ids of memory items among the candidates (a SQL condition on alias `i`) ranked for
    the text, best first."""
    terms = search_terms(text)
    if not terms:
        return []
    if connection.vendor == "postgresql":
        sql = (
            "SELECT i.id FROM memory_memoryitem i, to_tsquery('simple', %s) q "
            f"WHERE ({candidate_sql}) "
            "AND i.search_vector @@ q "
            "ORDER BY ts_rank(i.search_vector, q) DESC, i.id DESC "
            "LIMIT %s"
        )
        params = [_pg_tsquery(terms), *candidate_params, limit]
    else:
        sql = (
            "SELECT i.id FROM memory_memoryitem_fts f JOIN memory_memoryitem i ON i.id = f.rowid "
            f"WHERE memory_memoryitem_fts MATCH %s AND ({candidate_sql}) "
            "ORDER BY bm25(memory_memoryitem_fts), i.id DESC LIMIT %s"
        )
        params = [_fts5_query(terms), *candidate_params, limit]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


# SQLite rebuilds a table to alter it, and the rebuild drops the table's triggers: after
# any migration the FTS5 triggers are put back (and the index rebuilt if they were gone).
_SQLITE_TRIGGERS = {
    "missions_mission_fts": (
        "missions_mission",
        ("instruction", "reply"),
    ),
    "memory_memoryitem_fts": ("memory_memoryitem", ("text",)),
}


def ensure_sqlite_fulltext(using: str = "default") -> list[str]:
    """Recreate missing FTS5 sync triggers; returns the indexes that were rebuilt."""
    from django.db import connections

    conn = connections[using]
    if conn.vendor != "sqlite":
        return []
    rebuilt = []
    with conn.cursor() as cursor:
        for fts, (table, columns) in _SQLITE_TRIGGERS.items():
            cursor.execute("SELECT name FROM sqlite_master WHERE type='table' AND name=%s", [fts])
            if cursor.fetchone() is None:
                continue  # before the migration that creates it
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
