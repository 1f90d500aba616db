"""The meaning checks of the retention benchmark (bench/retention.py), for transcripts whose
questions document lists pasted material (the office conversations written as data,
bench/transcripts/data/): all by code, on the text a prompt holds and the rows the product
wrote.

- A reversed value shown unmarked: the old value on a prompt line that neither carries a
  supersession mark nor names the new value (the line that reverses it names both); and
  the other way round, the current value on a line marked replaced (a wrong mark).
- Rules and decisions made from pasted material: memory items (rule, decision, preference)
  and summary decisions and constraints whose words lie inside a paste.
- Rules in force: the person's own rules, by a key phrase, in the system section.
- Summary fact retention: the facts folded so far whose answer the summary still holds."""

import re
from typing import Any

# What marks an old value as replaced, next to it on its line: the product's marks in
# both languages ("(superseded by #97)", "대체됨"), and the plain ways to write one.
MARKS = ("superseded", "대체됨", "replaced by", "no longer", "이전 값", "더 이상")
# Shorter than this, a memory item's words say too little to place them in a paste.
MIN_SPAN = 10
_REFS = re.compile(r"\s*\((?:s\d+)?#[\d, #s]+\)\s*$")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+\.)\s+")
_SENTENCES = re.compile(r"(?<=[.!?。])\s+|\n")


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


# The missions a prompt line cites: "[#41]", "[#5, #7]", "[mission #41 · …]", "- #41 …".
_CITED = re.compile(r"#(\d+)\b")


def before_the_change(line: str, since: int | None) -> bool:
    """Whether a line can show an old value as current: it cites a mission before the one
    that replaced it (`since`), or none (a memory item). A line citing only that mission
    or later ones gives the reason for the change or what followed it ("Jonas asked to
    drop to three days a week" beside "let's go with Mira instead"), not the old value."""
    cited = [int(n) for n in _CITED.findall(line)]
    return since is None or not cited or min(cited) < since


def unmarked_old(text: str, *, old: str, new: str, since: int | None = None) -> list[str]:
    """The lines of `text` that show `old` as if it were current (no mark, no new value,
    `before_the_change` mission `since`)."""
    folded_old, folded_new = old.casefold(), new.casefold()
    found = []
    for line in text.splitlines():
        folded = line.casefold()
        if folded_old not in folded or folded_new in folded:
            continue
        if not before_the_change(line, since):
            continue
        if any(mark in folded for mark in MARKS):
            continue
        found.append(line.strip()[:160])
    return found


# A mark as the product writes it, with the value it names.
_MARK = re.compile(r"\((?:superseded by|대체됨)[^)]*\)", re.IGNORECASE)


def marked_current(text: str, *, old: str, new: str) -> list[str]:
    """The lines of `text` that state `new` (the current value) and carry a mark that it
    was replaced: a wrong mark, unless the line also states `old` (a line that reverses
    names both)."""
    folded_old, folded_new = old.casefold(), new.casefold()
    found = []
    for line in text.splitlines():
        if not _MARK.search(line):
            continue
        said = _MARK.sub("", line).casefold()
        if folded_new in said and folded_old not in said:
            found.append(line.strip()[:160])
    return found


def inside_paste(text: str, pastes: list[str]) -> bool:
    """Whether `text` (an item's words, or the sentence it stands on) is taken from one of
    the pasted blocks: the whole of it, or one of its sentences, lies inside a paste."""
    body = _BULLET.sub("", _REFS.sub("", text.strip())).rstrip("…").strip()
    candidates = [body, *(s.strip() for s in _SENTENCES.split(body))]
    normed = [_norm(p) for p in pastes]
    for candidate in candidates:
        probe = _norm(candidate).rstrip(".")
        if len(probe) >= MIN_SPAN and any(probe in paste for paste in normed):
            return True
    return False


def pasted_memory(office: Any, pastes: list[str]) -> list[str]:
    """Memory items of kind rule, decision or preference that were made from pasted
    material (their source sentence, else their text, inside a paste)."""
    from memory.models import MemoryItem, MemoryKind

    kinds = (MemoryKind.RULE, MemoryKind.DECISION, MemoryKind.PREFERENCE)
    return [
        f"[{item.kind}] {item.text[:140]}"
        for item in MemoryItem.objects.filter(office=office, kind__in=kinds).order_by("pk")
        if inside_paste(item.source_span or item.text, pastes)
    ]


def memory_counts(office: Any) -> dict[str, int]:
    """Memory items by kind, and how many were ever retired (inactive or superseded)."""
    from memory.models import MemoryItem

    items = list(MemoryItem.objects.filter(office=office))
    counts: dict[str, int] = {}
    for item in items:
        counts[item.kind] = counts.get(item.kind, 0) + 1
    counts["retired"] = sum(1 for i in items if not i.active or i.superseded_by_id is not None)
    return counts


def summary_state(session: Any) -> tuple[dict[str, Any], int]:
    """The session's summary state and the last mission folded into it."""
    from summaries.models import RollingSummary

    summary = RollingSummary.objects.filter(session=session).first()
    if summary is None:
        return {}, 0
    return dict(summary.state or {}), summary.folded_through_seq


def pasted_summary(state: dict[str, Any], pastes: list[str]) -> list[str]:
    """Live summary decisions and constraints whose words come from pasted material."""
    items = [
        *(d for d in state.get("decisions", []) if not d.get("superseded")),
        *state.get("constraints", []),
    ]
    return [i["text"][:140] for i in items if inside_paste(i.get("text", ""), pastes)]


def rules_in_system(system: str, rules: list[dict[str, Any]]) -> list[str]:
    """The key phrases of the person's rules that the system section shows."""
    folded = system.casefold()
    return [r["key"] for r in rules if r["key"].casefold() in folded]


def measure(
    *,
    office: Any,
    session: Any,
    doc: dict[str, Any],
    questions: list[dict[str, Any]],
    summary_texts: dict[str, str],
) -> dict[str, Any]:
    """The checkpoint's meaning figures (rows the product wrote, the summary it shows)."""
    pastes = [p["text"] for p in doc["pastes"]]
    state, folded_through = summary_state(session)
    folded = [f for f in doc["facts"] if f["planted"] <= folded_through]
    kept = [f["id"] for f in folded if f["answer"].casefold() in summary_texts[f["id"]].casefold()]
    return {
        "pasted_memory": pasted_memory(office, pastes),
        "pasted_summary": pasted_summary(state, pastes),
        "memory_counts": memory_counts(office),
        "summary_kept": kept,
        "summary_folded": [f["id"] for f in folded],
        "person_rules": len(doc["rules"]["person"]),
        "questions_asked": len(questions),
    }


def question_checks(
    *,
    fact: dict[str, Any],
    question: dict[str, Any],
    texts: dict[str, str],
    system: str,
    rules: list[dict[str, Any]],
) -> dict[str, Any]:
    """One question's meaning checks over the product's prompt and the references of
    its size (`texts`: product, plain, newest)."""
    entry: dict[str, Any] = {
        "current": bool(question.get("current")),
        "held_out": bool(question.get("held_out")),
        "rules_in_system": rules_in_system(system, rules),
    }
    old, new = fact.get("old"), fact["answer"]
    if old is not None and entry["current"]:
        since = fact.get("planted")
        entry["unmarked"] = {
            name: unmarked_old(text, old=old, new=new, since=since)[:3]
            for name, text in texts.items()
        }
        entry["current_marked"] = marked_current(texts["product"], old=old, new=new)[:3]
        product = texts["product"].casefold()
        entry["old_only"] = old.casefold() in product and new.casefold() not in product
    return entry
