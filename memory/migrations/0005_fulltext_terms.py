"""Memory is ranked on its normalised text (`terms`, language.analysis), like recall, so
Korean particles and English word forms do not decide what is found: the full-text
index of 0002 moves from `text` to `terms`, and existing items get their terms.

The normalisation is imported from the code as it is when this runs; an item edited
later gets the terms of the code of that day, which is what ranking compares against."""

from django.db import migrations

POSTGRES = [
    "DROP INDEX IF EXISTS memoryitem_search_vector_gin",
    "ALTER TABLE memory_memoryitem DROP COLUMN IF EXISTS search_vector",
    "ALTER TABLE memory_memoryitem ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
    "(to_tsvector('simple'::regconfig, terms)) STORED",
    "CREATE INDEX memoryitem_search_vector_gin ON memory_memoryitem USING gin (search_vector)",
]
SQLITE = [
    "DROP TRIGGER IF EXISTS memory_memoryitem_fts_ai",
    "DROP TRIGGER IF EXISTS memory_memoryitem_fts_ad",
    "DROP TRIGGER IF EXISTS memory_memoryitem_fts_au",
    "DROP TABLE IF EXISTS memory_memoryitem_fts",
    "CREATE VIRTUAL TABLE memory_memoryitem_fts USING fts5("
    "terms, content='memory_memoryitem', content_rowid='id', tokenize='unicode61')",
    "CREATE TRIGGER memory_memoryitem_fts_ai AFTER INSERT ON memory_memoryitem BEGIN "
    "INSERT INTO memory_memoryitem_fts(rowid, terms) VALUES (new.id, new.terms); END",
    "CREATE TRIGGER memory_memoryitem_fts_ad AFTER DELETE ON memory_memoryitem BEGIN "
    "INSERT INTO memory_memoryitem_fts(memory_memoryitem_fts, rowid, terms) "
    "VALUES ('delete', old.id, old.terms); END",
    "CREATE TRIGGER memory_memoryitem_fts_au AFTER UPDATE OF terms ON memory_memoryitem "
    "BEGIN INSERT INTO memory_memoryitem_fts(memory_memoryitem_fts, rowid, terms) "
    "VALUES ('delete', old.id, old.terms); "
    "INSERT INTO memory_memoryitem_fts(rowid, terms) VALUES (new.id, new.terms); END",
]


# Going back: the index of 0002, over `text`.
POSTGRES_REVERSE = [
    "DROP INDEX IF EXISTS memoryitem_search_vector_gin",
    "ALTER TABLE memory_memoryitem DROP COLUMN IF EXISTS search_vector",
    "ALTER TABLE memory_memoryitem ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
    "(to_tsvector('simple'::regconfig, text)) STORED",
    "CREATE INDEX memoryitem_search_vector_gin ON memory_memoryitem USING gin (search_vector)",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS memory_memoryitem_fts_ai",
    "DROP TRIGGER IF EXISTS memory_memoryitem_fts_ad",
    "DROP TRIGGER IF EXISTS memory_memoryitem_fts_au",
    "DROP TABLE IF EXISTS memory_memoryitem_fts",
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


def _unindex(apps, schema_editor):  # type: ignore[no-untyped-def]
    statements = {"postgresql": POSTGRES_REVERSE, "sqlite": SQLITE_REVERSE}
    for sql in statements.get(schema_editor.connection.vendor, []):
        schema_editor.execute(sql)


def _fill_terms(apps, schema_editor):  # type: ignore[no-untyped-def]
    from language.analysis import normalised

    MemoryItem = apps.get_model("memory", "MemoryItem")
    for item in MemoryItem.objects.filter(terms="").iterator():
        MemoryItem.objects.filter(pk=item.pk).update(terms=normalised(item.text))


def _index(apps, schema_editor):  # type: ignore[no-untyped-def]
    statements = {"postgresql": POSTGRES, "sqlite": SQLITE}
    for sql in statements.get(schema_editor.connection.vendor, []):
        schema_editor.execute(sql)
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(
            "INSERT INTO memory_memoryitem_fts(memory_memoryitem_fts) VALUES ('rebuild')"
        )


class Migration(migrations.Migration):
    dependencies = [("memory", "0004_memoryitem_terms")]

    operations = [
        migrations.RunPython(_fill_terms, migrations.RunPython.noop),
        migrations.RunPython(_index, _unindex),
    ]
