"""The transcript engine: a conversation written as data (bench/transcripts/data/NAME.yaml)
becomes NAME.jsonl (finished missions, the format of `manage.py replay`) and
NAME.questions.json (planted facts, rules, pasted material and the questions asked after
the last mission, the format bench/retention.py reads), deterministically.

A data file holds, per language, what the conversation says:

- `planted`: the missions written out by hand, by number: what the person asks (`ask`),
  material they paste into it (`paste`, set apart below the ask) and the reply;
  `pad` names a template whose reply is appended until the mission is long enough;
- `templates` and `pools`: the everyday work between them. Template text draws from the
  pools with placeholders: `{pool}` one item, `{pool@1}` one item kept for the whole
  mission, `{n:5-40}` a whole number, `{list:pool:2-4}` distinct items as "- " lines,
  `{para:pool:2-3}` distinct items as paragraphs, `{num:pool:2-4}` as numbered lines.
  Pool items may hold placeholders themselves;
- `facts` (each with its answer, where it was planted, a reversed value `old` with its
  mission, `where: paste` for a fact stated only inside pasted material) and their
  questions (`para: true` when asked in other words, `held: true` for the held-out set);
- `rules`: the person's own (`person`) and those only inside pasted material (`pasted`,
  which must never become the person's).

An answer or an old value appears in no mission but where it was planted, so finding it
in a prompt is a real retention."""

import random
import re
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench.transcripts import common
from bench.transcripts.common import forbidden_outside, violations

# How a paste is set apart from the ask: a blank line, the material, a blank line.
PASTE_FENCE = "\n\n"
_PLACEHOLDER = re.compile(r"\{([a-z_]+)(?::([a-z_0-9]+))?(?::(\d+)-(\d+))?(?:@(\d))?\}")


load = common.load_words


class Expander:
    """Template text with its placeholders filled from the pools, one draw at a time in
    the order they appear (so a transcript depends only on its data and seed)."""

    def __init__(self, pools: dict[str, list[str]], rng: random.Random) -> None:
        self.pools = pools
        self.rng = rng
        self.kept: dict[str, str] = {}

    def __call__(self, text: str, depth: int = 0) -> str:
        if depth > 4:
            raise ValueError(f"placeholders nest too deep: {text[:60]!r}")
        return _PLACEHOLDER.sub(lambda m: self._one(m, depth), text)

    def _one(self, match: re.Match[str], depth: int) -> str:
        head, pool_name, low, high, keep = match.groups()
        if head == "n" and low is not None:
            return f"{self.rng.randint(int(low), int(high)):,}"
        if head in ("list", "para", "num"):
            assert pool_name is not None and low is not None and high is not None
            pool = self.pools[pool_name]
            k = min(self.rng.randint(int(low), int(high)), len(pool))
            items = [self(item, depth + 1) for item in self.rng.sample(pool, k)]
            if head == "list":
                return "\n".join(f"- {item}" for item in items)
            if head == "num":
                return "\n".join(f"{i}. {item}" for i, item in enumerate(items, start=1))
            return "\n\n".join(items)
        key = f"{head}@{keep}"
        if keep is not None and key in self.kept:
            return self.kept[key]
        if head not in self.pools:
            raise KeyError(f"no pool {head!r} for {match.group(0)}")
        pool = self.pools[head]
        value = self(pool[self.rng.randrange(len(pool))], depth + 1)
        if keep is not None:
            self.kept[key] = value
        return value


