from datetime import datetime
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from ninja import Field, File, Router, Schema
from ninja.errors import HttpError
from ninja.files import UploadedFile
from ninja.responses import Status

from context.selectors import context_for_next, staged_files
from language.storable import BAD_TEXT, text_problem
from missions.attachments import AttachmentRejected, attachment_upload
from missions.export import ChannelExport, channel_export, export_markdown
from missions.importing import ImportRejected, channel_import
from missions.intake import READ_ONLY, InstructionRejected, RateLimited, instruction_accept
from missions.lifecycle import (
    RegenerateRefused,
    StopRefused,
    mission_regenerate,
    mission_retry,
    mission_stop,
)
from missions.models import Attachment, AttachmentKind, Mission, MissionAttempt
from missions.reading import channel_mark_read
from missions.selectors import (
    message_list_after,
    mission_attempts,
    mission_get_for_user,
    missions_pending,
    plan_data,
    unread_counts,
)
from missions.timeline import message_data
from office.auth import session_new_allowed
from office.models import Channel
from office.selectors import channel_get_for_user, channel_list_for_user, offices_for_user
from push.frames import DB_ID_MAX, MessageData, MissionStateData, PlanData
from sessions.models import ChatSession
from sessions.selectors import session_current, session_currents
from sessions.services import session_start_new

router = Router(tags=["office"])


class ErrorOut(Schema):
    code: str
    message: str


class RateLimitedOut(Schema):
    code: str
    message: str
    retry_after: int


class SessionOut(Schema):
    id: int
    number: int
    mission_count: int
    started_at: datetime
    closed_at: datetime | None
    long_notice_sent_at: datetime | None


class ChannelOut(Schema):
    id: int
    kind: str
    name: str
    office: int
    employee: str | None
    current_session: SessionOut | None
    # Replies and failures saved since you last read the channel.
    unread: int
    # An archived project: read-only, out of the sidebar.
    archived: bool = False


class ReadIn(Schema):
    message_id: int = Field(
        ..., ge=0, le=DB_ID_MAX, description="The newest message you were shown."
    )


class ReadOut(Schema):
    channel: int
    read_through: int


class TimelineOut(Schema):
    messages: list[MessageData]
    has_more: bool


class MissionOut(Schema):
    id: int
    channel: int
    session: int
    seq: int
    # The number the person sees ("2", a synthesis "1a"); seq is the session's order.
    label: str
    source: str
    assignee: str
    parent: int | None
    instruction: str
    reply: str
    status: str
    error: str
    created_at: datetime
    finished_at: datetime | None
    prompt_chars: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    # Edit and resend: the mission this one's instruction was edited from.
    edited_from: int | None
    # How many new attempts the person asked for (the earlier ones: /attempts).
    regenerations: int


class AttemptOut(Schema):
    number: int
    reply: str
    status: str
    finished_at: datetime | None
    prompt_chars: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int


class InstructionIn(Schema):
    text: str = Field(..., description="What the employee should do.")
    # Its length (at most 64) is checked with the text, so a bad one gets a 400 with a code.
    client_id: str = Field(
        "",
        description=(
            "Your id for this send, at most 64 characters; a resend with it is not a second "
            "mission."
        ),
    )
    edits: int | None = Field(
        None,
        ge=1,
        le=DB_ID_MAX,
        description="Edit and resend: the mission of this channel whose instruction this edits.",
    )
    attachments: list[int] = Field(
        [],
        max_length=50,
        description=(
            "Files for this mission: ids from `POST /api/channels/{id}/attachments`, "
            "uploaded to this channel by you and not sent with another instruction."
        ),
    )


class AcceptedOut(Schema):
    created: bool
    mission: MissionOut
    message: MessageData


class SessionNewIn(Schema):
    session_id: int | None = Field(
        None,
        description="The session you were looking at; if it is no longer current, nothing changes.",
    )


class RetryOut(Schema):
    retried: bool
    mission: MissionOut


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


def _channel(request: HttpRequest, channel_id: int) -> Channel:
    channel = channel_get_for_user(user=_user(request), channel_id=channel_id)
    if channel is None:
        raise HttpError(404, gettext("No such channel."))
    return channel


def _mission_out(mission: Mission) -> dict[str, Any]:
    return {
        "id": mission.pk,
        "channel": mission.channel_id,
        "session": mission.session_id,
        "seq": mission.seq,
        "label": mission.label,
        "source": mission.source,
        "assignee": mission.assignee.name,
        "parent": mission.parent_id,
        "instruction": mission.instruction,
        "reply": mission.reply,
        "status": mission.status,
        "error": mission.error,
        "created_at": mission.created_at,
        "finished_at": mission.finished_at,
        "prompt_chars": mission.prompt_chars,
        "prompt_tokens": mission.prompt_tokens,
        "cached_tokens": mission.cached_tokens,
        "completion_tokens": mission.completion_tokens,
        "edited_from": mission.edited_from_id,
        "regenerations": mission.regenerations,
    }


