import pytest
from django.db import connection

from memory.search import ensure_sqlite_fulltext, rank_folded_missions
from tests.factories import add_finished_missions, dm_channel, make_office

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite FTS5 index"),
]


def test_lost_fts_triggers_are_restored_and_the_index_rebuilt() -> None:
    """SQLite drops a table's triggers when a migration rebuilds the table."""
    with connection.cursor() as cursor:
        for suffix in ("ai", "ad", "au"):
            cursor.execute(f"DROP TRIGGER missions_mission_fts_{suffix}")
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    add_finished_missions(
        session,
        12,
        text=lambda n: ("The quokka mascot is approved." if n == 1 else f"Task {n}.", f"Done {n}."),
    )
    assert (
        rank_folded_missions(
            channel_id=channel.pk,
            session_id=session.pk,
            folded_through_seq=4,
            text="quokka",
            limit=5,
        )
        == []
    )
    assert ensure_sqlite_fulltext() == ["missions_mission_fts"]
    found = rank_folded_missions(
        channel_id=channel.pk, session_id=session.pk, folded_through_seq=4, text="quokka", limit=5
    )
    assert found == [session.missions.get(seq=1).pk]
    assert ensure_sqlite_fulltext() == []