def stamps(data: dict[str, Any], rng: random.Random) -> list[datetime]:
    """One timestamp per mission over working days from `start`, in office hours, a few
    missions a day."""
    tz = ZoneInfo(data["tz"])
    count = data["missions"]
    per_day = data.get("per_day", 2)
    day: date = data["start"]
    out: list[datetime] = []
    while len(out) < count:
        if day.weekday() < 6:
            n = min(rng.randint(1, per_day), count - len(out))
            span = (19 * 60 - 8 * 60) // n
            for k in range(n):
                minute = 8 * 60 + k * span + rng.randrange(0, max(span - 5, 1))
                out.append(datetime.combine(day, time(minute // 60, minute % 60), tz))
        day += timedelta(days=1)
    return out


def _ask(mission: dict[str, Any]) -> str:
    if mission.get("paste"):
        return mission["ask"].rstrip() + PASTE_FENCE + mission["paste"].strip("\n")
    return str(mission["ask"]).rstrip()


def build(data: dict[str, Any]) -> list[dict[str, str]]:
    """The transcript's lines, {"instruction", "reply", "at"}."""
    rng = random.Random(data["seed"])
    expand = Expander(data["pools"], rng)
    times = stamps(data, rng)
    facts = data["facts"]
    rules = forbidden_outside(
        (f["answer"], f["planted"], f.get("old"), f.get("old_planted")) for f in facts
    )
    low, high = data["chars"]
    templates: dict[str, dict[str, str]] = data["templates"]
    # Templates only for padding planted missions (`filler: false`) are not drawn alone.
    names = [n for n, t in templates.items() if t.get("filler", True)]
    planted: dict[int, dict[str, Any]] = data["planted"]
    bag: list[str] = []
    lines: list[dict[str, str]] = []

    def clean(seq: int, text: str) -> bool:
        return not violations(text, seq, rules)

    for seq in range(1, data["missions"] + 1):
        expand.kept = {}
        if seq in planted:
            mission = planted[seq]
            instruction, reply = _ask(mission), mission["reply"].strip("\n")
            pad = mission.get("pad", data.get("pad"))
            bad = violations(instruction + "\n" + reply, seq, rules)
            if bad:
                raise ValueError(f"{data['name']} #{seq}: planted mission holds {bad}")
        else:
            for _attempt in range(200):
                if not bag:
                    bag = names[:]
                    rng.shuffle(bag)
                template = templates[bag.pop()]
                expand.kept = {}
                instruction, reply = expand(template["ask"]), expand(template["reply"])
                if clean(seq, instruction + "\n" + reply):
                    break
            else:
                raise ValueError(f"{data['name']} #{seq}: no clean filler in 200 attempts")
            pad = data.get("pad")
        while pad and len(instruction) + len(reply) < low:
            reply = reply + "\n\n" + _padding(expand, templates[pad]["reply"], seq, rules)
        if len(instruction) + len(reply) > high and seq not in planted:
            raise ValueError(f"{data['name']} #{seq}: longer than {high} chars")
        lines.append({"instruction": instruction, "reply": reply, "at": times[seq - 1].isoformat()})
    check(data, lines)
    return lines


def _padding(expand: Expander, template: str, seq: int, rules: list[tuple[str, set[int]]]) -> str:
    """One more block for mission `seq` from `template`, free of other missions' facts."""
    for _attempt in range(200):
        text = expand(template)
        if not violations(text, seq, rules):
            return text
    raise ValueError(f"#{seq}: no clean padding in 200 attempts")


def check(data: dict[str, Any], lines: list[dict[str, str]]) -> None:
    """What makes the questions fair: every answer where it was planted (inside the paste
    for a fact stated only there, and nowhere else in that mission), no question giving
    its answer away, every rule's words where the data says they were said."""
    name = data["name"]
    for fact in data["facts"]:
        line = lines[fact["planted"] - 1]
        whole = line["instruction"] + "\n" + line["reply"]
        if fact["answer"] not in whole:
            raise ValueError(f"{name} {fact['id']}: {fact['answer']!r} not in #{fact['planted']}")
        if fact.get("where") == "paste":
            paste = data["planted"][fact["planted"]].get("paste") or ""
            outside = whole.replace(paste.strip("\n"), "")
            if fact["answer"] not in paste or fact["answer"] in outside:
                raise ValueError(f"{name} {fact['id']}: not stated only inside the paste")
        if fact.get("old") is not None:
            old = lines[fact["old_planted"] - 1]
            if fact["old"] not in old["instruction"] + "\n" + old["reply"]:
                raise ValueError(f"{name} {fact['id']}: old value not in #{fact['old_planted']}")
        for question in fact["questions"]:
            if fact["answer"].casefold() in question["q"].casefold():
                raise ValueError(f"{name} {fact['id']}: a question gives its answer away")
    for kind in ("person", "pasted"):
        for rule in data["rules"][kind]:
            mission = data["planted"][rule["mission"]]
            where = (mission.get("paste") or "") if kind == "pasted" else mission["ask"]
            if rule["text"] not in where:
                raise ValueError(f"{name}: {kind} rule {rule['text'][:40]!r} not in its place")


def questions_document(data: dict[str, Any]) -> dict[str, object]:
    planted: dict[int, dict[str, Any]] = data["planted"]
    return {
        "transcript": f"{data['name']}.jsonl",
        "description": data["description"],
        "language": data["language"],
        "channel_kind": data["channel_kind"],
        "employee": data["employee"],
        # Asked after the last mission only.
        "checkpoints": [data["missions"]],
        "pastes": [
            {"mission": seq, "text": m["paste"].strip("\n")}
            for seq, m in sorted(planted.items())
            if m.get("paste")
        ],
        "rules": {
            kind: [{"mission": r["mission"], "text": r["text"], "key": r["key"]} for r in rules]
            for kind, rules in data["rules"].items()
        },
        "facts": [
            {
                "id": f["id"],
                "subject": f["topic"][0],
                "answer": f["answer"],
                "planted": f["planted"],
                "where": f.get("where", "said"),
                "old": f.get("old"),
                "old_planted": f.get("old_planted"),
                "topic": list(f["topic"]),
                "questions": [
                    {
                        "kind": "paraphrased" if q.get("para") else "reused",
                        "text": q["q"],
                        "current": f.get("old") is not None,
                        "held_out": bool(q.get("held")),
                    }
                    for q in f["questions"]
                ],
            }
            for f in data["facts"]
        ],
    }


def render(data: dict[str, Any]) -> dict[Path, str]:
    return common.render(data["name"], build(data), questions_document(data))
