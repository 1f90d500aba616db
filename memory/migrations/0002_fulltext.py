"""Full-text search over long-term memory: a GIN index on PostgreSQL, an FTS5 table kept
in sync by triggers on SQLite. The queries live in memory/search.py."""

from django.db import migrations

POSTGRES = [
    "ALTER TABLE memory_memoryitem ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
    "(to_tsvector('simple'::regconfig, text)) STORED",
    "CREATE INDEX memoryitem_search_vector_gin ON memory_memoryitem USING gin (search_vector)",
]
POSTGRES_REVERSE = [
    "DROP INDEX IF EXISTS memoryitem_search_vector_gin",
    "ALTER TABLE memory_memoryitem DROP COLUMN IF EXISTS search_vector",
]

SQLITE = [
    "CREATE VIRTUAL TABLE memory_memoryitem_fts USING fts5("
    "text, content='memory_memoryitem', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER memory_memoryitem_fts_ai AFTER INSERT ON memory_memoryitem BEGIN "
    "INSERT INTO memory_memoryitem_fts(rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER memory_memoryitem_fts_ad AFTER DELETE ON memory_memoryitem BEGIN "
    "INSERT INTO memory_memoryitem_fts(memory_memoryitem_fts, rowid, text) "
    "VALUES ('delete', old.id, old.text); END",
    "CREATE TRIGGER memory_memoryitem_fts_au AFTER UPDATE OF text ON memory_memoryitem BEGIN "
    "INSERT INTO memory_memoryitem_fts(memory_memoryitem_fts, rowid, text) "
    "VALUES ('delete', old.id, old.text); "
    "INSERT INTO memory_memoryitem_fts(rowid, text) VALUES (new.id, new.text); END",
    "INSERT INTO memory_memoryitem_fts(memory_memoryitem_fts) VALUES ('rebuild')",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS memory_memoryitem_fts_ai",
    "DROP TRIGGER IF EXISTS memory_memoryitem_fts_ad",
    "DROP TRIGGER IF EXISTS memory_memoryitem_fts_au",
    "DROP TABLE IF EXISTS memory_memoryitem_fts",
]


def _run(statements: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("memory", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES, "sqlite": SQLITE}),
            _run({"postgresql": POSTGRES_REVERSE, "sqlite": SQLITE_REVERSE}),
        ),
    ]
