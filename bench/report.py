"""How a benchmark runs once per database, and how every run leaves its figures in
docs/benchmarks.md.

A benchmark calls `record_run` (or `emit`) once at the end with the tables of its run: they
are appended to the file under a heading naming the benchmark, the commit it ran (read when
the benchmark starts, with a mark when the work tree had uncommitted changes), the date and
the command line, so the file is a log of measured runs written by the benchmarks
themselves. The method text at the top of the file is never touched. `--no-record` on a
benchmark's command line leaves the file alone (a trial run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "benchmarks.md"
RUNS_HEADING = "## Runs"
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/postgres"


@dataclass(frozen=True)
class Table:
    """One table of a run: its first row is the header."""

    title: str
    rows: Sequence[Sequence[object]]


def commit(root: Path = ROOT) -> str:
    """The short commit of the work tree, with "+ changes" when files other than the
    benchmarks' own log differ from it; "unknown" outside a git checkout."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=True, timeout=10
        )
        return done.stdout

    try:
        head = git("rev-parse", "--short", "HEAD").strip()
        status = git("status", "--porcelain", "--untracked-files=no").splitlines()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    changed = [line for line in status if not line.endswith(DOCS.name)]
    return f"{head} + changes" if changed else head


# The code a run measures is the code it started with: read when the benchmark starts.
AT_START = commit()


def _row(cells: Sequence[object]) -> str:
    return (
        "| "
        + " | ".join(str(c).replace("|", "\\|").replace("\n", " ").strip() for c in cells)
        + " |"
    )


def markdown_table(table: Table) -> str:
    header, *body = table.rows
    for row in body:
        if len(row) != len(header):
            raise ValueError(
                f"{table.title}: a row of {len(row)} cells under {len(header)} columns"
            )
    return "\n".join([_row(header), "|" + "---|" * len(header), *map(_row, body)])


def run_section(
    benchmark: str, tables: Sequence[Table], *, revision: str, when: datetime, command: str
) -> str:
    parts = [
        f"### {benchmark}, {when:%Y-%m-%d %H:%M} UTC, commit {revision}",
        f"`{command}`",
        *(f"**{table.title}**\n\n{markdown_table(table)}" for table in tables),
    ]
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


@contextmanager
def scratch_database() -> Iterator[None]:
    """Django set up with tasks inline, on a test database created and dropped here."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["TASK_RUNNER"] = "inline"
    django.setup()
    from django.test.utils import setup_databases, teardown_databases

    old = setup_databases(verbosity=0, interactive=False)
    try:
        yield
    finally:
        teardown_databases(old, verbosity=0)


def per_database(
    *,
    script: str,
    description: str,
    measure: Callable[[], dict[str, Any]],
    tables: Callable[[list[dict[str, Any]]], list[Table]] | None = None,
    report: Callable[[list[dict[str, Any]]], None] | None = None,
) -> None:
    """`--database sqlite|postgres|both`: run `measure` in a child process per database
    (settings are per process), print the `tables` of the results (or hand them to
    `report`) and record the tables unless `--no-record`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--database", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--no-record", action="store_true", help="do not append the figures to docs/benchmarks.md"
    )
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure()))
        return
    results = []
    for target in ["sqlite", "postgres"] if args.database == "both" else [args.database]:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        if target == "postgres":
            env["DATABASE_URL"] = os.environ.get("DATABASE_URL") or PG_DEFAULT
            # A name of its own per benchmark, under the caller's TEST_DATABASE_NAME when
            # set (benchmarks of several checkouts can share one server).
            prefix = os.environ.get("TEST_DATABASE_NAME") or "test_office"
            env["TEST_DATABASE_NAME"] = f"{prefix}_bench_{Path(script).stem}"
        child = subprocess.run(
            [sys.executable, script, "--child", "--database", target],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            print(f"{target}: skipped ({child.stderr.strip().splitlines()[-1:]})")
            continue
        results.append(json.loads(child.stdout.strip().splitlines()[-1]))
    if report is not None:
        report(results)
    if results and tables is not None:
        emit(
            Path(script).name, tables(results), record=not args.no_record, quiet=report is not None
        )
