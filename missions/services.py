"""Writes for missions and the timeline. Every instruction is saved here before any model
is called; replies run in a task queued on commit; events go out after commit."""

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from llm.base import ProviderError
from llm.gateway import get_provider
from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
from missions.routing import route_instruction
from office.events import (
    REPLY_DELTA,
    REPLY_DONE,
    message_payload,
    send_event,
    send_event_on_commit,
    send_message_on_commit,
)
from office.models import Channel, Employee
from sessions.models import ChatSession
from sessions.services import session_get_or_open_current

logger = logging.getLogger(__name__)

REPORT_EXCERPT_CHARS = 400
# Seconds between reply.delta events of one reply.
DELTA_INTERVAL = 0.05


class InstructionRejected(Exception):
    """An instruction that cannot be accepted; `code` is stable, `message` is for a person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Accepted:
    mission: Mission
    message: Message
    created: bool


def _queue_run(mission: Mission) -> None:
    """Send the reply task once the mission is committed. If the queue cannot be reached,
    the mission stays saved and queued, the person is told it is delayed, and the sweeper
    sends it again when the queue is back."""
    transaction.on_commit(lambda: _send_run(mission.pk))


def _send_run(mission_id: int) -> None:
    from missions.tasks import run_mission

    try:
        run_mission.delay(mission_id)
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
        return _event_message(
            channel_id=mission.channel_id,
            session_id=mission.session_id,
            mission=mission,
            text=(
                f"Delayed: {mission.assignee.name} will answer as soon as the task queue is "
                "reachable again. Your instruction is saved."
            ),
            payload={"event": "delayed", "seq": mission.seq},
        )


def _queue_after_accept(mission: Mission) -> None:
    """Hook for work that follows every accepted instruction (the long-session check)."""
    from sessions.tasks import check_long_session_on_instruction

    check_long_session_on_instruction.delay_on_commit(mission.pk)  # type: ignore[attr-defined]


@transaction.atomic
def mission_create(
    *,
    session: ChatSession,
    assignee: Employee,
    source: str,
    instruction: str,
    client_id: str = "",
    parent: Mission | None = None,
    at: datetime | None = None,
) -> tuple[Mission, bool]:
    """The mission for this instruction, and whether it is new.

    A `client_id` already used in the session returns the existing mission: an
    instruction resent after a reconnect is not a second mission."""
    # The row lock orders concurrent instructions of one session, so seq has no gaps and
    # two sends of one client_id cannot both pass the check below.
    locked = ChatSession.objects.select_for_update().get(pk=session.pk)
    if client_id:
        existing = Mission.objects.filter(session=session, client_id=client_id).first()
        if existing is not None:
            return existing, False
    seq = locked.mission_count + 1
    ChatSession.objects.filter(pk=session.pk).update(mission_count=F("mission_count") + 1)
    session.mission_count = seq
    created_at = at or timezone.now()
    mission = Mission.objects.create(
        session=session,
        channel_id=session.channel_id,
        seq=seq,
        source=source,
        assignee=assignee,
        parent=parent,
        instruction=instruction,
        client_id=client_id,
        created_at=created_at,
    )
    message = Message.objects.create(
        channel_id=session.channel_id,
        session=session,
        mission=mission,
        kind=MessageKind.USER,
        text=instruction,
        payload={"client_id": client_id, "assignee": assignee.name, "seq": seq},
        created_at=created_at,
    )
    send_message_on_commit(message)
    return mission, True


def _event_message(
    *,
    channel_id: int,
    session_id: int,
    mission: Mission | None,
    text: str,
    payload: dict[str, object],
    kind: str = MessageKind.EVENT,
) -> Message:
    message = Message.objects.create(
        channel_id=channel_id,
        session_id=session_id,
        mission=mission,
        kind=kind,
        text=text,
        payload=payload,
    )
    send_message_on_commit(message)
    return message


def _spawn_child(*, parent: Mission, employee: Employee, text: str, source: str) -> Mission:
    """A mission for `employee` in their 1:1 channel, linked to its parent."""
    channel = Channel.objects.get(kind="dm", employee=employee)
    session = session_get_or_open_current(channel=channel)
    child, _ = mission_create(
        session=session, assignee=employee, source=source, instruction=text, parent=parent
    )
    verb = "Delegated to" if source == MissionSource.DELEGATION else "Follow-up for"
    _event_message(
        channel_id=parent.channel_id,
        session_id=parent.session_id,
        mission=parent,
        text=f"{verb} {employee.name}: {text[:200]}",
        payload={
            "event": source,
            "child_mission": child.pk,
            "child_channel": channel.pk,
            "employee": employee.name,
        },
    )
    _queue_after_accept(child)
    _queue_run(child)
    return child


def instruction_accept(*, channel: Channel, text: str, client_id: str = "") -> Accepted:
    """Save an instruction from any route, then queue its reply. Never calls a model."""
    text = text.strip()
    if not text:
        raise InstructionRejected("empty", "The instruction is empty.")
    limit = settings.MAX_INSTRUCTION_CHARS
    if len(text) > limit:
        raise InstructionRejected(
            "too_long", f"The instruction has {len(text)} characters; the limit is {limit}."
        )
    if len(client_id) > 64:
        raise InstructionRejected("bad_client_id", "client_id is longer than 64 characters.")
    employees = list(Employee.objects.filter(office_id=channel.office_id, is_active=True))
    route = route_instruction(channel=channel, text=text, employees=employees)
    with transaction.atomic():
        session = session_get_or_open_current(channel=channel)
        mission, created = mission_create(
            session=session,
            assignee=route.assignee,
            source=route.source,
            instruction=text,
            client_id=client_id,
        )
        message = Message.objects.filter(mission=mission, kind=MessageKind.USER).first()
        assert message is not None
        if created:
            # The long-session check goes first, so its notice lands right under the
            # instruction rather than after the reply.
            _queue_after_accept(mission)
            _queue_run(mission)
            for employee in route.delegations:
                _spawn_child(
                    parent=mission, employee=employee, text=text, source=MissionSource.DELEGATION
                )
            for employee, task in route.followups:
                _spawn_child(
                    parent=mission,
                    employee=employee,
                    text=task,
                    source=MissionSource.MEETING_FOLLOWUP,
                )
    return Accepted(mission=mission, message=message, created=created)


def meeting_followups_create(
    *, meeting: Mission, items: list[tuple[Employee, str]]
) -> list[Mission]:
    """Turn a project meeting into follow-up missions in each employee's 1:1 channel."""
    with transaction.atomic():
        return [
            _spawn_child(
                parent=meeting, employee=employee, text=task, source=MissionSource.MEETING_FOLLOWUP
            )
            for employee, task in items
            if employee.office_id == meeting.channel.office_id
        ]


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
    """Save the reply and its usage; then, on commit, announce it and fold what left the
    detail window."""
    from memory.tasks import extract_memory, fold_late_mission, fold_session

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
    message = Message.objects.create(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        mission=mission,
        kind=MessageKind.EMPLOYEE,
        author_id=mission.assignee_id,
        text=reply,
        payload={"seq": mission.seq},
        created_at=finished_at,
    )
    send_message_on_commit(message)
    send_event_on_commit(
        mission.channel_id,
        {
            "type": REPLY_DONE,
            "mission": mission.pk,
            "message": message_payload(message),
            "usage": {
                "prompt_chars": prompt_chars,
                "prompt_tokens": prompt_tokens,
                "cached_tokens": cached_tokens,
                "completion_tokens": completion_tokens,
            },
        },
    )
    if mission.parent_id is not None:
        _report_back(mission)
    if mission.attempts > 1 and _already_past_watermark(mission):
        fold_late_mission.delay_on_commit(mission.pk)  # type: ignore[attr-defined]
    fold_session.delay_on_commit(mission.session_id)  # type: ignore[attr-defined]
    extract_memory.delay_on_commit(mission.pk)  # type: ignore[attr-defined]
    return message


