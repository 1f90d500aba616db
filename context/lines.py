"""How a mission is named in a line of the prompt (its header: seq, session, date and
time), and the pending section's digest lines: their widths, and how many fit under the
section's cap. The rendering (context.rendering) writes them; the fold's trigger
(summaries.due.fold_due) counts them."""

from datetime import UTC, datetime
from functools import cache

from django.utils import timezone

# Digest lines of pending missions; the newest gets more.
PENDING_LINE_CHARS = 100
PENDING_NEWEST_CHARS = 400
PENDING_TITLE = "## Missions being folded into the summary (digests; ask to recall any of them)"
# Room kept for the line that names the pending missions not listed, as one range.
PENDING_RANGE_CHARS = 80


def digest_width(index: int) -> int:
    """The digest's width on pending line `index`, newest first."""
    return PENDING_NEWEST_CHARS if index == 0 else PENDING_LINE_CHARS


def line_fits(used: int, line: int, *, more: bool, budget: int) -> bool:
    """Whether a pending line of `line` chars fits after `used` within `budget`, keeping
    room for the range line when `more` missions follow it."""
    return used + 1 + line + (PENDING_RANGE_CHARS if more else 0) <= budget


def stamp(at: datetime) -> str:
    return timezone.localtime(at).strftime("%Y-%m-%d %H:%M %Z")


def mission_header(label: str, at: datetime, session_number: int | None = None) -> str:
    """A mission named by the number the person sees (Mission.label), so that a reply
    citing "#2" means what the person sees as #2."""
    where = f"session {session_number}, " if session_number is not None else ""
    return f"[{where}mission #{label} · {stamp(at)}]"


@cache
def pending_capacity(budget: int) -> int:
    """How many missions the pending section lists one by one within `budget` when every
    line is at its widest (a 4-digit session, a 7-digit number with a synthesis's letter,
    a 6-letter time zone); more
    would push the oldest into one range line. A fold is due before that. At least 1."""
    sample = datetime(2000, 1, 1, tzinfo=UTC)
    widest_header = len(mission_header("9999999a", sample, 9_999))
    widest_header += max(0, 6 - len(stamp(sample).rsplit(" ", 1)[-1]))
    used, listed = len(PENDING_TITLE), 0
    while True:
        line = len("- ") + widest_header + len(" ") + digest_width(listed)
        if not line_fits(used, line, more=True, budget=budget):
            return max(listed, 1)
        used += 1 + line
        listed += 1
