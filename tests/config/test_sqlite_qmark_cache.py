"""The SQLite backend remembers how it rewrote a statement's placeholders
(config/sqlite/base.py): the same statement run again is rewritten from memory, and the
rewrite is the one Django makes ("%s" to "?", "%%" to "%")."""

from typing import Any

import pytest
from django.db import connection

from config.sqlite import base as sqlite_base
from missions.models import Message, MessageKind
from sessions.services import session_get_or_open_current
from tests.factories import dm_channel, make_office

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite backend"),
]


def _one(sql: str, params: Any) -> Any:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def test_a_statement_run_twice_is_rewritten_once_and_gives_the_same_rows() -> None:
    sql = "SELECT %s || '%%' || %s"
    sqlite_base._qmark.pop(sql, None)
    assert _one(sql, ["50", " 할인"]) == "50% 할인"
    assert sqlite_base._qmark[sql] == "SELECT ? || '%' || ?"
    # Run again from the remembered rewrite, with other values bound.
    assert _one(sql, ["20", " off"]) == "20% off"


def test_named_parameters_are_not_cached_and_still_work() -> None:
    sql = "SELECT %(a)s + %(b)s"
    assert _one(sql, {"a": 2, "b": 3}) == 5
    assert sql not in sqlite_base._qmark


def test_a_full_cache_is_emptied_and_rewrites_stay_right(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_base, "_QMARK_CACHE_SIZE", 3)
    monkeypatch.setattr(sqlite_base, "_qmark", {})
    for n in range(7):
        assert _one(f"SELECT %s + {n}", [n]) == 2 * n
        assert len(sqlite_base._qmark) <= 3
    assert sqlite_base._qmark["SELECT %s + 6"] == "SELECT ? + 6"


def test_orm_queries_with_a_percent_sign_match_as_before() -> None:
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    for text in ("100% 완료", "절반"):
        Message.objects.create(
            channel=session.channel, session=session, kind=MessageKind.USER, text=text
        )
    for _ in range(2):  # the second time from the remembered rewrite
        texts = Message.objects.filter(session=session, text__contains="%").values_list(
            "text", flat=True
        )
        assert list(texts) == ["100% 완료"]
