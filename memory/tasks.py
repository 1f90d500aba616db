"""Celery tasks of long-term memory (the background lane)."""

from celery import shared_task

from memory import extraction


@shared_task(acks_late=True)
def memory_extract_from_mission(mission_id: int) -> list[tuple[int, str]]:
    return extraction.memory_extract_from_mission(mission_id=mission_id)


@shared_task(acks_late=True)
def memory_extract_folded(mission_ids: list[int]) -> list[tuple[int, str]]:
    return extraction.memory_extract_folded(mission_ids=mission_ids)
