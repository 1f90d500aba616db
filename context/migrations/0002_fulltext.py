"""Full-text search over passages, for recall: a stored tsvector with a GIN index on
PostgreSQL, an FTS5 table kept in sync by triggers on SQLite. Both index `terms`, the text
normalised by language.analysis (so the 'simple' configuration and unicode61 only split
on spaces). The queries live in context/search.py."""

from django.db import migrations

# Stripped (no positions): ranking reads the vector of every match, and without positions
# ts_rank is several times cheaper; it then ranks by how many of the question's terms a
# passage holds. SQLite's FTS5 ranks by BM25.
POSTGRES = [
    "ALTER TABLE context_passage ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
    "(strip(to_tsvector('simple'::regconfig, terms))) STORED",
    "CREATE INDEX passage_search_vector_gin ON context_passage USING gin (search_vector)",
]
POSTGRES_REVERSE = [
    "DROP INDEX IF EXISTS passage_search_vector_gin",
    "ALTER TABLE context_passage DROP COLUMN IF EXISTS search_vector",
]

SQLITE = [
    "CREATE VIRTUAL TABLE context_passage_fts USING fts5("
    "terms, content='context_passage', content_rowid='id', tokenize='unicode61')",
    "CREATE TRIGGER context_passage_fts_ai AFTER INSERT ON context_passage BEGIN "
    "INSERT INTO context_passage_fts(rowid, terms) VALUES (new.id, new.terms); END",
    "CREATE TRIGGER context_passage_fts_ad AFTER DELETE ON context_passage BEGIN "
    "INSERT INTO context_passage_fts(context_passage_fts, rowid, terms) "
    "VALUES ('delete', old.id, old.terms); END",
    "CREATE TRIGGER context_passage_fts_au AFTER UPDATE OF terms ON context_passage BEGIN "
    "INSERT INTO context_passage_fts(context_passage_fts, rowid, terms) "
    "VALUES ('delete', old.id, old.terms); "
    "INSERT INTO context_passage_fts(rowid, terms) VALUES (new.id, new.terms); END",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS context_passage_fts_ai",
    "DROP TRIGGER IF EXISTS context_passage_fts_ad",
    "DROP TRIGGER IF EXISTS context_passage_fts_au",
    "DROP TABLE IF EXISTS context_passage_fts",
]


def _run(statements: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("context", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES, "sqlite": SQLITE}),
            _run({"postgresql": POSTGRES_REVERSE, "sqlite": SQLITE_REVERSE}),
        ),
    ]
