"""Reads for missions and the timeline, scoped to what a user may see, and the cost
report."""

from collections import defaultdict
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import (
    Count,
    F,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    Sum,
    Value,
    Window,
)
from django.db.models.functions import Coalesce, Length, TruncDate
from django.utils import timezone

from llm.gateway import default_model
from llm.models import ModelPrice
from missions.models import (
    ANSWERED,
    Message,
    MessageKind,
    Mission,
    MissionAttempt,
    MissionSource,
    MissionStatus,
    ReadMarker,
)
from missions.texts import mission_title
from office.models import Channel, ChannelKind, Office
from push.frames import DelegateData, MissionStateData, PlanData, SynthesisData
from push.markdown import markdown_inline_html
from sessions.models import ChatSession

# How a plan's card names a mission's status.
PLAN_STATUS = {
    MissionStatus.QUEUED: "queued",
    MissionStatus.RUNNING: "working",
    MissionStatus.DONE: "done",
    MissionStatus.FAILED: "failed",
    MissionStatus.STOPPED: "stopped",
}


def mission_get_for_user(*, user: User | AnonymousUser, mission_id: int) -> Mission | None:
    """The mission if this user owns its office; None for missing and foreign alike."""
    if not user.is_authenticated:
        return None
    return (
        Mission.objects.select_related("assignee", "channel")
        .filter(pk=mission_id, channel__office__memberships__user=user)
        .first()
    )


def mission_in_channel(*, channel_id: int, mission_id: int) -> Mission | None:
    """The mission if it is one of this channel's (the caller has authorized the channel)."""
    return Mission.objects.filter(pk=mission_id, channel_id=channel_id).first()


def mission_attempts(*, mission: Mission) -> list[MissionAttempt]:
    """The earlier attempts of a regenerated mission, oldest first."""
    return list(MissionAttempt.objects.filter(mission=mission).order_by("number"))


def message_list_for_session(*, session: ChatSession, limit: int) -> list[Message]:
    """The session's last `limit` timeline entries, oldest first."""
    rows = (
        Message.objects.filter(session=session).select_related("author", "sender").order_by("-id")
    )
    return list(rows[:limit])[::-1]


def missions_in_progress(*, office: Office) -> dict[int, Mission]:
    """Per employee id, the oldest mission they have queued or running."""
    busy: dict[int, Mission] = {}
    for mission in Mission.objects.filter(
        assignee__office=office, status__in=[MissionStatus.QUEUED, MissionStatus.RUNNING]
    ).order_by("created_at"):
        busy.setdefault(mission.assignee_id, mission)
    return busy


UNDER_WAY = (MissionStatus.QUEUED, MissionStatus.RUNNING)


def mission_state_data(*, mission: Mission, seen_from_plan: bool = False) -> MissionStateData:
    """Where the mission stands (its assignee loaded). A synthesis is stopped with its
    plan, and so is a delegated part `seen_from_plan` (from the plan's channel); in its
    own channel a part cannot be stopped alone, nor a meeting follow-up."""
    plan = (
        mission.parent_id
        if mission.source in (MissionSource.DELEGATION, MissionSource.SYNTHESIS)
        else None
    )
    if mission.parent_id is None:
        stop: int | None = mission.pk
    elif mission.source == MissionSource.SYNTHESIS or (
        seen_from_plan and mission.source == MissionSource.DELEGATION
    ):
        stop = mission.parent_id
    else:
        stop = None
    return MissionStateData(
        mission=mission.pk,
        channel=mission.channel_id,
        status=mission.status,
        employee=mission.assignee.name,
        label=mission.label,
        plan=plan,
        stop=stop,
    )


def missions_pending(*, channel: Channel) -> list[MissionStateData]:
    """The channel's work under way: its queued and running missions, and in the master
    channel the parts of its plans still under way in their employees' channels (one
    query, two in the master channel). Few missions are under way at once: the status
    index finds them."""
    rows = list(
        Mission.objects.filter(status__in=UNDER_WAY, channel_id=channel.pk)
        .select_related("assignee")
        .order_by("id")
    )
    pending = [mission_state_data(mission=m) for m in rows]
    if channel.kind == ChannelKind.MASTER:
        parts = (
            Mission.objects.filter(
                status__in=UNDER_WAY,
                source=MissionSource.DELEGATION,
                parent__channel_id=channel.pk,
            )
            .select_related("assignee")
            .order_by("id")
        )
        pending += [mission_state_data(mission=m, seen_from_plan=True) for m in parts]
    return pending


