"""What a run stored and what its clients saw: the database check, the clients' problems,
and the figures and tables made of them."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench.harness.base import CLIENT_ID_PREFIX, UserFixture
from bench.harness.clients import ClientsOutcome
from bench.harness.stack import Stack
from bench.report import Table, show


def percentile(values: list[float], p: float) -> float:
    """Linear interpolation between closest ranks; nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def print_table(title: str, rows: list[tuple[str, ...]]) -> None:
    """Print a table as the run log records it (bench/report.py)."""
    show([Table(title, rows)])


MODEL_KINDS = {"stream": "replies", "SummaryState": "folds", "MemoryCandidates": "extractions"}


def stats_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, int]:
    """Model requests between two `Stack.model_stats()` readings, by kind."""
    old, new = before.get("by_kind", {}), after.get("by_kind", {})
    delta = {kind: int(new.get(kind, 0)) - int(old.get(kind, 0)) for kind in {*old, *new}}
    return {kind: n for kind, n in delta.items() if n}


def describe_calls(calls: dict[str, int]) -> str:
    parts = [f"{MODEL_KINDS.get(kind, kind)} {n}" for kind, n in sorted(calls.items())]
    return ", ".join(parts) or "none"


def client_problems(outcome: ClientsOutcome) -> list[str]:
    problems: list[str] = []
    for run in outcome.runs:
        who = f"client {run.user.index} (channel {run.user.channel_id})"
        if run.failure:
            problems.append(f"{who}: {run.failure}")
        for item in run.instructions:
            if item.error:
                problems.append(f"{who} {item.client_id}: {item.error}")
            elif item.done_frames != 1:
                problems.append(f"{who} {item.client_id}: {item.done_frames} reply.done frames")
            elif item.employee_frames != 1:
                problems.append(
                    f"{who} {item.client_id}: {item.employee_frames} saved replies received"
                )
        if run.error_frames:
            problems.append(f"{who}: error frames {run.error_frames[:3]}")
        if run.unmatched:
            problems.append(f"{who}: frames matching no instruction {dict(run.unmatched)}")
    return problems


@dataclass
class ChannelCheck:
    user: UserFixture
    expected: int
    found: int = 0
    other_missions: int = 0
    duplicate_client_ids: int = 0
    not_done: list[str] = field(default_factory=list)
    empty_replies: int = 0
    foreign_replies: int = 0
    reply_counts: Counter[int] = field(default_factory=Counter)
    instruction_counts: Counter[int] = field(default_factory=Counter)
    mission_count: int = 0
    notices: int = 0
    notice_expected: int = 0

    @property
    def lost(self) -> int:
        return max(0, self.expected - self.found)

    @property
    def doubled(self) -> int:
        return self.duplicate_client_ids + self.other_missions + max(0, self.found - self.expected)


@dataclass
class DatabaseCheck:
    """The channels' checks and their totals (made once the channels are counted)."""

    channels: list[ChannelCheck]
    missions_elsewhere: int
    failed_missions: int
    error_messages: int
    threshold: int

    def __post_init__(self) -> None:
        channels = self.channels
        self.expected = sum(c.expected for c in channels)
        self.found = sum(c.found for c in channels)
        self.lost = sum(c.lost for c in channels)
        self.doubled = sum(c.doubled for c in channels) + self.missions_elsewhere
        self.not_done = sum(len(c.not_done) for c in channels)
        self.empty_replies = sum(c.empty_replies for c in channels)
        self.foreign_replies = sum(c.foreign_replies for c in channels)
        # Missions with other than one saved reply, and those with none (not in reply_counts).
        self.bad_reply_counts = sum(
            1 for c in channels for n in c.reply_counts.values() if n != 1
        ) + sum(c.found - len(c.reply_counts) for c in channels)
        self.bad_instruction_counts = sum(
            1 for c in channels for n in c.instruction_counts.values() if n != 1
        )
        self.bad_session_counts = sum(
            1 for c in channels if c.mission_count != c.user.prefill + c.expected
        )
        self.count_ok = not (
            self.lost
            or self.doubled
            or self.not_done
            or self.empty_replies
            or self.foreign_replies
            or self.bad_reply_counts
            or self.bad_instruction_counts
            or self.bad_session_counts
        )


