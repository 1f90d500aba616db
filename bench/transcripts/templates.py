"""The filler templates every transcript shares, written once and given each language's
words: how a careful reply ends (risks, alternatives, next steps, a question), a launch
checklist, FAQ answers, and short one-off exchanges.

Each draws from its random generator in the same order whatever the language, so a
language's words change what a transcript says, never which choices it makes."""

import random
from collections.abc import Sequence
from dataclasses import dataclass

from bench.transcripts.common import Template, josa, pick, sample


@dataclass(frozen=True)
class Closing:
    """The blocks a reply may end with, each with its chance. Pool entries are format
    strings: {s} is the reply's subject ({s_eul}, {s_eun}: with the Korean particle),
    {day} a weekday."""

    risk_chance: float
    risk_heading: str
    risks: Sequence[str]
    alternative_chance: float
    alternative_heading: str
    alternatives: Sequence[str]
    next_chance: float
    next_heading: str
    next_steps: Sequence[str]
    weekdays: Sequence[str]
    question_chance: float
    question_prefix: str
    questions: Sequence[str]
    # A remark before everything else (the Korean chief of staff adds context).
    note_chance: float | None = None
    note_prefix: str = ""
    notes: Sequence[str] = ()


def closing(rng: random.Random, subject: str, reply: str, words: Closing) -> str:
    """The reply with the parts a careful reply often ends with."""
    names = {"s": subject, "s_eul": josa(subject, "을를"), "s_eun": josa(subject, "은는")}
    blocks = []
    if words.note_chance is not None and rng.random() < words.note_chance:
        blocks.append(words.note_prefix + pick(rng, words.notes))
    if rng.random() < words.risk_chance:
        risks = sample(rng, words.risks, rng.randint(1, 3))
        blocks.append(
            words.risk_heading + "\n" + "\n".join(f"- {r.format(**names)}" for r in risks)
        )
    if rng.random() < words.alternative_chance:
        alternatives = sample(rng, words.alternatives, 2)
        blocks.append(
            words.alternative_heading
            + "\n"
            + "\n".join(f"- {a.format(**names)}" for a in alternatives)
        )
    if rng.random() < words.next_chance:
        day = pick(rng, words.weekdays)
        steps = sample(rng, words.next_steps, rng.randint(2, 4))
        blocks.append(
            words.next_heading
            + "\n"
            + "\n".join(f"{i}. {n.format(day=day, **names)}" for i, n in enumerate(steps, start=1))
        )
    if rng.random() < words.question_chance:
        blocks.append(words.question_prefix + pick(rng, words.questions).format(**names))
    return "\n\n".join([reply, *blocks])


@dataclass(frozen=True)
class Checklist:
    """A launch status by workstream: `statuses` are drawn per item (`troubled` ones are
    listed again under the risks, each with a reason)."""

    asks: Sequence[str]
    streams: Sequence[tuple[str, Sequence[str]]]
    streams_drawn: tuple[int, int]
    statuses: Sequence[str]
    troubled: tuple[str, ...]
    reasons: Sequence[str]
    heading: str
    risk_heading: str
    no_risk: str
    need_prefix: str
    needs: Sequence[str]
    ending: str
    subject: str


def checklist(words: Checklist, ending: Closing) -> Template:
    def template(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
        instruction = pick(rng, words.asks)
        lines, risks = [], []
        for name, items in sample(rng, words.streams, rng.randint(*words.streams_drawn)):
            parts = []
            for item in items:
                status = pick(rng, words.statuses)
                parts.append(f"{item}: {status}")
                if status in words.troubled:
                    risks.append(item)
            lines.append(f"- {name} — " + "; ".join(parts))
        reply = (
            words.heading
            + "\n\n"
            + "\n".join(lines)
            + "\n\n"
            + words.risk_heading
            + "\n"
            + ("\n".join(f"- {r}: {pick(rng, words.reasons)}" for r in risks) or words.no_risk)
            + "\n\n"
            + words.need_prefix
            + pick(rng, words.needs)
            + ".\n\n"
            + words.ending
        )
        return instruction, closing(rng, words.subject, reply, ending)

    return template


@dataclass(frozen=True)
class Faq:
    """Help-centre answers to a few of `pool`'s (question, answer) pairs. `answer` formats
    one pair ({q}, {a}); `notes` follow them ({n}: how many go on the pricing page)."""

    pool: Sequence[tuple[str, str]]
    drawn: tuple[int, int]
    asks: Sequence[str]
    answer: str
    notes: str
    subject: str


def faq(words: Faq, ending: Closing) -> Template:
    def template(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
        items = sample(rng, words.pool, rng.randint(*words.drawn))
        instruction = pick(rng, words.asks) + "\n" + "\n".join(f"- {q}" for q, _ in items)
        reply = (
            "\n\n".join(words.answer.format(q=q, a=a) for q, a in items)
            + "\n\n"
            + words.notes.format(n=min(3, len(items)))
        )
        return instruction, closing(rng, words.subject, reply, ending)

    return template


@dataclass(frozen=True)
class LaunchWeek:
    """Launch week day by day: each day's first item always, some of the others. `rules`
    follow, a format string of the numbers drawn from `draws` in order ({0}, {1}, …), each
    a whole number from `low` to `high` times `step`."""

    asks: Sequence[str]
    plan: dict[str, list[str]]
    heading: str
    rules: str
    draws: Sequence[tuple[int, int, int]]
    subject: str


def launch_week(words: LaunchWeek, ending: Closing) -> Template:
    def template(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
        instruction = pick(rng, words.asks)
        days = []
        for day, items in words.plan.items():
            kept = [items[0], *sample(rng, items[1:], max(len(items) - 1 - rng.randint(0, 1), 1))]
            kept.sort()
            days.append(day + "\n" + "\n".join(f"- {i}" for i in kept))
        numbers = [rng.randint(low, high) * step for low, high, step in words.draws]
        reply = words.heading + "\n\n" + "\n\n".join(days) + words.rules.format(*numbers)
        return instruction, closing(rng, words.subject, reply, ending)

    return template


def quick(pool: Sequence[tuple[str, str]]) -> Template:
    """Short exchanges, each asked once; when all were asked, an empty one that the builder
    rejects, so another template runs."""

    def template(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
        used = state.setdefault("quick", [])
        assert isinstance(used, list)
        left = [i for i in range(len(pool)) if i not in used]
        if not left:
            return "", ""
        index = pick(rng, left)
        used.append(index)
        return pool[index]

    return template
