"""Who answers an instruction, by channel kind (docs/design.md §2, README "Who answers").

- dm: that employee.
- master: the master employee (chief of staff). Each other employee named with @name gets
  a delegated child mission in their 1:1 channel holding the part of the instruction
  addressed to them (`addressed_parts`); with nobody named, the chief of staff's model may
  plan by tool call (missions.delegation). Either way one synthesis answers here.
- all: the first employee named with @name answers; with nobody named, the master
  employee answers for the team.
- project: the first member named with @name; otherwise the project lead. An instruction
  that starts with "Meeting notes" turns each line "@name: task" into a follow-up mission
  in that employee's 1:1 channel.

In every channel an @name that is no active employee's is listed in `Route.unknown`, so
the person is told rather than met with silence. An @ inside a word (an e-mail address)
is no mention.
"""

import re
from dataclasses import dataclass, field

from language.names import name_skeleton
from missions.models import MissionSource
from office.models import Channel, ChannelKind, Employee

MENTION = re.compile(r"(?<![\w.@])@([\w.-]+)", re.UNICODE)
# Linear in the text (issue 42): no run of whitespace is read again from each of its
# characters (a line starts after its own indent, whitespace is taken whole, a task ends
# at its last non-space character).
FOLLOW_UP_LINE = re.compile(
    r"^[^\S\n]*(?:[-*•]\s*)?(?<![\w.@])@([\w.-]+)(?:\s*+[:,-])?\s++(.+?)(?<!\s)[^\S\n]*+$",
    re.MULTILINE,
)
# Korean particles written straight after a name ("@Iris에게", "@지민님은"); a run is read
# from its first syllable only.
_HANGUL_TAIL = re.compile(r"(?<![\uac00-\ud7a3])[\uac00-\ud7a3]+$")
_SENTENCE_END = re.compile(r"(?<=[.!?。？！])\s+|\n+")
# What may stand between two mentions without being a task of its own.
_JOINER = re.compile(
    r"^[\s,;:&/+\-–—]*+(?:(?:and|or|plus|그리고|및|와|과|랑|하고)[\s,;:&/+\-–—]*+)?$", re.IGNORECASE
)
# A trailing "and": read from the start of its run of separators only (from each space of
# a long run, it would read the rest of the run each time).
_TRAILING_JOINER = re.compile(
    r"(?<![\s,;])[\s,;]++(?:(?:and|or|그리고|및)[\s,;]*+)?$", re.IGNORECASE
)
_LEAD = re.compile(r"^[\s,;:\-–—]+")
_BULLET = re.compile(r"^\s*[-*•]\s*")
# Meeting notes, in English or Korean ("회의록", "회의 노트", "회의 메모").
MEETING_PREFIX = re.compile(
    r"^\s*(?:/meeting\b|meeting notes\b|회의록|회의\s*(?:노트|메모))", re.IGNORECASE
)

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
    # (employee, the part of the instruction addressed to them)
    delegations: list[tuple[Employee, str]] = field(default_factory=list)
    followups: list[tuple[Employee, str]] = field(default_factory=list)
    # Names written with @ that are no active employee's, as written (each once).
    unknown: list[str] = field(default_factory=list)


def _by_name(employees: list[Employee]) -> dict[str, Employee]:
    """Employees by how their name looks (language.names: UTS #39 skeletons), so that
    "@Theo" spelt with Armenian letters reaches whoever "@Theo" reaches: of names that
    look alike (hired before hiring refused them), the first hired."""
    names: dict[str, Employee] = {}
    for employee in sorted(employees, key=lambda e: e.pk):
        names.setdefault(name_skeleton(employee.name), employee)
    return names


def resolve_mention(token: str, names: dict[str, Employee]) -> tuple[Employee | None, str]:
    """The employee an @token names (a Korean particle after the name is allowed), and
    the name as the person meant it."""
    token = token.rstrip(".-")
    for end in range(len(token), 0, -1):
        head, rest = token[:end], token[end:]
        if rest and not _HANGUL_TAIL.fullmatch(rest):
            continue
        employee = names.get(name_skeleton(head))
        if employee is not None:
            return employee, head
    stripped = _HANGUL_TAIL.sub("", token)
    return None, stripped or token