def _current_session(channel: Channel) -> ChatSession:
    session = session_current(channel=channel)
    if session is None:
        raise HttpError(409, gettext("The channel has no session."))
    return session


@router.get("channels", response=list[ChannelOut], summary="Channels of your offices")
def channels(request: HttpRequest) -> list[dict[str, Any]]:
    channels = list(channel_list_for_user(user=_user(request)))
    currents = session_currents(channel_ids=[c.pk for c in channels])
    unread = unread_counts(user_id=_user(request).pk, channel_ids=[c.pk for c in channels])
    return [
        {
            "id": channel.pk,
            "kind": channel.kind,
            "name": channel.name,
            "office": channel.office_id,
            "employee": channel.employee.name if channel.employee else None,
            "current_session": currents.get(channel.pk),
            "unread": unread.get(channel.pk, 0),
            "archived": channel.archived_at is not None,
        }
        for channel in channels
    ]


@router.get(
    "channels/{channel_id}/messages",
    response=TimelineOut,
    summary="The timeline after a message id (for resync)",
)
def messages(
    request: HttpRequest, channel_id: int, after: int = 0, limit: int = 200
) -> dict[str, Any]:
    channel = _channel(request, channel_id)
    limit = max(1, min(limit, 500))
    rows = message_list_after(channel=channel, after_id=after, limit=limit + 1)
    return {"messages": [message_data(m) for m in rows[:limit]], "has_more": len(rows) > limit}


@router.get(
    "channels/{channel_id}/pending",
    response=list[MissionStateData],
    summary="The channel's work under way: its queued and running missions, and in the "
    "master channel the parts of its plans (the socket's `pending` frame)",
)
def pending(request: HttpRequest, channel_id: int) -> list[MissionStateData]:
    return missions_pending(channel=_channel(request, channel_id))


@router.post(
    "channels/{channel_id}/read",
    response=ReadOut,
    summary="Mark the channel read up to a message (its unread count drops to what came after)",
)
def read(request: HttpRequest, channel_id: int, body: ReadIn) -> dict[str, Any]:
    channel = _channel(request, channel_id)
    through = channel_mark_read(
        user_id=_user(request).pk, channel=channel, through_message_id=body.message_id
    )
    return {"channel": channel.pk, "read_through": through}


class AttachmentOut(Schema):
    id: int
    name: str
    kind: str
    content_type: str
    size: int


@router.post(
    "channels/{channel_id}/attachments",
    response={201: AttachmentOut, 400: ErrorOut, 409: ErrorOut, 413: ErrorOut},
    summary="Upload a file for your next instruction in this channel (text, Markdown, CSV, "
    "PDF or an image; checked by its content); send its id in the instruction's "
    "`attachments`",
)
def upload(request: HttpRequest, channel_id: int, file: File[UploadedFile]) -> Status[Any]:
    channel = _channel(request, channel_id)
    if channel.archived_at is not None:
        return Status(
            409,
            {
                "code": "channel_archived",
                "message": gettext("{name} is archived: unarchive it to give it work.").format(
                    name=channel.name
                ),
            },
        )
    limit = settings.ATTACHMENT_MAX_BYTES
    # Read one byte past the cap at most: a larger file is refused without holding it.
    data = file.read(limit + 1)
    try:
        attachment = attachment_upload(
            channel=channel, user_id=_user(request).pk, name=file.name or "", data=data
        )
    except AttachmentRejected as exc:
        status = 413 if exc.code == "file_too_large" else 400
        return Status(status, {"code": exc.code, "message": exc.message})
    return Status(
        201,
        {
            "id": attachment.pk,
            "name": attachment.name,
            "kind": attachment.kind,
            "content_type": attachment.content_type,
            "size": attachment.size,
        },
    )


def _attachment(request: HttpRequest, attachment_id: int) -> Attachment:
    attachment = Attachment.objects.filter(pk=attachment_id).first()
    if (
        attachment is None
        or channel_get_for_user(user=_user(request), channel_id=attachment.channel_id) is None
    ):
        raise HttpError(404, gettext("No such file."))
    return attachment


@router.get(
    "attachments/{attachment_id}",
    response={200: None, 404: ErrorOut},
    summary="A file as it was uploaded",
)
def attachment_file(request: HttpRequest, attachment_id: int) -> HttpResponse:
    attachment = _attachment(request, attachment_id)
    response = HttpResponse(bytes(attachment.data), content_type=attachment.content_type)
    # Images are shown in the page; every other file is downloaded, never rendered.
    how = "inline" if attachment.kind == AttachmentKind.IMAGE else "attachment"
    response["Content-Disposition"] = f"{how}; filename*=UTF-8''{quote(attachment.name)}"
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response


