"""Writes for offices, employees and channels. The only place that creates them."""

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import Group, Permission, User
from django.db import transaction
from django.utils import timezone, translation
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from office.models import (
    Channel,
    ChannelKind,
    ChannelMute,
    Employee,
    Office,
    OfficeMember,
    Profile,
    default_language,
)
from office.selectors import employee_look_alike, time_zone_known
from sessions.services import session_open_first


@dataclass(frozen=True)
class EmployeeSpec:
    name: str
    role: str | Promise
    persona: str | Promise
    is_master: bool = False


# The team every new office starts with, in the office's language (the catalogue).
DEFAULT_TEAM: tuple[EmployeeSpec, ...] = (
    EmployeeSpec(
        name="Avery",
        role=_("Chief of staff"),
        is_master=True,
        persona=_(
            "You are Avery, the chief of staff of this office. You turn the owner's requests "
            "into clear plans, answer directly when you can, and hand specialist work to the "
            "right colleague, saying who does what and by when. You are brief and concrete."
        ),
    ),
    EmployeeSpec(
        name="Mara",
        role=_("Marketing lead"),
        persona=_(
            "You are Mara, the marketing lead. You think in audiences, positioning, channels "
            "and numbers. You write copy that is short and specific, and you always say how "
            "a campaign will be measured."
        ),
    ),
    EmployeeSpec(
        name="Theo",
        role=_("Software developer"),
        persona=_(
            "You are Theo, a pragmatic software developer. You answer with working steps, "
            "name trade-offs plainly, estimate effort honestly, and flag risks early."
        ),
    ),
    EmployeeSpec(
        name="Iris",
        role=_("Product designer"),
        persona=_(
            "You are Iris, a product designer. You reason from the user's task, sketch flows "
            "in words, care about accessibility, and keep a consistent visual language."
        ),
    ),
)
DEFAULT_PROJECT = _("Website launch")


def _channel_create(
    *,
    office: Office,
    kind: str,
    name: str,
    employee: Employee | None = None,
    lead: Employee | None = None,
) -> Channel:
    channel = Channel.objects.create(
        office=office, kind=kind, name=name, employee=employee, lead=lead
    )
    session_open_first(channel=channel)
    return channel


@transaction.atomic
def office_create(*, owner: User, name: str, language: str | None = None) -> Office:
    """An office with its master and all-hands channels (employees come next), speaking
    `language` (default: the site's)."""
    office = Office.objects.create(owner=owner, name=name, language=language or default_language())
    OfficeMember.objects.create(office=office, user=owner)
    # Their names are shown through the catalogue by kind, in the reader's language.
    _channel_create(office=office, kind=ChannelKind.MASTER, name="Master")
    _channel_create(office=office, kind=ChannelKind.ALL, name="All hands")
    return office


class NameTaken(ValueError):
    """A name a reader cannot tell from a colleague's; the message is for a person."""


def employee_name_check(*, office: Office, name: str, employee_id: int | None = None) -> None:
    """Refuse a name that looks like a colleague's ("Theo" spelt with Armenian letters
    beside "Theo"): @mentions and messages meant for one would reach the other."""
    taken = employee_look_alike(office_id=office.pk, name=name, exclude_id=employee_id)
    if taken is None:
        return
    if taken.name.casefold() == name.casefold():
        raise NameTaken(gettext("Someone in this office already has that name."))
    raise NameTaken(
        gettext(
            "Someone in this office already has that name: “%(name)s” looks the same as "
            "“%(colleague)s” on screen, and @mentions could not tell them apart. Choose "
            "another name."
        )
        % {"name": name, "colleague": taken.name}
    )


@transaction.atomic
def employee_hire(
    *, office: Office, name: str, role: str, persona: str, is_master: bool = False, model: str = ""
) -> Employee:
    """A new employee and their 1:1 channel, under a name no colleague's looks like."""
    Office.objects.select_for_update().filter(pk=office.pk).first()  # one hire at a time
    employee_name_check(office=office, name=name)
    employee = Employee.objects.create(
        office=office, name=name, role=role, persona=persona, is_master=is_master, model=model
    )
    _channel_create(office=office, kind=ChannelKind.DM, name=name, employee=employee)
    return employee


