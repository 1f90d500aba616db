"""WebSocket frames a client may send (DESIGN.md §7), validated with pydantic."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InstructionFrame(_Frame):
    type: Literal["instruction"]
    text: str
    client_id: str = Field(default="", max_length=64)


class SessionNewFrame(_Frame):
    type: Literal["session.new"]
    # The session the person was looking at: a double click starts one session, not two.
    session_id: int | None = None


class PingFrame(_Frame):
    type: Literal["ping"]


ClientFrame = Annotated[InstructionFrame | SessionNewFrame | PingFrame, Field(discriminator="type")]
client_frame = TypeAdapter(ClientFrame)
FRAME_TYPES = ("instruction", "session.new", "ping")
