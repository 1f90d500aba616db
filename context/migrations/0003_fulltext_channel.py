"""The SQLite index of passages also holds each passage's channel, so that recall walks one
channel's matches of a term, newest first, inside the index (context/search.py), not the
matches of every channel with a row lookup each. Queries name the column they match
(`terms : …`, `channel_id : …`). PostgreSQL filters by channel through its own indexes:
nothing changes there."""

from django.db import migrations

_TRIGGERS = [
    "DROP TRIGGER IF EXISTS context_passage_fts_ai",
    "DROP TRIGGER IF EXISTS context_passage_fts_ad",
    "DROP TRIGGER IF EXISTS context_passage_fts_au",
    "DROP TABLE IF EXISTS context_passage_fts",
]


def _index(columns: list[str]) -> list[str]:
    cols = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    return [
        *_TRIGGERS,
        f"CREATE VIRTUAL TABLE context_passage_fts USING fts5({cols}, "
        "content='context_passage', content_rowid='id', tokenize='unicode61')",
        "CREATE TRIGGER context_passage_fts_ai AFTER INSERT ON context_passage BEGIN "
        f"INSERT INTO context_passage_fts(rowid, {cols}) VALUES (new.id, {new}); END",
        "CREATE TRIGGER context_passage_fts_ad AFTER DELETE ON context_passage BEGIN "
        f"INSERT INTO context_passage_fts(context_passage_fts, rowid, {cols}) "
        f"VALUES ('delete', old.id, {old}); END",
        f"CREATE TRIGGER context_passage_fts_au AFTER UPDATE OF {cols} ON context_passage "
        f"BEGIN INSERT INTO context_passage_fts(context_passage_fts, rowid, {cols}) "
        f"VALUES ('delete', old.id, {old}); "
        f"INSERT INTO context_passage_fts(rowid, {cols}) VALUES (new.id, {new}); END",
        "INSERT INTO context_passage_fts(context_passage_fts) VALUES ('rebuild')",
    ]


def _run(statements: list[str]):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor == "sqlite":
            for sql in statements:
                schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("context", "0002_fulltext")]

    operations = [
        migrations.RunPython(
            _run(_index(["terms", "channel_id"])), _run(_index(["terms"]))
        ),
    ]