def message_list_after(*, channel: Channel, after_id: int, limit: int) -> list[Message]:
    return list(
        Message.objects.filter(channel=channel, id__gt=after_id)
        .select_related("author", "sender")
        .order_by("id")[:limit]
    )


def _running_history() -> Window:
    """The running size of a mission's session up to it (instruction and reply of each):
    less its own size, what sending the full history before it would have cost."""
    return Window(
        Sum(Length("instruction") + Length("reply")),
        partition_by=[F("session_id")],
        order_by=F("seq").asc(),
    )


def mission_cost_report(
    *, days: int = 30, office_id: int | None = None, owner: Any = None
) -> list[dict[str, Any]]:
    """Per day, office and channel: what prompts cost against sending the full history.

    The full-history figure for a mission is every earlier finished or stopped mission
    of its session in full plus this instruction: what a naive chat would have sent."""
    since = timezone.now() - timedelta(days=days)
    missions = Mission.objects.filter(status__in=ANSWERED)
    if office_id is not None:
        missions = missions.filter(channel__office_id=office_id)
    if owner is not None:
        missions = missions.filter(channel__office__owner=owner)
    annotated = missions.annotate(
        size=Length("instruction") + Length("reply"),
        running=_running_history(),
        day=TruncDate("created_at"),
    ).values(
        "day",
        "channel_id",
        "channel__name",
        "channel__office__name",
        "prompt_chars",
        "prompt_tokens",
        "cached_tokens",
        "completion_tokens",
        "size",
        "running",
        "created_at",
        "instruction",
    )
    totals: dict[tuple[date, int], dict[str, Any]] = defaultdict(
        lambda: {
            "missions": 0,
            "prompt_chars": 0,
            "prompt_tokens": 0,
            "cached_tokens": 0,
            "completion_tokens": 0,
            "full_history_chars": 0,
        }
    )
    for row in annotated:
        if row["created_at"] < since:
            continue
        key = (row["day"], row["channel_id"])
        entry = totals[key]
        entry.update(
            day=row["day"], channel=row["channel__name"], office=row["channel__office__name"]
        )
        entry["missions"] += 1
        for field in ("prompt_chars", "prompt_tokens", "cached_tokens", "completion_tokens"):
            entry[field] += row[field]
        entry["full_history_chars"] += row["running"] - row["size"] + len(row["instruction"])
    result = sorted(
        totals.values(), key=lambda e: (e["day"], e["office"], e["channel"]), reverse=True
    )
    for entry in result:
        full = entry["full_history_chars"] or 1
        entry["saved_pct"] = round(100 * (1 - entry["prompt_chars"] / full), 1)
    return result


def _saved_pct(sent: int, full: int) -> float:
    return round(100 * (1 - sent / (full or 1)), 1)


