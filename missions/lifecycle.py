"""A mission after it was accepted: completed, failed, retried, re-queued. Events go out
after commit; follow-up work (folds, memory extraction) is queued in the background."""

import logging
from datetime import datetime
from functools import partial
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext

from config.celery import queue_task_on_commit
from config.prepared import PreparedUpdate
from context.models import Passage
from context.progress import session_progress
from memory.extraction import extract_at_once
from missions.models import (
    Message,
    MessageKind,
    Mission,
    MissionAttempt,
    MissionSource,
    MissionStatus,
)
from missions.plans import plan_child_changed, plan_send_on_commit, plan_synthesis_changed
from missions.queueing import mission_queue_run
from missions.ratelimit import RateLimited, instruction_allowed
from missions.reading import unread_announce
from missions.texts import office_text
from missions.timeline import message_data, message_post
from push.events import send_frame_on_commit
from push.frames import ReplyDoneFrame, UsageData
from summaries.due import fold_may_be_due

REPORT_EXCERPT_CHARS = 400

logger = logging.getLogger(__name__)


def _still_held(mission: Mission, run_token: str | None, **fields: Any) -> bool:
    """Write `fields` if the run that holds the mission is `run_token` (None: whoever).
    A run the sweeper gave up on, and whose mission another run took, must not finish it:
    that would be a second answer."""
    if run_token is None:
        for name, value in fields.items():
            setattr(mission, name, value)
        mission.save(update_fields=list(fields))
        return True
    held = _held_update(tuple(fields))(held_id=mission.pk, held_by=run_token, **fields)
    if held:
        for name, value in fields.items():
            setattr(mission, name, value)
    else:
        logger.warning(
            "mission %s is no longer held by run %s; its result is dropped", mission.pk, run_token
        )
    return bool(held)


# The conditional update of each set of fields a run finishes with (the reply saved, a
# failure): every mission ends with one, so each is compiled once per connection (with
# settings.COMPILED_QUERIES).
_HELD_UPDATES: dict[tuple[str, ...], PreparedUpdate] = {}


def _held_update(names: tuple[str, ...]) -> PreparedUpdate:
    update = _HELD_UPDATES.get(names)
    if update is None:
        update = _HELD_UPDATES.setdefault(
            names,
            PreparedUpdate(
                lambda *, held_id, held_by, **values: (
                    Mission.objects.filter(
                        pk=held_id, status=MissionStatus.RUNNING, run_token=held_by
                    ),
                    values,
                )
            ),
        )
    return update


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
    model: str = "",
    run_token: str | None = None,
    is_plan: bool = False,
) -> Message | None:
    """Save the reply and its usage; then, on commit, announce it and queue the
    background work that follows every mission. With `run_token`, only if that run still
    holds the mission (None otherwise, and nothing is saved). `is_plan`: the reply is a
    plan's (its parts are delegated next), which cannot be regenerated."""
    finished_at = at or timezone.now()
    if not _still_held(
        mission,
        run_token,
        reply=reply,
        status=MissionStatus.DONE,
        error="",
        finished_at=finished_at,
        prompt_chars=prompt_chars,
        prompt_tokens=prompt_tokens,
        cached_tokens=cached_tokens,
        completion_tokens=completion_tokens,
        model=model,
    ):
        return None
    message = message_post(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        mission=mission,
        kind=MessageKind.EMPLOYEE,
        author=mission.assignee,
        text=reply,
        payload=_reply_payload(mission, is_plan=is_plan),
        created_at=finished_at,
        # reply.done carries the saved reply: one frame per reply, not two.
        announce=False,
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
    unread_announce(mission=mission, message=message)
    _tell_plan(mission)
    if mission.source == MissionSource.MEETING_FOLLOWUP and mission.parent_id is not None:
        _report_back(mission)
    if not mission.instruction_is_generated and extract_at_once(mission.instruction):
        # Said to be kept: remembered now. The rest is extracted with its fold.
        queue_task_on_commit("memory.tasks.memory_extract_from_mission", mission.pk)
    _followups_on_commit(mission)
    return message


def _reply_payload(mission: Mission, *, is_plan: bool = False) -> dict[str, Any]:
    """A reply's timeline payload: its mission's seq and label, which attempt it is once
    the person regenerated the mission (the earlier replies stay above it), and
    `regenerable: false` where a new attempt would be refused (a plan and its parts: see
    `mission_regenerate`), so the page does not offer one."""
    payload: dict[str, Any] = {"seq": mission.seq, "label": mission.label}
    if mission.regenerations:
        payload["attempt"] = mission.regenerations + 1
    if is_plan or mission.parent_id is not None:
        payload["regenerable"] = False
    return payload


def _followups_on_commit(mission: Mission) -> None:
    """Queue the recall index and the fold once committed: the checks then see this
    mission among the finished ones, and the read does not hold the write lock."""
    transaction.on_commit(
        partial(
            _queue_followups,
            mission.pk,
            mission.session_id,
            mission.seq,
            len(mission.instruction) + len(mission.reply),
            # A retried mission was failed, outside the conversation, when a fold may have
            # read it: that fold can land after this reads the watermark.
            retried=mission.attempts > 1,
        )
    )


def _queue_followups(
    mission_id: int, session_id: int, seq: int, chars: int, *, retried: bool
) -> None:
    """The recall index and the fold, each only when it can be due (one query); a late
    fold when the watermark has passed the mission (it was retried, or stopped after a
    retry, once the folds had gone past it), whatever attempt finished it."""
    progress = session_progress(session_id=session_id)
    if progress is None:
        return
    if progress.index_due(seq=seq, chars=chars):
        queue_task_on_commit("context.tasks.passages_index_session", session_id)
    if fold_may_be_due(
        mission_count=progress.mission_count, folded_through=progress.folded_through
    ):
        queue_task_on_commit("summaries.tasks.summary_fold", session_id)
    if retried or seq <= progress.folded_through:
        queue_task_on_commit("summaries.tasks.summary_fold_late", mission_id)


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
        office_text=office_text("reported_back", employee=child.assignee.name, excerpt=excerpt),
        payload={
            "event": "report",
            "child_mission": child.pk,
            "child_channel": child.channel_id,
            "employee": child.assignee.name,
        },
    )


