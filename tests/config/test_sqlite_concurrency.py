import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_embedded_database_takes_concurrent_writers_without_locking_errors(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path}/office.sqlite3"
    threads, writes = 8, 25
    result = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).with_name("sqlite_writers.py")),
            str(threads),
            str(writes),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    errors, missions, sample = result.stdout.strip().splitlines()[-1].split(" ", 2)
    assert errors == "0", sample
    assert int(missions) == threads * writes
