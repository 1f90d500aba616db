"""Writes for long-term memory (docs/design.md §5): the only place that changes MemoryItem.

Items keep their provenance (origin, source mission, who, when). Nothing is deleted: an
item is retired, or superseded by a newer one that keeps the link."""

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from config.celery import queue_task_on_commit
from language import meaning
from language.analysis import normalised
from language.statements import normalize
from language.supersession import supersedes
from memory.models import (
    MemoryItem,
    MemoryKind,
    MemoryOrigin,
    MemoryProposal,
    MemoryScope,
    MemoryVector,
    ProposalState,
)
from missions.models import Mission
from office.models import Channel, Employee, Office

MAX_MEMORY_CHARS = 1_000


class MemoryRejected(ValueError):
    """A memory change that cannot be made; the message is for a person."""


@dataclass(frozen=True)
class Target:
    office: Office
    scope: str
    employee: Employee | None = None
    channel: Channel | None = None


def memory_target(
    *, office: Office, scope: str, employee: Employee | None = None, channel: Channel | None = None
) -> Target:
    """Check that a scope and its target fit together and belong to the office."""
    if scope not in MemoryScope.values:
        raise MemoryRejected(
            gettext("scope must be one of %(values)s") % {"values": ", ".join(MemoryScope.values)}
        )
    if scope == MemoryScope.EMPLOYEE and (employee is None or employee.office_id != office.pk):
        raise MemoryRejected(gettext("an employee memory needs an employee of this office"))
    if scope == MemoryScope.CHANNEL and (channel is None or channel.office_id != office.pk):
        raise MemoryRejected(gettext("a channel memory needs a channel of this office"))
    return Target(
        office=office,
        scope=scope,
        employee=employee if scope == MemoryScope.EMPLOYEE else None,
        channel=channel if scope == MemoryScope.CHANNEL else None,
    )


def memory_text_clean(text: str, kind: str) -> str:
    text = " ".join(text.split())
    if not text:
        raise MemoryRejected(gettext("the text is empty"))
    if len(text) > MAX_MEMORY_CHARS:
        raise MemoryRejected(
            gettext("the text has %(chars)d characters; the limit is %(limit)d")
            % {"chars": len(text), "limit": MAX_MEMORY_CHARS}
        )
    if kind not in MemoryKind.values:
        raise MemoryRejected(
            gettext("kind must be one of %(values)s") % {"values": ", ".join(MemoryKind.values)}
        )
    return text


def _same_target(target: Target) -> QuerySet[MemoryItem]:
    return MemoryItem.objects.filter(
        office=target.office,
        scope=target.scope,
        employee=target.employee,
        channel=target.channel,
        active=True,
    )


@transaction.atomic
def memory_item_create(
    *,
    target: Target,
    kind: str,
    text: str,
    origin: str,
    pinned: bool = False,
    source_mission: Mission | None = None,
    created_by: User | None = None,
    source_span: str = "",
) -> MemoryItem:
    clean = memory_text_clean(text, kind)
    if pinned and origin == MemoryOrigin.EXTRACTED:
        raise MemoryRejected(gettext("Only a person pins an item; extraction only proposes it."))
    if origin == MemoryOrigin.EXTRACTED and target.scope == MemoryScope.OFFICE and not source_span:
        # What every employee of the office will read stands on what the person said,
        # never on a model's word alone (an invented wire, a delegate's guess).
        raise MemoryRejected(
            gettext("Office-wide memory needs a source in the person's own words.")
        )
    if meaning.enabled():
        queue_task_on_commit("context.tasks.vectors_embed_memory", target.office.pk)
    return MemoryItem.objects.create(
        office=target.office,
        scope=target.scope,
        employee=target.employee,
        channel=target.channel,
        kind=kind,
        text=clean,
        terms=normalised(clean),
        origin=origin,
        source_span=" ".join(source_span.split())[:MAX_MEMORY_CHARS],
        pinned=pinned,
        source_mission=source_mission,
        created_by=created_by,
    )


