"""Answering a mission: assemble its context, stream the reply, save it."""

import logging
import time
import uuid
import zoneinfo
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import F, Q
from django.utils import timezone, translation
from django.utils.translation import gettext

from config.prepared import PreparedUpdate, prepared
from context.selectors import context_for_mission
from llm.base import ChatMessages, ProviderError, Tool, Usage
from llm.gateway import default_model, get_provider
from memory.services import memory_mark_used
from missions.attachments import model_takes_images, with_images
from missions.delegation import (
    PlanRejected,
    delegate_tool,
    delegations_from_tool_calls,
    plan_charge,
    plan_start,
)
from missions.heartbeat import beating, hold_confirmed, stop_asked, stopping
from missions.lifecycle import mission_complete, mission_fail, mission_save_stopped
from missions.lookup import NAMES as LOOKUP_TOOLS
from missions.lookup import Round, add_usage, answer_round, history_tools, is_lookup
from missions.lookup import offered as lookup_offered
from missions.models import Mission, MissionSource, MissionStatus
from missions.plans import plan_send, synthesis_footer
from missions.slots import reply_slot, slot_lent
from office.models import ChannelKind, Employee, Profile
from office.selectors import time_zone_known
from push.events import send_frame
from push.frames import ReplyDeltaFrame

logger = logging.getLogger(__name__)

# Seconds between reply.delta frames of one reply.
DELTA_INTERVAL = 0.05


@contextmanager
def _waiting_for_model() -> Iterator[None]:
    """While the model thinks (seconds, and many replies at once), a reply holds neither a
    database connection nor a reply slot (missions.slots); saving the reply takes both
    again. A SQLite connection is a file handle, not a pooled server connection: reopening
    it would cost more than keeping it."""
    if connection.vendor != "sqlite" and not connection.in_atomic_block:
        connection.close()
    with slot_lent():
        yield


def _claim(take_over: bool) -> PreparedUpdate:
    claimable = Q(status=MissionStatus.QUEUED)

    def build(*, mission_id: int, run_token: str, now: datetime) -> Any:
        condition = (
            claimable | Q(status=MissionStatus.RUNNING, run_token=run_token)
            if take_over
            else claimable
        )
        values = {
            "status": MissionStatus.RUNNING,
            "started_at": now,
            "heartbeat_at": now,
            "attempts": F("attempts") + 1,
            "run_token": run_token,
        }
        return Mission.objects.filter(condition, pk=mission_id), values

    return PreparedUpdate(build)


# A queued mission; or, for a delivery that names its run, the mission that run held
# (the same delivery again after its worker was killed). Compiled once per connection
# with settings.COMPILED_QUERIES.
_CLAIM = _claim(take_over=False)
_CLAIM_OR_TAKE_OVER = _claim(take_over=True)


def mission_run(*, mission_id: int, run_token: str = "") -> None:
    """Answer a queued mission.

    Claimed with a conditional update, so a duplicate delivery of the task is a no-op;
    the same delivery redelivered (its worker was killed) takes the mission over. Only
    the run holding the mission may finish it, and it stamps a heartbeat while it runs."""
    claim = _CLAIM_OR_TAKE_OVER if run_token else _CLAIM
    run_token = run_token or uuid.uuid4().hex
    with reply_slot():
        claimed = claim(mission_id=mission_id, run_token=run_token, now=timezone.now())
        if not claimed:
            return
        with beating(mission_id, run_token):
            _answer(mission_id=mission_id, run_token=run_token)


# The mission with what its context starts from: session, channel, office, assignee, and
# the owner's profile (the time zone the office's times are written in).
_WITH_CONTEXT = prepared(
    lambda *, mission_id: Mission.objects.select_related(
        "session", "channel__office__owner__office_profile", "assignee"
    ).filter(pk=mission_id)
)


def _office_zone(mission: Mission) -> zoneinfo.ZoneInfo | None:
    """The time zone the office's owner chose, or None (the server's default)."""
    try:
        name = mission.channel.office.owner.office_profile.time_zone
    except Profile.DoesNotExist:
        return None
    return zoneinfo.ZoneInfo(name) if name and time_zone_known(name) else None


def _answer(*, mission_id: int, run_token: str) -> None:
    [mission] = _WITH_CONTEXT(mission_id=mission_id)
    # What the office writes in this run (a plan's heading, the parts not done, a
    # failure) is in the office's language; the prompt is not translated (§3). The times
    # the prompt shows are the owner's, so a reply's "at 3 pm" is theirs.
    with (
        translation.override(mission.channel.office.language),
        timezone.override(_office_zone(mission)),
    ):
        _reply(mission=mission, run_token=run_token)


