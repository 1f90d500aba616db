"""A benchmark's run lands in docs/benchmarks.md: its tables, appended under the runs'
heading with the commit, the date and the command line, the text above left as it was."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench import report
from bench.report import Table, record_run

WHEN = datetime(2026, 12, 4, 15, 30, tzinfo=UTC)
METHOD = "# Benchmarks\n\nHow they are run.\n\n## Runs\n"


def _record(path: Path, title: str, rows: list[tuple[object, ...]]) -> None:
    record_run(
        "retention.py",
        [Table(title, rows)],
        path=path,
        argv=["/somewhere/bench/retention.py", "--database", "both"],
        now=WHEN,
        revision="abc1234",
    )


def test_a_run_is_appended_below_the_method_with_its_commit_date_and_command(
    tmp_path: Path,
) -> None:
    path = tmp_path / "benchmarks.md"
    path.write_text(METHOD)

    _record(path, "Retention", [("measure", "launch_en"), ("paraphrased", "89 %")])
    _record(path, "Retention", [("measure", "launch_ko"), ("paraphrased", "98 %")])

    text = path.read_text()
    assert text.startswith(METHOD)
    first = text.index("### retention.py, 2026-12-04 15:30 UTC, commit abc1234")
    second = text.index("### retention.py", first + 1)
    assert "`bench/retention.py --database both`" in text
    assert "| measure | launch_en |\n|---|---|\n| paraphrased | 89 % |" in text[first:second]
    assert "| paraphrased | 98 % |" in text[second:]


def test_a_file_without_the_runs_heading_gets_one(tmp_path: Path) -> None:
    path = tmp_path / "benchmarks.md"
    path.write_text("# Benchmarks\n\nMethod.\n")

    _record(path, "T", [("a", "b"), ("1", "2")])

    lines = path.read_text().splitlines()
    assert lines[:3] == ["# Benchmarks", "", "Method."]
    assert lines.index("## Runs") < lines.index("| a | b |")


def test_cells_cannot_break_the_table_and_rows_must_fit_the_header(tmp_path: Path) -> None:
    path = tmp_path / "benchmarks.md"
    _record(path, "T", [("figure", "value"), ("p50 | p95", "1 s\n2 s")])
    assert "| p50 \\| p95 | 1 s 2 s |" in path.read_text()

    with pytest.raises(ValueError, match="a row of 3 cells under 2 columns"):
        _record(path, "T", [("figure", "value"), ("a", "b", "c")])


def test_the_commit_is_the_work_tree_s_and_says_when_it_had_changes(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "bench@example.com")
    git("config", "user.name", "bench")
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "benchmarks.md").write_text(METHOD)
    git("add", ".")
    git("commit", "-qm", "one")
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=tmp_path, capture_output=True, text=True
    ).stdout.strip()

    assert report.commit(tmp_path) == head
    # The benchmarks' own log changing is not a change of the code measured.
    (tmp_path / "docs" / "benchmarks.md").write_text(METHOD + "\nmore\n")
    assert report.commit(tmp_path) == head
    (tmp_path / "code.py").write_text("x = 2\n")
    assert report.commit(tmp_path) == f"{head} + changes"