def _already_past_watermark(mission: Mission) -> bool:
    from memory.models import RollingSummary

    return RollingSummary.objects.filter(
        session_id=mission.session_id, folded_through_seq__gte=mission.seq
    ).exists()


def _report_back(child: Mission) -> None:
    assert child.parent_id is not None
    parent = Mission.objects.select_related("assignee").get(pk=child.parent_id)
    excerpt = (
        child.reply
        if len(child.reply) <= REPORT_EXCERPT_CHARS
        else (child.reply[: REPORT_EXCERPT_CHARS - 1] + "…")
    )
    _event_message(
        channel_id=parent.channel_id,
        session_id=parent.session_id,
        mission=parent,
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
    return _event_message(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        mission=mission,
        kind=MessageKind.ERROR,
        text=f"{mission.assignee.name} could not answer: {message}",
        payload={"code": code, "retry": True, "seq": mission.seq},
    )


def mission_run(*, mission_id: int, run_token: str = "") -> None:
    """Answer a queued mission: assemble its context, stream the reply, save it.

    Claimed with a conditional update, so a duplicate delivery of the task is a no-op;
    the same delivery redelivered (its worker was killed) takes the mission over."""
    from memory.context import context_for_mission
    from memory.memory_items import memory_mark_used

    claimable = Q(status=MissionStatus.QUEUED)
    if run_token:
        claimable |= Q(status=MissionStatus.RUNNING, run_token=run_token)
    claimed = Mission.objects.filter(claimable, pk=mission_id).update(
        status=MissionStatus.RUNNING,
        started_at=timezone.now(),
        attempts=F("attempts") + 1,
        run_token=run_token,
    )
    if not claimed:
        return
    mission = Mission.objects.select_related("session", "channel__office", "assignee").get(
        pk=mission_id
    )
    context = context_for_mission(mission=mission)
    memory_mark_used(item_ids=[i for s in context.sections for i in s.memory_ids])
    provider = get_provider()
    pieces: list[str] = []
    try:
        stream = provider.stream_chat(
            messages=context.messages, model=mission.assignee.model or None
        )
        # Pieces are sent in small batches: a model streams many tiny tokens, and one
        # channel-layer message each would cost more than the text it carries.
        batch: list[str] = []
        index = 0
        last_sent = time.monotonic()
        for piece in stream:
            pieces.append(piece)
            batch.append(piece)
            if time.monotonic() - last_sent >= DELTA_INTERVAL:
                send_event(
                    mission.channel_id,
                    {
                        "type": REPLY_DELTA,
                        "mission": mission.pk,
                        "index": index,
                        "text": "".join(batch),
                    },
                )
                batch, index, last_sent = [], index + 1, time.monotonic()
        if batch:
            send_event(
                mission.channel_id,
                {
                    "type": REPLY_DELTA,
                    "mission": mission.pk,
                    "index": index,
                    "text": "".join(batch),
                },
            )
        reply = "".join(pieces).strip()
        if not reply:
            raise ProviderError("bad_output", "The model returned an empty reply.")
    except ProviderError as exc:
        mission_fail(mission=mission, code=exc.code, message=exc.message)
        return
    except Exception:
        logger.exception("mission %s failed unexpectedly", mission_id)
        mission_fail(
            mission=mission,
            code="internal",
            message="Something went wrong on our side while answering.",
        )
        return
    usage = stream.usage
    mission_complete(
        mission=mission,
        reply=reply,
        prompt_chars=context.total_chars,
        prompt_tokens=usage.prompt_tokens,
        cached_tokens=usage.cached_tokens,
        completion_tokens=usage.completion_tokens,
    )


def mission_retry(*, mission: Mission) -> bool:
    """Run a failed mission again (the same mission: no duplicate). False if it was not
    failed, e.g. a second click on Retry."""
    with transaction.atomic():
        reset = Mission.objects.filter(pk=mission.pk, status=MissionStatus.FAILED).update(
            status=MissionStatus.QUEUED, error="", finished_at=None
        )
        if reset:
            mission.status = MissionStatus.QUEUED
            _queue_run(mission)
    return bool(reset)


def mission_sweep_stuck(*, now: datetime | None = None) -> dict[str, int]:
    """Missions a dead worker or a lost broker message left behind: re-queue them, or fail
    them once they have had their attempts."""
    now = now or timezone.now()
    running_limit = now - timedelta(seconds=settings.MISSION_STUCK_AFTER)
    queued_limit = now - timedelta(seconds=settings.MISSION_QUEUED_RESEND_AFTER)
    counts = {"requeued": 0, "failed": 0, "resent": 0}
    stuck = Mission.objects.filter(status=MissionStatus.RUNNING, started_at__lt=running_limit)
    for mission in stuck.select_related("assignee"):
        with transaction.atomic():
            if mission.attempts >= settings.MISSION_MAX_ATTEMPTS:
                if Mission.objects.filter(pk=mission.pk, status=MissionStatus.RUNNING).update(
                    status=MissionStatus.FAILED
                ):
                    mission_fail(
                        mission=mission,
                        code="interrupted",
                        message="The answer was interrupted too many times.",
                    )
                    counts["failed"] += 1
            elif Mission.objects.filter(pk=mission.pk, status=MissionStatus.RUNNING).update(
                status=MissionStatus.QUEUED
            ):
                _queue_run(mission)
                counts["requeued"] += 1
    waiting = Mission.objects.filter(
        Q(started_at__isnull=True) | Q(started_at__lt=queued_limit),
        status=MissionStatus.QUEUED,
        created_at__lt=queued_limit,
    )
    for mission in waiting:
        # The claim in mission_run makes a second delivery harmless.
        with transaction.atomic():
            _queue_run(mission)
        counts["resent"] += 1
    counts["folds"] = _sweep_lagging_folds(since=now - timedelta(days=1))
    return counts


def _sweep_lagging_folds(*, since: datetime) -> int:
    """Queue a fold for recent sessions whose summary lags behind the detail window (a
    fold lost with its worker). Folding is idempotent, so a spare one costs nothing."""
    from django.db.models import Max

    from memory.tasks import fold_session

    lagging = (
        ChatSession.objects.filter(
            missions__status=MissionStatus.DONE, missions__finished_at__gte=since
        )
        .annotate(last_done=Max("missions__seq"), watermark=Max("summary__folded_through_seq"))
        .values_list("id", "last_done", "watermark")
    )
    queued = 0
    for session_id, last_done, watermark in lagging:
        if last_done - settings.DETAIL_MISSIONS > (watermark or 0):
            fold_session.delay_on_commit(session_id)  # type: ignore[attr-defined]
            queued += 1
    return queued


def mission_record_finished(
    *,
    session: ChatSession,
    assignee: Employee,
    instruction: str,
    reply: str,
    source: str = MissionSource.DM,
    at: datetime | None = None,
) -> Mission:
    """A mission that already happened elsewhere (an import or a replay)."""
    with transaction.atomic():
        mission, _ = mission_create(
            session=session, assignee=assignee, source=source, instruction=instruction, at=at
        )
        mission_complete(mission=mission, reply=reply, at=at)
    return mission


def mission_requeue(*, mission: Mission) -> bool:
    """An operator sends a failed or stuck mission back to the queue (the same mission)."""
    with transaction.atomic():
        moved = Mission.objects.filter(
            pk=mission.pk, status__in=[MissionStatus.FAILED, MissionStatus.RUNNING]
        ).update(status=MissionStatus.QUEUED, error="", finished_at=None)
        if moved:
            _queue_run(mission)
    return bool(moved)
