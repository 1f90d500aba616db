"""Long conversational missions: each mission is a 3-4K-char team chat of many short
turns (one speaker a line, no blank lines, no lists), and the facts are said once, in
passing, at every depth of the history (early, middle and late in a mission; early,
middle and late in the channel). Questions ask about them in other words than the line
that states them (Korean with other particles and endings).

Content lives in data/long_talk_en.yaml and data/long_talk_ko.yaml (a `Talk` each, read by
`load`); this module assembles a transcript from it deterministically, with the rules and
the files of common.py (the questions document also holds each fact's stating sentence).
bench/transcripts/generate.py writes them with the others (running this module does the
same)."""

import random
import sys
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.transcripts.common import forbidden_outside, load_words, violations

MIN_CHARS = 3000
MAX_CHARS = 4000
# Where in its mission a fact is said: the share of the mission's turns before it.
DEPTHS = {"early": 0.15, "middle": 0.5, "late": 0.85}


@dataclass(frozen=True)
class LongFact:
    """A fact said once, in passing, in mission `mission` at `depth`: `line` is the turn
    that says it (speaker included), `sentence` the part of it that states it, `answer`
    the string a context must hold. A reversed decision has `old` (said in mission
    `old_mission` by `old_line`): it must never be live in the summary once reversed."""

    id: str
    mission: int
    depth: str
    line: str
    sentence: str
    answer: str
    questions: tuple[tuple[str, str], ...]  # (kind, text)
    topic: tuple[str, ...]
    old: str | None = None
    old_mission: int | None = None
    old_line: str | None = None
    old_depth: str = "middle"


@dataclass
class Talk:
    name: str
    language: str
    employee: str
    description: str
    seed: int
    tz: str
    start: date
    person: str
    speakers: tuple[str, ...]
    # One per mission: (what the mission is about, how the person asks for it, how it ends).
    missions: list[tuple[str, str, str]]
    filler: list[str]
    slots: dict[str, list[str]]
    facts: list[LongFact]
    separator: str = ": "
    extra: dict[str, object] = field(default_factory=dict)


def load(name: str) -> Talk:
    """The talk written in data/NAME.yaml."""
    data = load_words(name)
    facts = [
        LongFact(
            **{
                **fact,
                "questions": tuple((kind, text) for kind, text in fact["questions"]),
                "topic": tuple(fact["topic"]),
            }
        )
        for fact in data.pop("facts")
    ]
    missions = [(topic, request, outcome) for topic, request, outcome in data.pop("missions")]
    return Talk(**{**data, "speakers": tuple(data["speakers"])}, missions=missions, facts=facts)


def _fill(template: str, rng: random.Random, topic: str, slots: dict[str, list[str]]) -> str:
    values = {name: pool[rng.randrange(len(pool))] for name, pool in slots.items()}
    return template.format(topic=topic, **values)


def _stamps(talk: Talk, rng: random.Random) -> list[datetime]:
    """One mission a working day, at a time in office hours."""
    tz = ZoneInfo(talk.tz)
    stamps: list[datetime] = []
    day = talk.start
    while len(stamps) < len(talk.missions):
        if day.weekday() < 5:
            minute = 9 * 60 + 30 + rng.randrange(0, 8 * 60)
            stamps.append(datetime.combine(day, time(minute // 60, minute % 60), tz))
        day += timedelta(days=1)
    return stamps


def _said(talk: Talk) -> dict[int, list[tuple[float, str]]]:
    """The planted turns of each mission with where they go."""
    said: dict[int, list[tuple[float, str]]] = {}
    for fact in talk.facts:
        said.setdefault(fact.mission, []).append((DEPTHS[fact.depth], fact.line))
        if fact.old_mission is not None and fact.old_line is not None:
            said.setdefault(fact.old_mission, []).append((DEPTHS[fact.old_depth], fact.old_line))
    return said


def build(talk: Talk) -> list[dict[str, str]]:
    rng = random.Random(talk.seed)
    stamps = _stamps(talk, rng)
    said = _said(talk)
    facts = [(f.answer, f.mission, f.old, f.old_mission) for f in talk.facts]
    rules = forbidden_outside(facts)
    others = [s for s in talk.speakers if s != talk.person]
    out: list[dict[str, str]] = []
    for number, (topic, request, outcome) in enumerate(talk.missions, start=1):
        head = f"{talk.person}{talk.separator}{request}"
        tail = f"{talk.employee}{talk.separator}{outcome}"
        body: list[str] = []
        planted = sorted(said.get(number, []))
        room = MIN_CHARS + rng.randrange(0, 600) - len(head) - len(tail)
        room -= sum(len(line) + 1 for _, line in planted)
        last = talk.person
        while room > 0:
            for _attempt in range(50):
                speaker = others[rng.randrange(len(others))] if rng.random() < 0.6 else talk.person
                if speaker == last:
                    continue
                text = _fill(talk.filler[rng.randrange(len(talk.filler))], rng, topic, talk.slots)
                line = f"{speaker}{talk.separator}{text}"
                folded = line.casefold()
                if line not in body and not any(s.casefold() in folded for s, _ in rules):
                    break
            body.append(line)
            last = speaker
            room -= len(line) + 1
        for depth, line in planted:
            body.insert(round(depth * len(body)), line)
        lines = [head, *body, tail]
        cut = len(lines) * 2 // 5
        instruction, reply = "\n".join(lines[:cut]), "\n".join(lines[cut:])
        size = len(instruction) + len(reply)
        if not MIN_CHARS <= size <= MAX_CHARS:
            raise ValueError(f"{talk.name} #{number}: {size} chars")
        bad = violations(instruction + "\n" + reply, number, rules)
        if bad:
            raise ValueError(f"{talk.name} #{number}: {bad[0]!r} outside its mission")
        out.append(
            {"instruction": instruction, "reply": reply, "at": stamps[number - 1].isoformat()}
        )
    for fact in talk.facts:
        mission = out[fact.mission - 1]
        whole = mission["instruction"] + "\n" + mission["reply"]
        if fact.sentence not in whole or fact.answer not in fact.sentence:
            raise ValueError(f"{talk.name} {fact.id}: the stating sentence is not where it is said")
        for _kind, question in fact.questions:
            if fact.answer.casefold() in question.casefold():
                raise ValueError(f"{talk.name} {fact.id}: a question gives its answer away")
    return out


def questions_document(talk: Talk) -> dict[str, object]:
    return {
        "transcript": f"{talk.name}.jsonl",
        "description": talk.description,
        "language": talk.language,
        "channel_kind": "dm",
        "employee": talk.employee,
        # Probed after every mission of the channel's first half and at its end.
        "checkpoints": [len(talk.missions) * 2 // 3, len(talk.missions)],
        "facts": [
            {
                "id": f.id,
                "subject": f.topic[0],
                "answer": f.answer,
                "sentence": f.sentence,
                "planted": f.mission,
                "depth": f.depth,
                "old": f.old,
                "old_planted": f.old_mission,
                "topic": list(f.topic),
                "questions": [{"kind": kind, "text": text} for kind, text in f.questions],
            }
            for f in talk.facts
        ],
    }


if __name__ == "__main__":
    from bench.transcripts.generate import main

    sys.exit(main())