def mentioned(text: str, employees: list[Employee]) -> list[Employee]:
    """Employees named with @name, in order, each once."""
    names = _by_name(employees)
    found: list[Employee] = []
    for token in MENTION.findall(text):
        employee, _ = resolve_mention(token, names)
        if employee is not None and employee not in found:
            found.append(employee)
    return found


def unknown_mentions(text: str, employees: list[Employee]) -> list[str]:
    """Names written with @ that are no active employee's, as written, each once."""
    names = _by_name(employees)
    unknown: list[str] = []
    for token in MENTION.findall(text):
        employee, name = resolve_mention(token, names)
        if employee is None and name and name.lower() not in (u.lower() for u in unknown):
            unknown.append(name)
    return unknown


def addressed_parts(text: str, employees: list[Employee]) -> list[tuple[Employee, str]]:
    """Per employee named with @name (in order, each once), the part of `text` addressed
    to them: the sentence that names only them (without a leading "@name:"), or, where a
    sentence names several, the words after their name up to the next name; names
    written side by side share the words that follow ("@Iris @Theo review the plan").
    Someone named with nothing addressed to them gets the whole text."""
    names = _by_name(employees)
    parts: dict[int, list[str]] = {}
    order: list[Employee] = []
    for sentence in _SENTENCE_END.split(text):
        sentence = _BULLET.sub("", sentence).strip()
        if not sentence:
            continue
        hits = []
        for match in MENTION.finditer(sentence):
            employee, _ = resolve_mention(match.group(1), names)
            hits.append((match, employee))
        known = [(m, e) for m, e in hits if e is not None]
        if not known:
            continue
        if len(hits) == 1:
            match, employee = known[0]
            part = sentence
            if match.start() == 0:
                part = _LEAD.sub("", sentence[match.end() :])
            segments: list[tuple[Employee | None, str]] = [(employee, part.strip())]
        else:
            segments = []
            for index, (match, employee) in enumerate(hits):
                end = hits[index + 1][0].start() if index + 1 < len(hits) else len(sentence)
                segments.append((employee, sentence[match.end() : end]))
            # Names side by side share the next words; a trailing joiner is dropped.
            shared = ""
            filled: list[tuple[Employee | None, str]] = []
            for employee, segment in reversed(segments):
                if _JOINER.fullmatch(segment):
                    segment = shared
                else:
                    segment = _LEAD.sub("", segment).strip()
                    segment = _TRAILING_JOINER.sub("", segment)
                    shared = segment
                filled.append((employee, segment))
            segments = list(reversed(filled))
        for employee, part in segments:
            if employee is None:
                continue
            if employee not in order:
                order.append(employee)
            if part:
                parts.setdefault(employee.pk, []).append(part)
    return [(e, " ".join(parts.get(e.pk, [])) or text.strip()) for e in order]


def route_instruction(*, channel: Channel, text: str, employees: list[Employee]) -> Route:
    """`employees` are the office's active employees."""
    source = SOURCE_FOR_KIND[ChannelKind(channel.kind)]
    master = next((e for e in employees if e.is_master), None)
    unknown = unknown_mentions(text, employees)
    if channel.kind == ChannelKind.DM:
        assert channel.employee is not None
        return Route(assignee=channel.employee, source=source, unknown=unknown)
    named = mentioned(text, employees)
    if channel.kind == ChannelKind.MASTER:
        assert master is not None, "an office always has a master employee"
        delegations = [(e, part) for e, part in addressed_parts(text, employees) if not e.is_master]
        return Route(assignee=master, source=source, delegations=delegations, unknown=unknown)
    if channel.kind == ChannelKind.ALL:
        assert master is not None, "an office always has a master employee"
        return Route(assignee=named[0] if named else master, source=source, unknown=unknown)
    members = [e for e in channel.members.all() if e.is_active]
    named_members = [e for e in named if e in members]
    assignee = named_members[0] if named_members else (channel.lead or master)
    assert assignee is not None
    route = Route(assignee=assignee, source=source, unknown=unknown)
    if MEETING_PREFIX.match(text):
        names = _by_name(employees)
        for name, task in FOLLOW_UP_LINE.findall(text):
            employee, _ = resolve_mention(name, names)
            if employee is not None:
                route.followups.append((employee, task))
    return route
