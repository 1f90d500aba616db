"""The retention benchmark's report (bench/retention.py): the printed tables, each
transcript's detail and the tables recorded in docs/benchmarks.md, from the records the
measuring subprocess returns."""

import os
import statistics
from typing import Any

from bench.report import Table

TARGET_REUSED = 0.90
TARGET_PARAPHRASED = 0.75
TARGET_VS_TAIL = 2.0


def _share(rows: list[dict[str, Any]], key: str = "hit") -> float:
    return sum(1 for r in rows if r[key]) / len(rows) if rows else 0.0


def _pct(value: float) -> str:
    return f"{value * 100:.0f}%"


def _by_kind(qs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The questions in the fact's own words, and the others (paraphrased)."""
    reused = [q for q in qs if q["kind"] == "reused"]
    return reused, [q for q in qs if q["kind"] != "reused"]


def _mark(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def _vs_tail(share: float, tail: float) -> tuple[str, bool]:
    if tail == 0:
        return ("∞" if share > 0 else "–"), share > 0
    return f"{share / tail:.1f}×", share >= TARGET_VS_TAIL * tail


SHORT = {
    "system": "sys",
    "summary": "summ",
    "pending": "pend",
    "recent": "recent",
    "memory": "mem",
    "recall": "recall",
}


def _where(records: list[dict[str, Any]], key: str) -> str:
    """Facts listed under `key` at some checkpoint, as "fact@30,60"."""
    seen: dict[str, list[int]] = {}
    for r in records:
        for cp in r["checkpoints"]:
            for fact in cp[key]:
                seen.setdefault(fact, []).append(cp["checkpoint"])
    return " ".join(f"{f}@{','.join(map(str, cps))}" for f, cps in seen.items())


def _worst(records: list[dict[str, Any]], pick: str) -> tuple[str, bool | None]:
    """The checkpoint (of any of `records`) where `pick` ("reused", "para" or "tail")
    fares worst, and whether it still meets its target; a dash where no checkpoint asks
    such questions (a checkpoint without them does not count as 0 %)."""
    rows: list[tuple[float, str, str, int]] = []
    for r in records:
        for cp in r["checkpoints"]:
            cq = cp["questions"]
            if pick == "tail":
                share, tail = _share(cq), _share(cq, "naive_hit")
                ratio = share / tail if tail else (float("inf") if share else 0.0)
                rows.append((ratio, _vs_tail(share, tail)[0], r["name"], cp["checkpoint"]))
            else:
                reused, para = _by_kind(cq)
                chosen = reused if pick == "reused" else para
                if not chosen:
                    continue
                rows.append((_share(chosen), _pct(_share(chosen)), r["name"], cp["checkpoint"]))
    if not rows:
        return "–", None
    value, text, name, checkpoint = min(rows, key=lambda row: row[0])
    where = f" {name}" if len(records) > 1 else ""
    target = {"reused": TARGET_REUSED, "para": TARGET_PARAPHRASED, "tail": TARGET_VS_TAIL}[pick]
    return f"{text} @{checkpoint}{where}", value >= target


def _targets(records: list[dict[str, Any]]) -> dict[str, tuple[str, bool | None]]:
    """Each target's value (text) and verdict (None: information only) over `records`:
    over all their questions, and at the checkpoint where it fares worst."""
    qs = [q for r in records for cp in r["checkpoints"] for q in cp["questions"]]
    reused, para = _by_kind(qs)
    particles = [q for q in qs if q["kind"] == "particles"]
    share, tail = _share(qs), _share(qs, "naive_hit")
    ratio_text, ratio_ok = _vs_tail(share, tail)
    live = _where(records, "reversed_live")
    in_memory = _where(records, "old_in_memory")
    largest, envelope = max(
        ((cp["largest_prompt"], r["envelope"]) for r in records for cp in r["checkpoints"]),
        key=lambda pair: pair[0] / pair[1],
    )

    def count(rows: list[dict[str, Any]]) -> str:
        return f"{sum(q['hit'] for q in rows)}/{len(rows)} {_pct(_share(rows))}" if rows else "–"

    return {
        f"words reused (>= {_pct(TARGET_REUSED)})": (
            count(reused),
            (_share(reused) >= TARGET_REUSED) if reused else None,
        ),
        "  at the worst checkpoint": _worst(records, "reused"),
        f"paraphrased (>= {_pct(TARGET_PARAPHRASED)})": (
            count(para),
            _share(para) >= TARGET_PARAPHRASED,
        ),
        "  at the worst checkpoint ": _worst(records, "para"),
        "  other particles/endings (info)": (count(particles), None),
        f"vs naive tail (>= {TARGET_VS_TAIL:.0f}×)": (
            f"{_pct(share)}/{_pct(tail)} {ratio_text}",
            ratio_ok,
        ),
        "  at the worst checkpoint  ": _worst(records, "tail"),
        "reversed never live in summary": (live or "never", not live),
        "  old value live in memory (info)": (in_memory or "never", None),
        "largest prompt <= envelope": (f"{largest:,}/{envelope:,}", largest <= envelope),
    }


def _summary(records: list[dict[str, Any]]) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The summary's columns (each transcript, then all of them) and its rows: each
    target's value with its verdict."""
    columns = [(r["name"], _targets([r])) for r in records] + [("all", _targets(records))]
    rows = []
    for label in columns[0][1]:
        verdicts = (targets[label] for _, targets in columns)
        rows.append((label, [v + ("" if ok is None else " " + _mark(ok)) for v, ok in verdicts]))
    return [name for name, _ in columns], rows


def print_report(all_results: list[dict[str, Any]]) -> None:
    for results in all_results:
        print(f"\n== retention on {results['vendor']} ==")
        records = results["transcripts"]
        for record in records:
            _print_transcript(record)
        questions = sum(len(cp["questions"]) for r in records for cp in r["checkpoints"])
        at = sum(len(r["checkpoints"]) for r in records)
        print(f"\nsummary ({results['vendor']}, {questions} questions at {at} checkpoints)")
        names, rows = _summary(records)
        print(f"  {'':<34}" + "".join(f"{name:<32}" for name in names))
        for label, cells in rows:
            print(f"  {label:<34}" + "".join(f"{cell:<32}" for cell in cells))
        _against_references(records)
        _print_meaning(records)


TARGET_OVER_PLAIN = 0.05
TARGET_FLOOR = 0.85


REFERENCE_HEADER = (
    "transcript",
    "questions",
    "product ans/sent",
    "plain ans/sent",
    "newest ans/sent",
    "prefix median",
    "targets (ans >= plain+0.05, sent >= plain, both >= 0.85)",
)


def _reference_rows(records: list[dict[str, Any]]) -> list[tuple[object, ...]]:
    """The product against plain retrieval and the newest history, both cut to the size
    of each prompt: answer present and stating sentence present, over every question of
    every checkpoint; and the prompt's byte-identical prefix with the previous mission's."""
    rows: list[tuple[object, ...]] = []
    for r in records:
        qs = [q for cp in r["checkpoints"] for q in cp["questions"]]
        if not qs or "plain_hit" not in qs[0]:
            continue
        product = (_share(qs), _share(qs, "sentence_hit"))
        plain = (_share(qs, "plain_hit"), _share(qs, "plain_sentence"))
        newest = (_share(qs, "naive_hit"), _share(qs, "naive_sentence"))
        shares = r.get("prefix_shares") or []
        prefix = statistics.median(shares) if shares else 0.0
        ok = (
            product[0] >= plain[0] + TARGET_OVER_PLAIN - 1e-9
            and product[1] >= plain[1] - 1e-9
            and min(product) >= TARGET_FLOOR
        )
        rows.append(
            (
                r["name"],
                len(qs),
                f"{product[0]:.2f}/{product[1]:.2f}",
                f"{plain[0]:.2f}/{plain[1]:.2f}",
                f"{newest[0]:.2f}/{newest[1]:.2f}",
                f"{prefix:.2f}",
                _mark(ok),
            )
        )
    return rows


def _against_references(records: list[dict[str, Any]]) -> None:
    widths = (14, 4, 16, 14, 15, 10)
    print()
    for row in [REFERENCE_HEADER, *_reference_rows(records)]:
        cells = [
            f"{cell!s:>{w}}" if i else f"{cell!s:<{w}}"
            for i, (cell, w) in enumerate(zip(row, widths, strict=False))
        ]
        print("  " + " | ".join([*cells, str(row[-1])]))


TARGET_MEANING_ANSWER = 0.95
TARGET_MEANING_OVER_PLAIN = 0.15
TARGET_UNMARKED = 0.10

MEANING_HEADER = (
    "transcript",
    "questions",
    "answer present: product / plain / newest",
    "held-out / paraphrased",
    "current-value qs: reversed value unmarked (product / plain / newest); old only; "
    "current value marked replaced",
    "from pastes: memory rules+decisions / summary decisions+constraints",
    "person rules in every system section",
    "summary fact retention",
    "targets (ans >= 0.95 and >= plain+0.15, unmarked <= 10%, 0 from pastes)",
)


def _count(rows: list[dict[str, Any]], key: str = "hit") -> str:
    return f"{sum(1 for r in rows if r[key])}/{len(rows)}" if rows else "–"


def _meaning_rows(records: list[dict[str, Any]]) -> list[tuple[object, ...]]:
    """The office conversations' figures (issue 43), at their last checkpoint: answer
    present beside plain retrieval and the newest history of the same size, reversed
    values shown unmarked, rules and decisions made from pasted material, the person's
    rules in the system section, and what the summary keeps of the folded facts."""
    rows: list[tuple[object, ...]] = []
    for r in records:
        last = r["checkpoints"][-1]
        if "meaning" not in last:
            continue
        m, qs = last["meaning"], last["questions"]
        current = [q for q in qs if "unmarked" in q]
        unmarked = {
            name: sum(1 for q in current if q["unmarked"][name])
            for name in ("product", "plain", "newest")
        }
        held = [q for q in qs if q["held_out"]]
        para = _by_kind(qs)[1]
        keys = [set(q["rules_in_system"]) for q in qs]
        in_force = len(set.intersection(*keys)) if keys else 0
        share, plain = _share(qs), _share(qs, "plain_hit")
        pasted = len(m["pasted_memory"]) + len(m["pasted_summary"])
        folded = len(m["summary_folded"])
        unmarked_share = unmarked["product"] / len(current) if current else 0.0
        retained = _pct(len(m["summary_kept"]) / folded) if folded else "–"
        ok = (
            share >= TARGET_MEANING_ANSWER - 1e-9
            and share >= plain + TARGET_MEANING_OVER_PLAIN - 1e-9
            and unmarked_share <= TARGET_UNMARKED + 1e-9
            and pasted == 0
        )
        rows.append(
            (
                r["name"],
                len(qs),
                f"{share:.2f} / {plain:.2f} / {_share(qs, 'naive_hit'):.2f}",
                f"{_count(held)} / {_count(para)}",
                f"{len(current)}: {unmarked['product']} ({_pct(unmarked_share)}) / "
                f"{unmarked['plain']} / {unmarked['newest']}; "
                f"{sum(1 for q in current if q['old_only'])}; "
                f"{sum(1 for q in current if q.get('current_marked'))}",
                f"{len(m['pasted_memory'])} / {len(m['pasted_summary'])}",
                f"{in_force}/{m['person_rules']}",
                f"{len(m['summary_kept'])}/{folded} {retained}",
                _mark(ok),
            )
        )
    return rows


def _print_meaning(records: list[dict[str, Any]]) -> None:
    rows = _meaning_rows(records)
    if not rows:
        return
    print("\nmeaning (office conversations, after the last mission)")
    for label, *cells in zip(*[MEANING_HEADER, *rows], strict=True):
        print(f"  {label[:60]:<60} " + "  ".join(f"{c!s:<26}" for c in cells))
    for r in records:
        last = r["checkpoints"][-1]
        if "meaning" not in last:
            continue
        m = last["meaning"]
        print(f"  {r['name']}: memory {m['memory_counts']}")
        for line in m["pasted_memory"]:
            print(f"    from a paste (memory): {line}")
        for line in m["pasted_summary"]:
            print(f"    from a paste (summary): {line}")
        for q in last["questions"]:
            for line in q.get("unmarked", {}).get("product", []):
                print(f"    {q['fact']}: {q['question']!r} shows the old value unmarked: {line}")
            for line in q.get("current_marked", []):
                print(
                    f"    {q['fact']}: {q['question']!r} marks the current value replaced: {line}"
                )
        lost = [f for f in m["summary_folded"] if f not in m["summary_kept"]]
        if lost:
            print(f"    folded facts the summary does not hold: {', '.join(lost)}")


def _print_transcript(record: dict[str, Any]) -> None:
    print(
        f"\n{record['name']} ({record['language']}, {record['kind']} channel, "
        f"{record['missions']} missions, envelope {record['envelope']:,} chars)"
    )
    names: list[str] = []
    for cp in record["checkpoints"]:
        names += [n for n in cp["sections"] if n not in names]
    short = {n: SHORT.get(n, n[:6]) for n in names}
    print(
        f"{'after':>5} {'facts':>5} {'q':>3} {'all':>5} {'reused':>6} {'para':>5} "
        f"{'tail':>5} {'×tail':>6} | "
        + " ".join(f"{short[n]:>6}" for n in names)
        + f" | {'max prompt':>10} {'env':>4} | {'replay s':>8} {'ms/q':>5} | reversed"
    )
    for cp in record["checkpoints"]:
        qs = cp["questions"]
        reused, para = _by_kind(qs)
        share, tail = _share(qs), _share(qs, "naive_hit")
        ratio_text, _ = _vs_tail(share, tail)
        by_section = " ".join(
            f"{_pct(sum(1 for q in qs if n in q['sections']) / len(qs)) if qs else '-':>6}"
            for n in names
        )
        reversed_text = " ".join(f"{f}={state}" for f, state in cp["reversed_state"].items()) or "–"
        facts = len({q["fact"] for q in qs})
        print(
            f"{cp['checkpoint']:>5} {facts:>5} {len(qs):>3} {_pct(share):>5} "
            f"{_pct(_share(reused)):>6} {_pct(_share(para)):>5} {_pct(tail):>5} {ratio_text:>6} | "
            f"{by_section} | {cp['largest_prompt']:>10,} "
            f"{_mark(cp['largest_prompt'] <= record['envelope']):>4} | "
            f"{cp['replay_seconds']:>8.1f} {cp['assembly_ms']:>5.0f} | {reversed_text}"
        )
    print(
        "  (section columns: share of questions whose answer is in that section; reversed: "
        "L live in the summary, S marked superseded, R named only where it is replaced, A absent)"
    )
    for cp in record["checkpoints"]:
        for fact, lines in cp["reversed_live"].items():
            for line in lines:
                print(f"  @{cp['checkpoint']} reversed {fact!r} LIVE in the summary: {line}")
        for fact, line in cp["old_in_memory"].items():
            print(
                f"  @{cp['checkpoint']} reversed {fact!r}, old value in the memory section: {line}"
            )
    misses = [
        (cp["checkpoint"], q)
        for cp in record["checkpoints"]
        for q in cp["questions"]
        if not q["hit"]
    ]
    if not misses:
        print("  every answer was in the context")
        return
    print(f"  not found ({len(misses)}):")
    for checkpoint, q in misses:
        instead = q["instead"]
        recalled = instead["recall_seqs"]
        where = "recalled, but its excerpt misses the answer"
        where = where if instead["planted"] in recalled else "not recalled"
        old = instead["old_present"]
        print(
            f"  @{checkpoint} {q['fact']}/{q['kind']}: {q['question']!r} expects {q['answer']!r}: "
            f"#{instead['planted']} {where}; recall seqs {recalled or '[]'}"
            + (f"; old value in {', '.join(old)}" if old else "")
        )
        if instead["recall_excerpt"]:
            print(f"      recall: {instead['recall_excerpt']}")
        for label in ("summary", "memory"):
            for line in instead[label]:
                print(f"      {label}: {line}")


def tables(all_results: list[dict[str, Any]]) -> list[Table]:
    """The run's figures for docs/benchmarks.md: the summary of each database, one column
    per transcript and one for all of them."""
    out: list[Table] = []
    analyser = os.environ.get("SEARCH_KOREAN_ANALYSER") or "kiwi"
    for results in all_results:
        records, vendor = results["transcripts"], results["vendor"]
        names, summary = _summary(records)
        rows: list[tuple[object, ...]] = [("measure", *names)]
        for label, cells in summary:
            rows.append(("↳ " + label.strip() if label.startswith(" ") else label, *cells))
        out.append(Table(f"Retention on {vendor} (Korean analyser: {analyser})", rows))
        against = _reference_rows(records)
        if against:
            title = f"Against plain retrieval of the same size, on {vendor}"
            out.append(Table(title, [REFERENCE_HEADER, *against]))
        meaning = _meaning_rows(records)
        if meaning:
            title = f"Meaning: office conversations, on {vendor}"
            out.append(Table(title, [MEANING_HEADER, *meaning]))
    return out