def _reply(*, mission: Mission, run_token: str) -> None:
    if mission.parent_id is not None and mission.source in (
        MissionSource.DELEGATION,
        MissionSource.SYNTHESIS,
    ):
        plan_send(mission.parent_id)  # the card shows it working
    context = context_for_mission(mission=mission)
    memory_mark_used(item_ids=[i for s in context.sections for i in s.memory_ids])
    colleagues = _planning_colleagues(mission)
    footer = (
        synthesis_footer(synthesis=mission) if mission.source == MissionSource.SYNTHESIS else ""
    )
    provider = get_provider()
    pieces: list[str] = []
    tools: list[Tool] = [delegate_tool(colleagues=colleagues)] if colleagues else []
    # A synthesis sums up the results it is given; every other reply may look things up.
    looking_up = (
        lookup_offered(provider_calls_tools=provider.calls_tools)
        and mission.source != MissionSource.SYNTHESIS
    )
    if looking_up:
        tools += history_tools()
    usage = Usage()
    answering = mission.assignee.model or default_model()
    messages: ChatMessages = list(context.messages)
    if mission.attachment_count and model_takes_images(answering):
        messages = with_images(messages, mission=mission)
    try:
        # Pieces are sent in small batches: a model streams many tiny tokens, and one
        # channel-layer message each would cost more than the text it carries. The first
        # piece goes out as soon as it arrives: the person waits for it.
        batch: list[str] = []
        index = 0
        last_sent = time.monotonic() - DELTA_INTERVAL
        rounds = 0
        while True:
            said = len(pieces)
            with _waiting_for_model():
                if tools:
                    stream = provider.stream_chat(
                        messages=messages, model=mission.assignee.model or None, tools=tools
                    )
                else:
                    stream = provider.stream_chat(
                        messages=messages, model=mission.assignee.model or None
                    )
                for piece in stream:
                    if stopping():
                        return  # handed back to the queue: a restart answers it
                    if stop_asked(mission.pk):
                        _close(stream)
                        break
                    pieces.append(piece)
                    batch.append(piece)
                    if time.monotonic() - last_sent < DELTA_INTERVAL:
                        continue
                    held = hold_confirmed(mission.pk)
                    if held is False:
                        return  # another run answers it (this process was frozen)
                    if held:
                        send_frame(
                            mission.channel_id,
                            ReplyDeltaFrame(mission=mission.pk, index=index, text="".join(batch)),
                        )
                        batch, index, last_sent = [], index + 1, time.monotonic()
            add_usage(usage, stream.usage)
            if not (looking_up and is_lookup(stream.tool_calls)) or stop_asked(mission.pk):
                break
            # The model looked something up: it gets the answers and is asked again; on
            # the last round without the tools, so that it answers.
            messages = answer_round(
                mission=mission,
                messages=messages,
                round=Round(text="".join(pieces[said:]), calls=stream.tool_calls),
            )
            if pieces[said:]:
                pieces.append("\n\n")
                batch.append("\n\n")
            rounds += 1
            if rounds >= settings.HISTORY_TOOL_ROUNDS:
                tools = [t for t in tools if t.name not in LOOKUP_TOOLS]
                looking_up = False
        if stop_asked(mission.pk):
            # The person stopped it: what came is kept (the page has it already, up to
            # the last batch; reply.done carries all of it).
            reply = "".join(pieces).strip()
            mission_save_stopped(
                mission=mission,
                reply=reply,
                prompt_chars=context.total_chars,
                # A stream cut short reports no usage: estimated then (chars / 4).
                prompt_tokens=usage.prompt_tokens or context.total_chars // CHARS_PER_TOKEN,
                cached_tokens=usage.cached_tokens,
                completion_tokens=usage.completion_tokens or len(reply) // CHARS_PER_TOKEN,
                model=answering,
                run_token=run_token,
            )
            return
        if footer:
            # Whatever the model wrote, the parts not done are named, with where to retry.
            batch.append("\n\n" + footer)
            pieces.append("\n\n" + footer)
        # Unconfirmed, the last piece is left to reply.done (which carries the whole text).
        if batch and hold_confirmed(mission.pk):
            send_frame(
                mission.channel_id,
                ReplyDeltaFrame(mission=mission.pk, index=index, text="".join(batch)),
            )
        reply = "".join(pieces).strip()
        if stream.tool_calls and not is_lookup(stream.tool_calls):
            delegations = delegations_from_tool_calls(
                calls=stream.tool_calls, colleagues=colleagues
            )
            plan_charge(plan=mission, count=len(delegations))
            plan_start(
                plan=mission,
                delegations=delegations,
                preface=reply,
                prompt_chars=context.total_chars,
                prompt_tokens=usage.prompt_tokens,
                cached_tokens=usage.cached_tokens,
                completion_tokens=usage.completion_tokens,
                run_token=run_token,
            )
            return
        if not reply:
            raise ProviderError("bad_output", gettext("The model returned an empty reply."))
    except PlanRejected as exc:
        mission_fail(
            mission=mission,
            code=exc.code,
            message=gettext("No plan was started: {reason}").format(reason=exc.message),
            run_token=run_token,
        )
        return
    except ProviderError as exc:
        # The provider's fixed messages are in the catalogue; the others show as written.
        message = gettext(exc.message)
        mission_fail(mission=mission, code=exc.code, message=message, run_token=run_token)
        return
    except Exception:
        logger.exception("mission %s failed unexpectedly", mission.pk)
        mission_fail(
            mission=mission,
            code="internal",
            message=gettext("Something went wrong on our side while answering."),
            run_token=run_token,
        )
        return
    mission_complete(
        mission=mission,
        reply=reply,
        prompt_chars=context.total_chars,
        prompt_tokens=usage.prompt_tokens,
        cached_tokens=usage.cached_tokens,
        completion_tokens=usage.completion_tokens,
        model=answering,
        run_token=run_token,
    )


# Estimating tokens from characters where a provider reported none (a stopped stream).
CHARS_PER_TOKEN = 4


def _close(stream: Any) -> None:
    """Stop reading a stream: its generator closes the model's response (the provider
    stops sending, and stops billing, once the connection goes)."""
    close = getattr(stream.pieces, "close", None)
    if close is not None:
        close()


def _planning_colleagues(mission: Mission) -> list[Employee]:
    """Whom the chief of staff may delegate to on this mission: only an instruction of
    the person's in the master channel plans (delegates and syntheses do not: depth 1),
    and only once (a mission that already delegated is not offered it again)."""
    if (
        mission.source != MissionSource.MASTER
        or mission.parent_id is not None
        or mission.channel.kind != ChannelKind.MASTER
        or not mission.assignee.is_master
        or mission.children.exists()
    ):
        return []
    return list(
        Employee.objects.filter(
            office_id=mission.channel.office_id, is_active=True, is_master=False
        )
    )
