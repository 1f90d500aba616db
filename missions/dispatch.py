"""Who answers an instruction, by channel kind (DESIGN.md §2, README "Routing").

- dm: that employee.
- master: the master employee (chief of staff). Each other employee named with @name gets
  a delegated child mission in their 1:1 channel; its result is reported back here.
- all: the first employee named with @name answers; with nobody named, the master
  employee answers for the team.
- project: the first member named with @name; otherwise the project lead. An instruction
  that starts with "Meeting notes" turns each line "@name: task" into a follow-up mission
  in that employee's 1:1 channel.
"""

import re
from dataclasses import dataclass, field

from missions.models import MissionSource
from office.models import Channel, ChannelKind, Employee

MENTION = re.compile(r"@([\w.-]+)", re.UNICODE)
FOLLOW_UP_LINE = re.compile(r"^\s*(?:[-*•]\s*)?@([\w.-]+)\s*[:,-]?\s+(.+?)\s*$", re.MULTILINE)
MEETING_PREFIX = re.compile(r"^\s*(?:/meeting\b|meeting notes\b)", re.IGNORECASE)

SOURCE_FOR_KIND = {
    ChannelKind.DM: MissionSource.DM,
    ChannelKind.MASTER: MissionSource.MASTER,
    ChannelKind.ALL: MissionSource.ALL,
    ChannelKind.PROJECT: MissionSource.PROJECT,
}


@dataclass
class Route:
    assignee: Employee
    source: str
    delegations: list[Employee] = field(default_factory=list)
    followups: list[tuple[Employee, str]] = field(default_factory=list)


def _by_name(employees: list[Employee]) -> dict[str, Employee]:
    return {e.name.lower(): e for e in employees}


def mentioned(text: str, employees: list[Employee]) -> list[Employee]:
    """Employees named with @name, in order, each once."""
    names = _by_name(employees)
    found: list[Employee] = []
    for name in MENTION.findall(text):
        employee = names.get(name.lower().rstrip(".-"))
        if employee is not None and employee not in found:
            found.append(employee)
    return found


def route_instruction(*, channel: Channel, text: str, employees: list[Employee]) -> Route:
    """`employees` are the office's active employees."""
    source = SOURCE_FOR_KIND[ChannelKind(channel.kind)]
    master = next((e for e in employees if e.is_master), None)
    if channel.kind == ChannelKind.DM:
        assert channel.employee is not None
        return Route(assignee=channel.employee, source=source)
    named = mentioned(text, employees)
    if channel.kind == ChannelKind.MASTER:
        assert master is not None, "an office always has a master employee"
        return Route(
            assignee=master, source=source, delegations=[e for e in named if not e.is_master]
        )
    if channel.kind == ChannelKind.ALL:
        assert master is not None, "an office always has a master employee"
        return Route(assignee=named[0] if named else master, source=source)
    members = [e for e in channel.members.all() if e.is_active]
    named_members = [e for e in named if e in members]
    assignee = named_members[0] if named_members else (channel.lead or master)
    assert assignee is not None
    route = Route(assignee=assignee, source=source)
    if MEETING_PREFIX.match(text):
        names = _by_name(employees)
        for name, task in FOLLOW_UP_LINE.findall(text):
            employee = names.get(name.lower())
            if employee is not None:
                route.followups.append((employee, task))
    return route