@transaction.atomic
def mission_fail(
    *, mission: Mission, code: str, message: str, run_token: str | None = None
) -> Message | None:
    """The mission failed; the instruction stays, the person sees why and can retry.
    With `run_token`, only if that run still holds the mission."""
    if not _still_held(
        mission,
        run_token,
        status=MissionStatus.FAILED,
        error=f"{code}: {message}",
        finished_at=timezone.now(),
    ):
        return None
    posted = message_post(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        mission=mission,
        kind=MessageKind.ERROR,
        office_text=office_text("could_not_answer", employee=mission.assignee.name, error=message),
        payload={"code": code, "retry": True, "seq": mission.seq, "label": mission.label},
    )
    unread_announce(mission=mission, message=posted)
    _tell_plan(mission)
    return posted


# The flag a running reply checks between the pieces of its stream: in the shared cache
# (Redis in production, the process's own memory in the embedded default, where replies run
# in the web process), so the worker streaming the reply sees it within a piece or two.
# The database's `stop_requested_at` stays the truth: the heartbeat reads it too, in case
# the cache lost the flag.
STOP_FLAG_SECONDS = 3600


def stop_flag_key(mission_id: int) -> str:
    return f"mission-stop:{mission_id}"


class StopRefused(Exception):
    """The mission cannot be stopped on its own: a delegated part or a follow-up."""


def mission_stop(*, mission: Mission) -> bool:
    """The person stops a reply. A queued mission is stopped at once (nothing came); a
    running one is asked to stop, and its run saves what came and marks it stopped.
    A plan (the mission that delegated) and its synthesis stop the whole plan
    (`plan_stop`). False when nothing was left to stop (a second click). A delegated
    part or a meeting follow-up is not stopped on its own: StopRefused."""
    if mission.parent_id is not None:
        if mission.source == MissionSource.SYNTHESIS:
            return plan_stop(plan_id=mission.parent_id)
        raise StopRefused(gettext("A part of a plan cannot be stopped on its own."))
    if _stop_one(mission):
        return True
    if mission.children.filter(source=MissionSource.DELEGATION).exists():
        return plan_stop(plan_id=mission.pk)
    return False


def plan_stop(*, plan_id: int) -> bool:
    """The person stops a plan: each part still queued or running is stopped (a running
    one keeps what came, in its employee's channel), and the synthesis is not started, or
    is stopped like any reply. The plan's `stop_requested_at` holds the stop: a part
    ending later starts no synthesis (a retried part starts the plan again). False when
    nothing of it was under way.

    The plan's row lock orders this with a part's end (`plan_child_changed`, which takes
    it to decide on the synthesis): whichever is second sees the other's work. The parts
    are stopped after that lock is released, since a part that is ending holds its own
    row and waits for the plan's."""
    with transaction.atomic():
        plan = Mission.objects.select_for_update().filter(pk=plan_id).first()
        if plan is None:
            return False
        under_way = list(
            Mission.objects.filter(
                parent_id=plan_id,
                source__in=[MissionSource.DELEGATION, MissionSource.SYNTHESIS],
                status__in=[MissionStatus.QUEUED, MissionStatus.RUNNING],
            ).select_related("assignee")
        )
        if not under_way:
            return False
        Mission.objects.filter(pk=plan_id).update(stop_requested_at=timezone.now())
        plan_send_on_commit(plan_id)
    for part in under_way:
        _stop_one(part)
    return True