def check_database(
    stack: Stack,
    *,
    sent: dict[int, int],
    threshold: int = 20,
    users: list[UserFixture] | None = None,
) -> DatabaseCheck:
    """Count, per client channel, the missions, replies and notices the run stored.

    `sent` is the number of instructions each channel's client sent (a client whose socket
    the server closed sends fewer; that is reported as a client-side problem, not here).
    `users` narrows the check to the users of one phase (default: all of the stack's);
    missions in a channel of none of the stack's users count as doubled."""
    checked = stack.users if users is None else users
    channel_ids = [u.channel_id for u in checked]
    by_channel = {
        u.channel_id: ChannelCheck(user=u, expected=sent.get(u.channel_id, 0)) for u in checked
    }
    prefix = CLIENT_ID_PREFIX + "%"
    with stack.scratch() as db:
        rows = db.rows(
            """
            SELECT m.id, m.channel_id, m.client_id, m.status, length(m.reply),
                   {strpos}(m.reply, m.instruction) > 0,
                   (SELECT count(*) FROM missions_message x
                     WHERE x.mission_id = m.id AND x.kind = 'employee'),
                   (SELECT count(*) FROM missions_message x
                     WHERE x.mission_id = m.id AND x.kind = 'user')
              FROM missions_mission m
             WHERE m.channel_id IN (%s) AND m.client_id LIKE %s
            """,
            (channel_ids, prefix),
        )
        client_ids: dict[int, Counter[str]] = defaultdict(Counter)
        for mission, channel, client_id, status, reply_len, echoes, replies, users_ in rows:
            check = by_channel[channel]
            check.found += 1
            client_ids[channel][client_id] += 1
            if status != "done":
                check.not_done.append(f"{mission}:{status}")
            if not reply_len:
                check.empty_replies += 1
            elif not echoes:
                # The model server echoes the prompt's last message, the current mission:
                # a reply without its own instruction answered some other mission.
                check.foreign_replies += 1
            check.reply_counts[mission] = int(replies)
            check.instruction_counts[mission] = int(users_)
        for channel, counter in client_ids.items():
            by_channel[channel].duplicate_client_ids = sum(n - 1 for n in counter.values())
        for channel, count in db.rows(
            """
            SELECT channel_id, count(*) FROM missions_mission
             WHERE channel_id IN (%s) AND client_id NOT LIKE %s
             GROUP BY channel_id
            """,
            (channel_ids, prefix),
        ):
            check = by_channel[channel]
            # The pre-filled missions are expected; anything more was not sent by a client.
            check.other_missions = max(0, int(count) - check.user.prefill)
        for channel, mission_count in db.rows(
            """
            SELECT channel_id, sum(mission_count) FROM chat_sessions_chatsession
             WHERE channel_id IN (%s) GROUP BY channel_id
            """,
            (channel_ids,),
        ):
            by_channel[channel].mission_count = int(mission_count)
        for channel, count in db.rows(
            """
            SELECT channel_id, count(*) FROM missions_message
             WHERE channel_id IN (%s) AND kind = 'notice' GROUP BY channel_id
            """,
            (channel_ids,),
        ):
            by_channel[channel].notices = int(count)

        def scalar(query: str, ids: list[int]) -> int:
            rows = db.rows(query, (ids,))
            return int(rows[0][0]) if rows else 0

        elsewhere = scalar(
            "SELECT count(*) FROM missions_mission WHERE NOT (channel_id IN (%s))",
            [u.channel_id for u in stack.users],
        )
        failed = scalar(
            "SELECT count(*) FROM missions_mission WHERE status = 'failed' AND channel_id IN (%s)",
            channel_ids,
        )
        errors = scalar(
            "SELECT count(*) FROM missions_message WHERE kind = 'error' AND channel_id IN (%s)",
            channel_ids,
        )
    for check in by_channel.values():
        check.notice_expected = 1 if check.user.prefill + check.expected >= threshold else 0
    return DatabaseCheck(list(by_channel.values()), elsewhere, failed, errors, threshold)
