"""Celery tasks of summaries (the background lane): each takes ids and calls the
service of the same name."""

from typing import Any

from celery import shared_task

from summaries import compaction, services


@shared_task(acks_late=True)
def summary_fold(session_id: int) -> list[int]:
    return services.summary_fold(session_id=session_id).folded_seqs


@shared_task(acks_late=True)
def summary_carry_over(session_id: int) -> bool:
    return services.summary_carry_over(session_id=session_id)


@shared_task(acks_late=True)
def summary_fold_late(mission_id: int) -> bool:
    return services.summary_fold_late(mission_id=mission_id)


@shared_task
def summary_sweep_lagging() -> int:
    return services.summary_sweep_lagging()


@shared_task(acks_late=True, ignore_result=False)
def compaction_block_fold(session_id: int, mission_ids: list[int]) -> dict[str, Any]:
    return compaction.compaction_block_fold(session_id=session_id, mission_ids=mission_ids)


@shared_task(acks_late=True)
def compaction_merge(
    results: list[dict[str, Any]], session_id: int, version: int, through: int, from_scratch: bool
) -> bool:
    return compaction.compaction_merge(
        session_id=session_id,
        results=results,
        version=version,
        through=through,
        from_scratch=from_scratch,
    )