def office_cost(*, office_id: int, days: int = 30, recent: int = 50) -> dict[str, Any]:
    """What the office's prompts cost, for its owner: per employee and per recent mission,
    characters sent against the full history (every earlier finished mission of the
    session in full, plus the instruction), and the tokens the provider reported.

    A share saved below zero is not a fault: a session's first missions have little
    history, and the prompt's fixed parts (persona, memory, summary) outweigh it; the
    share grows as the session does. `fixed_parts` marks those rows for the page."""
    since = timezone.now() - timedelta(days=days)
    rows = list(
        Mission.objects.filter(
            status__in=ANSWERED, channel__office_id=office_id, created_at__gte=since
        )
        .annotate(size=Length("instruction") + Length("reply"), running=_running_history())
        .values(
            "id",
            "seq",
            "label",
            "created_at",
            "channel_id",
            "channel__name",
            "assignee__name",
            "prompt_chars",
            "prompt_tokens",
            "cached_tokens",
            "completion_tokens",
            "size",
            "running",
            "instruction",
            "source",
            "parent__label",
            "session_id",
            "session__closed_at",
            "model",
            "assignee__model",
        )
        .order_by("-created_at", "-id")
    )
    prices = {p.model: p for p in ModelPrice.objects.all()}
    fallback = default_model()
    unpriced: set[str] = set()
    fields = ("prompt_chars", "prompt_tokens", "cached_tokens", "completion_tokens")
    # A regenerated mission was paid for once per attempt: its earlier attempts' prompts
    # count too, against the full history sent as many times.
    earlier: dict[int, dict[str, Any]] = {
        a["mission_id"]: dict(a)
        for a in MissionAttempt.objects.filter(mission_id__in=[r["id"] for r in rows])
        .values("mission_id")
        .annotate(attempts=Count("id"), **{f"{f}_sum": Sum(f) for f in fields})
    }
    # Look-ups the model made in the history (missions.lookup), each shown as an event.
    lookups = dict(
        Message.objects.filter(
            mission_id__in=[r["id"] for r in rows],
            kind=MessageKind.EVENT,
            payload__event="lookup",
        )
        .values("mission_id")
        .annotate(n=Count("id"))
        .values_list("mission_id", "n")
    )
    employees: dict[str, dict[str, Any]] = {}
    missions: list[dict[str, Any]] = []
    for row in rows:
        before: dict[str, Any] = earlier.get(row["id"], {})
        paid: dict[str, Any] = dict(row)
        sends = 1 + before.get("attempts", 0)
        full = (row["running"] - row["size"] + len(row["instruction"])) * sends
        mission: dict[str, Any] = dict(
            **{f: paid[f] + (before.get(f"{f}_sum") or 0) for f in fields},
            attempts=sends,
            lookups=lookups.get(row["id"], 0),
            id=row["id"],
            seq=row["seq"],
            label=row["label"],
            created_at=row["created_at"],
            channel_id=row["channel_id"],
            channel=row["channel__name"],
            employee=row["assignee__name"] or "",
            instruction=row["instruction"][:80],
            # What the row is called in the reader's language (a synthesis by what it is).
            title=mission_title(
                source=row["source"],
                instruction=row["instruction"][:80],
                plan_label=row["parent__label"],
            ),
            full_history_chars=full,
            # Where it stands: a mission of a closed session is on that session's page
            # (the current one may have a mission of the same number).
            url=f"/c/{row['channel_id']}/"
            + (f"?session={row['session_id']}" if row["session__closed_at"] else "")
            + f"#mission-{row['label']}",
        )
        # Priced by the model that answered (a mission from before that was recorded: the
        # employee's model now).
        mission["model"] = row["model"] or row["assignee__model"] or fallback
        price = prices.get(mission["model"])
        mission["money"] = (
            {price.currency: price.cost(**{f: mission[f] for f in fields[1:]})} if price else {}
        )
        mission["money_text"] = money_text(mission["money"])
        if price is None:
            unpriced.add(mission["model"])
        mission["saved_pct"] = _saved_pct(mission["prompt_chars"], full)
        mission["fixed_parts"] = mission["saved_pct"] < 0
        if len(missions) < recent:
            missions.append(mission)
        entry = employees.setdefault(
            mission["employee"],
            {"employee": mission["employee"], "missions": 0, "full_history_chars": 0}
            | dict.fromkeys((*fields, "lookups"), 0)
            | {"money": {}, "models": set()},
        )
        entry["missions"] += 1
        entry["models"].add(mission["model"])
        _add_money(entry["money"], mission["money"])
        entry["lookups"] += mission["lookups"]
        entry["full_history_chars"] += full
        for field in fields:
            entry[field] += mission[field]
    per_employee = sorted(employees.values(), key=lambda e: e["employee"])
    totals: dict[str, Any] = {"missions": len(rows), "full_history_chars": 0} | dict.fromkeys(
        fields, 0
    )
    for entry in per_employee:
        entry["saved_pct"] = _saved_pct(entry["prompt_chars"], entry["full_history_chars"])
        entry["fixed_parts"] = entry["saved_pct"] < 0
        for field in (*fields, "full_history_chars"):
            totals[field] += entry[field]
    totals["saved_pct"] = _saved_pct(totals["prompt_chars"], totals["full_history_chars"])
    totals["fixed_parts"] = totals["saved_pct"] < 0
    totals["money"] = {}
    for entry in per_employee:
        entry["models"] = sorted(entry["models"])
        entry["money_text"] = money_text(entry["money"])
        _add_money(totals["money"], entry["money"])
    totals["money_text"] = money_text(totals["money"])
    return {
        "employees": per_employee,
        "missions": missions,
        "totals": totals,
        "days": days,
        "unpriced": sorted(unpriced),
    }


