"""Read queries compiled once (config.prepared, with settings.COMPILED_QUERIES): the same
rows and objects as the ORM's, one query each, on SQLite and PostgreSQL alike. Django's
compiler internals are what this path reads: these tests are the check after an upgrade.
Without the setting (the default) every call goes through the ORM: tests at the end."""

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.models import F
from django.db.models.functions import Substr
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.prepared import PreparedSql, PreparedUpdate, prepared
from missions.models import Mission, MissionStatus
from sessions.services import session_get_or_open_current
from tests.factories import add_finished_missions, dm_channel, make_office
from tests.threads import at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _compiled(settings: Any) -> None:
    # The compiled path (off by default: the rest of the suite runs the ORM's).
    settings.COMPILED_QUERIES = True


NEWEST = prepared(
    lambda size, *, session_id, before_seq: Mission.objects.filter(
        session_id=session_id, status=MissionStatus.DONE, seq__lt=before_seq
    ).order_by("-seq")[:size]
)
WITH_RELATED = prepared(
    lambda *, mission_id: Mission.objects.select_related("session", "channel__office").filter(
        pk=mission_id
    )
)
SEQS = prepared(
    lambda *, session_id, status: (
        Mission.objects.filter(session_id=session_id, status=status)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
)
PAIRS = prepared(
    lambda *, session_id: (
        Mission.objects.filter(session_id=session_id)
        .order_by("seq")
        .values_list("seq", "session__number")
    )
)


def _session(missions: int) -> Any:
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, missions)
    return session


def test_models_come_back_as_the_orm_builds_them() -> None:
    session = _session(12)
    expected = list(
        Mission.objects.filter(session=session, status=MissionStatus.DONE, seq__lt=11).order_by(
            "-seq"
        )[:8]
    )
    for _ in range(2):  # compiled, then bound
        got = NEWEST(8, session_id=session.pk, before_seq=11)
        assert [m.pk for m in got] == [m.pk for m in expected]
        assert [(m.created_at, m.instruction, m.reply, m.status) for m in got] == [
            (m.created_at, m.instruction, m.reply, m.status) for m in expected
        ]
        assert got[0].created_at.tzinfo is not None
    # Another size is another statement.
    assert [m.seq for m in NEWEST(3, session_id=session.pk, before_seq=11)] == [10, 9, 8]
    assert NEWEST(8, session_id=session.pk + 1000, before_seq=11) == []


def test_related_rows_come_with_the_one_query() -> None:
    session = _session(2)
    mission = Mission.objects.filter(session=session).first()
    assert mission is not None
    office = session.channel.office
    WITH_RELATED(mission_id=mission.pk)
    with CaptureQueriesContext(connection) as queries:
        [got] = WITH_RELATED(mission_id=mission.pk)
        seen = (got.session.number, got.channel.pk, got.channel.office.name)
    assert seen == (session.number, session.channel_id, office.name)
    assert len(queries) == 1


def test_values_lists_come_back_as_tuples_or_flat_values() -> None:
    session = _session(4)
    Mission.objects.filter(session=session, seq=2).update(status=MissionStatus.FAILED)
    assert SEQS(session_id=session.pk, status=MissionStatus.DONE) == [1, 3, 4]
    assert SEQS(session_id=session.pk, status=MissionStatus.FAILED) == [2]
    assert PAIRS(session_id=session.pk) == [(1, 1), (2, 1), (3, 1), (4, 1)]


def test_each_thread_binds_on_its_own_connection() -> None:
    session = _session(5)
    results = at_once(
        lambda: [m.seq for m in NEWEST(8, session_id=session.pk, before_seq=4)], times=4
    )
    assert results == [[3, 2, 1]] * 4


def test_a_value_the_orm_rewrites_is_refused_at_the_first_call() -> None:
    session = _session(1)
    rewritten = prepared(
        lambda *, text: Mission.objects.filter(instruction__icontains=text).values_list(
            "pk", flat=True
        )
    )
    with pytest.raises(ValueError, match="not bound as given"):
        rewritten(text="mission")
    with pytest.raises(TypeError):
        NEWEST(8, session_id=True, before_seq=3)
    assert Mission.objects.filter(session=session).count() == 1