def _stop_one(mission: Mission) -> bool:
    """Stop this mission if it is queued (at once) or running (its run is asked)."""
    now = timezone.now()
    with transaction.atomic():
        stopped_queued = Mission.objects.filter(pk=mission.pk, status=MissionStatus.QUEUED).update(
            status=MissionStatus.STOPPED, stop_requested_at=now, finished_at=now, reply=""
        )
        if stopped_queued:
            mission.status, mission.stop_requested_at, mission.finished_at = (
                MissionStatus.STOPPED,
                now,
                now,
            )
            mission.reply = ""
            # Part of the conversation like any stopped mission: indexed and folded in
            # its turn (late, if it was a retry the folds had gone past).
            _followups_on_commit(mission)
            _post_stopped(mission)
            _tell_plan(mission)
            return True
    asked = Mission.objects.filter(
        pk=mission.pk, status=MissionStatus.RUNNING, stop_requested_at__isnull=True
    ).update(stop_requested_at=now)
    if asked:
        mission.stop_requested_at = now
        try:
            cache.set(stop_flag_key(mission.pk), True, STOP_FLAG_SECONDS)
        except Exception:
            # The cache is down: the heartbeat brings the request to the run instead.
            logger.warning("could not flag mission %s to stop", mission.pk, exc_info=True)
    return bool(asked)


@transaction.atomic
def mission_save_stopped(
    *,
    mission: Mission,
    reply: str,
    prompt_chars: int = 0,
    prompt_tokens: int = 0,
    cached_tokens: int = 0,
    completion_tokens: int = 0,
    model: str = "",
    run_token: str | None = None,
) -> Message | None:
    """The run stopped at the person's request: what came is the reply, the mission is
    stopped (it can be regenerated). Only if that run still holds the mission."""
    if not _still_held(
        mission,
        run_token,
        reply=reply,
        status=MissionStatus.STOPPED,
        error="",
        finished_at=timezone.now(),
        prompt_chars=prompt_chars,
        prompt_tokens=prompt_tokens,
        cached_tokens=cached_tokens,
        completion_tokens=completion_tokens,
        model=model,
    ):
        return None
    # Part of the conversation like a finished mission: indexed and folded in its turn.
    _followups_on_commit(mission)
    message = _post_stopped(
        mission,
        usage=UsageData(
            prompt_chars=prompt_chars,
            prompt_tokens=prompt_tokens,
            cached_tokens=cached_tokens,
            completion_tokens=completion_tokens,
        ),
    )
    _tell_plan(mission)
    return message


def _post_stopped(mission: Mission, usage: UsageData | None = None) -> Message:
    """The stopped reply in the timeline: what came (maybe nothing), marked stopped."""
    message = message_post(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        mission=mission,
        kind=MessageKind.EMPLOYEE,
        author_id=mission.assignee_id,
        text=mission.reply,
        payload={**_reply_payload(mission), "stopped": True},
        announce=False,
    )
    send_frame_on_commit(
        mission.channel_id,
        ReplyDoneFrame(
            mission=mission.pk, message=message_data(message), usage=usage or UsageData()
        ),
    )
    unread_announce(mission=mission, message=message)
    return message


class RegenerateRefused(Exception):
    """The mission cannot be answered again now: it is not finished, or it is a plan or
    a part of one (its answer is the team's, not one reply)."""


