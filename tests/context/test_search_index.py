from pathlib import Path

import pytest
from django.db import connection

from context.loading import recall_candidates
from context.models import Passage
from context.search import ensure_sqlite_fulltext, rank_passages
from tests.factories import add_finished_missions, dm_channel, make_office
from tests.fresh import embedded_env, run_python


@pytest.mark.slow(20)
def test_recall_finds_new_missions_on_a_freshly_migrated_sqlite_database(tmp_path: Path) -> None:
    """Whatever database the suite runs on, the embedded default's index is checked."""
    output = run_python(
        str(Path(__file__).with_name("sqlite_recall.py")),
        env=embedded_env(DATABASE_URL=f"sqlite:///{tmp_path}/office.sqlite3"),
        timeout=240,
    )
    assert output.strip().splitlines()[-1] == "True"


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
    assert _indexed_in_channel(channel.pk) == set(
        Passage.objects.filter(channel=channel).values_list("id", flat=True)
    )
    assert ensure_sqlite_fulltext() == []


def _indexed_in_channel(channel_id: int) -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rowid FROM context_passage_fts WHERE context_passage_fts MATCH %s",
            [f'channel_id : "{channel_id}"'],
        )
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.django_db(transaction=True)
def test_the_sqlite_passage_index_holds_each_passages_channel() -> None:
    """Recall walks one channel's matches inside the index (context/search.py)."""
    if connection.vendor != "sqlite":
        return  # PostgreSQL filters by channel through its own indexes
    office = make_office()
    theo, iris = dm_channel(office), dm_channel(office, "Iris")
    for channel in (theo, iris):
        add_finished_missions(channel.sessions.get(), 3)
    for channel in (theo, iris):
        assert _indexed_in_channel(channel.pk) == set(
            Passage.objects.filter(channel=channel).values_list("id", flat=True)
        )
    Passage.objects.filter(channel=iris).delete()
    assert _indexed_in_channel(iris.pk) == set()
    assert _indexed_in_channel(theo.pk)