@router.delete(
    "attachments/{attachment_id}",
    response={204: None, 404: ErrorOut, 409: ErrorOut},
    summary="Remove an upload no instruction has taken yet",
)
def attachment_delete(request: HttpRequest, attachment_id: int) -> Status[Any]:
    attachment = _attachment(request, attachment_id)
    if attachment.uploaded_by_id != _user(request).pk:
        raise HttpError(404, gettext("No such file."))
    if attachment.mission_id is not None:
        return Status(
            409,
            {"code": "file_sent", "message": gettext("The file was sent with an instruction.")},
        )
    attachment.delete()
    return Status(204, None)


@router.post(
    "channels/{channel_id}/instructions",
    response={202: AcceptedOut, 400: ErrorOut, 409: ErrorOut, 429: RateLimitedOut},
    summary="Give an instruction; the reply arrives on the timeline",
)
def instructions(
    request: HttpRequest, channel_id: int, body: InstructionIn, response: HttpResponse
) -> Status[dict[str, Any]]:
    channel = _channel(request, channel_id)
    try:
        accepted = instruction_accept(
            channel=channel,
            text=body.text,
            client_id=body.client_id,
            user_id=_user(request).pk,
            edits=body.edits,
            attachments=body.attachments,
        )
    except RateLimited as exc:
        response["Retry-After"] = str(exc.retry_after)
        return Status(
            429, {"code": exc.code, "message": exc.message, "retry_after": exc.retry_after}
        )
    except InstructionRejected as exc:
        # A retired employee's or an archived channel is there to read, not to work in.
        status = 409 if exc.code in READ_ONLY else 400
        return Status(status, {"code": exc.code, "message": exc.message})
    return Status(
        202,
        {
            "created": accepted.created,
            "mission": _mission_out(accepted.mission),
            "message": message_data(accepted.message),
        },
    )


@router.post(
    "channels/{channel_id}/sessions",
    response={201: SessionOut, 429: RateLimitedOut},
    summary="Start a new session, carrying the summary over",
)
def new_session(request: HttpRequest, channel_id: int, body: SessionNewIn) -> Status[Any]:
    channel = _channel(request, channel_id)
    session_new_allowed(user_id=_user(request).pk)  # Throttled: 429 (config.api)
    return Status(201, session_start_new(channel=channel, expected_session_id=body.session_id))


@router.get(
    "channels/{channel_id}/context",
    response={200: dict[str, Any], 400: ErrorOut},
    summary="The context report of the next mission",
)
def context(
    request: HttpRequest, channel_id: int, instruction: str = "", attachments: str = ""
) -> Status[Any]:
    channel = _channel(request, channel_id)
    problem = text_problem(instruction, what="The instruction")
    if problem:
        return Status(400, {"code": BAD_TEXT, "message": problem})
    ids = [int(i) for i in attachments.split(",") if i.strip().isdigit() and len(i) < 12]
    report = context_for_next(
        channel=channel,
        session=_current_session(channel),
        instruction=instruction[: settings.MAX_INSTRUCTION_CHARS],
        attachments=staged_files(channel=channel, user_id=_user(request).pk, ids=ids),
    ).report()
    return Status(200, report)


@router.get("missions/{mission_id}", response=MissionOut, summary="One mission")
def mission(request: HttpRequest, mission_id: int) -> dict[str, Any]:
    found = mission_get_for_user(user=_user(request), mission_id=mission_id)
    if found is None:
        raise HttpError(404, gettext("No such mission."))
    return _mission_out(found)


@router.post(
    "missions/{mission_id}/retry",
    response={202: RetryOut, 429: RateLimitedOut},
    summary="Run a failed mission again (the same mission); counts as an instruction",
)
def retry(request: HttpRequest, mission_id: int, response: HttpResponse) -> Status[dict[str, Any]]:
    user = _user(request)
    found = mission_get_for_user(user=user, mission_id=mission_id)
    if found is None:
        raise HttpError(404, gettext("No such mission."))
    try:
        retried = mission_retry(mission=found, user_id=user.pk)
    except RateLimited as exc:
        response["Retry-After"] = str(exc.retry_after)
        return Status(
            429, {"code": exc.code, "message": exc.message, "retry_after": exc.retry_after}
        )
    return Status(202, {"retried": retried, "mission": _mission_out(found)})


class StopOut(Schema):
    stopped: bool
    mission: MissionOut