def mission_regenerate(*, mission: Mission, user_id: int | None = None) -> Mission:
    """A new attempt of a finished (done or stopped) mission: the same mission runs again,
    and the attempt it had is kept (MissionAttempt; its reply stays in the timeline). A
    person's regenerate runs the model again, so it counts against their instruction
    limit, as a retry does: RateLimited when over it."""
    if mission.status not in (MissionStatus.DONE, MissionStatus.STOPPED):
        raise RegenerateRefused(gettext("Only a finished reply can be regenerated."))
    if mission.parent_id is not None or mission.children.exists():
        raise RegenerateRefused(gettext("A plan and its parts cannot be regenerated one by one."))
    if user_id is not None:
        verdict = instruction_allowed(user_id=user_id, retry=True)
        if not verdict.allowed:
            raise RateLimited(retry_after=verdict.retry_after, cost=1)
    with transaction.atomic():
        row = (
            Mission.objects.select_for_update()
            .filter(pk=mission.pk, status__in=[MissionStatus.DONE, MissionStatus.STOPPED])
            .first()
        )
        if row is None:
            raise RegenerateRefused(gettext("Only a finished reply can be regenerated."))
        MissionAttempt.objects.create(
            mission=row,
            number=row.regenerations + 1,
            reply=row.reply,
            status=row.status,
            finished_at=row.finished_at,
            prompt_chars=row.prompt_chars,
            prompt_tokens=row.prompt_tokens,
            cached_tokens=row.cached_tokens,
            completion_tokens=row.completion_tokens,
        )
        Mission.objects.filter(pk=row.pk).update(
            status=MissionStatus.QUEUED,
            error="",
            finished_at=None,
            stop_requested_at=None,
            regenerations=F("regenerations") + 1,
        )
        # Recall quotes the mission as it now is: the earlier attempt's passages go (it
        # stays in MissionAttempt and the timeline), and the index batches index the new
        # reply once it is done, as for any finished mission.
        Passage.objects.filter(mission_id=row.pk).delete()
        row.refresh_from_db()
        try:
            cache.delete(stop_flag_key(row.pk))  # the earlier attempt's stop is not this one's
        except Exception:
            logger.warning("could not clear the stop flag of mission %s", row.pk, exc_info=True)
        mission_queue_run(row)
    return row


def mission_retry(*, mission: Mission, user_id: int | None = None) -> bool:
    """Run a failed mission again (the same mission: no duplicate), or a plan's part that
    was stopped with its plan. False if it was neither, e.g. a second click on Retry. A
    person's retry (`user_id`) runs the model again, so it counts against their
    instruction limit: RateLimited when over it."""
    plan_id = mission.parent_id if mission.source == MissionSource.DELEGATION else None
    part = plan_id is not None
    retryable = [MissionStatus.FAILED, *([MissionStatus.STOPPED] if part else [])]
    if mission.status not in retryable:
        return False
    if user_id is not None:
        verdict = instruction_allowed(user_id=user_id, retry=True)
        if not verdict.allowed:
            raise RateLimited(retry_after=verdict.retry_after, cost=1)
    with transaction.atomic():
        reset = Mission.objects.filter(pk=mission.pk, status__in=retryable).update(
            status=MissionStatus.QUEUED, error="", finished_at=None, stop_requested_at=None
        )
        if reset:
            mission.status = MissionStatus.QUEUED
            mission.error, mission.finished_at, mission.stop_requested_at = "", None, None
            if plan_id is not None:
                # A part retried after its plan was stopped starts the plan again: its
                # end brings the synthesis.
                Mission.objects.filter(pk=plan_id).update(stop_requested_at=None)
                try:
                    cache.delete(stop_flag_key(mission.pk))  # the stop was the last run's
                except Exception:
                    logger.warning("could not clear the stop flag of %s", mission.pk, exc_info=True)
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


def _held_by(runs: dict[int, str]) -> QuerySet[Mission]:
    """The running missions that these runs (mission id → run token) still hold."""
    held = Q()
    for mission_id, token in runs.items():
        held |= Q(pk=mission_id, run_token=token)
    return Mission.objects.filter(held, status=MissionStatus.RUNNING)


def mission_heartbeat(*, runs: dict[int, str]) -> int:
    """The runs (mission id → run token) are alive: how many still hold their mission."""
    if not runs:
        return 0
    return _held_by(runs).update(heartbeat_at=timezone.now())


def mission_runs_held(*, runs: dict[int, str]) -> dict[int, bool]:
    """Of these runs (mission id → run token), the missions they still hold, each with
    whether the person asked to stop it."""
    if not runs:
        return {}
    rows = _held_by(runs).values_list("pk", "stop_requested_at")
    return {pk: asked is not None for pk, asked in rows}


def mission_hand_back(*, runs: dict[int, str]) -> int:
    """This process is stopping: the missions its runs hold go back to the queue (as not
    yet attempted), for another process or the next start to answer. A run handed back
    can no longer save anything (its token no longer holds the mission). The heartbeat
    stays stamped on the queued mission: that marks it handed back, and the sweeper's
    next round sends it again at once (missions.sweeper), instead of waiting as long as
    for a queued mission that may still be on its way to a worker."""
    if not runs:
        return 0
    return _held_by(runs).update(
        status=MissionStatus.QUEUED,
        run_token="",
        started_at=None,
        heartbeat_at=timezone.now(),
        attempts=Greatest(F("attempts") - 1, 0),
    )
