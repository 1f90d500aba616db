"""What a transcript is made of, and the deterministic assembly of one from its `Spec`
(launch_en.SPEC, launch_ko.SPEC): planted missions by hand, filler from work templates, and
timestamps spread over working days."""

import json
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import yaml

HERE = Path(__file__).resolve().parent

T = TypeVar("T")

MISSIONS = 120
MIN_CHARS = 500
MAX_CHARS = 4000

# A filler template: (rng, seq, state) -> (instruction, reply). `state` is the
# transcript's own scratch dict, for templates that continue a thread (weekly numbers).
Template = Callable[[random.Random, int, dict[str, object]], tuple[str, str]]


@dataclass(frozen=True)
class Question:
    kind: str  # "reused" | "particles" | "paraphrased"
    text: str


@dataclass(frozen=True)
class Fact:
    """A fact planted in mission `planted`; `answer` must be found in the context.

    A reversed decision has `old` (stated in mission `old_planted`, reversed in
    `planted`): it must never appear live in the summary once reversed."""

    id: str
    subject: str
    answer: str
    planted: int
    questions: tuple[Question, ...]
    # Words naming the subject, to show what the summary says about it on a failure.
    topic: tuple[str, ...]
    old: str | None = None
    old_planted: int | None = None


@dataclass
class Spec:
    name: str
    language: str
    channel_kind: str
    employee: str
    description: str
    seed: int
    tz: str
    start: date
    workdays: int
    planted: dict[int, tuple[str, str]]
    facts: list[Fact]
    templates: list[Template]
    extra_forbidden: list[str] = field(default_factory=list)
    holidays: tuple[date, ...] = ()


def load_words(name: str) -> dict[str, Any]:
    """A transcript's words, written as data in data/NAME.yaml."""
    words: dict[str, Any] = yaml.safe_load((HERE / "data" / f"{name}.yaml").read_text("utf-8"))
    return words


def planted_missions(rows: dict[int, list[str]]) -> dict[int, tuple[str, str]]:
    return {seq: (instruction, reply) for seq, (instruction, reply) in rows.items()}


def spec_facts(rows: list[dict[str, Any]]) -> list[Fact]:
    """Facts as written in a data file: topic and questions as lists."""
    return [
        Fact(
            **{
                **row,
                "topic": tuple(row["topic"]),
                "questions": tuple(Question(**q) for q in row["questions"]),
            }
        )
        for row in rows
    ]


def pick(rng: random.Random, pool: Sequence[T]) -> T:
    return pool[rng.randrange(len(pool))]


def sample(rng: random.Random, pool: Sequence[T], k: int) -> list[T]:
    return rng.sample(list(pool), min(k, len(pool)))


def money(amount: int, symbol: str = "$") -> str:
    return f"{symbol}{amount:,}"


def won(amount: int) -> str:
    """Korean won the way people write it: 1,200만 원 for round ten-thousands, else 원."""
    if amount >= 10_000 and amount % 10_000 == 0:
        return f"{amount // 10_000:,}만 원"
    return f"{amount:,}원"


def josa(word: str, pair: str) -> str:
    """The word with the Korean particle that fits it: pair is "을를", "은는", "이가",
    "으로로" or "이었였" (after a final consonant, then after a vowel)."""
    forms = {
        "을를": ("을", "를"),
        "은는": ("은", "는"),
        "이가": ("이", "가"),
        "으로로": ("으로", "로"),
        "이었였": ("이었", "였"),
    }[pair]
    last = re.sub(r"[\s'\")]+$", "", word)[-1:]
    if "가" <= last <= "힣":
        final = (ord(last) - 0xAC00) % 28
        # ㄹ takes 로, not 으로.
        consonant = final != 0 and not (pair == "으로로" and final == 8)
    elif last.isdigit():
        consonant = last in "013678"
    else:
        consonant = last.lower() not in "aeiouy"
    return word + (forms[0] if consonant else forms[1])


