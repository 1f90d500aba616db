"""How the detail window shares its budget when its missions do not fit (pure, used by
the loading, to know which missions recall may bring back, and by the rendering).

The newest mission keeps its full text up to a third of the budget; the others share
the rest evenly (a mission smaller than its share keeps its full text and leaves the
difference to the others). A mission whose share would be under DETAIL_MIN_USEFUL gives
its room to the newer ones, oldest first, and is listed as a digest line instead; its
passages are then recallable like those of any mission outside the window."""

from collections.abc import Sequence
from dataclasses import dataclass

from context.lines import mission_header
from missions.models import Mission

DETAIL_MIN_USEFUL = 600
# The newest mission, alone in the window, keeps an excerpt down to this (its header and
# a line) rather than become a digest.
DETAIL_MIN_ALONE = 160
# A digest line of the window: its header and this much of the mission.
DETAIL_DIGEST_CHARS = 200
DIGEST_TITLE = "## Older missions of the window, in brief (their passages can be recalled)"


@dataclass(frozen=True)
class Share:
    seq: int
    full: int  # chars of the mission shown whole (header and joiners included)
    allowed: int  # chars it may use; 0: a digest line


def _level(fulls: list[int], budget: int) -> int:
    """The largest L with sum(min(full, L)) <= budget."""
    if sum(fulls) <= budget:
        return max(fulls, default=0)
    low, high = 0, max(fulls)
    while low < high:
        mid = (low + high + 1) // 2
        if sum(min(f, mid) for f in fulls) <= budget:
            low = mid
        else:
            high = mid - 1
    return low


def detail_plan(missions: list[tuple[int, int]], budget: int, digest_cost: int) -> list[Share]:
    """(seq, full chars) of the window's missions, any order → their shares, oldest first.
    `digest_cost` is what a digest line costs (with its share of the digest title)."""
    ordered = sorted(missions)
    if sum(full for _, full in ordered) <= budget:
        return [Share(seq, full, full) for seq, full in ordered]
    shown = list(ordered)
    digests: list[tuple[int, int]] = []
    while True:
        room = budget - digest_cost * len(digests) - (len(DIGEST_TITLE) + 1 if digests else 0)
        if not shown:
            break
        *older, (newest_seq, newest_full) = shown
        newest = min(newest_full, max(room // 3, 0)) if older else min(newest_full, max(room, 0))
        level = _level([f for _, f in older], room - newest) if older else 0
        # Too small: cut below the useful minimum (a mission smaller than it, whole, is not).
        starved = any(min(f, level) < min(f, DETAIL_MIN_USEFUL) for _, f in older)
        starved = starved or newest < min(newest_full, DETAIL_MIN_USEFUL)
        # The newest mission is never a digest while it has room for its header and a
        # line: alone, it takes it all.
        if not starved or (not older and newest >= DETAIL_MIN_ALONE):
            shares = {seq: min(full, level) for seq, full in older}
            shares[newest_seq] = newest
            break
        digests.append(shown.pop(0))
        if not shown:
            shares = {}
            break
    out = [Share(seq, full, 0) for seq, full in digests]
    out += [Share(seq, full, shares[seq]) for seq, full in shown]
    return sorted(out, key=lambda s: s.seq)


# What a digest line costs, with its share of the title (the line is at most this).
DIGEST_LINE_COST = DETAIL_DIGEST_CHARS + 40


def window_shares(
    missions: Sequence[Mission], budget: int, headers: dict[int, str] | None = None
) -> list[Share]:
    """The shares of the window's missions under `budget` (each costs its header, its
    text and the joiners between turns and missions). `headers`, by mission id, are the
    headers as rendered (a brief the office wrote is labelled so), else the plain one."""

    def header(m: Mission) -> int:
        if headers is not None and m.pk in headers:
            return len(headers[m.pk])
        return len(mission_header(m.label or str(m.seq), m.created_at))

    return detail_plan(
        [(m.seq, header(m) + len(m.instruction) + len(m.reply) + 4) for m in missions],
        budget,
        DIGEST_LINE_COST,
    )
