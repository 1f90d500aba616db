"""Retention benchmark: what the assembled context keeps of facts planted early in a long
session, asked about in the person's own words and in other words, against a naive tail
of the history of the same size (--evaluation: the office conversations written for
issue 43 instead). Not part of the test suite.

    .venv/bin/python bench/retention.py                       # SQLite (a scratch file)
    .venv/bin/python bench/retention.py --database postgres   # a scratch PostgreSQL database
    .venv/bin/python bench/retention.py --database both
    .venv/bin/python bench/retention.py --evaluation          # the office conversations

Each transcript in bench/transcripts/ (NAME.jsonl, with NAME.questions.json; regenerate
them with bench/transcripts/generate.py) is replayed into a fresh office's channel with
the product's own `replay` command (tasks inline, offline provider, folds awaited). At
missions 30, 60 and 120 the context of a next mission is assembled for every question
whose fact was planted by then (`context_for_next`, instruction = the question), and the
answer string is looked for in the whole prompt, in each section, and in the last N chars
of the full history, N = that prompt's total chars. Also checked: a reversed decision's
old value is never live in the summary (on a line with neither the "(superseded" marker
nor the new value: the line that states the reversal names both), and the prompt stays
within the channel's envelope. For every answer not found, the report shows what the
context held instead: the planted mission's recall excerpt if it was recalled, and the
summary and memory lines on the fact's subject.

`--evaluation` replays the office conversations instead (bench/transcripts/data/: Korean,
English and mixed; pastes, reversals in everyday words, the person's rules and rules only
inside pastes) and asks every question after the last mission, with the meaning checks of
bench/retention_meaning.py."""

import io
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import retention_meaning  # noqa: E402
from bench.report import per_database, scratch_database  # noqa: E402
from bench.retention_report import print_report, tables  # noqa: E402
from bench.transcripts.common import channel_for, read  # noqa: E402

TRANSCRIPTS = ("launch_en", "launch_ko", "long_talk_en", "long_talk_ko")
# The office conversations of the meaning evaluation (issue 43; `--evaluation`): questions
# asked after the last mission, with the checks of bench/retention_meaning.py.
EVALUATION = ("bakery_ko", "bikeshop_en", "ceramics_mix")
# A transcript's questions document may name its own checkpoints (long missions: fewer).
CHECKPOINTS = (30, 60, 120)
# docs/design.md §3: the envelope per channel kind, when settings do not say otherwise.
ENVELOPE_DEFAULTS = {"dm": 32_000, "project": 32_000, "master": 28_000, "all": 28_000}
SUPERSEDED_MARK = "(superseded"
SNIPPET = 160


# --- the references a prompt is measured against ------------------------------------------


def prompt_bytes(messages: list[dict[str, str]]) -> bytes:
    """A prompt as a provider receives it, in order: what its prompt cache can reuse is the
    longest byte-identical prefix of this."""
    return "".join(f"<{m['role']}>\n{m['content']}\n" for m in messages).encode("utf-8")


def common_prefix(previous: Sequence[object], current: Sequence[object]) -> int:
    """How many bytes (or chars) at the start of `current` are those of `previous`."""
    same = 0
    for a, b in zip(previous, current, strict=False):
        if a != b:
            break
        same += 1
    return same


def prefix_share(previous: bytes, current: bytes) -> float:
    """The share of `current` that is byte-identical to the start of `previous`."""
    return common_prefix(previous, current) / len(current) if current else 0.0


def _found(needle: str, text: str) -> bool:
    return needle.casefold() in text.casefold()


def _plain(text: str) -> str:
    """Text compared as a reader sees it: JSON quoting undone, whitespace collapsed."""
    return " ".join(text.replace('\\"', '"').replace("\\n", "\n").split()).casefold()


def _stated(sentence: str, text: str) -> bool:
    return _plain(sentence) in _plain(text)


_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+")


