from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.translation import gettext
from ninja import Field, Router, Schema
from ninja.errors import HttpError
from ninja.responses import Status

from language.storable import BAD_TEXT, text_problem
from memory.models import MemoryItem, MemoryOrigin, MemoryProposal
from memory.selectors import (
    memory_for_channel_panel,
    memory_get_for_user,
    memory_list_for_user,
    proposal_get_for_user,
    proposals_pending_for_channel_panel,
    proposals_pending_for_user,
)
from memory.services import (
    MemoryRejected,
    memory_item_create,
    memory_item_edit,
    memory_item_retire,
    memory_item_supersede,
    memory_proposal_confirm,
    memory_proposal_reject,
    memory_target,
)
from office.auth import memory_write_allowed
from office.models import Channel, Employee, Office
from office.selectors import channel_get_for_user

router = Router(tags=["memory"])


class MemoryOut(Schema):
    id: int
    office: int
    scope: str
    employee: int | None
    channel: int | None
    kind: str
    text: str
    origin: str
    # The person's own sentence an extracted item stands on ("" for a model's item).
    source_span: str
    # Theirs: written by them or an admin, or taken from their words; changed only
    # through a proposal they confirm.
    stated_by_person: bool
    pinned: bool
    active: bool
    source_mission: int | None
    superseded_by: int | None
    created_at: datetime
    updated_at: datetime
    last_used_at: datetime | None


class MemoryIn(Schema):
    office: int
    scope: str = Field(..., description="office, employee or channel")
    employee: int | None = None
    channel: int | None = None
    kind: str = Field(..., description="preference, fact, rule or decision")
    text: str
    pinned: bool = False


class MemoryEdit(Schema):
    text: str | None = None
    kind: str | None = None
    pinned: bool | None = None


class SupersedeIn(Schema):
    text: str
    kind: str | None = None


class ProposalOut(Schema):
    id: int
    office: int
    kind: str
    text: str
    replaces: list[MemoryOut]
    source_mission: int | None
    state: str
    result: int | None
    created_at: datetime
    decided_at: datetime | None


class ErrorOut(Schema):
    code: str
    message: str


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


def _out(item: MemoryItem) -> dict[str, Any]:
    return {
        "id": item.pk,
        "office": item.office_id,
        "scope": item.scope,
        "employee": item.employee_id,
        "channel": item.channel_id,
        "kind": item.kind,
        "text": item.text,
        "origin": item.origin,
        "source_span": item.source_span,
        "stated_by_person": item.stated_by_person,
        "pinned": item.pinned,
        "active": item.active,
        "source_mission": item.source_mission_id,
        "superseded_by": item.superseded_by_id,
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "last_used_at": item.last_used_at,
    }


def _bad_text(text: str | None) -> Status[dict[str, Any]] | None:
    """The 400 for text that cannot be stored (a NUL, a lone surrogate), before any write."""
    problem = text_problem(text or "")
    return Status(400, {"code": BAD_TEXT, "message": problem}) if problem else None


def _item(request: HttpRequest, item_id: int) -> MemoryItem:
    item = memory_get_for_user(user=_user(request), item_id=item_id)
    if item is None:
        raise HttpError(404, gettext("No such memory item."))
    return item


@router.get(
    "memory",
    response={200: list[MemoryOut], 400: ErrorOut},
    summary="Memory items of your offices",
)
def memory_list(
    request: HttpRequest,
    office: int | None = None,
    scope: str | None = None,
    employee: int | None = None,
    channel: int | None = None,
    include_retired: bool = False,
) -> Status[Any]:
    if refused := _bad_text(scope):
        return refused
    items = memory_list_for_user(
        user=_user(request),
        office_id=office,
        scope=scope,
        employee_id=employee,
        channel_id=channel,
        include_retired=include_retired,
    )
    return Status(200, [_out(i) for i in items[:500]])


@router.post("memory", response={201: MemoryOut, 400: ErrorOut}, summary="Remember something")
def memory_create(request: HttpRequest, body: MemoryIn) -> Status[dict[str, Any]]:
    user = _user(request)
    office = Office.objects.filter(pk=body.office, memberships__user=user).first()
    if office is None:
        raise HttpError(404, gettext("No such office."))
    if refused := _bad_text(body.text):
        return refused
    employee = (
        Employee.objects.filter(pk=body.employee, office=office).first() if body.employee else None
    )
    channel = (
        Channel.objects.filter(pk=body.channel, office=office).first() if body.channel else None
    )
    # Counted before the write, refused (429, config.api) once over: each item is a row
    # memory search, and possibly every prompt of its scope, reads.
    memory_write_allowed(user_id=user.pk)
    try:
        target = memory_target(office=office, scope=body.scope, employee=employee, channel=channel)
        item = memory_item_create(
            target=target,
            kind=body.kind,
            text=body.text,
            origin=MemoryOrigin.USER,
            pinned=body.pinned,
            created_by=user,
        )
    except MemoryRejected as exc:
        return Status(400, {"code": "invalid", "message": str(exc)})
    return Status(201, _out(item))


