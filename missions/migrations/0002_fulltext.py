"""Full-text search over missions, for recall: a stored tsvector with a GIN index on
PostgreSQL, an FTS5 table
kept in sync by triggers on SQLite. The queries live in memory/search.py."""

from django.db import migrations

# A stored vector, not an expression index: ranking reads the vector of every match, and
# re-parsing each mission's text per query made recall grow with the channel's history.
POSTGRES = [
    "ALTER TABLE missions_mission ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
    "(strip(to_tsvector('simple'::regconfig, instruction || ' ' || reply))) STORED",
    "CREATE INDEX mission_search_vector_gin ON missions_mission USING gin (search_vector)",
]
POSTGRES_REVERSE = [
    "DROP INDEX IF EXISTS mission_search_vector_gin",
    "ALTER TABLE missions_mission DROP COLUMN IF EXISTS search_vector",
]

SQLITE = [
    "CREATE VIRTUAL TABLE missions_mission_fts USING fts5("
    "instruction, reply, content='missions_mission', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER missions_mission_fts_ai AFTER INSERT ON missions_mission BEGIN "
    "INSERT INTO missions_mission_fts(rowid, instruction, reply) "
    "VALUES (new.id, new.instruction, new.reply); END",
    "CREATE TRIGGER missions_mission_fts_ad AFTER DELETE ON missions_mission BEGIN "
    "INSERT INTO missions_mission_fts(missions_mission_fts, rowid, instruction, reply) "
    "VALUES ('delete', old.id, old.instruction, old.reply); END",
    "CREATE TRIGGER missions_mission_fts_au AFTER UPDATE OF instruction, reply "
    "ON missions_mission BEGIN "
    "INSERT INTO missions_mission_fts(missions_mission_fts, rowid, instruction, reply) "
    "VALUES ('delete', old.id, old.instruction, old.reply); "
    "INSERT INTO missions_mission_fts(rowid, instruction, reply) "
    "VALUES (new.id, new.instruction, new.reply); END",
    "INSERT INTO missions_mission_fts(missions_mission_fts) VALUES ('rebuild')",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS missions_mission_fts_ai",
    "DROP TRIGGER IF EXISTS missions_mission_fts_ad",
    "DROP TRIGGER IF EXISTS missions_mission_fts_au",
    "DROP TABLE IF EXISTS missions_mission_fts",
]


def _run(statements: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("missions", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES, "sqlite": SQLITE}),
            _run({"postgresql": POSTGRES_REVERSE, "sqlite": SQLITE_REVERSE}),
        ),
    ]
