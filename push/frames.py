"""Every WebSocket frame (docs/design.md §7), in one place, as pydantic models: what a client
may send, and what the server sends. The JSON API returns the same schemas."""

import json
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError, PydanticSerializationError

from language.storable import BAD_TEXT, text_problem

# --- client → server ---------------------------------------------------------------------


# The largest id a database row can have (a 64-bit signed integer): a larger number names
# no row, and SQLite cannot even bind it.
DB_ID_MAX = 2**63 - 1


class _ClientFrame(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InstructionFrame(_ClientFrame):
    type: Literal["instruction"]
    text: str
    client_id: str = Field(default="", max_length=64)
    # Edit and resend: the mission of this channel whose instruction this one edits.
    edits: int | None = Field(default=None, ge=1, le=DB_ID_MAX)
    # Files uploaded for this instruction (POST /api/channels/<id>/attachments).
    attachments: list[int] = Field(default_factory=list, max_length=50)

    @field_validator("text", "client_id", mode="before")
    @classmethod
    def _storable(cls, value: Any, info: ValidationInfo) -> Any:
        # Before pydantic's own checks: a length-limited str cannot even be read with a
        # lone surrogate in it, and that must be a `bad_text`, not a `bad_frame`.
        what = "The instruction" if info.field_name == "text" else str(info.field_name)
        problem = text_problem(value, what=what) if isinstance(value, str) else None
        if problem:
            raise PydanticCustomError(BAD_TEXT, problem)
        return value


class SessionNewFrame(_ClientFrame):
    type: Literal["session.new"]
    # The session the person was looking at: a double click starts one session, not two.
    session_id: int | None = Field(default=None, ge=1, le=DB_ID_MAX)


class StopFrame(_ClientFrame):
    """Stop the reply of a mission of this channel: what came is kept."""

    type: Literal["mission.stop"]
    mission: int = Field(ge=1, le=DB_ID_MAX)


class PingFrame(_ClientFrame):
    type: Literal["ping"]


ClientFrame = Annotated[
    InstructionFrame | SessionNewFrame | StopFrame | PingFrame, Field(discriminator="type")
]
client_frame = TypeAdapter(ClientFrame)
CLIENT_FRAME_TYPES = ("instruction", "session.new", "mission.stop", "ping")


# --- server → client ---------------------------------------------------------------------


class MessageData(BaseModel):
    """One timeline entry, as the socket pushes it and the API lists it."""

    id: int
    channel: int
    session: int
    mission: int | None
    kind: str
    author: str | None
    # The person who wrote an instruction (their user name and id); null for older
    # instructions and everything else. The page names them unless it is its own reader.
    sender: str | None = None
    sender_id: int | None = None
    # In the reader's language: what the office says is rendered from `office_text`.
    text: str
    # What the office says, as data ({"kind": …, its parameters}); null for what a person
    # or an employee wrote.
    office_text: dict[str, Any] | None = None
    # What an employee wrote, its Markdown as sanitised HTML (push/markdown.py): the page
    # inserts it as it is. Null for everything else (shown as text).
    html: str | None = None
    payload: dict[str, Any]
    created_at: datetime


class UsageData(BaseModel):
    prompt_chars: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0


class SessionData(BaseModel):
    id: int
    number: int
    previous: int | None = None


class DelegateData(BaseModel):
    """One delegated mission of a plan."""

    mission: int
    employee: str
    task: str
    # The task as the chief of staff wrote it, its Markdown as sanitised inline HTML.
    task_html: str = ""
    expected_output: str
    # queued | working | done | failed
    status: str
    channel: int
    # The delegated mission in its employee's 1:1 channel.
    url: str
    error: str
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    # Seconds from the delegation to its end (or to now, while it runs).
    elapsed_s: float
    prompt_tokens: int
    completion_tokens: int


class SynthesisData(BaseModel):
    mission: int
    status: str
    seq: int
    # The number the person sees ("1a"); seq is the session's internal order.
    label: str


class PlanData(BaseModel):
    """A master-channel instruction the chief of staff split among the team: who does
    what, how far each is, and the synthesis that sums it up."""

    mission: int
    channel: int
    seq: int
    label: str
    instruction: str
    planner: str
    # working (delegates busy) | synthesizing | done | failed (the synthesis failed) |
    # stopped (the person stopped the plan)
    status: str
    delegates: list[DelegateData]
    synthesis: SynthesisData | None = None
    prompt_tokens: int
    completion_tokens: int


class MissionStateData(BaseModel):
    """Where a mission stands, for the page's "X is working…" and its Stop button."""

    mission: int
    # The channel it runs in (a plan's part: its employee's 1:1 channel).
    channel: int
    # queued | running | done | failed | stopped
    status: str
    # Who answers it.
    employee: str
    label: str
    # The plan it is a part of (a delegated part, a synthesis).
    plan: int | None = None
    # The mission to name in `mission.stop` to stop it: itself, or its plan (a synthesis,
    # a part seen from the master channel); none where it cannot be stopped (a part in
    # its employee's channel, a meeting follow-up).
    stop: int | None = None


class MessageFrame(BaseModel):
    type: Literal["message"] = "message"
    message: MessageData


class NoticeFrame(BaseModel):
    type: Literal["notice"] = "notice"
    message: MessageData


class ReplyDeltaFrame(BaseModel):
    type: Literal["reply.delta"] = "reply.delta"
    mission: int
    index: int
    text: str


class ReplyDoneFrame(BaseModel):
    """The reply is saved: `message` is its timeline entry (no `message` frame is sent
    for it)."""

    type: Literal["reply.done"] = "reply.done"
    mission: int
    message: MessageData
    usage: UsageData


class MissionStateFrame(BaseModel):
    """A mission of this channel was queued (a new instruction, a regenerate, a retry, a
    synthesis): the page shows it under way until its `reply.done` or its error."""

    type: Literal["mission.state"] = "mission.state"
    mission: MissionStateData


class PendingFrame(BaseModel):
    """The channel's work under way, read after the socket joined its groups: every frame
    after it is newer. Sent as a socket opens (when there is any) and in answer to a stop
    that found nothing left to stop; the page's pending state is replaced by it."""

    type: Literal["pending"] = "pending"
    missions: list[MissionStateData]


class SessionStartedFrame(BaseModel):
    type: Literal["session.started"] = "session.started"
    session: SessionData


class PlanFrame(BaseModel):
    """A plan changed (a delegate started, finished, failed, was retried; the synthesis
    began or ended). Carries the whole plan: the card is redrawn from it."""

    type: Literal["plan"] = "plan"
    plan: PlanData


class ChannelUnreadFrame(BaseModel):
    """A reply or a failure was saved in one of the person's channels. Sent to every
    socket of theirs that shows another channel (the page showing that channel has the
    reply itself, and marks it read): the sidebar counts it as unread."""

    type: Literal["channel.unread"] = "channel.unread"
    channel: int
    message_id: int
    mission: int


class PongFrame(BaseModel):
    type: Literal["pong"] = "pong"


class ErrorFrame(BaseModel):
    type: Literal["error"] = "error"
    code: str
    message: str
    # Which send was refused, so the page can give the text back to the person.
    client_id: str | None = None
    retry_after: int | None = None


ServerFrame = Annotated[
    MessageFrame
    | NoticeFrame
    | ReplyDeltaFrame
    | ReplyDoneFrame
    | MissionStateFrame
    | PendingFrame
    | SessionStartedFrame
    | PlanFrame
    | ChannelUnreadFrame
    | PongFrame
    | ErrorFrame,
    Field(discriminator="type"),
]
server_frame = TypeAdapter(ServerFrame)


def frame_json(frame: BaseModel) -> dict[str, Any]:
    """The frame as the JSON object sent over the socket (unset optional fields left out)."""
    return frame.model_dump(mode="json", exclude_none=True)


def json_text(content: Any) -> str:
    """JSON text for a socket: non-ASCII as itself (Korean stays readable and short). A
    lone surrogate (echoed from a client's frame) has no UTF-8 form; as a JSON escape it
    has, and the client reads back the same string."""
    text = json.dumps(content, ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:
        text = json.dumps(content)
    return text


def frame_text(frame: BaseModel) -> str:
    """The frame as the text sent over the socket, serialized once however many sockets
    it goes to (the same JSON as `json_text(frame_json(frame))`)."""
    try:
        return frame.model_dump_json(exclude_none=True)
    except PydanticSerializationError:  # a lone surrogate: see json_text
        return json_text(frame_json(frame))
