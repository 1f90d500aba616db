"""Ranking by meaning (docs/design.md §3, recall and memory; docs/meaning.md): a question's
vector against the vectors of a channel's passages or an office's memory items, in process
with numpy, fused with the term ranking (context.search) by reciprocal rank.

Vectors are kept in each process, per channel (passages) and per office (memory items):
a ranking reads only the rows written since the last it read, with the count of the
scope's rows in the same statement; when the count says rows went (a passage indexed
again, an item edited), the scope is read again whole. So a ranking costs one small query
whatever the history's length, and a dot product over the scope's vectors (8,000
passages of 512 dimensions: well under a millisecond). The kept vectors are bounded
(`CACHE_BYTES`): the scopes used longest ago are dropped first."""

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.db import connection

from language import meaning

# The vectors a process keeps, all scopes together: float32, ready to multiply (2 KiB a
# passage of 512 dimensions, so 128 MiB hold ≈ 65,000 passages; converting float16 rows
# on every ranking cost more than the product itself).
CACHE_BYTES = 128 * 2**20
# Reciprocal rank fusion's constant (Cormack et al.: 60): a list's first places weigh
# most, and no single list decides alone.
RRF_K = 60


@dataclass
class _Scope:
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sessions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    seqs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    last_row: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self.ids.nbytes * 3)


_scopes: "OrderedDict[tuple[str, str, str, int], _Scope]" = OrderedDict()
_scopes_lock = threading.Lock()

# The table of each kind's vectors, the column of its scope, the row it stands for, and
# what a passage also keeps (its session and seq: recall leaves out the detail window).
_PASSAGES = ("context_passagevector", "channel_id", "passage_id", "session_id, seq")
_MEMORY = ("memory_memoryvector", "office_id", "item_id", "0, 0")


def _scope(table: str, scope_id: int) -> _Scope:
    key = (str(connection.settings_dict["NAME"]), table, meaning.model_name(), scope_id)
    with _scopes_lock:
        scope = _scopes.get(key)
        if scope is None:
            scope = _scopes[key] = _Scope()
        _scopes.move_to_end(key)
        total = sum(s.nbytes for s in _scopes.values())
        while total > CACHE_BYTES and len(_scopes) > 1:
            _, dropped = _scopes.popitem(last=False)
            total -= dropped.nbytes
        return scope


def _refresh(kind: tuple[str, str, str, str], scope_id: int) -> _Scope:
    """The scope's vectors, with the rows written since the last read (one statement)."""
    table, column, target, extra = kind
    scope = _scope(table, scope_id)
    model = meaning.model_name()
    with scope.lock:
        for _ in range(2):
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT id, {target}, {extra}, vector FROM {table} "
                    f"WHERE {column} = %s AND model = %s AND id > %s "
                    f"UNION ALL SELECT NULL, count(*), 0, 0, NULL FROM {table} "
                    f"WHERE {column} = %s AND model = %s",
                    [scope_id, model, scope.last_row, scope_id, model],
                )
                rows = cursor.fetchall()
            count = next(int(r[1]) for r in rows if r[0] is None)
            new = [r for r in rows if r[0] is not None]
            if count == len(scope.ids) + len(new):
                break
            # Rows went (or came between the two reads): read the scope whole, once.
            scope.ids = np.zeros(0, dtype=np.int64)
            scope.sessions = scope.seqs = scope.ids
            scope.vectors = np.zeros((0, 0), dtype=np.float32)
            scope.last_row = 0
        if new:
            blob = b"".join(bytes(r[4]) for r in new)
            vectors = np.frombuffer(blob, dtype="<f2").reshape(len(new), -1).astype(np.float32)
            scope.vectors = vectors if not len(scope.ids) else np.vstack([scope.vectors, vectors])
            scope.ids = np.concatenate([scope.ids, [r[1] for r in new]]).astype(np.int64)
            scope.sessions = np.concatenate([scope.sessions, [r[2] for r in new]]).astype(np.int64)
            scope.seqs = np.concatenate([scope.seqs, [r[3] for r in new]]).astype(np.int64)
            scope.last_row = max(scope.last_row, max(int(r[0]) for r in new))
        return scope


def _best(scores: np.ndarray, ids: np.ndarray, limit: int) -> list[tuple[int, float]]:
    # Below the model's floor every passage is "similar" to every question a little, and
    # fusing those would only add noise.
    keep = scores >= meaning.relevance_floor()
    scores, ids = scores[keep], ids[keep]
    if not len(scores):
        return []
    top = np.argsort(-scores, kind="stable")[:limit]
    return [(int(ids[i]), float(scores[i])) for i in top]


def rank_passages(
    *,
    channel_id: int,
    question: np.ndarray,
    limit: int,
    window_session: int,
    window_start: int,
    other_sessions_only: bool = False,
) -> list[tuple[int, float]]:
    """(passage id, similarity) of the channel's passages closest to the question, best
    first: not those of the detail window (session `window_session` from `window_start`
    on), nor any of that session with `other_sessions_only`."""
    scope = _refresh(_PASSAGES, channel_id)
    if not len(scope.ids):
        return []
    allowed = scope.sessions != window_session
    if not other_sessions_only:
        allowed |= scope.seqs < window_start
    # The product over every kept row, then the window's rows left out (selecting rows
    # first would copy the matrix).
    scores = scope.vectors @ question
    return _best(scores[allowed], scope.ids[allowed], limit)


def rank_memory(*, office_id: int, question: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """(item id, similarity) of the office's memory items closest to the question, best
    first (of every scope: the caller keeps those of the mission's)."""
    scope = _refresh(_MEMORY, office_id)
    if not len(scope.ids):
        return []
    return _best(scope.vectors @ question, scope.ids, limit)


def fuse(*rankings: Sequence[int], limit: int) -> list[int]:
    """Reciprocal rank fusion: each id scores 1 / (RRF_K + its place) in every ranking
    that holds it; best first (ties: the earlier ranking's order)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for place, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + 1.0 / (RRF_K + place + 1)
    return sorted(scores, key=lambda item: -scores[item])[:limit]


def forget() -> None:
    """Drop every kept vector (tests; a process that changed model)."""
    with _scopes_lock:
        _scopes.clear()
