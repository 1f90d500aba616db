"""Stored search terms written again with the analyser in use (language.analysis): after
`SEARCH_KOREAN_ANALYSER` changes, or when a migration changes how text is normalised.

Works on any model with a `text` and a `terms` column (recall passages, memory items),
the live models or a migration's historical ones. English-only rows are normalised the
same way by every analyser, so by default only rows holding Hangul are read."""

from collections.abc import Callable
from typing import Any

from django.db import models, transaction

from language.analysis import normalised

BATCH = 500
HANGUL_PATTERN = r"[가-힣]"


def reterm(
    model: type[models.Model],
    *,
    hangul_only: bool = True,
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Rewrite `terms` from `text` for the model's rows (those holding Hangul, unless
    `hangul_only` is false), `batch` rows per transaction. Returns how many changed;
    `progress` is told the running count of rows read after each batch."""
    rows: Any = model._default_manager.order_by("pk")
    if hangul_only:
        rows = rows.filter(text__regex=HANGUL_PATTERN)
    changed = read = 0
    last_pk = 0
    while True:
        chunk = list(rows.filter(pk__gt=last_pk).only("pk", "text", "terms")[:batch])
        if not chunk:
            return changed
        stale = []
        for row in chunk:
            terms = normalised(row.text)
            if terms != row.terms:
                row.terms = terms
                stale.append(row)
        if stale:
            with transaction.atomic(using=rows.db):
                model._default_manager.bulk_update(stale, ["terms"])
        changed += len(stale)
        read += len(chunk)
        last_pk = chunk[-1].pk
        if progress is not None:
            progress(read)
