from celery import shared_task


@shared_task(acks_late=True)
def check_long_session_on_instruction(mission_id: int) -> bool:
    from sessions.services import long_session_check_on_instruction

    return long_session_check_on_instruction(mission_id=mission_id)


@shared_task(acks_late=True)
def check_long_session_on_entry(channel_id: int) -> bool:
    from sessions.services import long_session_check_on_entry

    return long_session_check_on_entry(channel_id=channel_id)
