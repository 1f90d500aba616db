"""One harness for the benchmarks that run servers and clients: `Stack` starts on 127.0.0.1
what a deployment runs (embedded: Daphne alone on a scratch SQLite file; production: a
scratch PostgreSQL database, a Redis database index, Daphne and the Celery workers of the
two queues) beside the local OpenAI-compatible server, and stops and removes all of it,
bounded in time, also when the run fails; `drive_clients` / `run_clients` drive real
WebSocket clients; `check_database` counts what the run stored.

- `base.py`: the run's configuration (`StackConfig`), users, processes, `BenchError`, `log`;
- `stack.py`: the services and the scratch stores (`Stack`); `sampling.py` peaks and CPU
  read from /proc;
- `clients.py`: the WebSocket clients; `reports.py`: `check_database`, percentiles, tables;
- `cli.py`: the shared options and the deadline;
- `users.py`: the setup subprocess that makes the users (offices, cookies, missions).
"""

# ruff: noqa: F401  (the harness's names, re-exported)
from bench.harness.base import (
    PYTHON,
    BenchError,
    UserFixture,
    free_port,
    ignored_settings,
    log,
    wait_healthy,
)
from bench.harness.cli import (
    add_run_arguments,
    add_stack_arguments,
    benchmark_parser,
    positive_int,
    run_deadline,
    runtime_list,
    stack_config,
)
from bench.harness.clients import ClientsOutcome, connect, drive_clients, run_clients
from bench.harness.reports import (
    check_database,
    client_problems,
    describe_calls,
    percentile,
    print_table,
    stats_delta,
)
from bench.harness.sampling import thread_cpu_seconds, tree_cpu_seconds
from bench.harness.stack import Stack