def schedule(spec: Spec, rng: random.Random) -> list[datetime]:
    """MISSIONS timestamps over `workdays` working days from `start`, in office hours."""
    tz = ZoneInfo(spec.tz)
    days: list[date] = []
    day = spec.start
    while len(days) < spec.workdays:
        if day.weekday() < 5 and day not in spec.holidays:
            days.append(day)
        day += timedelta(days=1)
    per_day: dict[int, int] = {}
    for i in range(MISSIONS):
        d = i * spec.workdays // MISSIONS
        per_day[d] = per_day.get(d, 0) + 1
    stamps: list[datetime] = []
    for d, count in sorted(per_day.items()):
        # Working hours 09:00-18:30, one slot per mission, a little jitter in each slot.
        span = (18 * 60 + 30 - 9 * 60) // count
        for k in range(count):
            minute = 9 * 60 + k * span + rng.randrange(5, max(span - 10, 6))
            stamps.append(datetime.combine(days[d], time(minute // 60, minute % 60), tz))
    return stamps


def forbidden_outside(
    planted: Iterable[tuple[str, int, str | None, int | None]], extra: Sequence[str] = ()
) -> list[tuple[str, set[int]]]:
    """(string, missions allowed to contain it), from each fact's (answer, mission, old
    value, its mission): every answer and every reversed value occurs only where it was
    planted, so a hit in the context is a real retention."""
    rules: list[tuple[str, set[int]]] = []
    for answer, mission, old, old_mission in planted:
        if old is not None and old_mission is not None:
            rules.append((old, {old_mission, mission}))
        rules.append((answer, {mission}))
    rules += [(word, set()) for word in extra]
    return rules


def violations(text: str, seq: int, rules: list[tuple[str, set[int]]]) -> list[str]:
    """The forbidden strings in mission `seq`'s text."""
    folded = text.casefold()
    return [s for s, allowed in rules if seq not in allowed and s.casefold() in folded]


def render(name: str, lines: list[dict[str, str]], document: dict[str, object]) -> dict[Path, str]:
    """A transcript's two files: NAME.jsonl (the format of `manage.py replay`) and
    NAME.questions.json (the format bench/retention.py reads)."""
    jsonl = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    questions = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    return {HERE / f"{name}.jsonl": jsonl, HERE / f"{name}.questions.json": questions}


def build(spec: Spec) -> list[dict[str, str]]:
    """The transcript's lines, {"instruction", "reply", "at"}, deterministically."""
    rng = random.Random(spec.seed)
    stamps = schedule(spec, rng)
    facts = [(f.answer, f.planted, f.old, f.old_planted) for f in spec.facts]
    rules = forbidden_outside(facts, spec.extra_forbidden)
    state: dict[str, object] = {}
    bag: list[int] = []
    last_template = -1
    lines: list[dict[str, str]] = []
    for seq in range(1, MISSIONS + 1):
        if seq in spec.planted:
            instruction, reply = spec.planted[seq]
            bad = violations(instruction + "\n" + reply, seq, rules)
            if bad:
                raise ValueError(f"{spec.name} #{seq}: planted mission contains {bad}")
        else:
            for _attempt in range(200):
                if not bag:
                    bag = list(range(len(spec.templates)))
                    rng.shuffle(bag)
                    if bag[-1] == last_template and len(bag) > 1:
                        bag[0], bag[-1] = bag[-1], bag[0]
                index = bag.pop()
                instruction, reply = spec.templates[index](rng, seq, state)
                size = len(instruction) + len(reply)
                if MIN_CHARS <= size <= MAX_CHARS and not violations(
                    instruction + "\n" + reply, seq, rules
                ):
                    last_template = index
                    break
            else:
                raise ValueError(f"{spec.name} #{seq}: no clean filler in 200 attempts")
        size = len(instruction) + len(reply)
        if not MIN_CHARS <= size <= MAX_CHARS:
            raise ValueError(f"{spec.name} #{seq}: {size} chars, outside {MIN_CHARS}-{MAX_CHARS}")
        lines.append(
            {"instruction": instruction, "reply": reply, "at": stamps[seq - 1].isoformat()}
        )
    for fact in spec.facts:
        for question in fact.questions:
            if fact.answer.casefold() in question.text.casefold():
                raise ValueError(f"{spec.name} {fact.id}: a question gives its answer away")
        for needle, seqs in ((fact.answer, fact.planted), (fact.old, fact.old_planted)):
            if needle is None or seqs is None:
                continue
            line = lines[seqs - 1]
            if needle.casefold() not in (line["instruction"] + line["reply"]).casefold():
                raise ValueError(f"{spec.name} #{seqs}: {needle!r} is not where it is planted")
    return lines


def questions_document(spec: Spec) -> dict[str, object]:
    return {
        "transcript": f"{spec.name}.jsonl",
        "description": spec.description,
        "language": spec.language,
        "channel_kind": spec.channel_kind,
        "employee": spec.employee,
        "facts": [
            {
                "id": f.id,
                "subject": f.subject,
                "answer": f.answer,
                "planted": f.planted,
                "old": f.old,
                "old_planted": f.old_planted,
                "topic": list(f.topic),
                "questions": [{"kind": q.kind, "text": q.text} for q in f.questions],
            }
            for f in spec.facts
        ],
    }
