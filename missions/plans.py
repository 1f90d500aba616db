"""A plan: a master-channel mission whose parts the chief of staff delegated (its
children with source=delegation). When every delegated mission has finished — done or
failed — or PLAN_TIMEOUT has passed, the chief of staff gets a synthesis mission in the
master channel (source=synthesis, parent=the plan) that sums their results up. A delegate
that finishes later (a retry, a slow one) brings a new synthesis.

Every change of a plan is pushed to the master channel as a `plan` frame, after commit."""

import itertools
import threading
from collections import OrderedDict
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop

from missions.creation import mission_create
from missions.models import InstructionAuthor, MessageKind, Mission, MissionSource, MissionStatus
from missions.queueing import mission_queue_run
from missions.selectors import delegate_url, plan_data
from missions.texts import office_text
from push.events import send_frame
from push.frames import PlanFrame
from sessions.services import session_get_or_open_current

# A part stopped with its plan has finished too: what came is its result.
FINISHED = (MissionStatus.DONE, MissionStatus.FAILED, MissionStatus.STOPPED)

SYNTHESIS_INSTRUCTION = (
    "Your colleagues have worked on the parts of mission #{label} you delegated; their "
    "results are quoted above. Give the person one answer: what each colleague did (by "
    "name), what is still open (name anyone who failed or has not answered, with the "
    "error and the retry link), and the next step. Answer in the language of the "
    "instruction, which was: {instruction}"
)
# Said under the synthesis, whatever the model wrote, when a part is missing: part of
# the reply, so written in the office's language when the reply is saved.
NOT_DONE = gettext_noop("Not done yet: {name} — {error}. Retry: {url}")
STILL_WORKING = gettext_noop("still working")
STOPPED = gettext_noop("stopped before it was finished")


# The page draws the last plan frame it gets, so one plan's frames must leave in the
# order their reads began: each read takes a ticket first, and a frame whose ticket is
# older than one already sent is dropped (the later read saw at least as much: a change
# it missed was committed after it began, and that commit's own send has a later ticket).
# Two threads that read and send a plan at once (two parts ending together, one thread
# held up between its read and its send) could otherwise leave the card showing a part
# still working after the plan was done. This orders the sends of one process (the embedded
# runtime, one replies worker); sends from two worker processes are not ordered.
_tickets = itertools.count(1)
_sent_lock = threading.Lock()
_sent: OrderedDict[int, int] = OrderedDict()  # plan id -> ticket of its last frame sent
_SENT_REMEMBERED = 1024


def plan_send(plan_id: int) -> None:
    """Push the plan as it is now to the master channel."""
    ticket = next(_tickets)
    data = plan_data(plan_id=plan_id)
    if data is None:
        return
    with _sent_lock:
        if _sent.get(plan_id, 0) > ticket:
            return
        _sent[plan_id] = ticket
        _sent.move_to_end(plan_id)
        if len(_sent) > _SENT_REMEMBERED:
            _sent.popitem(last=False)
        send_frame(data.channel, PlanFrame(plan=data))


def plan_send_on_commit(plan_id: int) -> None:
    transaction.on_commit(lambda: plan_send(plan_id))


def plan_child_changed(*, child: Mission) -> None:
    """Inside the transaction that changed a delegated mission (finished it, failed it,
    queued it again): sum the plan up if that was the last part, and push the plan."""
    assert child.parent_id is not None
    # The plan's row lock orders delegates finishing at once: the last one to take it
    # sees every other one finished, and exactly one synthesis is created.
    plan = (
        Mission.objects.select_for_update()
        .select_related("assignee", "channel")
        .get(pk=child.parent_id)
    )
    if child.status in FINISHED:
        _synthesize_if_ready(plan)
    plan_send_on_commit(plan.pk)


def plan_synthesis_changed(*, synthesis: Mission) -> None:
    assert synthesis.parent_id is not None
    plan_send_on_commit(synthesis.parent_id)


def _synthesize_if_ready(plan: Mission, *, overdue: bool = False) -> Mission | None:
    """The synthesis of `plan`, if it is due: every delegate finished (or, `overdue`,
    the plan's time is up) and none finished since the last synthesis began; never for a
    plan the person stopped (`plan.stop_requested_at`, read under the plan's row lock)."""
    if plan.stop_requested_at is not None:
        return None
    children = list(plan.children.filter(source=MissionSource.DELEGATION))
    if not children:
        return None
    if not overdue and any(c.status not in FINISHED for c in children):
        return None
    last = plan.children.filter(source=MissionSource.SYNTHESIS).order_by("-id").first()
    if last is not None and not any(
        c.finished_at is not None and c.finished_at > last.created_at
        for c in children
        if c.status in FINISHED
    ):
        return None
    session = session_get_or_open_current(channel=plan.channel)
    synthesis, _ = mission_create(
        session=session,
        assignee=plan.assignee,
        source=MissionSource.SYNTHESIS,
        instruction=SYNTHESIS_INSTRUCTION.format(
            label=plan.label, instruction=_quote(plan.instruction)
        ),
        instruction_author=InstructionAuthor.OFFICE,
        parent=plan,
        message_kind=MessageKind.EVENT,
        message_office_text=office_text("synthesis_started", employee=plan.assignee.name),
        payload={"event": "synthesis", "plan": plan.pk},
    )
    mission_queue_run(synthesis)
    return synthesis


def _quote(text: str, limit: int = 2000) -> str:
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return "«" + text + "»"


def synthesis_footer(*, synthesis: Mission) -> str:
    """The lines said under a synthesis for every part not done: who, why, where to
    retry. Empty when everyone delivered."""
    assert synthesis.parent_id is not None
    lines = []
    children = Mission.objects.filter(
        parent_id=synthesis.parent_id, source=MissionSource.DELEGATION
    ).select_related("assignee")
    with translation.override(synthesis.channel.office.language):
        for child in children.order_by("id"):
            if child.status == MissionStatus.DONE:
                continue
            if child.status == MissionStatus.FAILED:
                error = child.error
            elif child.status == MissionStatus.STOPPED:
                error = gettext(STOPPED)
            else:
                error = gettext(STILL_WORKING)
            lines.append(
                gettext(NOT_DONE).format(
                    name=child.assignee.name, error=error, url=delegate_url(child)
                )
            )
    return "\n".join(f"- {line}" for line in lines)


def plan_sweep_overdue(*, now: datetime | None = None) -> int:
    """Sum up plans whose delegates have not all finished PLAN_TIMEOUT seconds after the
    plan started; the missing ones are named as still working. Returns how many."""
    now = now or timezone.now()
    limit = now - timedelta(seconds=settings.PLAN_TIMEOUT)
    plan_ids = set(
        Mission.objects.filter(
            source=MissionSource.DELEGATION,
            status__in=[MissionStatus.QUEUED, MissionStatus.RUNNING],
            parent__finished_at__lt=limit,
        ).values_list("parent_id", flat=True)
    )
    summed = 0
    for plan_id in sorted(plan_ids):
        with transaction.atomic():
            plan = (
                Mission.objects.select_for_update()
                .select_related("assignee", "channel")
                .get(pk=plan_id)
            )
            if _synthesize_if_ready(plan, overdue=True) is not None:
                summed += 1
                plan_send_on_commit(plan.pk)
    return summed