@transaction.atomic
def memory_item_edit(
    *,
    item: MemoryItem,
    text: str | None = None,
    kind: str | None = None,
    pinned: bool | None = None,
) -> MemoryItem:
    if not item.active:
        raise MemoryRejected(gettext("a retired item cannot be edited; add a new one"))
    fields = ["updated_at"]
    if kind is not None:
        item.kind = kind
        fields.append("kind")
    if text is not None:
        item.text = memory_text_clean(text, item.kind)
        item.terms = normalised(item.text)
        fields += ["text", "terms"]
        # Its meaning changed with its words: embedded again in the background lane.
        MemoryVector.objects.filter(item=item).delete()
        if meaning.enabled():
            queue_task_on_commit("context.tasks.vectors_embed_memory", item.office_id)
    elif kind is not None:
        memory_text_clean(item.text, item.kind)
    if pinned is not None:
        item.pinned = pinned
        fields.append("pinned")
    item.save(update_fields=fields)
    return item


@transaction.atomic
def memory_item_retire(*, item: MemoryItem) -> MemoryItem:
    item.active = False
    item.save(update_fields=["active", "updated_at"])
    return item


@transaction.atomic
def memory_item_supersede(
    *,
    old: MemoryItem,
    text: str,
    kind: str | None = None,
    origin: str = MemoryOrigin.USER,
    source_mission: Mission | None = None,
    created_by: User | None = None,
    source_span: str = "",
) -> MemoryItem:
    """A new item that replaces `old`; the old one stays, retired, linked to its successor."""
    target = Target(office=old.office, scope=old.scope, employee=old.employee, channel=old.channel)
    new = memory_item_create(
        target=target,
        kind=kind or old.kind,
        text=text,
        origin=origin,
        pinned=old.pinned,
        source_mission=source_mission,
        created_by=created_by,
        source_span=source_span,
    )
    old.active = False
    old.superseded_by = new
    old.save(update_fields=["active", "superseded_by", "updated_at"])
    return new


def _replaces(*, new: str, old: MemoryItem) -> bool:
    """A newer statement about the same subject with another value, one that names the
    value it drops ("instead of Fly.io", "코랄 대신"), or an explicit change of the same
    topic with a new value: the rule the rolling summary uses too
    (language/statements.py). Whatever kind holds the old value (fact, decision, rule,
    preference), a reversal retires it: "the box is navy now" retires the preference
    "cream for the gift set box"; and another value of the same kind for the same thing,
    however it is worded ("가격 올렸어요, 이제 23,500원": language/supersession.py)."""
    return supersedes(new, old.text)


@transaction.atomic
def memory_item_remember(
    *,
    target: Target,
    kind: str,
    text: str,
    origin: str,
    source_mission: Mission | None = None,
    created_by: User | None = None,
    source_span: str = "",
) -> tuple[MemoryItem, str]:
    """Store a candidate the way memory should grow: a duplicate is merged into the item
    it repeats, a contradiction supersedes the items it replaces, unless extraction would
    replace what a person set down (an item they wrote, an admin wrote, or anyone pinned,
    or one taken from their own words in chat: `source_span`): then a proposal waits for
    them. Returns the item and what happened: "created", "merged", "superseded" or
    "proposed" (the item it would replace, unchanged)."""
    text = memory_text_clean(text, kind)
    key = normalize(text)
    candidates = list(_same_target(target).select_for_update())
    for item in candidates:
        if normalize(item.text) == key:
            fields = ["updated_at"]
            if source_span and not item.source_span:
                # The person now says what a model said before: it is theirs from now on.
                item.source_span = " ".join(source_span.split())[:MAX_MEMORY_CHARS]
                fields.append("source_span")
            item.updated_at = timezone.now()
            item.save(update_fields=fields)
            return item, "merged"
    replaced = [item for item in candidates if _replaces(new=text, old=item)]
    if origin == MemoryOrigin.EXTRACTED:
        # What a person set down and the new item would be read beside (a pinned office
        # rule and a 1:1's new one): contradicted, it is theirs to decide too, never left
        # standing against it unasked.
        replaced += [
            item
            for item in _read_beside(target).select_for_update()
            if _set_by_a_person(item) and _replaces(new=text, old=item)
        ]
    if replaced and origin == MemoryOrigin.EXTRACTED and any(map(_set_by_a_person, replaced)):
        # What a person set down is changed only by that person: the change waits for
        # them in the memory panel (memory_proposal_confirm), and nothing changes now.
        _propose(replaced=replaced, kind=kind, text=text, source_mission=source_mission)
        return replaced[0], "proposed"
    if replaced:
        new = memory_item_supersede(
            old=replaced[0],
            text=text,
            kind=kind,
            origin=origin,
            source_mission=source_mission,
            created_by=created_by,
            source_span=source_span,
        )
        for other in replaced[1:]:
            # One statement can retire several (the fact and the decision it changes).
            other.active = False
            other.superseded_by = new
            other.save(update_fields=["active", "superseded_by", "updated_at"])
        return new, "superseded"
    return memory_item_create(
        target=target,
        kind=kind,
        text=text,
        origin=origin,
        source_mission=source_mission,
        created_by=created_by,
        source_span=source_span,
    ), "created"


