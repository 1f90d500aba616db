from pathlib import Path

import pytest

from tests.fresh import embedded_env, run_python


@pytest.mark.slow(30)
def test_the_embedded_database_takes_concurrent_writers_without_locking_errors(
    tmp_path: Path,
) -> None:
    threads, writes = 8, 25
    output = run_python(
        str(Path(__file__).with_name("sqlite_writers.py")),
        str(threads),
        str(writes),
        env=embedded_env(DATABASE_URL=f"sqlite:///{tmp_path}/office.sqlite3"),
        timeout=240,
    )
    errors, missions, sample = output.strip().splitlines()[-1].split(" ", 2)
    assert errors == "0", sample
    assert int(missions) == threads * writes
