"""Celery tasks of missions: each takes ids and calls the service of the same name."""

from celery import Task, shared_task

from missions import attachments, run, sweeper


@shared_task(bind=True, acks_late=True)
def mission_run(self: Task, mission_id: int) -> None:
    run.mission_run(mission_id=mission_id, run_token=self.request.id or "")


@shared_task
def mission_sweep_stuck() -> dict[str, int]:
    return sweeper.mission_sweep_stuck()


@shared_task(acks_late=True)
def attachment_extract(attachment_id: int) -> None:
    attachments.attachment_extract(attachment_id=attachment_id)
