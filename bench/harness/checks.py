"""What the database holds after a run: every instruction one mission and one saved reply,
and the long-session notices where they are due."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from bench.harness.base import CLIENT_ID_PREFIX, UserFixture
from bench.harness.stack import Stack

# --- What the database holds afterwards -------------------------------------------------


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
    sessions: int = 0

    @property
    def lost(self) -> int:
        return max(0, self.expected - self.found)

    @property
    def doubled(self) -> int:
        return self.duplicate_client_ids + self.other_missions + max(0, self.found - self.expected)


@dataclass
class DatabaseCheck:
    channels: list[ChannelCheck]
    missions_elsewhere: int
    failed_missions: int
    error_messages: int
    threshold: int

    @property
    def expected(self) -> int:
        return sum(c.expected for c in self.channels)

    @property
    def found(self) -> int:
        return sum(c.found for c in self.channels)

    @property
    def lost(self) -> int:
        return sum(c.lost for c in self.channels)

    @property
    def doubled(self) -> int:
        return sum(c.doubled for c in self.channels) + self.missions_elsewhere

    @property
    def not_done(self) -> int:
        return sum(len(c.not_done) for c in self.channels)

    @property
    def empty_replies(self) -> int:
        return sum(c.empty_replies for c in self.channels)

    @property
    def foreign_replies(self) -> int:
        return sum(c.foreign_replies for c in self.channels)

    @property
    def bad_reply_counts(self) -> int:
        return sum(1 for c in self.channels for n in c.reply_counts.values() if n != 1) + sum(
            c.found - len(c.reply_counts) for c in self.channels
        )

    @property
    def bad_instruction_counts(self) -> int:
        return sum(1 for c in self.channels for n in c.instruction_counts.values() if n != 1)

    @property
    def bad_session_counts(self) -> int:
        return sum(1 for c in self.channels if c.mission_count != c.user.prefill + c.expected)

    @property
    def count_ok(self) -> bool:
        return not (
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
    all_channel_ids = [u.channel_id for u in stack.users]
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
        others = db.rows(
            """
            SELECT channel_id, count(*) FROM missions_mission
             WHERE channel_id IN (%s) AND client_id NOT LIKE %s
             GROUP BY channel_id
            """,
            (channel_ids, prefix),
        )
        for channel, count in others:
            check = by_channel[channel]
            # The pre-filled missions are expected; anything more was not sent by a client.
            check.other_missions = max(0, int(count) - check.user.prefill)
        for channel, mission_count, sessions in db.rows(
            """
            SELECT channel_id, sum(mission_count), count(*) FROM chat_sessions_chatsession
             WHERE channel_id IN (%s) GROUP BY channel_id
            """,
            (channel_ids,),
        ):
            by_channel[channel].mission_count = int(mission_count)
            by_channel[channel].sessions = int(sessions)
        for channel, count in db.rows(
            """
            SELECT channel_id, count(*) FROM missions_message
             WHERE channel_id IN (%s) AND kind = 'notice' GROUP BY channel_id
            """,
            (channel_ids,),
        ):
            by_channel[channel].notices = int(count)
        elsewhere_rows = db.rows(
            "SELECT count(*) FROM missions_mission WHERE NOT (channel_id IN (%s))",
            (all_channel_ids,),
        )
        failed_rows = db.rows(
            "SELECT count(*) FROM missions_mission WHERE status = 'failed' AND channel_id IN (%s)",
            (channel_ids,),
        )
        errors_rows = db.rows(
            "SELECT count(*) FROM missions_message WHERE kind = 'error' AND channel_id IN (%s)",
            (channel_ids,),
        )
    for check in by_channel.values():
        total = check.user.prefill + check.expected
        check.notice_expected = 1 if total >= threshold else 0
    return DatabaseCheck(
        channels=list(by_channel.values()),
        missions_elsewhere=int(elsewhere_rows[0][0]) if elsewhere_rows else 0,
        failed_missions=int(failed_rows[0][0]) if failed_rows else 0,
        error_messages=int(errors_rows[0][0]) if errors_rows else 0,
        threshold=threshold,
    )
