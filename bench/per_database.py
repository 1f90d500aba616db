"""Run a benchmark once per database, each in its own process (settings are per process),
on a scratch test database that is dropped afterwards."""

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.report import Table, emit

ROOT = Path(__file__).resolve().parent.parent
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/postgres"


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


def main(
    *,
    script: str,
    description: str,
    measure: Callable[[], dict[str, Any]],
    tables: Callable[[list[dict[str, Any]]], list[Table]] | None = None,
    report: Callable[[list[dict[str, Any]]], None] | None = None,
) -> None:
    """`--database sqlite|postgres|both`: run `measure` in a child process per database,
    print the `tables` of the results (or hand them to `report`) and append the tables to
    docs/benchmarks.md (bench/report.py) unless `--no-record`."""
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
    targets = ["sqlite", "postgres"] if args.database == "both" else [args.database]
    results = []
    for target in targets:
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