def stating_sentence(fact: dict[str, Any], lines: list[dict[str, str]]) -> str:
    """The sentence of the planted mission that states the fact (its first one holding
    the answer): for transcripts whose questions document does not name it."""
    mission = lines[fact["planted"] - 1]
    for line in (mission["instruction"] + "\n" + mission["reply"]).splitlines():
        for sentence in _SENTENCE_END.split(line):
            if _found(fact["answer"], sentence):
                return sentence.strip()
    return fact["answer"]


class PlainRetrieval:
    """What a person could build in an afternoon: the whole history cut into turns
    (lines), ranked by BM25 with the question over the same normalised terms the product
    searches, the best filled up to the product prompt's size and printed in their
    original order. No summary, no window, no headers."""

    K1 = 1.2
    B = 0.75

    def __init__(self, lines: list[dict[str, str]]) -> None:
        from language.analysis import terms

        self.units: list[str] = [
            turn.strip()
            for line in lines
            for turn in (line["instruction"] + "\n" + line["reply"]).splitlines()
            if turn.strip()
        ]
        self.counts = [Counter(terms(unit)) for unit in self.units]
        frequency = Counter(term for count in self.counts for term in count)
        n = len(self.units)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}
        self.lengths = [sum(c.values()) for c in self.counts]
        self.average = sum(self.lengths) / max(n, 1)

    def select(self, question: str, size: int) -> str:
        from language.analysis import query_terms

        wanted = [t for t in query_terms(question) if t in self.idf]
        scored: list[tuple[float, int]] = []
        for index, count in enumerate(self.counts):
            norm = self.K1 * (1 - self.B + self.B * self.lengths[index] / max(self.average, 1))
            score = sum(
                self.idf[t] * count[t] * (self.K1 + 1) / (count[t] + norm)
                for t in wanted
                if count[t]
            )
            if score > 0:
                scored.append((-score, index))
        chosen: list[int] = []
        used = 0
        for _, index in sorted(scored):
            cost = len(self.units[index]) + 1
            if used + cost <= size:
                chosen.append(index)
                used += cost
        return "\n".join(self.units[i] for i in sorted(chosen))


# --- the measurement (in the child process) ---------------------------------------------


