"""Recall now searches passages (context.Passage) over normalised text; the whole-mission
index of 0002 is no longer read."""

from django.db import migrations

POSTGRES = [
    "DROP INDEX IF EXISTS mission_search_vector_gin",
    "ALTER TABLE missions_mission DROP COLUMN IF EXISTS search_vector",
]
SQLITE = [
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
    dependencies = [("missions", "0003_mission_run_token")]

    # Going back recreates nothing: run missions.0002's SQL again if that is ever needed.
    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES, "sqlite": SQLITE}), migrations.RunPython.noop
        ),
    ]