@router.post(
    "missions/{mission_id}/stop",
    response={202: StopOut, 409: ErrorOut},
    summary="Stop a mission's reply: what came is kept, the mission is marked stopped",
)
def stop(request: HttpRequest, mission_id: int) -> Status[dict[str, Any]]:
    found = mission_get_for_user(user=_user(request), mission_id=mission_id)
    if found is None:
        raise HttpError(404, gettext("No such mission."))
    try:
        stopped = mission_stop(mission=found)
    except StopRefused as exc:
        return Status(409, {"code": "cannot_stop", "message": str(exc)})
    return Status(202, {"stopped": stopped, "mission": _mission_out(found)})


@router.post(
    "missions/{mission_id}/regenerate",
    response={202: MissionOut, 409: ErrorOut, 429: RateLimitedOut},
    summary="A new attempt of a finished mission; the earlier attempt is kept. Counts as an "
    "instruction",
)
def regenerate(
    request: HttpRequest, mission_id: int, response: HttpResponse
) -> Status[dict[str, Any]]:
    user = _user(request)
    found = mission_get_for_user(user=user, mission_id=mission_id)
    if found is None:
        raise HttpError(404, gettext("No such mission."))
    try:
        again = mission_regenerate(mission=found, user_id=user.pk)
    except RateLimited as exc:
        response["Retry-After"] = str(exc.retry_after)
        return Status(
            429, {"code": exc.code, "message": exc.message, "retry_after": exc.retry_after}
        )
    except RegenerateRefused as exc:
        return Status(409, {"code": "cannot_regenerate", "message": str(exc)})
    again.assignee = found.assignee
    return Status(202, _mission_out(again))


@router.get(
    "missions/{mission_id}/attempts",
    response=list[AttemptOut],
    summary="The earlier attempts of a regenerated mission, oldest first",
)
def attempts(request: HttpRequest, mission_id: int) -> list[MissionAttempt]:
    found = mission_get_for_user(user=_user(request), mission_id=mission_id)
    if found is None:
        raise HttpError(404, gettext("No such mission."))
    return mission_attempts(mission=found)


@router.get(
    "missions/{mission_id}/plan",
    response={200: PlanData, 404: ErrorOut},
    summary="The plan of a master-channel mission: who does what, how far, the synthesis",
)
def plan(request: HttpRequest, mission_id: int) -> Status[Any]:
    found = mission_get_for_user(user=_user(request), mission_id=mission_id)
    data = plan_data(plan_id=found.pk) if found is not None else None
    if data is None:
        return Status(404, {"code": "no_plan", "message": gettext("This mission has no plan.")})
    return Status(200, data)


EXPORT_TYPES = {"json": "application/json", "markdown": "text/markdown; charset=utf-8"}


@router.get(
    "channels/{channel_id}/export",
    response={200: ChannelExport, 404: ErrorOut},
    summary="The conversation as a file: one session (`session`) or all, with each "
    "session's summary and the memory the channel's work reads; `format` json (what an "
    "import reads) or markdown",
)
def export(
    request: HttpRequest, channel_id: int, format: str = "json", session: int | None = None
) -> HttpResponse:
    channel = _channel(request, channel_id)
    if format not in EXPORT_TYPES:
        raise HttpError(400, gettext("The format is json or markdown."))
    chosen = None
    if session is not None:
        chosen = ChatSession.objects.filter(channel=channel, pk=session).first()
        if chosen is None:
            raise HttpError(404, gettext("No such session."))
    data = channel_export(channel=channel, session=chosen)
    body = data.model_dump_json(indent=2) if format == "json" else export_markdown(data)
    name = f"channel-{channel.pk}" + (f"-session-{chosen.number}" if chosen else "")
    extension = "json" if format == "json" else "md"
    response = HttpResponse(body, content_type=EXPORT_TYPES[format])
    response["Content-Disposition"] = f'attachment; filename="{name}.{extension}"'
    return response


class ImportedOut(Schema):
    channel: int
    sessions: int
    missions: int


@router.post(
    "office/import",
    response={201: ImportedOut, 400: ErrorOut, 404: ErrorOut},
    summary="Import an exported conversation (the JSON of `export`) into your office: a new "
    "project channel holding its sessions, missions and memory",
)
def import_channel(request: HttpRequest, body: ChannelExport) -> Status[Any]:
    # Into an office the person owns (a member of another's office imports nothing there).
    office = offices_for_user(user=_user(request)).filter(owner=request.user.pk).first()
    if office is None:
        return Status(404, {"code": "no_office", "message": gettext("You have no office.")})
    try:
        channel = channel_import(office=office, data=body, user=_user(request))
    except ImportRejected as exc:
        return Status(400, {"code": "cannot_import", "message": str(exc)})
    return Status(
        201,
        {
            "channel": channel.pk,
            "sessions": channel.sessions.count(),
            "missions": channel.missions.count(),
        },
    )
