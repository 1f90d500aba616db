"""Starting a plan: the chief of staff hands parts of a master-channel instruction to
colleagues. The parts come from @mentions (deterministic, every provider; see
missions.dispatch.addressed_parts) or from the model's `delegate` tool calls (the OpenAI
provider, when nobody is named). Each part becomes a delegated mission in that
colleague's 1:1 channel holding only its own task, shown there as from the chief of
staff in the master channel, with a link back. Delegates cannot delegate (depth 1):
only a master-channel mission is offered the tool."""

import json
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext, pgettext

from llm.base import Tool, ToolCall
from missions.creation import mission_after_accept, mission_create
from missions.lifecycle import mission_complete
from missions.models import InstructionAuthor, MessageKind, Mission, MissionSource
from missions.plans import plan_send_on_commit
from missions.ratelimit import instruction_allowed
from missions.selectors import delegate_url
from missions.texts import office_text
from missions.timeline import message_post
from office.models import Channel, ChannelKind, Employee
from sessions.services import session_get_or_open_current

DELEGATE = "delegate"
TASK_MAX_CHARS = 4000


class PlanRejected(Exception):
    """A plan that cannot start; `code` is stable, `message` is for a person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Delegation:
    employee: Employee
    task: str
    expected_output: str = ""
    # The part in the person's own words (an "@name: task" line), or a brief the chief of
    # staff wrote (a tool call).
    written_by_office: bool = True


def delegate_tool(*, colleagues: list[Employee]) -> Tool:
    """The `delegate` function the chief of staff's model may call, once per part."""
    return Tool(
        name=DELEGATE,
        description=(
            "Hand one part of the person's instruction to a colleague, who does it in "
            "their own 1:1 channel; once every part is done you sum the results up for "
            "the person. Call it once per colleague who should help (at most "
            f"{settings.MAX_DELEGATES}); answer directly instead if nobody needs to."
        ),
        parameters={
            "type": "object",
            "properties": {
                "employee": {
                    "type": "string",
                    "enum": [c.name for c in colleagues],
                    "description": "The colleague's name.",
                },
                "task": {
                    "type": "string",
                    "description": "Their part only, written so they can act on it alone.",
                },
                "expected_output": {
                    "type": "string",
                    "description": "What they should hand back.",
                },
            },
            "required": ["employee", "task", "expected_output"],
            "additionalProperties": False,
        },
    )


def delegations_from_tool_calls(
    *, calls: list[ToolCall], colleagues: list[Employee]
) -> list[Delegation]:
    """The delegations the model asked for, validated; any bad call refuses the plan
    whole (a half plan would be summed up as if it were the whole)."""
    by_name = {c.name.lower(): c for c in colleagues}
    if len(calls) > settings.MAX_DELEGATES:
        raise PlanRejected(
            "too_many_delegates",
            gettext(
                "The plan delegates {count} parts; at most {most} are allowed. Retry, or "
                "name the people with @ to choose them yourself."
            ).format(count=len(calls), most=settings.MAX_DELEGATES),
        )
    delegations: list[Delegation] = []
    for number, call in enumerate(calls, start=1):
        where = gettext("Delegation {number} of the plan").format(number=number)
        if call.name != DELEGATE:
            raise PlanRejected(
                "bad_plan",
                gettext("{where} calls an unknown tool ({tool}).").format(
                    where=where, tool=repr(call.name[:40])
                ),
            )
        try:
            arguments = json.loads(call.arguments or "{}")
        except ValueError:
            raise PlanRejected(
                "bad_plan", gettext("{where} is not valid JSON.").format(where=where)
            ) from None
        if not isinstance(arguments, dict):
            raise PlanRejected("bad_plan", gettext("{where} is not an object.").format(where=where))
        name, task = arguments.get("employee"), arguments.get("task")
        expected = arguments.get("expected_output") or ""
        if not isinstance(name, str) or not isinstance(task, str) or not task.strip():
            raise PlanRejected(
                "bad_plan", gettext("{where} lacks an employee or a task.").format(where=where)
            )
        if not isinstance(expected, str):
            raise PlanRejected(
                "bad_plan",
                gettext("{where} has an expected_output that is not text.").format(where=where),
            )
        employee = by_name.get(name.strip().lstrip("@").lower())
        if employee is None:
            raise PlanRejected(
                "bad_plan",
                gettext("{where} names {name}, who is not an active colleague.").format(
                    where=where, name=repr(name[:80])
                ),
            )
        if any(d.employee == employee for d in delegations):
            raise PlanRejected(
                "bad_plan",
                gettext("{where} gives {name} a second part.").format(
                    where=where, name=employee.name
                ),
            )
        delegations.append(
            Delegation(
                employee=employee,
                task=task.strip()[:TASK_MAX_CHARS],
                expected_output=expected.strip()[:TASK_MAX_CHARS],
            )
        )
    return delegations