@router.patch(
    "memory/{int:item_id}", response={200: MemoryOut, 400: ErrorOut}, summary="Edit, pin or unpin"
)
def memory_edit(request: HttpRequest, item_id: int, body: MemoryEdit) -> Status[dict[str, Any]]:
    item = _item(request, item_id)
    if refused := _bad_text(body.text):
        return refused
    try:
        memory_item_edit(item=item, text=body.text, kind=body.kind, pinned=body.pinned)
    except MemoryRejected as exc:
        return Status(400, {"code": "invalid", "message": str(exc)})
    return Status(200, _out(item))


@router.post("memory/{int:item_id}/retire", response=MemoryOut, summary="Stop using an item")
def memory_retire(request: HttpRequest, item_id: int) -> dict[str, Any]:
    return _out(memory_item_retire(item=_item(request, item_id)))


@router.post(
    "memory/{int:item_id}/supersede",
    response={201: MemoryOut, 400: ErrorOut},
    summary="Replace an item with a new one, keeping the old as history",
)
def memory_supersede(
    request: HttpRequest, item_id: int, body: SupersedeIn
) -> Status[dict[str, Any]]:
    old = _item(request, item_id)
    if not old.active:
        return Status(400, {"code": "invalid", "message": gettext("the item is already retired")})
    if refused := _bad_text(body.text):
        return refused
    memory_write_allowed(user_id=_user(request).pk)
    try:
        new = memory_item_supersede(
            old=old, text=body.text, kind=body.kind, created_by=_user(request)
        )
    except MemoryRejected as exc:
        return Status(400, {"code": "invalid", "message": str(exc)})
    return Status(201, _out(new))


@router.get(
    "channels/{channel_id}/memory",
    response=list[MemoryOut],
    summary="What the people of a channel remember (office, channel, employee)",
)
def channel_memory(request: HttpRequest, channel_id: int) -> list[dict[str, Any]]:
    channel = channel_get_for_user(user=_user(request), channel_id=channel_id)
    if channel is None:
        raise HttpError(404, gettext("No such channel."))
    return [_out(i) for i in memory_for_channel_panel(channel=channel)[:200]]


def _proposal_out(proposal: MemoryProposal) -> dict[str, Any]:
    return {
        "id": proposal.pk,
        "office": proposal.office_id,
        "kind": proposal.kind,
        "text": proposal.text,
        "replaces": [_out(item) for item in proposal.replaces.all()],
        "source_mission": proposal.source_mission_id,
        "state": proposal.state,
        "result": proposal.result_id,
        "created_at": proposal.created_at,
        "decided_at": proposal.decided_at,
    }


def _proposal(request: HttpRequest, proposal_id: int) -> MemoryProposal:
    proposal = proposal_get_for_user(user=_user(request), proposal_id=proposal_id)
    if proposal is None:
        raise HttpError(404, gettext("No such proposal."))
    return proposal


@router.get(
    "memory/proposals",
    response=list[ProposalOut],
    summary="Changes to what you set down that wait for your confirmation",
)
def memory_proposals(request: HttpRequest) -> list[dict[str, Any]]:
    return [_proposal_out(p) for p in proposals_pending_for_user(user=_user(request))[:200]]


@router.get(
    "channels/{channel_id}/memory/proposals",
    response=list[ProposalOut],
    summary="Changes waiting for confirmation to the items of a channel's memory panel",
)
def channel_memory_proposals(request: HttpRequest, channel_id: int) -> list[dict[str, Any]]:
    channel = channel_get_for_user(user=_user(request), channel_id=channel_id)
    if channel is None:
        raise HttpError(404, gettext("No such channel."))
    return [_proposal_out(p) for p in proposals_pending_for_channel_panel(channel=channel)[:100]]


@router.post(
    "memory/proposals/{proposal_id}/confirm",
    response={201: MemoryOut, 409: ErrorOut},
    summary="Accept a proposed change: the new item replaces the old ones",
)
def memory_proposal_accept(request: HttpRequest, proposal_id: int) -> Status[dict[str, Any]]:
    proposal = _proposal(request, proposal_id)
    try:
        item = memory_proposal_confirm(proposal=proposal, user=_user(request))
    except MemoryRejected as exc:
        return Status(409, {"code": "decided", "message": str(exc)})
    return Status(201, _out(item))


@router.post(
    "memory/proposals/{proposal_id}/reject",
    response={200: ProposalOut, 409: ErrorOut},
    summary="Refuse a proposed change: nothing changes",
)
def memory_proposal_refuse(request: HttpRequest, proposal_id: int) -> Status[dict[str, Any]]:
    proposal = _proposal(request, proposal_id)
    try:
        rejected = memory_proposal_reject(proposal=proposal, user=_user(request))
    except MemoryRejected as exc:
        return Status(409, {"code": "decided", "message": str(exc)})
    return Status(200, _proposal_out(rejected))
