from celery import shared_task

from memory.services import summary_carry_over, summary_fold, summary_fold_late


@shared_task(acks_late=True)
def fold_session(session_id: int) -> list[int]:
    return summary_fold(session_id=session_id).folded_seqs


@shared_task(acks_late=True)
def carry_over_session(session_id: int) -> bool:
    return summary_carry_over(session_id=session_id)


@shared_task(acks_late=True)
def fold_late_mission(mission_id: int) -> bool:
    return summary_fold_late(mission_id=mission_id)


@shared_task(acks_late=True)
def extract_memory(mission_id: int) -> list[tuple[int, str]]:
    from memory.memory_items import memory_extract_from_mission

    return memory_extract_from_mission(mission_id=mission_id)
