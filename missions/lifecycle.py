"""A mission after it was accepted: completed, failed, retried, re-queued. Events go out
after commit; follow-up work (folds, memory extraction) is queued in the background."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from config.celery import queue_task_on_commit
from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
from missions.plans import plan_child_changed, plan_synthesis_changed
from missions.queueing import mission_queue_run
from missions.timeline import message_data, message_post
from realtime.events import send_frame_on_commit
from realtime.frames import ReplyDoneFrame, UsageData

REPORT_EXCERPT_CHARS = 400


@transaction.atomic
def mission_complete(
    *,
    mission: Mission,
    reply: str,
    prompt_chars: int = 0,
    prompt_tokens: int = 0,
    cached_tokens: int = 0,
    completion_tokens: int = 0,
    at: datetime | None = None,
) -> Message:
    """Save the reply and its usage; then, on commit, announce it and queue the
    background work that follows every mission."""
    finished_at = at or timezone.now()
    mission.reply = reply
    mission.status = MissionStatus.DONE
    mission.error = ""
    mission.finished_at = finished_at
    mission.prompt_chars = prompt_chars
    mission.prompt_tokens = prompt_tokens
    mission.cached_tokens = cached_tokens
    mission.completion_tokens = completion_tokens
    mission.save(
        update_fields=[
            "reply",
            "status",
            "error",
            "finished_at",
            "prompt_chars",
            "prompt_tokens",
            "cached_tokens",
            "completion_tokens",
        ]
    )
    message = message_post(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        mission=mission,
        kind=MessageKind.EMPLOYEE,
        author_id=mission.assignee_id,
        text=reply,
        payload={"seq": mission.seq},
        created_at=finished_at,
    )
    send_frame_on_commit(
        mission.channel_id,
        ReplyDoneFrame(
            mission=mission.pk,
            message=message_data(message),
            usage=UsageData(
                prompt_chars=prompt_chars,
                prompt_tokens=prompt_tokens,
                cached_tokens=cached_tokens,
                completion_tokens=completion_tokens,
            ),
        ),
    )
    _tell_plan(mission)
    if mission.source == MissionSource.MEETING_FOLLOWUP and mission.parent_id is not None:
        _report_back(mission)
    if mission.attempts > 1:
        # A retried mission may finish after the fold watermark passed it; the summary
        # decides whether it needs a late fold.
        queue_task_on_commit("summaries.tasks.summary_fold_late", mission.pk)
    queue_task_on_commit("summaries.tasks.summary_fold", mission.session_id)
    queue_task_on_commit("memory.tasks.memory_extract_from_mission", mission.pk)
    queue_task_on_commit("context.tasks.passages_index", mission.pk)
    return message


def _tell_plan(mission: Mission) -> None:
    """A delegated mission or a synthesis changed: its plan hears of it (a delegate's end
    may be the moment to sum the plan up)."""
    if mission.parent_id is None:
        return
    if mission.source == MissionSource.DELEGATION:
        plan_child_changed(child=mission)
    elif mission.source == MissionSource.SYNTHESIS:
        plan_synthesis_changed(synthesis=mission)


def _report_back(child: Mission) -> None:
    assert child.parent_id is not None
    parent = Mission.objects.select_related("assignee").get(pk=child.parent_id)
    excerpt = (
        child.reply
        if len(child.reply) <= REPORT_EXCERPT_CHARS
        else (child.reply[: REPORT_EXCERPT_CHARS - 1] + "…")
    )
    message_post(
        channel_id=parent.channel_id,
        session_id=parent.session_id,
        mission=parent,
        kind=MessageKind.EVENT,
        text=f"{child.assignee.name} reported back: {excerpt}",
        payload={
            "event": "report",
            "child_mission": child.pk,
            "child_channel": child.channel_id,
            "employee": child.assignee.name,
        },
    )


@transaction.atomic
def mission_fail(*, mission: Mission, code: str, message: str) -> Message:
    """The mission failed; the instruction stays, the person sees why and can retry."""
    mission.status = MissionStatus.FAILED
    mission.error = f"{code}: {message}"
    mission.finished_at = timezone.now()
    mission.save(update_fields=["status", "error", "finished_at"])
    posted = message_post(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        mission=mission,
        kind=MessageKind.ERROR,
        text=f"{mission.assignee.name} could not answer: {message}",
        payload={"code": code, "retry": True, "seq": mission.seq},
    )
    _tell_plan(mission)
    return posted


def mission_retry(*, mission: Mission) -> bool:
    """Run a failed mission again (the same mission: no duplicate). False if it was not
    failed, e.g. a second click on Retry."""
    with transaction.atomic():
        reset = Mission.objects.filter(pk=mission.pk, status=MissionStatus.FAILED).update(
            status=MissionStatus.QUEUED, error="", finished_at=None
        )
        if reset:
            mission.status = MissionStatus.QUEUED
            mission.error, mission.finished_at = "", None
            mission_queue_run(mission)
            _tell_plan(mission)
    return bool(reset)


def mission_requeue(*, mission: Mission) -> bool:
    """An operator sends a failed or stuck mission back to the queue (the same mission)."""
    with transaction.atomic():
        moved = Mission.objects.filter(
            pk=mission.pk, status__in=[MissionStatus.FAILED, MissionStatus.RUNNING]
        ).update(status=MissionStatus.QUEUED, error="", finished_at=None)
        if moved:
            mission_queue_run(mission)
    return bool(moved)
