"""Celery tasks of context (the background lane)."""

from celery import shared_task

from context import services, vectors


@shared_task(acks_late=True)
def passages_index_session(session_id: int) -> int:
    return services.passages_index_session(session_id=session_id)


# Queued, one a mission, by versions before the session's batches: kept so that tasks
# still in a queue at an upgrade run.
@shared_task(acks_late=True)
def passages_index(mission_id: int) -> int:
    return services.passages_index(mission_id=mission_id)


@shared_task
def passages_sweep() -> int:
    return services.passages_sweep()


@shared_task(acks_late=True)
def vectors_embed_session(session_id: int) -> int:
    return vectors.passages_embed(session_id=session_id)


@shared_task(acks_late=True)
def vectors_embed_memory(office_id: int) -> int:
    return vectors.memory_embed(office_id=office_id)


@shared_task
def vectors_sweep() -> int:
    return vectors.vectors_sweep()
