"""The history the model may look things up in (docs/design.md §3): with a provider that
calls tools, every mission is offered `search_history` (the same search the person's
search page uses, over this channel's or the whole office's finished missions) and
`read_mission` (one of them in full, up to READ_MAX_CHARS). The prompt already holds what
recall judged relevant; these are for what it could not foresee ("what did we pay the
printer in spring?").

Each call the model makes is answered here, in this process, and shown in the chat as an
event of the office ("Theo searched the history for …: #12, #40"), so the person sees
what the answer rests on. The rounds' tokens are the mission's (the cost view counts the
calls beside them)."""

import json
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from context.finding import mission_search
from llm.base import ChatMessages, Tool, ToolCall, Usage
from missions.models import ANSWERED, MessageKind, Mission
from missions.texts import office_text
from missions.timeline import message_post
from office.models import Channel

SEARCH = "search_history"
READ = "read_mission"
NAMES = frozenset({SEARCH, READ})
# Hits a search returns to the model, and the chars of each excerpt.
SEARCH_HITS = 6
EXCERPT_CHARS = 400
# A mission read in full is cut at this many chars (its head and its end kept: a long
# reply's conclusion is at its end).
READ_MAX_CHARS = 6_000
QUERY_MAX_CHARS = 300
# An event names at most this many of the missions a search found.
EVENT_HITS = 5


def history_tools() -> list[Tool]:
    return [
        Tool(
            name=SEARCH,
            description=(
                "Search the office's earlier finished missions (instructions and replies) "
                "for something the conversation above does not show. Returns the best "
                "matches with their ids and excerpts; read one in full with read_mission."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "What to look for, in the words a message would use.",
                    },
                    "scope": {
                        "type": "string",
                        "enum": ["channel", "office"],
                        "description": "This channel only, or every channel of the office.",
                    },
                },
                "required": ["query", "scope"],
                "additionalProperties": False,
            },
        ),
        Tool(
            name=READ,
            description="Read one earlier mission of the office in full, by its id.",
            parameters={
                "type": "object",
                "properties": {"id": {"type": "integer", "description": "The mission's id."}},
                "required": ["id"],
                "additionalProperties": False,
            },
        ),
    ]


def offered(*, provider_calls_tools: bool) -> bool:
    """Whether a reply is offered the history tools: with a provider that calls tools
    (not the offline one), unless HISTORY_TOOL_ROUNDS is 0."""
    return provider_calls_tools and settings.HISTORY_TOOL_ROUNDS > 0


@dataclass
class Round:
    """What the model said and asked in one round that called history tools."""

    text: str
    calls: list[ToolCall]


def is_lookup(calls: list[ToolCall]) -> bool:
    """Whether a round's calls are history look-ups (then the model is asked again)."""
    return bool(calls) and any(c.name in NAMES for c in calls)


def answer_round(*, mission: Mission, messages: ChatMessages, round: Round) -> ChatMessages:
    """The messages for the next request: the model's calls and an answer to each (a
    call of another tool in the same round is answered that it was not run)."""
    results = [_answer(mission, call) for call in round.calls]
    return [
        *messages,
        {
            "role": "assistant",
            "content": round.text or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in round.calls
            ],
        },
        *(
            {"role": "tool", "tool_call_id": call.id, "content": result}
            for call, result in zip(round.calls, results, strict=True)
        ),
    ]


def add_usage(total: Usage, more: Usage) -> None:
    total.prompt_tokens += more.prompt_tokens
    total.cached_tokens += more.cached_tokens
    total.completion_tokens += more.completion_tokens


def _arguments(call: ToolCall) -> dict[str, Any] | None:
    try:
        value = json.loads(call.arguments or "{}")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _answer(mission: Mission, call: ToolCall) -> str:
    arguments = _arguments(call)
    if call.name not in NAMES:
        return _json({"error": f"{call.name[:40]} was not run: search first, then call it again."})
    if arguments is None:
        return _json({"error": "The arguments are not a JSON object."})
    if call.name == SEARCH:
        return _search(mission, arguments)
    return _read(mission, arguments)


def _search(mission: Mission, arguments: dict[str, Any]) -> str:
    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip():
        return _json({"error": "query must be non-empty text."})
    query = query.strip()[:QUERY_MAX_CHARS]
    whole_office = arguments.get("scope") == "office"
    office = mission.channel.office
    channels = set(Channel.objects.filter(office_id=office.pk).values_list("pk", flat=True))
    hits = [
        h
        for h in mission_search(
            user=office.owner,
            text=query,
            limit=SEARCH_HITS * 3,
        )
        if h.mission != mission.pk
        and h.channel in channels
        and (whole_office or h.channel == mission.channel_id)
    ][:SEARCH_HITS]
    _show(
        mission,
        "looked_up",
        query=query,
        found=[f"#{h.label or h.seq}" for h in hits[:EVENT_HITS]],
        more=max(0, len(hits) - EVENT_HITS),
    )
    return _json(
        {
            "results": [
                {
                    "id": h.mission,
                    "number": f"#{h.label or h.seq}",
                    "session": h.session_number,
                    "employee": h.assignee,
                    "date": h.created_at.date().isoformat(),
                    "instruction": h.title[:EXCERPT_CHARS],
                    "excerpt": h.excerpt[:EXCERPT_CHARS],
                }
                for h in hits
            ]
        }
    )


def _read(mission: Mission, arguments: dict[str, Any]) -> str:
    wanted = arguments.get("id")
    if isinstance(wanted, str) and wanted.strip().lstrip("#").isdigit():
        wanted = int(wanted.strip().lstrip("#"))
    if not isinstance(wanted, int) or isinstance(wanted, bool) or wanted < 1:
        return _json({"error": "id must be a mission id from search_history."})
    found = (
        Mission.objects.filter(
            pk=wanted, channel__office_id=mission.channel.office_id, status__in=ANSWERED
        )
        .exclude(pk=mission.pk)
        .select_related("assignee", "session")
        .first()
    )
    if found is None:
        return _json({"error": f"No finished mission {wanted} in this office."})
    _show(mission, "read_back", number=f"#{found.label or found.seq}")
    return _json(
        {
            "id": found.pk,
            "number": f"#{found.label or found.seq}",
            "session": found.session.number,
            "employee": found.assignee.name,
            "date": found.created_at.date().isoformat(),
            "instruction": _cut(found.instruction),
            "reply": _cut(found.reply),
        }
    )


def _cut(text: str, limit: int = READ_MAX_CHARS // 2) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]}\n[… {len(text) - limit:,} chars left out …]\n{text[-tail:]}"


def _show(mission: Mission, kind: str, **params: Any) -> None:
    """The call as an event of the mission in its channel, in the reader's language."""
    message_post(
        channel_id=mission.channel_id,
        session_id=mission.session_id,
        kind=MessageKind.EVENT,
        payload={"event": "lookup", "tool": kind},
        office_text=office_text(kind, employee=mission.assignee.name, **params),
        mission=mission,
    )


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)
