"""What every transcript shares: its words read from data/NAME.yaml, the rule that keeps a
planted answer out of every other mission, its two files, the fairness check that reads
those files as committed, and the office channel a benchmark replays it into."""

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent


def load_words(name: str) -> dict[str, Any]:
    """A transcript's words, written as data in data/NAME.yaml."""
    words: dict[str, Any] = yaml.safe_load((HERE / "data" / f"{name}.yaml").read_text("utf-8"))
    return words


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


def read(name: str, folder: Path = HERE) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The committed transcript NAME: its questions document and its missions."""
    doc = json.loads((folder / f"{name}.questions.json").read_text("utf-8"))
    raw = (folder / doc["transcript"]).read_text("utf-8")
    return doc, [json.loads(row) for row in raw.splitlines() if row.strip()]


def channel_for(doc: dict[str, Any], label: str, name: str) -> tuple[Any, Any]:
    """A fresh office (Django set up) and the channel the transcript `doc` is held in."""
    from django.contrib.auth import get_user_model

    from office.services import office_create_with_team

    owner = get_user_model().objects.create(username=f"{label}-{name}")
    office = office_create_with_team(owner=owner, name=f"{label.capitalize()} {name}")
    channels = office.channels.filter(kind=doc["channel_kind"])
    if doc["channel_kind"] == "dm":
        channels = channels.filter(employee__name=doc["employee"])
    return office, channels.get()


def unfair(name: str, folder: Path = HERE) -> list[str]:
    """What makes the committed transcript NAME unfair to its questions, read from its two
    files: an answer (or a reversed value) missing where it was planted or present in any
    other mission, or a question that gives its answer away. Empty when fair."""
    doc, lines = read(name, folder)
    facts = doc["facts"]
    planted = ((f["answer"], f["planted"], f["old"], f["old_planted"]) for f in facts)
    rules = forbidden_outside(planted)
    problems = []
    for seq, line in enumerate(lines, start=1):
        for needle in violations(line["instruction"] + "\n" + line["reply"], seq, rules):
            problems.append(f"#{seq} holds {needle!r}, planted elsewhere")
    for fact in facts:
        for needle, seq in ((fact["answer"], fact["planted"]), (fact["old"], fact["old_planted"])):
            if needle is None:
                continue
            where = lines[seq - 1]["instruction"] + "\n" + lines[seq - 1]["reply"]
            if needle.casefold() not in where.casefold():
                problems.append(f"{fact['id']}: {needle!r} is not in #{seq}, where it is planted")
        problems += [
            f"{fact['id']}: {question['text']!r} gives its answer away"
            for question in fact["questions"]
            if fact["answer"].casefold() in question["text"].casefold()
        ]
    return problems
