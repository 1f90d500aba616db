from typing import Any

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


@shared_task(acks_late=True, ignore_result=False)
def fold_block(session_id: int, mission_ids: list[int]) -> dict[str, Any]:
    from memory.compaction import block_fold

    return block_fold(session_id=session_id, mission_ids=mission_ids)


@shared_task(acks_late=True)
def merge_blocks(
    results: list[dict[str, Any]], session_id: int, version: int, through: int, from_scratch: bool
) -> bool:
    from memory.compaction import compaction_merge

    return compaction_merge(
        session_id=session_id,
        results=results,
        version=version,
        through=through,
        from_scratch=from_scratch,
    )


def compact_session(session_id: int, *, from_scratch: bool) -> int:
    """Queue a block compaction (a chord of block folds and a merge); returns the number
    of blocks. Not a task itself: it only builds and sends the canvas."""
    from celery import chord, group

    from config.celery import run_canvas
    from memory.compaction import compaction_plan

    plan = compaction_plan(session_id=session_id, from_scratch=from_scratch)
    if not plan["blocks"]:
        return 0
    canvas = chord(
        group(fold_block.s(session_id, ids) for ids in plan["blocks"]),
        merge_blocks.s(session_id, plan["version"], plan["through"], from_scratch),
    )
    run_canvas(canvas)
    return len(plan["blocks"])
