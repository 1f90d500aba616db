"""Celery tasks of context (the background lane)."""

from celery import shared_task

from context import services
from summaries import services as summary_services


@shared_task(acks_late=True)
def passages_index(mission_id: int) -> int:
    return services.passages_index(mission_id=mission_id)


@shared_task(acks_late=True)
def mission_followups(mission_id: int, session_id: int, fold_check: bool) -> int:
    """What follows every finished mission, as one task rather than two: its passages
    indexed, then, when it may have pushed a mission out of the detail window, the fold
    check. The fold check runs even if indexing failed (the sweeper indexes later)."""
    try:
        return services.passages_index(mission_id=mission_id)
    finally:
        if fold_check:
            summary_services.summary_fold(session_id=session_id)


@shared_task
def passages_sweep() -> int:
    return services.passages_sweep()
