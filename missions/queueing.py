"""Sending a mission's reply task. If the queue cannot be reached, the mission stays
saved and queued, the person is told it is delayed, and the sweeper sends it again
when the queue is back."""

import logging

from django.db import transaction

from config.celery import queue_task
from missions.models import Message, MessageKind, Mission, MissionStatus
from missions.selectors import mission_state_data
from missions.texts import office_text
from missions.timeline import message_post
from push.events import send_frame_on_commit
from push.frames import MissionStateFrame

logger = logging.getLogger(__name__)

RUN_TASK = "missions.tasks.mission_run"


def mission_queue_run(mission: Mission) -> None:
    """Send the reply task once the mission is committed. Its channel hears first that
    the mission is under way (registered before the task: the frame leaves before the
    run can start, so it never comes after the run's own end)."""
    state = mission_state_data(mission=mission).model_copy(
        update={"status": MissionStatus.QUEUED.value}
    )
    send_frame_on_commit(mission.channel_id, MissionStateFrame(mission=state))
    transaction.on_commit(lambda: _send_run(mission.pk))


def _send_run(mission_id: int) -> None:
    try:
        queue_task(RUN_TASK, mission_id)
    except Exception as exc:
        logger.warning("could not queue mission %s: %s", mission_id, exc)
        mission_mark_delayed(mission_id=mission_id)


def mission_mark_delayed(*, mission_id: int) -> Message | None:
    """Tell the person their instruction waits for the task queue (once per mission)."""
    mission = Mission.objects.select_related("assignee").filter(pk=mission_id).first()
    if (
        mission is None
        or Message.objects.filter(
            mission=mission, kind=MessageKind.EVENT, payload__event="delayed"
        ).exists()
    ):
        return None
    with transaction.atomic():
        return message_post(
            channel_id=mission.channel_id,
            session_id=mission.session_id,
            mission=mission,
            kind=MessageKind.EVENT,
            office_text=office_text("delayed", employee=mission.assignee.name),
            payload={"event": "delayed", "seq": mission.seq, "label": mission.label},
        )
