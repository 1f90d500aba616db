from celery import shared_task

from missions.services import mission_run, mission_sweep_stuck


@shared_task(acks_late=True)
def run_mission(mission_id: int) -> None:
    mission_run(mission_id=mission_id)


@shared_task
def sweep_stuck_missions() -> dict[str, int]:
    return mission_sweep_stuck()
