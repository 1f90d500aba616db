"""Writes of the meaning layer's vectors (docs/design.md §3, recall; docs/meaning.md):
passages and memory items embedded by the model in use, in the background lane only.
Nothing here runs while a prompt is assembled: a passage or an item without a vector is
ranked by its terms alone until this has run."""

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import IntegrityError, transaction
from django.db.models import Model

from context.models import Passage, PassageVector
from context.passages import ATTACHMENT_LABEL
from language import meaning
from memory.models import MemoryItem, MemoryVector

R = TypeVar("R", bound=Any)

# Rows embedded per statement: a batch of the model's, written in one transaction.
EMBED_ROWS = 128
# What one run embeds at most: a backlog (an import, a change of model) is worked through
# run after run (the sweeper), never in one long task.
EMBED_LIMIT = 2_048


def _passages_without(model: str, *, session_id: int | None, limit: int) -> list[Passage]:
    passages = Passage.objects.exclude(vectors__model=model)
    if session_id is not None:
        passages = passages.filter(session_id=session_id)
    return list(
        passages.order_by("-id").only("id", "channel_id", "session_id", "seq", "text")[:limit]
    )


def _embed_batches(
    *,
    fetch: Callable[[int], Sequence[R]],
    text: Callable[[R], str],
    vector_row: Callable[[R, bytes], Model],
    limit: int,
) -> int:
    """Embed what `fetch(n)` gives (at most n rows without a vector), a batch at a time,
    writing each batch's `vector_row`s in one transaction, until `limit` or nothing is
    left; returns how many were written. A row whose vector another run wrote meanwhile
    is skipped (ignore_conflicts); one that went away meanwhile ends the run (the next
    run does the rest)."""
    written = 0
    while written < limit:
        rows = fetch(min(EMBED_ROWS, limit - written))
        if not rows:
            break
        vectors = meaning.embed([text(r) for r in rows])
        made = [vector_row(r, meaning.to_bytes(v)) for r, v in zip(rows, vectors, strict=True)]
        try:
            with transaction.atomic():
                type(made[0])._default_manager.bulk_create(made, ignore_conflicts=True)
        except IntegrityError:
            break
        written += len(rows)
        if len(rows) < EMBED_ROWS:
            break
    return written


def passages_embed(*, session_id: int | None = None, limit: int = EMBED_LIMIT) -> int:
    """Embed passages that have no vector of the model in use (those of `session_id`, or
    any, newest first); returns how many were written. Two runs at once write each vector
    once."""
    if not meaning.enabled():
        return 0
    model = meaning.model_name()
    return _embed_batches(
        fetch=lambda n: _passages_without(model, session_id=session_id, limit=n),
        text=lambda p: p.text,
        # A file's passage is kept under session 0: no detail window or history holds a
        # file, so recall by meaning may always bring it (as recall by terms does).
        vector_row=lambda p, vector: PassageVector(
            passage_id=p.pk,
            channel_id=p.channel_id,
            session_id=0 if p.text.startswith(ATTACHMENT_LABEL) else p.session_id,
            seq=p.seq,
            model=model,
            vector=vector,
        ),
        limit=limit,
    )


def memory_embed(*, office_id: int | None = None, limit: int = EMBED_LIMIT) -> int:
    """Embed the active memory items that have no vector of the model in use (of one
    office, or any); returns how many were written."""
    if not meaning.enabled():
        return 0
    model = meaning.model_name()
    items = MemoryItem.objects.filter(active=True).exclude(vectors__model=model)
    if office_id is not None:
        items = items.filter(office_id=office_id)
    return _embed_batches(
        fetch=lambda n: list(items.order_by("-id").only("id", "office_id", "text")[:n]),
        text=lambda item: item.text,
        vector_row=lambda item, vector: MemoryVector(
            item_id=item.pk, office_id=item.office_id, model=model, vector=vector
        ),
        limit=limit,
    )


def vectors_sweep(*, limit: int = EMBED_LIMIT) -> int:
    """Embed what has no vector yet: passages first (recall), then memory items."""
    written = passages_embed(limit=limit)
    return written + memory_embed(limit=max(limit - written, 0))