def money_text(money: dict[str, Decimal]) -> str:
    """ "0.0421 USD" (several currencies joined); "" when nothing is priced."""
    return ", ".join(
        f"{amount.quantize(Decimal('0.0001'))} {cur}" for cur, amount in sorted(money.items())
    )


def _add_money(total: dict[str, Decimal], more: dict[str, Decimal]) -> None:
    for currency, amount in more.items():
        total[currency] = total.get(currency, Decimal(0)) + amount


def missions_stuck(*, now: datetime | None = None) -> QuerySet[Mission]:
    """Running missions whose run has given no sign of life (its claim or a heartbeat)
    for MISSION_STUCK_AFTER seconds: their worker died."""
    limit = (now or timezone.now()) - timedelta(seconds=settings.MISSION_STUCK_AFTER)
    return Mission.objects.annotate(alive_at=Coalesce("heartbeat_at", "started_at")).filter(
        status=MissionStatus.RUNNING, alive_at__lt=limit
    )


def delegate_url(mission: Mission) -> str:
    """Where a mission stands in its channel's chat page."""
    return f"/c/{mission.channel_id}/#mission-{mission.label}"


def followup_payload(source: Mission) -> dict[str, object]:
    """What a meeting follow-up's message carries to be shown as the office's, on behalf
    of the mission whose notes it came from, with a link back to it."""
    return {
        "written_by": "office",
        "follow_up_of": source.seq,
        "follow_up_label": source.label,
        "from_channel": source.channel_id,
        "from_url": delegate_url(source),
    }


def plan_data(*, plan_id: int) -> PlanData | None:
    """The plan led by mission `plan_id` (None if it delegated nothing): three queries."""
    plan = Mission.objects.select_related("assignee").filter(pk=plan_id).first()
    if plan is None:
        return None
    children = list(
        Mission.objects.filter(
            parent_id=plan_id, source__in=[MissionSource.DELEGATION, MissionSource.SYNTHESIS]
        )
        .select_related("assignee")
        .order_by("id")
    )
    delegated = [c for c in children if c.source == MissionSource.DELEGATION]
    if not delegated:
        return None
    syntheses = [c for c in children if c.source == MissionSource.SYNTHESIS]
    now = timezone.now()
    delegates = [
        DelegateData(
            mission=c.pk,
            employee=c.assignee.name,
            task=c.instruction,
            task_html=markdown_inline_html(c.instruction),
            expected_output=c.expected_output,
            status=PLAN_STATUS[MissionStatus(c.status)],
            channel=c.channel_id,
            url=delegate_url(c),
            error=c.error,
            created_at=c.created_at,
            started_at=c.started_at,
            finished_at=c.finished_at,
            elapsed_s=round(((c.finished_at or now) - c.created_at).total_seconds(), 1),
            prompt_tokens=c.prompt_tokens,
            completion_tokens=c.completion_tokens,
        )
        for c in delegated
    ]
    last = syntheses[-1] if syntheses else None
    busy = any(d.status in ("queued", "working") for d in delegates)
    if last is None:
        # Stopped by the person: no synthesis comes once the parts under way have ended.
        status = "stopped" if plan.stop_requested_at is not None and not busy else "working"
    elif busy and last.status in (
        MissionStatus.DONE,
        MissionStatus.FAILED,
        MissionStatus.STOPPED,
    ):
        status = "working"
    elif last.status == MissionStatus.DONE:
        status = "done"
    elif last.status == MissionStatus.FAILED:
        status = "failed"
    elif last.status == MissionStatus.STOPPED:
        status = "stopped"
    else:
        status = "synthesizing"
    everything = [plan, *children]
    return PlanData(
        mission=plan.pk,
        channel=plan.channel_id,
        seq=plan.seq,
        label=plan.label,
        instruction=plan.instruction,
        planner=plan.assignee.name,
        status=status,
        delegates=delegates,
        synthesis=(
            SynthesisData(
                mission=last.pk,
                status=PLAN_STATUS[MissionStatus(last.status)],
                seq=last.seq,
                label=last.label,
            )
            if last is not None
            else None
        ),
        prompt_tokens=sum(m.prompt_tokens for m in everything),
        completion_tokens=sum(m.completion_tokens for m in everything),
    )


