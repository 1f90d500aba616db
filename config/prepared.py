"""The mission path's fixed-shape queries: through the plain ORM, or compiled once.

Each is written as a function that builds its queryset (`prepared(lambda ...)`,
`PreparedSql`, `PreparedUpdate` below). By default (settings.COMPILED_QUERIES off) every
call builds that queryset and runs it through the ORM, as any other query: the path the
tests cover. With COMPILED_QUERIES on, it is compiled once per connection through
Django's compiler internals (`SQLCompiler`, the row iterables' populators: not a public
API, to check after a Django upgrade; tests/config/test_prepared.py does) and later calls
only bind the values. docs/benchmarks.md ("Compiled queries") has what that saves.

Building a queryset and compiling it to SQL is most of what a small query costs here:
measured on the detail window's query (eight missions of one session), 0.51 ms through
the ORM and 0.14 ms when only its values are bound, with the same rows and objects
(SQLite, in process). The mission path runs a few such queries on every mission, so its
fixed-shape reads are compiled once per database connection, with stand-in values, and
later calls bind the real ones:

    _WINDOW = prepared(
        lambda size, *, session_id, before_seq: Mission.objects.filter(
            session_id=session_id, seq__lt=before_seq
        ).order_by("-seq")[:size]
    )
    _WINDOW(settings.DETAIL_MISSIONS, session_id=5, before_seq=12)  # a list of Missions

Positional arguments shape the SQL (a LIMIT, a choice of filter): each value compiles its
own statement. Keyword arguments are bound: ints, strings and datetimes (written as the
backend writes a DateTimeField's value), passed to an exact match or a comparison, never
dropped or rewritten by the ORM (a stand-in that does not come out of the
compiler unchanged is an error at the first call). Rows come back as Django builds them:
model instances (with `select_related`), tuples from `values_list` or its flat values, dicts
from `values()` (annotations included). Aggregates go through the ORM as usual.

Two more shapes are compiled the same way: `PreparedSql`, fragments of a queryset's SQL for
statements written by hand around them (the full-text ranking's candidates), and
`PreparedUpdate`, a conditional UPDATE that every mission runs (its claim, its reply
saved or its failure). Other writes go through the ORM."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet
from django.db.models.query import (
    FlatValuesListIterable,
    ModelIterable,
    ValuesIterable,
    ValuesListIterable,
    get_related_populators,
)
from django.db.models.sql.compiler import SQLCompiler
from django.db.models.sql.subqueries import UpdateQuery

# Stand-ins: inside every integer column's range, and strings no one types.
_INT_BASE = 1_900_000_000


def _stand_in(index: int, value: object) -> int | str | datetime:
    if isinstance(value, datetime):
        # A moment no row holds, in the value's own time zone (aware or not).
        return datetime(1901, 1, 1, 0, 0, index, tzinfo=value.tzinfo)
    if isinstance(value, int):
        return _INT_BASE + index
    return f"\x00prepared-{index}\x00"


@dataclass
class _Statement:
    sql: str
    # For each parameter, the keyword whose value goes there and the type the backend
    # wraps it in (PostgreSQL's integer widths), or None and its constant.
    slots: list[tuple[str | None, Any]]
    compiler: SQLCompiler
    kind: str  # models | tuples | flat | dicts
    names: list[str]
    converters: Any
    init_list: list[str]
    model_span: tuple[int, int]
    populators: list[Any]
    annotations: dict[str, int]


def _slots(
    params: Any, stand_ins: dict[str, Any], connection: BaseDatabaseWrapper
) -> tuple[list[tuple[str | None, Any]], set[str]]:
    """Where each keyword's value goes among the compiled parameters (with the type the
    backend wrapped its stand-in in), the others kept as constants; and the keywords found.
    A datetime reaches the statement as the backend writes it (SQLite: a string)."""
    written = {
        name: connection.ops.adapt_datetimefield_value(v) if isinstance(v, datetime) else v
        for name, v in stand_ins.items()
    }
    slots: list[tuple[str | None, Any]] = []
    found: set[str] = set()
    for param in params:
        name = next(
            (n for n, s in written.items() if isinstance(param, type(s)) and param == s), None
        )
        slots.append((name, type(param) if name else param))
        if name:
            found.add(name)
    return slots, found


def _stand_ins(values: dict[str, Any]) -> dict[str, int | str | datetime]:
    return {name: _stand_in(i, v) for i, (name, v) in enumerate(sorted(values.items()))}


def _check_bindable(values: dict[str, Any]) -> None:
    for value in values.values():
        if isinstance(value, bool) or not isinstance(value, int | str | datetime):
            raise TypeError(
                f"a prepared query binds ints, strings and datetimes, not {type(value).__name__}"
            )


def _bound(
    slots: list[tuple[str | None, Any]], values: dict[str, Any], connection: BaseDatabaseWrapper
) -> list[Any]:
    def bound(name: str | None, constant: Any) -> Any:
        if name is None:
            return constant
        value = values[name]
        if isinstance(value, datetime):
            return connection.ops.adapt_datetimefield_value(value)
        return value if constant in (int, str) else constant(value)

    return [bound(name, constant) for name, constant in slots]


def _compile(
    queryset: QuerySet[Any], stand_ins: dict[str, Any], connection: BaseDatabaseWrapper
) -> _Statement:
    query = queryset.query
    compiler = query.get_compiler(using=queryset.db)
    sql, params = compiler.as_sql()
    slots, found = _slots(params, stand_ins, connection)
    if found != set(stand_ins):
        raise ValueError(f"not bound as given: {sorted(set(stand_ins) - found)}")
    fields = [s[0] for s in compiler.select[0 : compiler.col_count]]
    iterable = queryset._iterable_class
    statement = _Statement(
        sql=sql,
        slots=slots,
        compiler=compiler,
        kind="models",
        converters=compiler.get_converters(fields),
        names=[],
        init_list=[],
        model_span=(0, 0),
        populators=[],
        annotations={},
    )
    if iterable is ModelIterable:
        info = compiler.klass_info
        assert info is not None
        start, end = info["select_fields"][0], info["select_fields"][-1] + 1
        statement.model_span = (start, end)
        statement.init_list = [f[0].target.attname for f in compiler.select[start:end]]
        statement.populators = get_related_populators(  # type: ignore[call-arg]  # 5.2
            info, compiler.select, queryset.db
        )
        statement.annotations = dict(compiler.annotation_col_map or {})
    elif iterable in (ValuesListIterable, FlatValuesListIterable):
        if query.annotation_select or query.extra_select:
            raise ValueError("a prepared values_list names model fields only")
        statement.kind = "flat" if iterable is FlatValuesListIterable else "tuples"
    elif iterable is ValuesIterable:
        if query.extra_select:
            raise ValueError("a prepared values() names fields and annotations only")
        statement.kind = "dicts"
        statement.names = list(query.selected or [*query.values_select, *query.annotation_select])
    else:
        raise ValueError(f"a prepared query returns models or values, not {iterable}")
    return statement


class Prepared:
    def __init__(self, build: Callable[..., QuerySet[Any]], using: str = "default") -> None:
        self._build = build
        self._using = using
        # Per connection (each thread has its own), then per shape.
        self._statements: weakref.WeakKeyDictionary[
            BaseDatabaseWrapper, dict[tuple[Any, ...], _Statement]
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def _statement(
        self, connection: BaseDatabaseWrapper, shape: tuple[Any, ...], values: dict[str, Any]
    ) -> _Statement:
        with self._lock:
            statement = self._statements.get(connection, {}).get(shape)
        if statement is None:
            stand_ins = _stand_ins(values)
            statement = _compile(self._build(*shape, **stand_ins), stand_ins, connection)
            with self._lock:
                self._statements.setdefault(connection, {})[shape] = statement
        return statement

    def __call__(self, *shape: Any, **values: int | str | datetime) -> list[Any]:
        _check_bindable(values)
        if not settings.COMPILED_QUERIES:
            return list(self._build(*shape, **values).using(self._using))
        connection = connections[self._using]
        statement = self._statement(connection, shape, values)
        params = _bound(statement.slots, values, connection)
        with connection.cursor() as cursor:
            cursor.execute(statement.sql, params)
            rows: Any = cursor.fetchall()
        if statement.converters:
            rows = statement.compiler.apply_converters(rows, statement.converters)
        if statement.kind == "flat":
            return [row[0] for row in rows]
        if statement.kind == "tuples":
            return [tuple(row) for row in rows]
        if statement.kind == "dicts":
            return [dict(zip(statement.names, row, strict=True)) for row in rows]
        start, end = statement.model_span
        model = statement.compiler.klass_info["model"]
        objects = []
        for row in rows:
            obj = model.from_db(self._using, statement.init_list, row[start:end])
            for populator in statement.populators:
                populator.populate(row, obj)
            for name, position in statement.annotations.items():
                setattr(obj, name, row[position])
            objects.append(obj)
        return objects

    def first(self, *shape: Any, **values: int | str | datetime) -> Any:
        """The first row, or None (build the query with its own order and LIMIT 1)."""
        return next(iter(self(*shape, **values)), None)


def prepared(build: Callable[..., QuerySet[Any]], using: str = "default") -> Prepared:
    return Prepared(build, using)


Fragments = list[tuple[str, list[Any]]]


class PreparedSql:
    """SQL fragments made from a fixed-shape queryset (its conditions, an id subquery: what
    `render` returns), compiled once per connection and shape like `Prepared`'s reads, for
    statements written by hand around them (the full-text ranking). Each call returns the
    fragments with the real values bound."""

    def __init__(
        self,
        build: Callable[..., QuerySet[Any]],
        render: Callable[[QuerySet[Any]], Fragments],
        using: str = "default",
    ) -> None:
        self._build = build
        self._render = render
        self._using = using
        self._fragments: weakref.WeakKeyDictionary[
            BaseDatabaseWrapper,
            dict[tuple[Any, ...], list[tuple[str, list[tuple[str | None, Any]]]]],
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def __call__(self, *shape: Any, **values: int | str | datetime) -> Fragments:
        _check_bindable(values)
        if not settings.COMPILED_QUERIES:
            return self._render(self._build(*shape, **values).using(self._using))
        connection = connections[self._using]
        with self._lock:
            compiled = self._fragments.get(connection, {}).get(shape)
        if compiled is None:
            stand_ins = _stand_ins(values)
            compiled = []
            found: set[str] = set()
            for sql, params in self._render(self._build(*shape, **stand_ins)):
                slots, named = _slots(params, stand_ins, connection)
                compiled.append((sql, slots))
                found |= named
            if found != set(stand_ins):
                raise ValueError(f"not bound as given: {sorted(set(stand_ins) - found)}")
            with self._lock:
                self._fragments.setdefault(connection, {})[shape] = compiled
        return [(sql, _bound(slots, values, connection)) for sql, slots in compiled]


class PreparedUpdate:
    """A fixed-shape UPDATE (a filter, and the values it sets), compiled once per connection
    like `Prepared`'s reads; each call binds the real values and returns the rows changed.
    `build` returns the queryset and the values, as `queryset.update(**values)` takes them
    (expressions such as F("attempts") + 1 included). Updates the rows only: no signals,
    no related updates (as `QuerySet.update`)."""

    def __init__(
        self,
        build: Callable[..., tuple[QuerySet[Any], dict[str, Any]]],
        using: str = "default",
    ) -> None:
        self._build = build
        self._using = using
        self._statements: weakref.WeakKeyDictionary[
            BaseDatabaseWrapper, tuple[str, list[tuple[str | None, Any]]]
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def _compile(self, connection: BaseDatabaseWrapper, values: dict[str, Any]) -> Any:
        stand_ins: dict[str, Any] = _stand_ins(values)
        queryset, new_values = self._build(**stand_ins)
        query = queryset.query.chain(UpdateQuery)
        assert isinstance(query, UpdateQuery)
        query.add_update_values(new_values)
        sql, params = query.get_compiler(using=self._using).as_sql()
        slots, found = _slots(params, stand_ins, connection)
        if found != set(stand_ins):
            raise ValueError(f"not bound as given: {sorted(set(stand_ins) - found)}")
        return sql, slots

    def __call__(self, **values: int | str | datetime) -> int:
        _check_bindable(values)
        if not settings.COMPILED_QUERIES:
            queryset, new_values = self._build(**values)
            return int(queryset.using(self._using).update(**new_values))
        connection = connections[self._using]
        with self._lock:
            statement = self._statements.get(connection)
        if statement is None:
            statement = self._compile(connection, values)
            with self._lock:
                self._statements[connection] = statement
        sql, slots = statement
        params = _bound(slots, values, connection)
        with (
            transaction.mark_for_rollback_on_error(using=self._using),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, params)
            return int(cursor.rowcount)
