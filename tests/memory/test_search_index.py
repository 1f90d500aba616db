import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from context.loading import recall_candidates
from context.models import Passage
from context.search import ensure_sqlite_fulltext, rank_passages
from tests.factories import add_finished_missions, dm_channel, make_office

ROOT = Path(__file__).resolve().parents[2]


def test_recall_finds_new_missions_on_a_freshly_migrated_sqlite_database(tmp_path: Path) -> None:
    """Whatever database the suite runs on, the embedded default's index is checked."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path}/office.sqlite3"
    result = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("sqlite_recall.py"))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "True"


@pytest.mark.django_db(transaction=True)
def test_lost_fts_triggers_are_restored_and_the_index_rebuilt() -> None:
    """SQLite drops a table's triggers when a migration rebuilds the table."""
    if connection.vendor != "sqlite":
        assert ensure_sqlite_fulltext() == []  # nothing to do on PostgreSQL
        return
    with connection.cursor() as cursor:
        for suffix in ("ai", "ad", "au"):
            cursor.execute(f"DROP TRIGGER context_passage_fts_{suffix}")
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    add_finished_missions(
        session,
        12,
        text=lambda n: ("The quokka mascot is approved." if n == 1 else f"Task {n}.", f"Done {n}."),
    )
    assert (
        rank_passages(
            candidates=recall_candidates(
                channel_id=channel.pk, session_id=session.pk, window_start=5
            ),
            text="quokka",
            limit=5,
        )
        == []
    )
    assert ensure_sqlite_fulltext() == ["context_passage_fts"]
    found = rank_passages(
        candidates=recall_candidates(channel_id=channel.pk, session_id=session.pk, window_start=5),
        text="quokka",
        limit=5,
    )
    assert [Passage.objects.get(pk=i).seq for i in found] == [1]
    assert ensure_sqlite_fulltext() == []
