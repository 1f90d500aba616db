"""Celery tasks of context (the background lane)."""

from celery import shared_task

from context import services


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