def run_one_database() -> dict[str, Any]:
    # The settings read these when Django sets up, so they are set before anything else.
    os.environ["TASK_RUNNER"] = "inline"
    os.environ["LLM_PROVIDER"] = "offline"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    scratch = Path(tempfile.mkdtemp(prefix="bench-retention-"))
    try:
        import django

        django.setup()
        from django.db import connections

        default = connections["default"]
        if default.vendor == "sqlite":
            # A file, not Django's default in-memory test database: WAL and FTS5 as in
            # the embedded runtime. Removed with the scratch directory.
            default.settings_dict["TEST"]["NAME"] = str(scratch / "retention.sqlite3")
        with scratch_database():
            return _measure(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _envelope(kind: str) -> int:
    from django.conf import settings

    per_kind = getattr(settings, "CONTEXT_BUDGET_CHARS", None)
    if isinstance(per_kind, dict) and kind in per_kind:
        return int(per_kind[kind])
    return int(getattr(settings, f"CONTEXT_BUDGET_CHARS_{kind.upper()}", ENVELOPE_DEFAULTS[kind]))


def _history(lines: list[dict[str, str]]) -> str:
    """The full history as a prompt would show it, oldest first."""
    return "\n\n".join(
        f"[mission #{seq} · {line['at']}]\n{line['instruction']}\n{line['reply']}"
        for seq, line in enumerate(lines, start=1)
    )


def _lines_about(text: str, words: list[str]) -> list[str]:
    """The first lines of `text` that name the fact's subject (what was there instead)."""
    return [
        line.strip()[:SNIPPET]
        for line in text.splitlines()
        if line.strip() and any(_found(w, line) for w in words)
    ][:4]


def _recall_excerpt(recall: str, seq: int) -> str:
    """The recall line of mission #seq, if it was recalled (to see what it kept)."""
    for line in recall.splitlines():
        if f"mission #{seq} " in line:
            return line.strip()[:400]
    return ""


def _reversal_state(
    summary: str, *, old: str, new: str, since: int | None = None
) -> tuple[str, list[str]]:
    """How the summary shows a reversed decision's old value: L(ive) on a line that
    neither names the new value nor carries the superseded marker, and cites a mission
    before the reversing one (`since`: `before_the_change`); else S(uperseded) when a line
    marks it so; R(eplaced) when it is only named by the reversing line (with the new
    value) or by the reason given with it; A(bsent). With the lines that make it live."""
    lines = [line.strip() for line in summary.splitlines() if _found(old, line)]
    current = retention_meaning.before_the_change
    live = [
        x[:SNIPPET]
        for x in lines
        if SUPERSEDED_MARK not in x and not _found(new, x) and current(x, since)
    ]
    if live:
        return "L", live
    if any(SUPERSEDED_MARK in x for x in lines):
        return "S", []
    return ("R" if lines else "A"), []


def _measure(scratch: Path) -> dict[str, Any]:
    from django.core.management import call_command
    from django.db import connection

    from context.selectors import context_for_next
    from sessions.selectors import session_current

    results: dict[str, Any] = {"vendor": connection.vendor, "transcripts": []}
    only = [n for n in os.environ.get("RETENTION_TRANSCRIPTS", "").split(",") if n]
    for name in only or TRANSCRIPTS:
        doc, lines = read(name)
        office, channel = channel_for(doc, "retention", name)
        record: dict[str, Any] = {
            "name": name,
            "language": doc["language"],
            "kind": doc["channel_kind"],
            "envelope": _envelope(doc["channel_kind"]),
            "missions": len(lines),
            "checkpoints": [],
            "prefix_shares": [],
        }
        previous: bytes | None = None
        done = 0
        for checkpoint in tuple(doc.get("checkpoints", CHECKPOINTS)):
            started = time.perf_counter()
            # One mission at a time: the prompt each mission gets is assembled before it
            # is recorded, to measure what of it is byte-identical to the previous one's.
            for index in range(done, checkpoint):
                line = lines[index]
                session = session_current(channel=channel)
                if session is not None:
                    context = context_for_next(
                        channel=channel,
                        session=session,
                        instruction=line["instruction"],
                        at=datetime.fromisoformat(line["at"]),
                    )
                    prompt = prompt_bytes(context.messages)
                    if previous is not None:
                        record["prefix_shares"].append(prefix_share(previous, prompt))
                    previous = prompt
                part = scratch / f"{name}-{index + 1}.jsonl"
                part.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
                quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
                call_command("replay", str(part), channel=channel.pk, **quiet)
            replay_seconds = time.perf_counter() - started
            done = checkpoint
            session = session_current(channel=channel)
            assert session is not None
            facts = [
                {**f, "sentence": f.get("sentence") or stating_sentence(f, lines)}
                for f in doc["facts"]
                if f["planted"] <= checkpoint
            ]
            probed = _probe(
                channel=channel,
                session=session,
                at=datetime.fromisoformat(lines[checkpoint - 1]["at"]) + timedelta(hours=2),
                facts=facts,
                lines=lines[:checkpoint],
                doc=doc,
                office=office,
            )
            record["checkpoints"].append(
                {"checkpoint": checkpoint, "replay_seconds": replay_seconds, **probed}
            )
        results["transcripts"].append(record)
    return results


def _probe(
    *,
    channel: Any,
    session: Any,
    at: datetime,
    facts: list[dict[str, Any]],
    lines: list[dict[str, str]],
    doc: dict[str, Any],
    office: Any,
) -> dict[str, Any]:
    """Every question of `facts` asked of the context of a next mission at `at`, and of
    the references of the same size (the newest history, plain retrieval)."""
    from context.selectors import context_for_next

    history = _history(lines)
    plain = PlainRetrieval(lines)
    meaning = "pastes" in doc
    summary_texts: dict[str, str] = {}
    questions: list[dict[str, Any]] = []
    reversed_live: dict[str, list[str]] = {}
    reversed_state: dict[str, str] = {}
    old_in_memory: dict[str, str] = {}
    section_names: list[str] = []
    largest = 0
    started = time.perf_counter()
    for fact in facts:
        answer, old = fact["answer"], fact["old"]
        for question in fact["questions"]:
            context = context_for_next(
                channel=channel, session=session, instruction=question["text"], at=at
            )
            text = "\n".join(m["content"] for m in context.messages)
            total = context.total_chars
            largest = max(largest, total)
            sections = {s.name: s for s in context.sections}
            section_names += [n for n in sections if n != "current" and n not in section_names]
            summary, memory, system = (
                sections[n].text if n in sections else "" for n in ("summary", "memory", "system")
            )
            plain_text = plain.select(question["text"], total)
            newest = history[-total:]
            entry: dict[str, Any] = {
                "fact": fact["id"],
                "kind": question["kind"],
                "question": question["text"],
                "answer": answer,
                "hit": _found(answer, text),
                "naive_hit": _found(answer, newest),
                "naive_sentence": _stated(fact["sentence"], newest),
                "sentence_hit": _stated(fact["sentence"], text),
                "plain_hit": _found(answer, plain_text),
                "plain_sentence": _stated(fact["sentence"], plain_text),
                "sections": [
                    n for n, s in sections.items() if n != "current" and _found(answer, s.text)
                ],
                "prompt_chars": total,
            }
            if meaning:
                summary_texts.setdefault(fact["id"], summary)
                shown = "\n".join(s.text for s in context.sections if s.name != "current")
                entry.update(
                    retention_meaning.question_checks(
                        fact=fact,
                        question=question,
                        texts={"product": shown, "plain": plain_text, "newest": newest},
                        system=system,
                        rules=doc["rules"]["person"],
                    )
                )
            if old is not None:
                state, live = _reversal_state(
                    summary, old=old, new=answer, since=fact.get("planted")
                )
                reversed_state[fact["id"]] = state
                if state == "L":
                    reversed_live[fact["id"]] = live
                for line in memory.splitlines():
                    if _found(old, line) and not _found(answer, line):
                        old_in_memory.setdefault(fact["id"], line.strip()[:SNIPPET])
            if not entry["hit"]:
                recall = sections.get("recall")
                entry["instead"] = {
                    "recall_excerpt": _recall_excerpt(
                        recall.text if recall else "", fact["planted"]
                    ),
                    "summary": _lines_about(summary, fact["topic"]),
                    "memory": _lines_about(memory, fact["topic"]),
                    "recall_seqs": recall.mission_seqs if recall is not None else [],
                    "planted": fact["planted"],
                    "old_present": [
                        n for n, s in sections.items() if old is not None and _found(old, s.text)
                    ],
                    "section_chars": {n: s.chars for n, s in sections.items()},
                }
            questions.append(entry)
    elapsed = time.perf_counter() - started
    probed: dict[str, Any] = {
        "questions": questions,
        "sections": section_names,
        "reversed_state": reversed_state,
        "reversed_live": reversed_live,
        "old_in_memory": old_in_memory,
        "largest_prompt": largest,
        "assembly_ms": elapsed / max(len(questions), 1) * 1000,
    }
    if meaning:
        probed["meaning"] = retention_meaning.measure(
            office=office,
            session=session,
            doc=doc,
            questions=questions,
            summary_texts=summary_texts,
        )
    return probed


if __name__ == "__main__":
    # `--evaluation`: the office conversations instead of the project's own transcripts
    # (the measuring child reads the list from the environment).
    evaluation = "--evaluation" in sys.argv
    if evaluation:
        sys.argv.remove("--evaluation")
        os.environ["RETENTION_TRANSCRIPTS"] = ",".join(EVALUATION)

    def recorded_tables(results: list[dict[str, Any]]) -> list[Any]:
        # Called just before the run is recorded: the command line it records names the
        # option the run's own parser does not know.
        if evaluation:
            sys.argv.insert(1, "--evaluation")
        return tables(results)

    # SQLite unless told otherwise (per_database's own default is both).
    if not any(a == "--database" or a.startswith("--database=") for a in sys.argv[1:]):
        sys.argv[1:1] = ["--database", "sqlite"]
    per_database(
        script=__file__,
        description=__doc__.split("\n\n")[0],
        measure=run_one_database,
        report=print_report,
        tables=recorded_tables,
    )
