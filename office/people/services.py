"""The people of an office: invitations, joining, leaving. The owner invites with a link
that works once; whoever opens it signed in (or signs up through it) joins. Members work
in every channel; only the owner (`Office.owner`) runs the office."""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from office.models import Office, OfficeInvitation, OfficeMember
from push.events import send_access_changed

# The link's secret: 32 random bytes, URL-safe. Only its SHA-256 is stored.
_SECRET_BYTES = 32


class PeopleError(Exception):
    """Refused, with a message the person can read (in the active language)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Invitation:
    row: OfficeInvitation
    # The link's secret: handed to the owner once, never stored.
    secret: str


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def invitation_create(*, office: Office, by: User) -> Invitation:
    """A new link to join `office`, working once, for INVITE_DAYS days."""
    secret = secrets.token_urlsafe(_SECRET_BYTES)
    row = OfficeInvitation.objects.create(
        office=office,
        digest=_digest(secret),
        created_by=by,
        expires_at=timezone.now() + timedelta(days=settings.INVITE_DAYS),
    )
    return Invitation(row=row, secret=secret)


def _named_by(secret: str) -> QuerySet[OfficeInvitation]:
    """The invitation a link's secret names (none for a secret no link could hold)."""
    if not secret or len(secret) > 100:
        return OfficeInvitation.objects.none()
    return OfficeInvitation.objects.filter(digest=_digest(secret))


def invitation_find(*, secret: str) -> OfficeInvitation | None:
    """The invitation a link names, whatever its state (the page says why it no longer
    works); None for a link that never was one."""
    return _named_by(secret).select_related("office", "created_by").first()


def invitation_problem(invitation: OfficeInvitation) -> str | None:
    """Why the link no longer works, in the active language; None while it does."""
    if invitation.withdrawn_at is not None:
        return gettext("This invitation was withdrawn. Ask for a new link.")
    if invitation.accepted_at is not None:
        return gettext("This invitation was already used. Ask for a new link.")
    if invitation.expires_at <= timezone.now():
        return gettext("This invitation has expired. Ask for a new link.")
    return None


@transaction.atomic
def invitation_accept(*, secret: str, user: User) -> Office:
    """Join the office the link invites to. The link works once: two people opening it
    at the same moment, one joins (the invitation's row is locked); two links of one
    office used at once are counted one after the other (its row is locked too), so the
    office never goes over OFFICE_MAX_PEOPLE."""
    invitation = _named_by(secret).select_for_update().first()
    if invitation is None:
        raise PeopleError("no_invitation", gettext("This invitation link is not valid."))
    office = Office.objects.select_for_update().get(pk=invitation.office_id)
    if OfficeMember.objects.filter(office=office, user=user).exists():
        # Already one of its people (the owner opening their own link, say): the link
        # stays for whom it was meant.
        return office
    problem = invitation_problem(invitation)
    if problem:
        raise PeopleError("invitation_used", problem)
    if OfficeMember.objects.filter(office=office).count() >= settings.OFFICE_MAX_PEOPLE:
        raise PeopleError(
            "office_full",
            gettext("This office already has {count} people, its limit.").format(
                count=settings.OFFICE_MAX_PEOPLE
            ),
        )
    try:
        with transaction.atomic():
            OfficeMember.objects.create(office=office, user=user)
    except IntegrityError:
        return office  # joined at the same moment through another link (SQLite locks no row)
    invitation.accepted_by, invitation.accepted_at = user, timezone.now()
    invitation.save(update_fields=["accepted_by", "accepted_at"])
    return office


def invitation_withdraw(*, office: Office, invitation_id: int) -> bool:
    """Withdraw an unused invitation of the office; False if there is none such."""
    return bool(
        OfficeInvitation.objects.filter(
            pk=invitation_id, office=office, accepted_at__isnull=True, withdrawn_at__isnull=True
        ).update(withdrawn_at=timezone.now())
    )


@transaction.atomic
def member_remove(*, office: Office, user_id: int) -> bool:
    """Take a person out of the office (the owner cannot be): their instructions and
    what they wrote stay; their open pages of the office lose it at once. False if they
    were not one of its people."""
    if user_id == office.owner_id:
        raise PeopleError("owner_stays", gettext("The owner cannot leave their own office."))
    removed, _ = OfficeMember.objects.filter(office=office, user_id=user_id).delete()
    if removed:
        # The person's sockets ask again what they may see: the office's channels close.
        transaction.on_commit(lambda: send_access_changed(user_id))
    return bool(removed)