@transaction.atomic
def project_channel_create(
    *, office: Office, name: str, members: Iterable[Employee], lead: Employee
) -> Channel:
    member_list = list(members)
    if lead not in member_list:
        member_list.append(lead)
    foreign = [m for m in member_list if m.office_id != office.pk]
    if foreign:
        raise ValueError("project members must belong to the same office")
    channel = _channel_create(office=office, kind=ChannelKind.PROJECT, name=name, lead=lead)
    channel.members.set(member_list)
    return channel


@transaction.atomic
def office_create_with_team(*, owner: User, name: str, language: str | None = None) -> Office:
    """An office with the default team, one project channel and every channel they need,
    its roles, personas and project written in the office's language."""
    office = office_create(owner=owner, name=name, language=language)
    with translation.override(office.language):
        hired = [
            employee_hire(
                office=office,
                name=spec.name,
                role=str(spec.role),
                persona=str(spec.persona),
                is_master=spec.is_master,
            )
            for spec in DEFAULT_TEAM
        ]
        specialists = [e for e in hired if not e.is_master]
        project_channel_create(
            office=office, name=str(DEFAULT_PROJECT), members=specialists, lead=specialists[0]
        )
    return office


def office_open_for_user(*, user: User, language: str | None = None) -> Office:
    """The user's office, created with the default team if they have none yet (sign-up,
    or an account made by an operator), in `language`, else the person's own language,
    else the site's."""
    office = Office.objects.filter(owner=user).order_by("id").first()
    if office is not None:
        return office
    chosen = (
        language
        or Profile.objects.filter(user=user).values_list("language", flat=True).first()
        or default_language()
    )
    with translation.override(chosen):
        name = _("%(name)s's office") % {"name": user.get_username()}
    office = office_create_with_team(owner=user, name=str(name), language=chosen)
    # The owner runs their office in the admin too (scoped to their own offices, as every
    # staff member's view is), without being an operator.
    staff_access_grant(user=user)
    return office


@transaction.atomic
def employee_edit(
    *, employee: Employee, name: str, role: str, persona: str, model: str | None = None
) -> Employee:
    """Rename, re-brief or (with `model`, "" for the office's default) re-equip."""
    if name != employee.name:
        employee_name_check(office=employee.office, name=name, employee_id=employee.pk)
    employee.name, employee.role, employee.persona = name, role, persona
    fields = ["name", "role", "persona"]
    if model is not None:
        employee.model = model
        fields.append("model")
    employee.save(update_fields=fields)
    Channel.objects.filter(kind=ChannelKind.DM, employee=employee).update(name=name)
    return employee


@transaction.atomic
def employee_retire(*, employee: Employee) -> Employee:
    """Retired employees keep their history but take no new work: they leave their
    projects (and lose any lead), and their 1:1 channel becomes read-only. The chief of
    staff cannot be retired: the master channel needs someone to answer."""
    if employee.is_master:
        raise ValueError("The chief of staff cannot be retired.")
    employee.is_active = False
    employee.save(update_fields=["is_active"])
    # Their projects are flagged until someone is made lead (`project_edit`).
    Channel.objects.filter(lead=employee).update(lead=None, retired_lead=employee)
    employee.project_channels.clear()
    return employee


@transaction.atomic
def user_set_language(*, user: User, language: str) -> Profile:
    """The person's own interface language. The owner's choice is also their office's:
    the notices the office writes into its channels are in the owner's language."""
    profile, _ = Profile.objects.update_or_create(user=user, defaults={"language": language})
    Office.objects.filter(owner=user).update(language=language)
    return profile


@transaction.atomic
def office_edit(*, office: Office, name: str, language: str) -> Office:
    office.name, office.language = name, language
    office.save(update_fields=["name", "language"])
    return office


@transaction.atomic
def employee_set_model(*, employee: Employee, model: str) -> Employee:
    employee.model = model
    employee.save(update_fields=["model"])
    return employee


def project_archive(*, channel: Channel, archived: bool) -> Channel:
    """Put a project away (out of the sidebar, read-only) or bring it back. Its history,
    summaries and memory stay as they are."""
    if channel.kind != ChannelKind.PROJECT:
        raise ValueError("only a project is archived")
    channel.archived_at = (channel.archived_at or timezone.now()) if archived else None
    channel.save(update_fields=["archived_at"])
    return channel