def _read_beside(target: Target) -> QuerySet[MemoryItem]:
    """The active items of other scopes that apply together with the target's in some
    prompt (memory.selectors.memory_in_scope): the office's beside an employee's or a
    project's; every employee's and project's beside the office's."""
    active = MemoryItem.objects.filter(office=target.office, active=True)
    if target.scope == MemoryScope.OFFICE:
        return active.exclude(scope=MemoryScope.OFFICE).order_by("pk")
    return active.filter(scope=MemoryScope.OFFICE).order_by("pk")


def _set_by_a_person(item: MemoryItem) -> bool:
    return item.pinned or item.stated_by_person


def _propose(
    *, replaced: list[MemoryItem], kind: str, text: str, source_mission: Mission | None
) -> MemoryProposal:
    pending = MemoryProposal.objects.filter(
        office=replaced[0].office, state=ProposalState.PENDING, replaces__in=replaced
    )
    for proposal in pending.distinct():
        if normalize(proposal.text) == normalize(text):
            return proposal  # proposed already: once is enough
    proposal = MemoryProposal.objects.create(
        office=replaced[0].office, kind=kind, text=text, source_mission=source_mission
    )
    proposal.replaces.set(replaced)
    return proposal


@transaction.atomic
def memory_proposal_confirm(*, proposal: MemoryProposal, user: User | None) -> MemoryItem:
    """The person agrees: the proposed item replaces the items it named (those still
    active; if none is, it is simply remembered)."""
    locked = MemoryProposal.objects.select_for_update().get(pk=proposal.pk)
    if locked.state != ProposalState.PENDING:
        raise MemoryRejected(gettext("this change was already decided"))
    replaced = list(locked.replaces.filter(active=True).select_for_update().order_by("pk"))
    if replaced:
        new = memory_item_supersede(
            old=replaced[0],
            text=locked.text,
            kind=locked.kind,
            origin=MemoryOrigin.USER,  # the person confirmed it: theirs now
            source_mission=locked.source_mission,
            created_by=user,
        )
        for other in replaced[1:]:
            other.active = False
            other.superseded_by = new
            other.save(update_fields=["active", "superseded_by", "updated_at"])
    else:
        first = locked.replaces.order_by("pk").first()
        assert first is not None
        target = Target(
            office=first.office, scope=first.scope, employee=first.employee, channel=first.channel
        )
        new = memory_item_create(
            target=target,
            kind=locked.kind,
            text=locked.text,
            origin=MemoryOrigin.USER,  # the person confirmed it: theirs now
            source_mission=locked.source_mission,
            created_by=user,
        )
    locked.state, locked.result = ProposalState.CONFIRMED, new
    locked.decided_at, locked.decided_by = timezone.now(), user
    locked.save(update_fields=["state", "result", "decided_at", "decided_by"])
    return new


@transaction.atomic
def memory_proposal_reject(*, proposal: MemoryProposal, user: User | None) -> MemoryProposal:
    """The person says no: nothing changes, and the proposal is kept as a record."""
    rejected = MemoryProposal.objects.filter(pk=proposal.pk, state=ProposalState.PENDING).update(
        state=ProposalState.REJECTED, decided_at=timezone.now(), decided_by=user
    )
    if not rejected:
        raise MemoryRejected(gettext("this change was already decided"))
    proposal.refresh_from_db()
    return proposal


def memory_mark_used(*, item_ids: list[int]) -> None:
    if item_ids:
        MemoryItem.objects.filter(pk__in=item_ids).update(last_used_at=timezone.now())
