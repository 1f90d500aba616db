from celery import Task, shared_task

from missions.services import mission_run, mission_sweep_stuck


@shared_task(bind=True, acks_late=True)
def run_mission(self: Task, mission_id: int) -> None:
    mission_run(mission_id=mission_id, run_token=self.request.id or "")


@shared_task
def sweep_stuck_missions() -> dict[str, int]:
    return mission_sweep_stuck()