DIGESTS = prepared(
    lambda *, session_id: (
        Mission.objects.filter(session_id=session_id)
        .order_by("seq")
        .values("seq", head=Substr("instruction", 1, 7))
    )
)


def test_values_come_back_as_dicts_with_their_annotations() -> None:
    session = _session(2)
    expected = list(
        Mission.objects.filter(session=session)
        .order_by("seq")
        .values("seq", head=Substr("instruction", 1, 7))
    )
    assert DIGESTS(session_id=session.pk) == expected
    assert [row["head"] for row in expected] == ["Mission", "Mission"]


def _sql(queryset: Any) -> tuple[str, list[Any]]:
    sql, params = queryset.query.sql_with_params()
    return sql, list(params)


# Fragments of a queryset's SQL (config.prepared.PreparedSql), compiled once and bound.
CONDITIONS = PreparedSql(
    lambda finished, *, session_id, before_seq: (
        Mission.objects.filter(session_id=session_id, seq__lt=before_seq).filter(
            status=MissionStatus.DONE
        )
        if finished
        else Mission.objects.filter(session_id=session_id, seq__lt=before_seq)
    ),
    lambda queryset: [_sql(queryset.order_by().values("id"))],
)


def _ids_of(fragments: list[tuple[str, list[Any]]]) -> list[int]:
    [(sql, params)] = fragments
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} ORDER BY 1", params)
        return [row[0] for row in cursor.fetchall()]


def test_sql_fragments_are_bound_as_the_orm_would_write_them() -> None:
    session, other = _session(6), _session(3)
    Mission.objects.filter(session=session, seq=2).update(status=MissionStatus.FAILED)
    for finished, session_id, before_seq in [
        (True, session.pk, 5),
        (True, session.pk, 7),  # compiled once, bound again
        (False, session.pk, 5),
        (True, other.pk, 3),
    ]:
        direct = Mission.objects.filter(session_id=session_id, seq__lt=before_seq)
        if finished:
            direct = direct.filter(status=MissionStatus.DONE)
        sql, params = direct.order_by().values("id").query.sql_with_params()
        got = CONDITIONS(finished, session_id=session_id, before_seq=before_seq)
        assert got == [(sql, list(params))]
        assert _ids_of(got) == sorted(direct.values_list("id", flat=True))
    done_before_5 = Mission.objects.filter(session=session, seq__in=[1, 3, 4])
    assert _ids_of(CONDITIONS(True, session_id=session.pk, before_seq=5)) == sorted(
        done_before_5.values_list("id", flat=True)
    )


def test_a_fragment_value_the_orm_rewrites_is_refused() -> None:
    rewritten = PreparedSql(
        lambda *, text: Mission.objects.filter(instruction__icontains=text),
        lambda queryset: [_sql(queryset)],
    )
    with pytest.raises(ValueError, match="not bound as given"):
        rewritten(text="mission")
    with pytest.raises(TypeError):
        CONDITIONS(True, session_id=None, before_seq=3)  # type: ignore[arg-type]


# A fixed-shape UPDATE (config.prepared.PreparedUpdate), compiled once and bound.
START = PreparedUpdate(
    lambda *, mission_id, run_token, now: (
        Mission.objects.filter(pk=mission_id, status=MissionStatus.QUEUED),
        {
            "status": MissionStatus.RUNNING,
            "started_at": now,
            "attempts": F("attempts") + 1,
            "run_token": run_token,
        },
    )
)


def test_a_prepared_update_writes_what_the_orm_would_and_only_where_its_filter_holds() -> None:
    session = _session(3)
    first, second, third = Mission.objects.filter(session=session).order_by("seq")
    Mission.objects.filter(pk__in=[first.pk, second.pk]).update(status=MissionStatus.QUEUED)
    moments = [timezone.now() - timedelta(minutes=n) for n in (1, 2)]
    assert START(mission_id=first.pk, run_token="run-a", now=moments[0]) == 1
    assert START(mission_id=second.pk, run_token="run-b", now=moments[1]) == 1  # bound again
    assert START(mission_id=first.pk, run_token="run-c", now=moments[1]) == 0  # not queued
    assert START(mission_id=third.pk, run_token="run-d", now=moments[1]) == 0  # done
    rows = {
        m.pk: (m.status, m.started_at, m.attempts, m.run_token)
        for m in Mission.objects.filter(session=session)
    }
    assert rows[first.pk] == (MissionStatus.RUNNING, moments[0], first.attempts + 1, "run-a")
    assert rows[second.pk] == (MissionStatus.RUNNING, moments[1], second.attempts + 1, "run-b")
    assert rows[third.pk] == (third.status, third.started_at, third.attempts, third.run_token)
    with pytest.raises(TypeError):
        START(mission_id=first.pk, run_token="x", now=moments[0].date())  # type: ignore[arg-type]


