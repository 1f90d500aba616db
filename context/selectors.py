"""The context of a mission (docs/design.md §3): load, then render. Reads only."""

from datetime import datetime

from django.utils import timezone

from context.loading import brief_load, context_load
from context.rendering import AssembledContext, render_context
from missions.models import Mission
from office.models import Channel, Employee
from office.selectors import channel_default_assignee
from sessions.models import ChatSession


def assemble(
    *,
    session: ChatSession,
    channel: Channel,
    employee: Employee,
    instruction: str,
    seq: int,
    at: datetime,
    label: str = "",
) -> AssembledContext:
    return render_context(
        context_load(
            session=session,
            channel=channel,
            employee=employee,
            instruction=instruction,
            seq=seq,
            at=at,
            label=label,
        )
    )


def context_for_mission(*, mission: Mission) -> AssembledContext:
    """A mission's prompt; a delegated mission or a synthesis gets its brief as well."""
    inputs = context_load(
        session=mission.session,
        channel=mission.channel,
        employee=mission.assignee,
        instruction=mission.instruction,
        seq=mission.seq,
        at=mission.created_at,
        label=mission.label,
    )
    inputs.brief = brief_load(mission=mission)
    return render_context(inputs)


def context_for_next(
    *,
    channel: Channel,
    session: ChatSession,
    instruction: str,
    employee: Employee | None = None,
    at: datetime | None = None,
) -> AssembledContext:
    """What the next mission of the channel's session would get (the context panel, the
    `context` command). Writes nothing: the caller chooses the session."""
    if session.channel_id != channel.pk:
        raise ValueError("the session belongs to another channel")
    return assemble(
        session=session,
        channel=channel,
        employee=employee or channel_default_assignee(channel=channel),
        instruction=instruction,
        seq=session.mission_count + 1,
        # The person's next number: their missions count without the syntheses.
        label=str(session.mission_count - session.synthesis_count + 1),
        at=at or timezone.now(),
    )