def plan_charge(*, plan: Mission, count: int) -> None:
    """Count a model-made plan's delegations against the rate limit of the person who
    asked (the office owner's for an instruction of no one's: an import, a replay).
    Delegations from @mentions are counted when the instruction is accepted."""
    payer = plan.requested_by_id or plan.channel.office.owner_id
    verdict = instruction_allowed(user_id=payer, cost=count)
    if not verdict.allowed:
        raise PlanRejected(
            "rate_limited",
            gettext(
                "The plan would start {count} missions, over your instruction limit; retry in "
                "{seconds} s."
            ).format(count=count, seconds=verdict.retry_after),
        )


def plan_text(delegations: list[Delegation]) -> str:
    return "\n".join(f"- {d.employee.name}: {d.task}" for d in delegations)


@transaction.atomic
def plan_start(
    *,
    plan: Mission,
    delegations: list[Delegation],
    preface: str = "",
    prompt_chars: int = 0,
    prompt_tokens: int = 0,
    cached_tokens: int = 0,
    completion_tokens: int = 0,
    run_token: str | None = None,
) -> list[Mission]:
    """Delegate the parts and finish the plan mission with the plan as its reply (plus
    what the model said beside its calls). Returns the delegated missions; they run in
    parallel in the replies lane. With `run_token`, only if that run still holds the
    plan mission (a run the sweeper gave up on delegates nothing)."""
    # The plan's reply is what the office writes: in the office's language.
    with translation.override(plan.channel.office.language):
        heading = pgettext("a plan's reply", "Plan:")
    reply = ((preface.strip() + "\n\n") if preface.strip() else "") + heading + "\n"
    reply += plan_text(delegations)
    if (
        mission_complete(
            mission=plan,
            reply=reply,
            prompt_chars=prompt_chars,
            prompt_tokens=prompt_tokens,
            cached_tokens=cached_tokens,
            completion_tokens=completion_tokens,
            run_token=run_token,
            is_plan=True,
        )
        is None
    ):
        return []
    # The card the page draws the plan into (the text is what a client without it shows).
    message_post(
        channel_id=plan.channel_id,
        session_id=plan.session_id,
        mission=plan,
        kind=MessageKind.EVENT,
        office_text=office_text(
            "plan",
            seq=plan.seq,
            label=plan.label,
            parts=[{"employee": d.employee.name, "task": d.task[:80]} for d in delegations],
        ),
        payload={"event": "plan", "plan": plan.pk, "seq": plan.seq, "label": plan.label},
    )
    # Registered before the delegated missions are queued: the card appears with every
    # part queued, then follows each one.
    plan_send_on_commit(plan.pk)
    return [_delegate(plan=plan, delegation=d) for d in delegations]


def _delegate(*, plan: Mission, delegation: Delegation) -> Mission:
    channel = Channel.objects.get(kind=ChannelKind.DM, employee=delegation.employee)
    session = session_get_or_open_current(channel=channel)
    child, _ = mission_create(
        session=session,
        assignee=delegation.employee,
        source=MissionSource.DELEGATION,
        instruction=delegation.task,
        instruction_author=(
            InstructionAuthor.OFFICE if delegation.written_by_office else InstructionAuthor.PERSON
        ),
        expected_output=delegation.expected_output,
        parent=plan,
        payload={
            "delegated_by": plan.assignee.name,
            "from_channel": plan.channel_id,
            "from_url": delegate_url(plan),
            "plan": plan.pk,
            "expected_output": delegation.expected_output,
        },
    )
    mission_after_accept(child)
    return child