def plan_cost_report(
    *, days: int = 30, office_id: int | None = None, owner: Any = None
) -> list[dict[str, Any]]:
    """Per plan (a master-channel mission that delegated), newest first: what the plan,
    its delegated missions and its syntheses cost together. Two queries."""
    since = timezone.now() - timedelta(days=days)
    plans = Mission.objects.filter(
        created_at__gte=since, children__source=MissionSource.DELEGATION
    ).distinct()
    if office_id is not None:
        plans = plans.filter(channel__office_id=office_id)
    if owner is not None:
        plans = plans.filter(channel__office__owner=owner)
    rows: dict[int, dict[str, Any]] = {
        p["id"]: {
            "plan": p["id"],
            "seq": p["seq"],
            "label": p["label"],
            "office": p["channel__office__name"],
            "instruction": p["instruction"][:80],
            "created_at": p["created_at"],
            "delegates": 0,
            "syntheses": 0,
            "prompt_chars": p["prompt_chars"],
            "prompt_tokens": p["prompt_tokens"],
            "cached_tokens": p["cached_tokens"],
            "completion_tokens": p["completion_tokens"],
        }
        for p in plans.order_by("-created_at").values(
            "id",
            "seq",
            "label",
            "channel__office__name",
            "instruction",
            "created_at",
            "prompt_chars",
            "prompt_tokens",
            "cached_tokens",
            "completion_tokens",
        )[:200]
    }
    parts = Mission.objects.filter(
        parent_id__in=list(rows),
        source__in=[MissionSource.DELEGATION, MissionSource.SYNTHESIS],
    ).values(
        "parent_id", "source", "prompt_chars", "prompt_tokens", "cached_tokens", "completion_tokens"
    )
    for part in parts:
        row = rows[part["parent_id"]]
        row["delegates" if part["source"] == MissionSource.DELEGATION else "syntheses"] += 1
        for field in ("prompt_chars", "prompt_tokens", "cached_tokens", "completion_tokens"):
            row[field] += part[field]
    return list(rows.values())


# What makes a channel unread: a reply came, or a mission failed (the person has to act).
UNREAD_KINDS = (MessageKind.EMPLOYEE, MessageKind.ERROR)


def unread_counts(*, user_id: int, channel_ids: list[int]) -> dict[int, int]:
    """For each channel, the replies and failures saved after what the person last read
    there (every one, for a channel never opened). One query: per channel, a range of its
    (channel, id) index past the marker."""
    if not channel_ids:
        return {}
    marker = ReadMarker.objects.filter(user_id=user_id, channel_id=OuterRef(OuterRef("pk")))
    unread = (
        Message.objects.filter(
            channel_id=OuterRef("pk"),
            kind__in=UNREAD_KINDS,
            id__gt=Coalesce(Subquery(marker.values("last_message_id")[:1]), Value(0)),
        )
        .order_by()
        .values("channel_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    rows = Channel.objects.filter(pk__in=channel_ids).annotate(
        unread=Coalesce(Subquery(unread, output_field=IntegerField()), Value(0))
    )
    return {pk: n for pk, n in rows.values_list("pk", "unread")}