@pytest.mark.postgres
def test_postgres_prepares_a_statement_a_connection_runs_again() -> None:
    """Server-side binding with a prepare threshold (config/settings.py): the same read,
    run again on one connection, is parsed and planned once, as a prepared statement;
    the rows are the same each time."""
    session = _session(2)
    missions = list(Mission.objects.filter(session=session).order_by("seq"))

    def prepared_statements() -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return [row[0] for row in cursor.fetchall()]

    def with_related() -> list[str]:
        return [
            s
            for s in prepared_statements()
            # Not the mission run's own read (it joins the assignee too), which an earlier
            # test may have prepared on this connection.
            if 'INNER JOIN "office_office"' in s
            and 'WHERE "missions_mission"."id" = $1' in s
            and '"office_employee"' not in s
        ]

    for mission in (*missions, *missions):
        [got] = WITH_RELATED(mission_id=mission.pk)
        assert (got.pk, got.session.pk) == (mission.pk, session.pk)
    # The statement, its parameter bound on the server, is prepared on this connection.
    assert len(with_related()) == 1, prepared_statements()


# The default: every call builds its queryset and runs it through the ORM.


def test_by_default_each_call_builds_and_runs_its_queryset(settings: Any) -> None:
    settings.COMPILED_QUERIES = False
    session = _session(6)
    # A query whose shape depends on something besides its arguments: compiled once it
    # would keep its first shape; through the ORM each call has its own.
    size = {"rows": 1}
    newest = prepared(
        lambda *, session_id: Mission.objects.filter(session_id=session_id).order_by("-seq")[
            : size["rows"]
        ]
    )
    assert [m.seq for m in newest(session_id=session.pk)] == [6]
    size["rows"] = 3
    with CaptureQueriesContext(connection) as queries:
        assert [m.seq for m in newest(session_id=session.pk)] == [6, 5, 4]
    assert len(queries) == 1
    settings.COMPILED_QUERIES = True
    size["rows"] = 1
    assert [m.seq for m in newest(session_id=session.pk)] == [6]
    size["rows"] = 3
    assert [m.seq for m in newest(session_id=session.pk)] == [6]  # compiled at its first call


def test_by_default_reads_and_updates_are_the_orms(settings: Any) -> None:
    settings.COMPILED_QUERIES = False
    session = _session(12)
    assert NEWEST(8, session_id=session.pk, before_seq=11) == list(
        Mission.objects.filter(session=session, status=MissionStatus.DONE, seq__lt=11).order_by(
            "-seq"
        )[:8]
    )
    assert SEQS(session_id=session.pk, status=MissionStatus.DONE) == list(range(1, 13))
    assert PAIRS(session_id=session.pk)[0] == (1, session.number)
    with pytest.raises(TypeError):
        SEQS(session_id=session.pk, status=None)  # type: ignore[arg-type]
    first = Mission.objects.get(session=session, seq=1)
    now = timezone.now()
    direct = Mission.objects.filter(session_id=session.pk, seq__lt=5, status=MissionStatus.DONE)
    assert CONDITIONS(True, session_id=session.pk, before_seq=5) == [
        _sql(direct.order_by().values("id"))
    ]
    assert START(mission_id=first.pk, run_token="r1", now=now) == 0  # done, not queued
    Mission.objects.filter(pk=first.pk).update(status=MissionStatus.QUEUED)
    assert START(mission_id=first.pk, run_token="r1", now=now) == 1
    first.refresh_from_db()
    assert (first.status, first.started_at, first.attempts, first.run_token) == (
        MissionStatus.RUNNING,
        now,
        1,
        "r1",
    )
