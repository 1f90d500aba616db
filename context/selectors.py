"""The context of a mission (docs/design.md §3): load, then render. Reads only."""

from datetime import datetime

from django.contrib.auth.models import User
from django.utils import timezone

from context.loading import AttachedFile, brief_load, context_load
from context.rendering import AssembledContext, render_context
from llm.gateway import default_model
from missions.attachments import mission_attachments, model_takes_images, passages_near
from missions.models import Attachment, Mission
from office.models import Channel, Employee
from office.selectors import channel_default_assignee
from sessions.models import ChatSession

# A file's passages closest in meaning to the instruction that its prompt shows, whatever
# their words (a paraphrase, the other language).
FILE_PASSAGES_BY_MEANING = 2


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
    inputs.attachments = attached_files(mission=mission)
    inputs.asked_by = asked_by(mission=mission)
    return render_context(inputs)


def asked_by(*, mission: Mission) -> str:
    """The name of the person a mission runs for, when that is not its office's owner;
    blank otherwise (the owner, an import). One query, and only in an office of several
    people."""
    requested = mission.requested_by_id
    if requested is None or requested == mission.channel.office.owner_id:
        return ""
    name = User.objects.filter(pk=requested).values_list("username", flat=True).first()
    return str(name or "")


def attached_files(*, mission: Mission) -> list[AttachedFile]:
    """The mission's files as its prompt shows them (their text extracted now if the
    background lane has not yet)."""
    shown = model_takes_images(mission.assignee.model or default_model())
    return [
        AttachedFile(
            name=a.name,
            kind=a.kind,
            size=a.size,
            text=a.text,
            error=a.extract_error,
            image_shown=shown,
            near=tuple(passages_near(a, mission.instruction, limit=FILE_PASSAGES_BY_MEANING)),
        )
        for a in mission_attachments(mission=mission)
    ]


def context_for_next(
    *,
    channel: Channel,
    session: ChatSession,
    instruction: str,
    employee: Employee | None = None,
    at: datetime | None = None,
    attachments: list[AttachedFile] | None = None,
) -> AssembledContext:
    """What the next mission of the channel's session would get (the context panel, the
    `context` command), with `attachments` if the person has files ready for it. Writes
    nothing: the caller chooses the session."""
    if session.channel_id != channel.pk:
        raise ValueError("the session belongs to another channel")
    inputs = context_load(
        session=session,
        channel=channel,
        employee=employee or channel_default_assignee(channel=channel),
        instruction=instruction,
        seq=session.mission_count + 1,
        # The person's next number: their missions count without the syntheses.
        label=str(session.mission_count - session.synthesis_count + 1),
        at=at or timezone.now(),
    )
    inputs.attachments = attachments or []
    return render_context(inputs)


def staged_files(*, channel: Channel, user_id: int, ids: list[int]) -> list[AttachedFile]:
    """The person's uploads in `channel` not sent yet, among `ids`, as the next
    mission's prompt would show them (one not read yet says so)."""
    employee = channel_default_assignee(channel=channel)
    shown = model_takes_images(employee.model or default_model())
    rows = Attachment.objects.filter(
        pk__in=ids[:50], channel=channel, uploaded_by_id=user_id, mission__isnull=True
    ).defer("data")
    return [
        AttachedFile(
            name=a.name,
            kind=a.kind,
            size=a.size,
            text=a.text,
            error=a.extract_error if a.extracted_at else "not read yet",
            image_shown=shown,
        )
        for a in rows.order_by("id")
    ]
