"""Shared machinery of the end-to-end benchmarks (bench/realtime.py, bench/load.py,
bench/concurrency.py).

`Stack` brings up, on 127.0.0.1 only, everything a deployment runs and tears it down
again, bounded in time, even when the run fails. Two runtimes (docs/design.md §8):

- production (the default): a scratch PostgreSQL database with a unique name (dropped at
  the end, WITH (FORCE)); a dedicated Redis database index (refused when it already holds
  keys, flushed at the start and at the end) for the channel layer and the Celery broker;
  Daphne; Celery workers for the two queues, as docker-compose.yml runs them: W `replies`
  workers (`-Q replies`, threads by default, --concurrency 64, DATABASE_POOL_MAX 16) and
  `background` workers (`-Q background`, threads, --concurrency 8);
- embedded (`StackConfig.embedded`): Daphne alone, TASK_RUNNER=thread (the replies and
  background lanes are thread pools inside the web process), a scratch SQLite file
  (/tmp/<run id>.sqlite3, removed at the end, with its -wal and -shm), no REDIS_URL (the
  in-memory channel layer); no Redis, no workers, no database connections to count.

In both: the local OpenAI-compatible server (`python -m tests.fake_openai`, counting its
requests by kind at GET /_fake/stats) in its own process; `manage.py migrate`, then N
users, each with an office (office_create_with_team), a logged-in session cookie and,
optionally, K finished missions already in the session of the 1:1 channel the client
will use - done by a Django-configured subprocess (`users.py`). Daphne
serves `bench.bench_asgi:application` (the office's application, plus a token-guarded
hook to queue tasks by name and to see the embedded lanes drain). Every service is waited
for until ready (/healthz answers 200; every worker answers a Celery ping), and can be
restarted with another model delay or environment (`restart_services`) on the same
database. Two sampling threads record the peak RSS of every process started (VmHWM and
VmRSS from /proc/<pid>/status, children included, plus the peak PSS of each process tree)
and the peak connections to the scratch PostgreSQL database (pg_stat_activity).

`run_clients` / `drive_clients` drive the WebSocket clients (one per user, on that user's
1:1 channel, one instruction at a time), `check_database` counts what was stored, and the
`print_*` helpers render the tables the benchmarks print.

Where each part lives:

- `base.py`: the run's configuration (`StackConfig`), its users (`UserFixture`), its
  processes (`Proc`), `BenchError` and `log`;
- `stack.py`: `Stack`, the services of a run (servers); `stores.py` its scratch Redis
  database and scratch database; `sampling.py` the peaks and CPU read from /proc;
- `clients.py`: the WebSocket clients (`run_clients`, `drive_clients`);
- `checks.py`: `check_database`;
- `reports.py`: percentiles and the printed tables;
- `cli.py`: the command-line options, the run's deadline and `run_benchmark`;
- `users.py`: the setup subprocess that makes the users.
"""

from bench.harness.base import (
    CLIENT_ID_PREFIX,
    PG_DEFAULT,
    PYTHON,
    ROOT,
    SET_BY_THE_BENCHMARK,
    BenchError,
    Proc,
    StackConfig,
    UserFixture,
    free_port,
    ignored_settings,
    log,
)
from bench.harness.checks import ChannelCheck, DatabaseCheck, check_database
from bench.harness.cli import (
    add_common_arguments,
    add_run_arguments,
    add_stack_arguments,
    benchmark_parser,
    positive_int,
    run_benchmark,
    run_deadline,
    runtime_list,
    stack_config,
)
from bench.harness.clients import (
    ClientRun,
    ClientsOutcome,
    Instruction,
    drive_clients,
    run_clients,
)
from bench.harness.reports import (
    client_problems,
    describe_calls,
    percentile,
    print_counts,
    print_latency,
    print_notices,
    print_resources,
    print_table,
    print_throughput,
    stats_delta,
)
from bench.harness.sampling import Sampler, thread_cpu_seconds, tree_cpu_seconds
from bench.harness.stack import Stack
from bench.harness.stores import ScratchDb

__all__ = [
    "CLIENT_ID_PREFIX",
    "PG_DEFAULT",
    "PYTHON",
    "ROOT",
    "SET_BY_THE_BENCHMARK",
    "BenchError",
    "ChannelCheck",
    "ClientRun",
    "ClientsOutcome",
    "DatabaseCheck",
    "Instruction",
    "Proc",
    "Sampler",
    "ScratchDb",
    "Stack",
    "StackConfig",
    "UserFixture",
    "add_common_arguments",
    "add_run_arguments",
    "add_stack_arguments",
    "benchmark_parser",
    "check_database",
    "client_problems",
    "describe_calls",
    "drive_clients",
    "free_port",
    "ignored_settings",
    "log",
    "percentile",
    "positive_int",
    "print_counts",
    "print_latency",
    "print_notices",
    "print_resources",
    "print_table",
    "print_throughput",
    "run_benchmark",
    "run_clients",
    "run_deadline",
    "runtime_list",
    "stack_config",
    "stats_delta",
    "thread_cpu_seconds",
    "tree_cpu_seconds",
]
