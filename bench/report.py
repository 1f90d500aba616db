"""Every benchmark run leaves its figures in docs/benchmarks.md.

A benchmark calls `record_run` once at the end with the tables of its run: they are
appended to the file under a heading naming the benchmark, the commit it ran (read when
the benchmark starts, with a mark when the work tree had uncommitted changes), the date and
the command line, so the file is a log of measured runs written by the benchmarks
themselves. The method text at the top of the file is never touched. `--no-record` on a
benchmark's command line leaves the file alone (a trial run).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "benchmarks.md"
RUNS_HEADING = "## Runs"


@dataclass(frozen=True)
class Table:
    """One table of a run: its first row is the header."""

    title: str
    rows: Sequence[Sequence[object]]


def commit(root: Path = ROOT) -> str:
    """The short commit of the work tree, with "+ changes" when files other than the
    benchmarks' own log differ from it; "unknown" outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    changed = [line for line in status if not line.endswith(DOCS.name)]
    return f"{head} + changes" if changed else head


# The code a run measures is the code it started with: read when the benchmark starts.
AT_START = commit()


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ").strip()


def markdown_table(table: Table) -> str:
    header, *body = table.rows
    width = len(header)
    lines = [
        "| " + " | ".join(_cell(c) for c in header) + " |",
        "|" + "---|" * width,
    ]
    for row in body:
        cells = [_cell(c) for c in row]
        if len(cells) != width:
            raise ValueError(f"{table.title}: a row of {len(cells)} cells under {width} columns")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run_section(
    benchmark: str, tables: Sequence[Table], *, revision: str, when: datetime, command: str
) -> str:
    parts = [
        f"### {benchmark}, {when:%Y-%m-%d %H:%M} UTC, commit {revision}",
        f"`{command}`",
    ]
    for table in tables:
        parts.append(f"**{table.title}**\n\n{markdown_table(table)}")
    return "\n\n".join(parts) + "\n"


def show(tables: Sequence[Table]) -> None:
    """Print a run's tables as they are recorded."""
    for table in tables:
        print(f"\n**{table.title}**\n\n{markdown_table(table)}")


def emit(
    benchmark: str, tables: Sequence[Table], *, record: bool = True, quiet: bool = False
) -> None:
    """Print the run's tables (unless `quiet`) and, unless `record` is false
    (--no-record), append them to docs/benchmarks.md."""
    if not quiet:
        show(tables)
    if record:
        record_run(benchmark, tables)


def record_run(
    benchmark: str,
    tables: Sequence[Table],
    *,
    path: Path = DOCS,
    argv: Sequence[str] | None = None,
    now: datetime | None = None,
    revision: str | None = None,
) -> None:
    """Append this run's tables to `path` (under its "Runs" heading, made if missing)."""
    if not tables:
        return
    args = list(sys.argv if argv is None else argv)
    command = " ".join([f"bench/{Path(args[0]).name}", *args[1:]]) if args else benchmark
    section = run_section(
        benchmark,
        tables,
        revision=revision or AT_START,
        when=(now or datetime.now(UTC)).astimezone(UTC),
        command=command,
    )
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if RUNS_HEADING not in text.splitlines():
        text = text.rstrip("\n") + ("\n\n" if text else "") + RUNS_HEADING + "\n"
    path.write_text(text.rstrip("\n") + "\n\n" + section, encoding="utf-8")
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    print(f"\n(figures of this run appended to {shown})")
