"""CPU of one mission's whole path, in one process, one mission at a time.

    python bench/mission_cpu.py                  # SQLite and, when reachable, PostgreSQL
    BENCH_ROUNDS=9 python bench/mission_cpu.py --database sqlite   # rounds (default 7)

Every mission is accepted as the socket accepts it (`instruction_accept`), and everything it
queues runs right there, in the same thread (tasks inline): its reply, streamed through the
real openai SDK from the local OpenAI-compatible server (a separate process, answering at
once, whose CPU is not counted), the completion, the recall index and, every FOLD_BATCH
missions, a fold. The figure is this process's CPU time per mission (user + system), the
lowest of several rounds and their median: on a shared machine a round can only be slowed
down, never sped up, so the lowest is the steadiest figure to compare two versions of the
code by (run each in turn, more than once). What it leaves out is what only concurrency
costs: the socket's frames, thread hand-overs, waiting for the SQLite writer or the
interpreter lock (bench/concurrency.py measures those).

Each round: a new office, its four 1:1 channels, MISSIONS instructions each, in turn, so
every session passes the detail window and folds twice. Like a server process, this one
freezes what starting made (config.heap) before the rounds; the garbage collector's own CPU
per mission is reported beside the total (part of it)."""

import gc
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import Table, per_database, scratch_database  # noqa: E402

MISSIONS = 20  # per channel and round: the concurrency benchmark's scenario 2 sends 20
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))


def measure() -> dict[str, Any]:
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_openai", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    os.environ.update(
        LLM_PROVIDER="openai",
        OPENAI_API_KEY="sk-bench",
        OPENAI_BASE_URL=server.stdout.readline().strip(),
        OPENAI_MODEL="bench-model",
        INSTRUCTION_RATE_LIMIT="0",
        FOLD_BATCH="8",
    )
    try:
        with scratch_database():
            return _rounds()
    finally:
        server.terminate()
        server.wait(timeout=10)


class _CollectorClock:
    """The CPU time the garbage collector spends while the block runs (its callbacks
    mark the start and end of every collection)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0

    def _tick(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started

    def __enter__(self) -> "_CollectorClock":
        gc.callbacks.append(self._tick)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._tick)


def _rounds() -> dict[str, Any]:
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from config.heap import freeze_startup_objects
    from language.analysis import warm_up
    from missions.intake import instruction_accept
    from missions.models import Mission, MissionStatus
    from office.models import ChannelKind
    from tests.factories import make_office

    warm_up()

    def one_round(n: int) -> tuple[float, int]:
        office = make_office(name=f"Round {n}")
        channels = list(office.channels.filter(kind=ChannelKind.DM).order_by("id"))
        start = time.process_time()
        for i in range(MISSIONS):
            for channel in channels:
                instruction_accept(
                    channel=channel,
                    text=f"Request {i} from client {channel.pk}: status of task {i}",
                    client_id=f"r{n}-{channel.pk}-{i}",
                    user_id=office.owner_id,
                )
        spent = time.process_time() - start
        missions = Mission.objects.filter(channel__office=office)
        done = missions.filter(status=MissionStatus.DONE).count()
        assert done == missions.count() == MISSIONS * len(channels), "a mission did not finish"
        return spent, done

    one_round(0)  # warm: imports, compiled statements, connections
    freeze_startup_objects()
    per_mission = []
    missions = 0
    with _CollectorClock() as collector:
        for n in range(1, ROUNDS + 1):
            spent, done = one_round(n)
            per_mission.append(spent / done * 1000)
            missions += done
    with CaptureQueriesContext(connection) as queries:
        _, done = one_round(ROUNDS + 1)
    return {
        "database": "PostgreSQL" if settings.IS_POSTGRES else "SQLite",
        "lowest_ms": min(per_mission),
        "median_ms": statistics.median(per_mission),
        "rounds": ROUNDS,
        "missions": done,
        "queries": len(queries) / done,
        "gc_ms": collector.seconds / missions * 1000,
    }


def tables(results: list[dict[str, Any]]) -> list[Table]:
    """The run's figures for docs/benchmarks.md: one row per database."""
    rows: list[tuple[object, ...]] = [
        ("database", "lowest", "median", "of it, gc", "queries", "rounds × missions")
    ]
    rows += [
        (
            r["database"],
            *(f"{r[key]:.2f} ms" for key in ("lowest_ms", "median_ms", "gc_ms")),
            f"{r['queries']:.1f}",
            f"{r['rounds']} × {r['missions']}",
        )
        for r in results
    ]
    return [Table("CPU of one mission, one process", rows)]


if __name__ == "__main__":
    per_database(
        script=__file__,
        description=__doc__.splitlines()[0] if __doc__ else "",
        measure=measure,
        tables=tables,
    )