@transaction.atomic
def channel_edit(
    *,
    channel: Channel,
    name: str,
    detail_budget_chars: int | None,
    lead: Employee | None = None,
    members: Iterable[Employee] | None = None,
) -> Channel:
    """Rename a channel, override its detail budget, and (projects) change lead and members."""
    channel.name = name
    channel.detail_budget_chars = detail_budget_chars
    fields = ["name", "detail_budget_chars"]
    if channel.kind == ChannelKind.PROJECT:
        member_list = list(members) if members is not None else list(channel.members.all())
        if lead is not None and lead not in member_list:
            member_list.append(lead)
        if any(m.office_id != channel.office_id for m in member_list):
            raise ValueError("project members must belong to the same office")
        channel.lead = lead
        fields.append("lead")
        if lead is not None:
            channel.retired_lead = None
            fields.append("retired_lead")
        channel.save(update_fields=fields)
        channel.members.set(member_list)
        return channel
    channel.save(update_fields=fields)
    return channel


@transaction.atomic
def project_edit(
    *, channel: Channel, name: str, lead: Employee, members: Iterable[Employee]
) -> Channel:
    """A project's name, lead and members (the lead is always a member). Giving it a lead
    clears the flag its retired lead left."""
    if channel.kind != ChannelKind.PROJECT:
        raise ValueError("only a project channel has a lead and members")
    member_list = list(members)
    if lead not in member_list:
        member_list.append(lead)
    if any(m.office_id != channel.office_id for m in member_list):
        raise ValueError("project members must belong to the same office")
    if any(not m.is_active or m.is_master for m in member_list):
        raise ValueError("project members are active employees other than the chief of staff")
    channel.name, channel.lead, channel.retired_lead = name, lead, None
    channel.save(update_fields=["name", "lead", "retired_lead"])
    channel.members.set(member_list)
    return channel


OFFICE_STAFF_GROUP = "Office staff"
# What an office's own staff may do in the admin (always within their own offices): read
# everything the office holds, edit the team, channels and memory, roll back and re-fold
# summaries, re-queue missions. Nothing here reaches another office: the admin scopes
# every row to the offices the user owns.
OFFICE_STAFF_PERMISSIONS: tuple[str, ...] = (
    "office.view_office",
    "office.change_office",
    "office.view_employee",
    "office.add_employee",
    "office.change_employee",
    "office.view_channel",
    "office.change_channel",
    "chat_sessions.view_chatsession",
    "missions.view_mission",
    "missions.view_message",
    "missions.view_attachment",
    "missions.delete_attachment",
    "summaries.view_rollingsummary",
    "summaries.change_rollingsummary",
    "summaries.view_summaryrevision",
    "memory.view_memoryitem",
    "memory.add_memoryitem",
    "memory.change_memoryitem",
)


@transaction.atomic
def staff_access_grant(*, user: User) -> Group:
    """Make `user` staff of their own offices in the admin (the group above)."""
    group, _ = Group.objects.get_or_create(name=OFFICE_STAFF_GROUP)
    wanted = [name.split(".", 1) for name in OFFICE_STAFF_PERMISSIONS]
    permissions = Permission.objects.filter(
        content_type__app_label__in={app for app, _ in wanted},
        codename__in={codename for _, codename in wanted},
    ).select_related("content_type")
    found = [p for p in permissions if [p.content_type.app_label, p.codename] in wanted]
    if len(found) != len(wanted):
        missing = set(OFFICE_STAFF_PERMISSIONS) - {
            f"{p.content_type.app_label}.{p.codename}" for p in found
        }
        raise LookupError(f"permissions missing (run migrate first): {sorted(missing)}")
    group.permissions.set(found)
    if not user.is_staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    user.groups.add(group)
    return group


def channel_mute_set(*, user: User, channel: Channel, muted: bool) -> bool:
    """Mute or unmute a channel for this person; returns whether it is muted now.
    Twice the same is the same (a double click, two tabs)."""
    if muted:
        ChannelMute.objects.get_or_create(user=user, channel=channel)
    else:
        ChannelMute.objects.filter(user=user, channel=channel).delete()
    return muted


def user_set_time_zone(*, user: User, time_zone: str) -> Profile:
    """The person's time zone (an IANA name; blank: the browser's). ValueError for a name
    the time zone database does not know."""
    if time_zone and not time_zone_known(time_zone):
        raise ValueError(gettext("Unknown time zone."))
    profile, _ = Profile.objects.update_or_create(user=user, defaults={"time_zone": time_zone})
    return profile
