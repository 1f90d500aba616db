"""What the office itself says in a timeline (errors, events, notices), stored as data: a
kind and its parameters (`Message.office_text`, e.g. {"kind": "could_not_answer",
"employee": "Theo", "error": "…"}), rendered through the translation catalogue in the
reader's language whenever it is shown: the page, the JSON API and the socket's frames.

Parameters are what the office did not write (a name, a provider's error, an excerpt of a
reply): they are shown as they were written. A kind this version does not know, and an
entry from before texts were data that could not be read back (`legacy`), show the
message's stored text."""

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext, gettext_noop

from missions.models import Message, MissionSource

LEGACY = "legacy"

# The catalogue's msgids, python-brace-format: the parameters of each kind fill them.
COULD_NOT_ANSWER = gettext_noop("{employee} could not answer: {error}")
REPORTED_BACK = gettext_noop("{employee} reported back: {excerpt}")
FOLLOW_UP = gettext_noop("Follow-up for {employee}: {task}")
UNKNOWN_MENTION = gettext_noop("No one called @{name} works here.")
PLAN = gettext_noop("Plan of mission #{seq}: {parts}")
PLAN_PART = gettext_noop("{employee}: {task}")
SYNTHESIS_STARTED = gettext_noop("{employee} is putting the team's results together.")
DELAYED = gettext_noop(
    "Delayed: {employee} will answer as soon as the task queue is reachable again. Your "
    "instruction is saved."
)
LONG_SESSION_NOTICE = gettext_noop(
    "💡 This conversation has grown long. If the topic has changed, we recommend starting "
    "a new session: answers get more accurate and AI costs drop. If you continue, the "
    "earlier flow is kept as a summary."
)
START_NEW_SESSION = gettext_noop("Start new session")
# The model looked something up in the history (missions.lookup).
LOOKED_UP = gettext_noop("{employee} searched the history for “{query}”: {found}")
LOOKED_UP_MORE = gettext_noop("{found} and {more} more")
LOOKED_UP_NOTHING = gettext_noop("nothing found")
READ_BACK = gettext_noop("{employee} read mission {number} again")
# A synthesis's title wherever a mission is listed by its instruction (search, cost): its
# instruction is the office's brief to the model, never shown to the person.
SYNTHESIS_TITLE = gettext_noop("The team's results for #{plan}, summed up")


def _fill(msgid: str, **params: Any) -> str:
    return gettext(msgid).format(**params)


def _plan(p: dict[str, Any]) -> str:
    parts = "; ".join(_fill(PLAN_PART, employee=x["employee"], task=x["task"]) for x in p["parts"])
    # {seq} shows the plan's label (the number the person sees); a plan stored before
    # labels has only its seq.
    return _fill(PLAN, seq=p.get("label", p["seq"]), parts=parts)


def _looked_up(p: dict[str, Any]) -> str:
    found = ", ".join(p["found"]) or gettext(LOOKED_UP_NOTHING)
    if p.get("more"):
        found = _fill(LOOKED_UP_MORE, found=found, more=p["more"])
    return _fill(LOOKED_UP, employee=p["employee"], query=p["query"], found=found)


_RENDER: dict[str, Callable[[dict[str, Any]], str]] = {
    "could_not_answer": lambda p: _fill(COULD_NOT_ANSWER, employee=p["employee"], error=p["error"]),
    "reported_back": lambda p: _fill(REPORTED_BACK, employee=p["employee"], excerpt=p["excerpt"]),
    "follow_up": lambda p: _fill(FOLLOW_UP, employee=p["employee"], task=p["task"]),
    "unknown_mention": lambda p: " ".join(_fill(UNKNOWN_MENTION, name=n) for n in p["names"]),
    "plan": _plan,
    "synthesis_started": lambda p: _fill(SYNTHESIS_STARTED, employee=p["employee"]),
    "delayed": lambda p: _fill(DELAYED, employee=p["employee"]),
    "long_session": lambda p: gettext(LONG_SESSION_NOTICE),
    "looked_up": _looked_up,
    "read_back": lambda p: _fill(READ_BACK, employee=p["employee"], number=p["number"]),
}
KINDS = frozenset(_RENDER)


def office_text(kind: str, **params: Any) -> dict[str, Any]:
    """The stored form of one thing the office says."""
    assert kind in KINDS, kind
    return {"kind": kind, **params}


def office_text_render(data: dict[str, Any], *, stored: str = "") -> str:
    """The text in the active language; `stored` for a legacy or unknown kind (or
    parameters this version cannot read)."""
    render = _RENDER.get(str(data.get("kind", "")))
    if render is None:
        return stored
    try:
        return render(data)
    except (KeyError, TypeError, ValueError):
        return stored


def message_text(message: Message) -> str:
    """A timeline entry's text as its reader sees it, in the active language."""
    if message.office_text:
        return office_text_render(message.office_text, stored=message.text)
    return message.text


def mission_title(*, source: str, instruction: str, plan_label: str | None) -> str:
    """What a listed mission is called, in the active language: the person's instruction
    (or a delegated part, as written), and for a synthesis what it is (its instruction
    is the office's internal brief to the model). `plan_label` is the number of the
    mission it sums up."""
    if source == MissionSource.SYNTHESIS:
        return _fill(SYNTHESIS_TITLE, plan=plan_label or "?")
    return instruction


def action_label(action: dict[str, Any]) -> str:
    """The label of an action a message offers (the notice's "start new session")."""
    if action.get("type") == "session.new":
        return gettext(START_NEW_SESSION)
    return str(action.get("label", ""))
