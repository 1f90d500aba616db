"""Reads of long-term memory: what a user may see, and what a prompt may hold."""

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet

from memory.models import (
    MemoryItem,
    MemoryKind,
    MemoryOrigin,
    MemoryProposal,
    MemoryScope,
    ProposalState,
)
from office.models import Channel


def memory_in_scope(
    *, office_id: int, employee_id: int | None, channel_id: int
) -> QuerySet[MemoryItem]:
    """The active items that apply to work of this employee in this channel: the office's,
    the employee's own and the channel's. The one definition of memory scope."""
    scope = Q(scope=MemoryScope.OFFICE) | Q(scope=MemoryScope.CHANNEL, channel_id=channel_id)
    if employee_id is not None:
        scope |= Q(scope=MemoryScope.EMPLOYEE, employee_id=employee_id)
    return MemoryItem.objects.filter(scope, office_id=office_id, active=True)


# The system prompt's high-priority lane: what a person pinned, and the rules in force —
# those a person wrote, and those taken from their own words in chat (`source_span`: the
# sentence of theirs the rule stands on). A rule a model proposed with no source there is
# ranked and quoted like any other item until a person pins it: text a model read (an
# e-mail to translate, its own reply, material the person pasted) never becomes an
# instruction every employee follows.
STANDING = Q(pinned=True) | (
    Q(kind=MemoryKind.RULE) & (~Q(origin=MemoryOrigin.EXTRACTED) | ~Q(source_span=""))
)


def memory_standing(items: QuerySet[MemoryItem]) -> QuerySet[MemoryItem]:
    """Pinned items and the rules in force, pinned first, then the newest: the
    high-priority lane of the system prompt (what does not fit its share is counted)."""
    return items.filter(STANDING).order_by("-pinned", "-created_at", "-id")


def memory_rankable(items: QuerySet[MemoryItem]) -> QuerySet[MemoryItem]:
    """Everything else: ranked for each instruction."""
    return items.exclude(STANDING)


def memory_list_for_user(
    *,
    user: User | AnonymousUser,
    office_id: int | None = None,
    scope: str | None = None,
    employee_id: int | None = None,
    channel_id: int | None = None,
    include_retired: bool = False,
) -> QuerySet[MemoryItem]:
    if not user.is_authenticated:
        return MemoryItem.objects.none()
    items = MemoryItem.objects.filter(office__memberships__user=user).select_related(
        "employee", "channel", "source_mission", "superseded_by"
    )
    if office_id is not None:
        items = items.filter(office_id=office_id)
    if scope:
        items = items.filter(scope=scope)
    if employee_id is not None:
        items = items.filter(employee_id=employee_id)
    if channel_id is not None:
        items = items.filter(channel_id=channel_id)
    if not include_retired:
        items = items.filter(active=True)
    return items.order_by("-pinned", "-updated_at", "-id")


def memory_get_for_user(*, user: User | AnonymousUser, item_id: int) -> MemoryItem | None:
    if not user.is_authenticated:
        return None
    return MemoryItem.objects.filter(pk=item_id, office__memberships__user=user).first()


def memory_for_channel_panel(*, channel: Channel) -> QuerySet[MemoryItem]:
    """What the people of a channel remember: the office's items, the channel's own, and
    (in a 1:1) the employee's."""
    return (
        memory_in_scope(
            office_id=channel.office_id, employee_id=channel.employee_id, channel_id=channel.pk
        )
        .select_related("employee", "channel")
        .order_by("-pinned", "-updated_at")
    )


def proposals_pending_for_channel_panel(*, channel: Channel) -> QuerySet[MemoryProposal]:
    """Changes waiting for the person to the items the channel's panel shows."""
    shown = memory_in_scope(
        office_id=channel.office_id, employee_id=channel.employee_id, channel_id=channel.pk
    )
    return (
        MemoryProposal.objects.filter(
            office_id=channel.office_id, state=ProposalState.PENDING, replaces__in=shown
        )
        .distinct()
        .prefetch_related("replaces")
        .order_by("-created_at", "-id")
    )


def proposals_pending_for_user(*, user: User | AnonymousUser) -> QuerySet[MemoryProposal]:
    if not user.is_authenticated:
        return MemoryProposal.objects.none()
    return (
        MemoryProposal.objects.filter(office__memberships__user=user, state=ProposalState.PENDING)
        .prefetch_related("replaces")
        .order_by("-created_at", "-id")
    )


def proposal_get_for_user(*, user: User | AnonymousUser, proposal_id: int) -> MemoryProposal | None:
    if not user.is_authenticated:
        return None
    return MemoryProposal.objects.filter(pk=proposal_id, office__memberships__user=user).first()
