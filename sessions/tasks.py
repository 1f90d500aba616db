"""Celery tasks of sessions: each takes ids and calls the service of the same name."""

from celery import shared_task

from sessions import services


@shared_task(acks_late=True)
def long_session_check_on_instruction(mission_id: int) -> bool:
    return services.long_session_check_on_instruction(mission_id=mission_id)


@shared_task(acks_late=True)
def long_session_check_on_entry(channel_id: int) -> bool:
    return services.long_session_check_on_entry(channel_id=channel_id)
