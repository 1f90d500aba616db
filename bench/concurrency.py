"""Concurrency benchmark: the two runtimes of DESIGN.md §8, one after the other, in one run.

- embedded: Daphne alone, TASK_RUNNER=thread (replies and background lanes are thread
  pools inside the web process: REPLY_CONCURRENCY 64, BACKGROUND_CONCURRENCY 2), a
  scratch SQLite file, no REDIS_URL (in-memory channel layer);
- production: PostgreSQL (a scratch database) + Redis + Daphne + a `replies` Celery worker
  on threads (--concurrency 64, DATABASE_POOL_MAX 16) + a `background` worker (threads,
  --concurrency 8), as docker-compose.yml runs them.

Both talk to the local OpenAI-compatible server (tests/fake_openai.py) through the real
SDK (LLM_PROVIDER=openai). WebSocket clients are real: one user, office, session cookie
and 1:1 channel each, one instruction at a time (see bench/harness/). Scenarios:

1. The model answers after 2 s; 50 clients x 4 instructions: instruction -> first
   reply.delta p50 / p95 (targets 2.5 s / 3.5 s), nothing lost or doubled (the database
   check), peak database connections, peak RSS.
2. The model answers at once; 50 clients x 20: missions/s, beside a bare Daphne + Channels
   echo of the same frames (bench/echo_asgi.py) driven by the same clients in the same
   run; the ratio missions/s / echo/s is the figure (targets: 80 missions/s embedded, 50
   production).
3. One client alone, the model at once: first reply.delta p50 (targets 30 ms embedded,
   60 ms production).
4. The model answers in 200 ms, FOLD_BATCH=1; 20 clients x 10 chat twice: alone, then
   while a backlog of 200 folds is queued (`summaries.tasks.summary_fold` queued by name in
   the web process, as services do, for 200 sessions that each hold one finished mission
   outside the detail window, so each fold is a model call): first-delta p95 with the
   backlog / p95 without it (target <= 1.2).
5. Model calls per 100 missions (replies, folds, extractions), counted by the model
   server, with FOLD_BATCH=1 ("before batching") and FOLD_BATCH=8 ("after").
6. Plans: the model answers after 2 s; 10 clients each send one master-channel
   instruction naming three colleagues at once: instruction -> the plan's `plan` frame
   saying "done" (three delegated missions in parallel, then one synthesis: about 4 s
   when they run at once, 8 s one after another). Run last: the delegated missions land
   in the 1:1 channels the other scenarios count. `--only-plans` runs just this one.

Between scenarios the services are restarted with the scenario's model delay and
FOLD_BATCH (same database); each restart is followed by a short unmeasured warm-up
client. For the whole run INSTRUCTION_RATE_LIMIT=0 (clients send faster than a person)
and SWEEP_INTERVAL=3600 (no sweeper queues folds behind the scenario's back). Figures are
ratios and percentiles of this one run on a shared machine; nothing here is a test.

Everything started is stopped, the scratch database dropped, the SQLite file removed and
the Redis DB flushed, also on failure, within --budget seconds. From the project root:

    .venv/bin/python bench/concurrency.py --quick    # smoke run, a few minutes
    .venv/bin/python bench/concurrency.py            # full size

Exit status: 0 when every scenario ran and nothing was lost or doubled (targets missed are
reported, not failed), 1 when a count check failed, 2 when a runtime could not be run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402
from bench.harness import (  # noqa: E402
    BenchError,
    ClientsOutcome,
    Stack,
    UserFixture,
    log,
    percentile,
)

# Finished missions in each backlog session: one more than the detail window (8), so with
# FOLD_BATCH=1 exactly one mission waits and each fold is one model call (plus a retry when
# the verifier rejects the answer, see the report).
DETAIL_MISSIONS = 8
BACKLOG_PREFILL = DETAIL_MISSIONS + 1
COMMON_ENV = {"INSTRUCTION_RATE_LIMIT": "0", "SWEEP_INTERVAL": "3600"}

TARGETS = {
    "embedded": {"s2_missions_per_s": 80.0, "s3_p50": 0.030},
    "production": {"s2_missions_per_s": 50.0, "s3_p50": 0.060},
}
S1_P50, S1_P95, S4_RATIO = 2.5, 3.5, 1.2


# --- Sizes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sizes:
    s1_clients: int
    s1_instructions: int
    s1_delay_ms: float
    s2_clients: int
    s2_instructions: int
    s3_instructions: int
    s4_clients: int
    s4_instructions: int
    s4_backlog: int
    s4_delay_ms: float
    s5_clients: int
    s5_instructions: int
    s6_plans: int
    s6_delay_ms: float
    warmup: int


QUICK = {
    "s1_clients": 6,
    "s1_instructions": 2,
    "s2_clients": 6,
    "s2_instructions": 5,
    "s3_instructions": 8,
    "s4_clients": 4,
    "s4_instructions": 4,
    "s4_backlog": 20,
    "s5_clients": 2,
    "s5_instructions": 16,
}


def sizes_from(args: argparse.Namespace) -> Sizes:
    values = {name: getattr(args, name) for name in Sizes.__dataclass_fields__}
    if args.quick:
        # --quick shrinks what was not given explicitly.
        for name, small in QUICK.items():
            if name not in args.explicit:
                values[name] = small
    return Sizes(**values)


# Users of each group, in the order the setup subprocess creates them.


def layout(sizes: Sizes) -> list[tuple[str, int, int]]:
    """(group, users, finished missions pre-filled in each user's session)."""
    return [
        ("warmup", 1, 0),
        ("s1", sizes.s1_clients, 0),
        ("s2", sizes.s2_clients, 0),
        ("s3", 1, 0),
        ("s3_idle", 1, 0),
        ("s4_alone", sizes.s4_clients, 0),
        ("s4_backlog_chat", sizes.s4_clients, 0),
        ("s4_alone_after", sizes.s4_clients, 0),
        ("backlog", sizes.s4_backlog, BACKLOG_PREFILL),
        ("s5_b1", sizes.s5_clients, 0),
        ("s5_b8", sizes.s5_clients, 0),
    ]


def split_users(users: list[UserFixture], sizes: Sizes) -> dict[str, list[UserFixture]]:
    groups: dict[str, list[UserFixture]] = {}
    start = 0
    for name, count, _ in layout(sizes):
        groups[name] = users[start : start + count]
        start += count
    return groups


# --- One phase --------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    outcome: ClientsOutcome
    calls: dict[str, int]
    lost: int = 0
    doubled: int = 0
    problems: list[str] = field(default_factory=list)
    peak_connections: str = "-"
    rss: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def first_deltas(self) -> list[float]:
        return [d for i in self.outcome.instructions if (d := i.to_first_delta) is not None]

    @property
    def done(self) -> int:
        return sum(1 for i in self.outcome.instructions if i.done is not None)

    @property
    def missions_per_s(self) -> float:
        return self.done / self.outcome.elapsed

    def first_delta(self, p: float) -> float:
        return percentile(self.first_deltas, p)


# Which of the web process's threads does what, by the name Python gave it.
_THREAD_ROLES = (
    ("MainThread", "socket loop"),
    ("office-replies", "replies lane"),
    ("office-background", "background lane"),
    # asgiref's thread for thread-sensitive sync_to_async: the consumer's database work.
    ("ThreadPoolExecutor", "database thread"),
)


def _thread_role(name: str) -> str:
    for prefix, role in _THREAD_ROLES:
        if name.startswith(prefix):
            return role
    return "other"


def _by_thread_role(
    stack: Any, before: dict[int, float], after: dict[int, float]
) -> dict[str, float]:
    """CPU seconds the web process's threads spent between two readings, by role. A thread
    that ended in between is missing from both the names and `after`: its CPU is lost, but
    the pools' threads live as long as the process."""
    try:
        names = {int(tid): name for tid, name in stack.hook("GET", "threads")["threads"].items()}
    except (harness.BenchError, OSError, ValueError):
        return {}  # a figure left out, not a failed run
    spent: dict[str, float] = {}
    for tid, seconds in after.items():
        role = _thread_role(names.get(tid, ""))
        spent[role] = spent.get(role, 0.0) + seconds - before.get(tid, 0.0)
    return spent


class Run:
    """One runtime's stack and the phases measured on it."""

    def __init__(self, stack: Stack, args: argparse.Namespace, sizes: Sizes) -> None:
        self.stack = stack
        self.args = args
        self.sizes = sizes
        self.groups = split_users(stack.users, sizes)
        self.phases: dict[str, Phase] = {}
        self.service_failures: list[str] = []
        self.plans: dict[str, Any] = {}

    def restart(self, *, delay_ms: float, fold_batch: int) -> None:
        log(f"{self.stack.config.runtime}: model delay {delay_ms:g} ms, FOLD_BATCH={fold_batch}")
        self.stack.restart_services(delay_ms=delay_ms, env={"FOLD_BATCH": str(fold_batch)})
        self.warm_up()

    def warm_up(self) -> None:
        """Imports, the model client's connections and the thread pools are made on first
        use: one unmeasured client pays for that, as earlier traffic would have."""
        if self.sizes.warmup:
            harness.run_clients(
                self.stack,
                users=self.groups["warmup"],
                instructions=self.sizes.warmup,
                per_instruction_timeout=self.args.instruction_timeout,
                phase_timeout=self.args.timeout,
            )

    def phase(
        self,
        name: str,
        group: str,
        instructions: int,
        *,
        before_go: Any = None,
        between: Any = None,
        drain: bool = True,
    ) -> Phase:
        """Run one group of clients and check what they stored. With `drain`, wait until the
        task queues are empty before checking (and counting model calls); without, the
        background work still queued is left to the restart that follows."""
        stack = self.stack
        users = self.groups[group]
        sampler = stack.sampler
        if sampler is not None:
            sampler.reset()
        log(f"{stack.config.runtime}: {name}: {len(users)} clients x {instructions}")
        before = stack.model_stats()
        live = [proc for proc in stack.procs if not proc.stopped]
        cpu_before = {proc.name: harness.tree_cpu_seconds(proc.popen.pid) for proc in live}
        web = next((proc for proc in live if proc.name == "daphne"), None)
        threads_before = harness.thread_cpu_seconds(web.popen.pid) if web else {}
        own_before = sum(os.times()[:2])
        at_finish: dict[str, Any] = {}

        def wait_idle(timeout: float) -> bool:
            at_finish.update(stack.model_stats())
            return stack.wait_queue_idle(timeout) if drain else True

        outcome = harness.drive_clients(
            port=stack.http_port,
            users=users,
            instructions=instructions,
            per_instruction_timeout=self.args.instruction_timeout,
            phase_timeout=self.args.timeout,
            wait_idle=wait_idle,
            before_go=before_go,
            between=between,
        )
        after = stack.model_stats()
        cpu = {
            proc.name: harness.tree_cpu_seconds(proc.popen.pid) - cpu_before[proc.name]
            for proc in live
        }
        cpu[CLIENTS] = sum(os.times()[:2]) - own_before
        threads_after = harness.thread_cpu_seconds(web.popen.pid) if web else {}
        result = Phase(name=name, outcome=outcome, calls=harness.stats_delta(before, after))
        result.extra["calls_while_chatting"] = harness.stats_delta(before, at_finish)
        result.extra["cpu"] = cpu
        result.extra["web_threads"] = (
            _by_thread_role(stack, threads_before, threads_after) if web else {}
        )
        if sampler is not None:
            sampler.sample_rss()
            if not stack.embedded:
                result.peak_connections = str(sampler.peak_connections)
            for tree_name, tree in sampler.trees.items():
                main = [p for p in tree.pids.values() if p.role == "main"]
                if main:
                    result.rss[tree_name] = max(main[0].hwm_kib, main[0].rss_kib)
        check = harness.check_database(
            stack,
            users=users,
            sent={run.user.channel_id: len(run.instructions) for run in outcome.runs},
        )
        result.lost, result.doubled = check.lost, check.doubled
        if not check.count_ok:
            result.problems.append(
                f"count check: {check.found}/{check.expected} stored, lost {check.lost}, "
                f"doubled {check.doubled}, not done {check.not_done}, empty "
                f"{check.empty_replies}, foreign {check.foreign_replies}, bad reply counts "
                f"{check.bad_reply_counts}, bad session counts {check.bad_session_counts}"
            )
        if check.failed_missions or check.error_messages:
            result.problems.append(
                f"{check.failed_missions} failed missions, {check.error_messages} error messages"
            )
        result.problems.extend(harness.client_problems(outcome)[:10])
        if not outcome.queue_idle:
            result.problems.append("the task queues had not drained 120 s after the last reply")
        result.extra["folds"] = self.revisions(users)
        self.phases[name] = result
        log(
            f"{stack.config.runtime}: {name}: {result.done} replies, "
            f"{result.missions_per_s:.1f} missions/s, first delta p50 "
            f"{result.first_delta(50) * 1000:.0f} ms, p95 {result.first_delta(95) * 1000:.0f} ms, "
            f"calls {harness.describe_calls(result.calls)}"
        )
        return result

    def revisions(self, users: list[UserFixture]) -> int:
        """Fold revisions committed in these users' sessions (one per fold that ran)."""
        # The summaries app kept its tables' names (memory_*) when it moved out of memory.
        with self.stack.scratch() as db:
            rows = db.rows(
                """
                SELECT count(*) FROM memory_summaryrevision r
                  JOIN memory_rollingsummary s ON s.id = r.summary_id
                 WHERE r.kind = 'fold' AND s.session_id IN (%s)
                """,
                ([u.session_id for u in users],),
            )
        return int(rows[0][0]) if rows else 0

    def echo(self, instructions: int) -> Phase:
        """The same clients against the bare Channels echo (bench/echo_asgi.py)."""
        stack = self.stack
        users = [
            UserFixture(
                index=n,
                username=f"echo{n}",
                cookie_name="sessionid",
                cookie="none",
                channel_id=n + 1,
                session_id=n + 1,
                employee="Echo",
                prefill=0,
            )
            for n in range(self.sizes.s2_clients)
        ]
        proc, port = stack.start_echo()
        try:
            # Warm the echo server as the office was warmed.
            harness.drive_clients(
                port=port,
                users=users[:1],
                instructions=max(1, self.sizes.warmup),
                per_instruction_timeout=self.args.instruction_timeout,
                phase_timeout=self.args.timeout,
            )
            log(f"{stack.config.runtime}: echo: {len(users)} clients x {instructions}")
            outcome = harness.drive_clients(
                port=port,
                users=users,
                instructions=instructions,
                per_instruction_timeout=self.args.instruction_timeout,
                phase_timeout=self.args.timeout,
            )
        finally:
            stack.stop_procs([proc])
        result = Phase(name="echo", outcome=outcome, calls={})
        result.problems.extend(harness.client_problems(outcome)[:10])
        self.phases["echo"] = result
        log(f"{stack.config.runtime}: echo: {result.missions_per_s:.1f} frames sets/s")
        return result

    def wait_until_idle(self) -> None:
        self.stack.wait_queue_idle(120.0)

    def queue_backlog(self) -> None:
        sessions = [[u.session_id] for u in self.groups["backlog"]]
        started = time.perf_counter()
        queued = self.stack.queue_tasks("summaries.tasks.summary_fold", sessions)
        log(
            f"queued {queued} summary_fold tasks in {(time.perf_counter() - started) * 1000:.0f} ms"
        )

    def plan_phase(self, count: int) -> dict[str, Any]:
        """Scenario 6: `count` users each send one instruction to their master channel
        naming three colleagues at once; the time to the plan's "done" frame."""
        stack = self.stack
        users = stack.users[:count]
        with stack.scratch() as db:
            rows = db.rows(
                """
                SELECT u.username, c.id FROM office_channel c
                  JOIN office_office o ON o.id = c.office_id
                  JOIN auth_user u ON u.id = o.owner_id
                 WHERE c.kind = 'master' AND u.username IN (%s)
                """,
                ([u.username for u in users],),
            )
        masters = {name: int(channel) for name, channel in rows}
        log(f"{stack.config.runtime}: plans: {len(users)} plans of 3 delegates at once")
        before = stack.model_stats()
        results = asyncio.run(
            _drive_plans(
                port=stack.http_port,
                users=users,
                masters=masters,
                timeout=self.args.instruction_timeout,
            )
        )
        stack.wait_queue_idle(120.0)
        latencies = [r for r in results if isinstance(r, float)]
        problems = [r for r in results if isinstance(r, str)]
        self.plans = {
            "latencies": latencies,
            "problems": problems,
            "calls": harness.stats_delta(before, stack.model_stats()),
        }
        log(
            f"{stack.config.runtime}: plans: {len(latencies)} done, p50 "
            f"{_s(percentile(latencies, 50))}, max {_s(max(latencies, default=0.0))}"
        )
        return self.plans


PLAN_TEXT = (
    "Spring campaign, plan {n}. @Iris design the banner. @Theo build the landing page. "
    "@Mara write the press release."
)


async def _plan_client(
    *,
    port: int,
    user: UserFixture,
    channel_id: int,
    connected: asyncio.Event,
    go: asyncio.Event,
    timeout: float,
) -> float | str:
    from websockets.asyncio.client import connect
    from websockets.typing import Origin

    async with connect(
        f"ws://127.0.0.1:{port}/ws/channels/{channel_id}/",
        origin=Origin(f"http://127.0.0.1:{port}"),
        additional_headers={"Cookie": f"{user.cookie_name}={user.cookie}"},
        compression=None,
        ping_interval=None,
        open_timeout=60,
        max_size=2**22,
    ) as ws:
        connected.set()
        await go.wait()
        sent = time.perf_counter()
        text = PLAN_TEXT.format(n=user.index)
        await ws.send(json.dumps({"type": "instruction", "text": text, "client_id": "plan"}))

        async def until_done() -> float | str:
            async for raw in ws:
                frame = json.loads(raw)
                if frame.get("type") == "error":
                    return f"user {user.index}: {frame.get('code')}: {frame.get('message')}"
                if frame.get("type") == "plan":
                    plan = frame["plan"]
                    if plan["status"] == "done" and len(plan["delegates"]) == 3:
                        return time.perf_counter() - sent
                    if plan["status"] == "failed":
                        return f"user {user.index}: the synthesis failed"
            return f"user {user.index}: the socket closed before the plan was done"

        try:
            return await asyncio.wait_for(until_done(), timeout)
        except TimeoutError:
            return f"user {user.index}: no finished plan within {timeout:g} s"


async def _drive_plans(
    *, port: int, users: list[UserFixture], masters: dict[str, int], timeout: float
) -> list[float | str]:
    go = asyncio.Event()
    events = [asyncio.Event() for _ in users]
    tasks = [
        asyncio.create_task(
            _plan_client(
                port=port,
                user=user,
                channel_id=masters[user.username],
                connected=event,
                go=go,
                timeout=timeout,
            )
        )
        for user, event in zip(users, events, strict=True)
    ]
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in events)), 60)
    go.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    return [r if isinstance(r, float | str) else f"client failed: {r!r}" for r in results]


def run_runtime(runtime: str, args: argparse.Namespace, sizes: Sizes) -> Run:
    groups = layout(sizes)
    prefill = [pre for _, count, pre in groups for _ in range(count)]
    config = harness.stack_config(
        args, prefill=prefill, label=f"conc{runtime[:3]}", embedded=runtime == "embedded"
    )
    # The services start as scenario 1 wants them; restarts change delay and FOLD_BATCH.
    config.delay_ms = sizes.s1_delay_ms
    config.extra_env = {**COMMON_ENV, "FOLD_BATCH": "8"}
    with Stack(config, max_seconds=args.budget) as stack:
        run = Run(stack, args, sizes)
        try:
            if args.only_plans:
                run.restart(delay_ms=sizes.s6_delay_ms, fold_batch=8)
                run.plan_phase(sizes.s6_plans)
                run.service_failures = stack.service_failures()
                return run
            # 1. Slow model, many clients at once.
            run.warm_up()
            # Not drained: the background work it queued (an extraction and more per
            # mission, each a 2 s model call) is dropped by the restart that follows.
            run.phase("s1", "s1", sizes.s1_instructions, drain=False)
            # 2, 3 and 5 (after batching): the model answers at once.
            run.restart(delay_ms=0, fold_batch=8)
            run.phase("s2", "s2", sizes.s2_instructions)
            run.echo(sizes.s2_instructions)
            run.phase("s3", "s3", sizes.s3_instructions)
            # 3 again, each instruction sent only once the previous one's background work
            # (extraction, fold, indexing) has finished: the reply path on its own.
            run.phase("s3_idle", "s3_idle", sizes.s3_instructions, between=run.wait_until_idle)
            run.phase("s5_b8", "s5_b8", sizes.s5_instructions)
            # 4. A backlog of folds while clients chat; each fold is a model call.
            run.restart(delay_ms=sizes.s4_delay_ms, fold_batch=1)
            run.phase("s4_alone", "s4_alone", sizes.s4_instructions)
            run.phase(
                "s4_backlog",
                "s4_backlog_chat",
                sizes.s4_instructions,
                before_go=run.queue_backlog,
            )
            # The baseline again, after the backlog drained: the two pooled are "alone".
            run.phase("s4_alone_after", "s4_alone_after", sizes.s4_instructions)
            # 5 (before batching).
            run.restart(delay_ms=0, fold_batch=1)
            run.phase("s5_b1", "s5_b1", sizes.s5_instructions)
            # 6. Plans, last: their delegated missions land in the 1:1 channels above.
            run.restart(delay_ms=sizes.s6_delay_ms, fold_batch=8)
            run.plan_phase(sizes.s6_plans)
        except BaseException:
            stack.mark_failed()
            raise
        run.service_failures = stack.service_failures()
        if any(p.problems for p in run.phases.values()) or run.service_failures:
            stack.mark_failed()
        return run


# --- Report -----------------------------------------------------------------------------


def _s(seconds: float) -> str:
    if seconds != seconds:
        return "-"
    return f"{seconds * 1000:,.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _by_thread(ms: dict[str, float]) -> str:
    return ", ".join(f"{role} {value:.1f} ms" for role, value in ms.items() if value) or "-"


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def _mib(kib: int) -> str:
    return f"{kib / 1024:,.0f} MiB"


def _per_100(calls: dict[str, int], kind: str, missions: int) -> float:
    return 100 * calls.get(kind, 0) / max(missions, 1)


@dataclass
class Figures:
    runtime: str
    s1_p50: float
    s1_p95: float
    s1_lost: int
    s1_doubled: int
    s1_connections: str
    s1_rss: str
    s2_mps: float
    echo_mps: float
    s3_p50: float
    s3_idle_p50: float
    s2_cpu_ms: dict[str, float]
    s2_web_threads_ms: dict[str, float]
    s3_web_threads_ms: dict[str, float]
    s4_alone_p95: float
    s4_backlog_p95: float
    s5: dict[str, dict[str, float]]
    problems: list[str]

    @property
    def s2_ratio(self) -> float:
        return self.s2_mps / self.echo_mps if self.echo_mps else float("nan")

    @property
    def s4_ratio(self) -> float:
        return self.s4_backlog_p95 / self.s4_alone_p95 if self.s4_alone_p95 else float("nan")


def _per_mission_by_thread(phase: Phase) -> dict[str, float]:
    spent = phase.extra.get("web_threads", {})
    ms = {role: 1000 * seconds / max(phase.done, 1) for role, seconds in spent.items()}
    return dict(sorted(ms.items(), key=lambda item: -item[1]))


MODEL = "fake model"
CLIENTS = "clients (this process)"


def _gauged(cpu_ms: dict[str, float]) -> float | None:
    """The servers' CPU per mission (Daphne and workers) over the local model server's CPU
    per request. The model server does the same work for every request, so it gauges the
    machine's speed of the moment: on a machine whose speed drifts between runs this moves
    far less than missions/s or the ratio to the echo, which is measured at another moment."""
    model = cpu_ms.get(MODEL)
    if not model:
        return None
    return _servers_ms(cpu_ms) / model


def _servers_ms(cpu_ms: dict[str, float]) -> float:
    """The CPU per mission of the office's own processes (Daphne and workers), leaving out
    the local model server and the benchmark's clients, which a deployment does not run."""
    return sum(ms for name, ms in cpu_ms.items() if name not in (MODEL, CLIENTS))


def _cores(missions_per_s: float, cpu_ms: dict[str, float]) -> float:
    """The cores the servers kept busy in scenario 2: missions/s times their CPU per mission.
    The embedded web process stays near one whatever the code (one interpreter), so there
    missions/s is about this over the CPU per mission, and a target of T missions/s allows
    `_allowed_ms(cores, T)` of CPU per mission."""
    return missions_per_s * _servers_ms(cpu_ms) / 1000


def _allowed_ms(cores: float, missions_per_s: float) -> float:
    """The servers' CPU per mission at which `cores` would give `missions_per_s`."""
    return 1000 * cores / missions_per_s


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def figures(run: Run) -> Figures:
    p = run.phases
    runtime = run.stack.config.runtime
    s1 = p["s1"]
    rss_parts = [
        f"{name} {_mib(kib)}"
        for name, kib in s1.rss.items()
        if name != MODEL and not name.startswith("echo")
    ]
    s5: dict[str, dict[str, float]] = {}
    for key in ("s5_b1", "s5_b8"):
        phase = p[key]
        missions = phase.done
        s5[key] = {
            "missions": missions,
            "replies": _per_100(phase.calls, "stream", missions),
            "fold requests": _per_100(phase.calls, "SummaryState", missions),
            "folds": 100 * phase.extra["folds"] / max(missions, 1),
            "extractions": _per_100(phase.calls, "MemoryCandidates", missions),
            "all": 100 * sum(phase.calls.values()) / max(missions, 1),
        }
    problems = [f"{name}: {line}" for name, phase in p.items() for line in phase.problems]
    problems += [f"service log: {line}" for line in run.service_failures]
    return Figures(
        runtime=runtime,
        s1_p50=s1.first_delta(50),
        s1_p95=s1.first_delta(95),
        s1_lost=s1.lost,
        s1_doubled=s1.doubled,
        s1_connections=s1.peak_connections,
        s1_rss=", ".join(rss_parts),
        s2_mps=p["s2"].missions_per_s,
        echo_mps=p["echo"].missions_per_s,
        s3_p50=p["s3"].first_delta(50),
        s3_idle_p50=p["s3_idle"].first_delta(50),
        s2_cpu_ms={
            name: 1000 * seconds / max(p["s2"].done, 1)
            for name, seconds in p["s2"].extra["cpu"].items()
            if not name.startswith("echo")
        },
        s2_web_threads_ms=_per_mission_by_thread(p["s2"]),
        s3_web_threads_ms=_per_mission_by_thread(p["s3"]),
        # The baseline ran before and after the backlog: both runs pooled.
        s4_alone_p95=percentile(p["s4_alone"].first_deltas + p["s4_alone_after"].first_deltas, 95),
        s4_backlog_p95=p["s4_backlog"].first_delta(95),
        s5=s5,
        problems=problems,
    )


def print_runtime(run: Run, sizes: Sizes) -> Figures:
    f = figures(run)
    p = run.phases
    target = TARGETS[f.runtime]
    backlog = p["s4_backlog"]
    backlog_folds_while = backlog.extra["calls_while_chatting"].get("SummaryState", 0)
    backlog_folds_all = backlog.calls.get("SummaryState", 0)
    print(f"\n=== {f.runtime}: {run.stack.workers_summary()} ===")
    rows: list[tuple[str, ...]] = [("scenario", "figure", "value", "target", "")]
    rows += [
        (
            f"1. model 2 s, {sizes.s1_clients} x {sizes.s1_instructions}",
            "instruction -> first delta p50",
            _s(f.s1_p50),
            f"<= {S1_P50:g} s",
            _verdict(f.s1_p50 <= S1_P50),
        ),
        ("", "first delta p95", _s(f.s1_p95), f"<= {S1_P95:g} s", _verdict(f.s1_p95 <= S1_P95)),
        (
            "",
            "lost / doubled",
            f"{f.s1_lost} / {f.s1_doubled}",
            "0 / 0",
            _verdict(not (f.s1_lost or f.s1_doubled)),
        ),
        ("", "peak DB connections", f.s1_connections, "", ""),
        ("", "peak RSS", f.s1_rss, "", ""),
        (
            f"2. model at once, {sizes.s2_clients} x {sizes.s2_instructions}",
            "missions/s",
            f"{f.s2_mps:.1f}",
            f">= {target['s2_missions_per_s']:g}",
            _verdict(f.s2_mps >= target["s2_missions_per_s"]),
        ),
        ("", "echo (Daphne + Channels) /s", f"{f.echo_mps:.1f}", "", ""),
        ("", "missions/s / echo/s", f"{f.s2_ratio:.3f}", "", ""),
        (
            "",
            "first delta p50 / p95",
            f"{_s(p['s2'].first_delta(50))} / {_s(p['s2'].first_delta(95))}",
            "",
            "",
        ),
        (
            "",
            "CPU per mission (queues drained)",
            ", ".join(f"{name} {ms:.1f} ms" for name, ms in f.s2_cpu_ms.items()),
            "",
            "",
        ),
        (
            "",
            "... Daphne's, by thread",
            _by_thread(f.s2_web_threads_ms),
            "",
            "",
        ),
        ("", "... the same, one client alone (3.)", _by_thread(f.s3_web_threads_ms), "", ""),
        ("", "servers' CPU / the model's per request", _ratio(_gauged(f.s2_cpu_ms)), "", ""),
        (
            f"3. one client, model at once, x {sizes.s3_instructions}",
            "first delta p50",
            _s(f.s3_p50),
            f"<= {target['s3_p50'] * 1000:g} ms",
            _verdict(f.s3_p50 <= target["s3_p50"]),
        ),
        (
            "",
            "first delta p95 / echo p50",
            f"{_s(p['s3'].first_delta(95))} / {_s(p['echo'].first_delta(50))}",
            "",
            "",
        ),
        (
            "",
            "p50 / p95 sending only once idle",
            f"{_s(f.s3_idle_p50)} / {_s(p['s3_idle'].first_delta(95))}",
            "",
            "",
        ),
        (
            f"4. model {sizes.s4_delay_ms:g} ms, {sizes.s4_clients} x {sizes.s4_instructions}, "
            "FOLD_BATCH=1",
            "first delta p95 alone (before + after)",
            _s(f.s4_alone_p95),
            "",
            "",
        ),
        ("", f"... with {sizes.s4_backlog} folds queued", _s(f.s4_backlog_p95), "", ""),
        ("", "ratio", f"{f.s4_ratio:.2f}", f"<= {S4_RATIO:g}", _verdict(f.s4_ratio <= S4_RATIO)),
        (
            "",
            "p95 alone before / after",
            f"{_s(p['s4_alone'].first_delta(95))} / {_s(p['s4_alone_after'].first_delta(95))}",
            "",
            "",
        ),
        (
            "",
            "p50 alone before / with backlog / after",
            f"{_s(p['s4_alone'].first_delta(50))} / {_s(backlog.first_delta(50))} / "
            f"{_s(p['s4_alone_after'].first_delta(50))}",
            "",
            "",
        ),
        (
            "",
            "fold requests while chatting / in all",
            f"{backlog_folds_while} / {backlog_folds_all}",
            "",
            "",
        ),
    ]
    b1, b8 = f.s5["s5_b1"], f.s5["s5_b8"]
    rows.append(
        (
            f"5. model calls per 100 missions, {sizes.s5_clients} x {sizes.s5_instructions}",
            "FOLD_BATCH=1 -> 8 (before -> after)",
            "",
            "",
            "",
        )
    )
    for name, label in (
        ("all", "all model calls"),
        ("replies", "replies (streamed)"),
        ("folds", "folds that called the model"),
        ("fold requests", "fold requests (SummaryState)"),
        ("extractions", "extractions (MemoryCandidates)"),
    ):
        rows.append(("", label, f"{b1[name]:.1f} -> {b8[name]:.1f}", "", ""))
    # The fake model answers a fold with "{}", which the verifier rejects: each fold asks
    # twice, then falls back to the extractive fold. More than two requests per committed
    # fold are proposals that lost the commit race to a concurrent fold of the session.
    per_fold = [c["fold requests"] / c["folds"] if c["folds"] else float("nan") for c in (b1, b8)]
    rows.append(
        ("", "fold requests per committed fold", f"{per_fold[0]:.2f} -> {per_fold[1]:.2f}", "", "")
    )
    harness.print_table(f"{f.runtime} runtime", rows)
    if f.problems:
        print("Problems:")
        for line in f.problems[:30]:
            print(f"  - {line}")
    return f


def print_plans(run: Run, sizes: Sizes) -> list[str]:
    """Scenario 6's table; returns its problems."""
    plans = run.plans
    if not plans:
        return []
    latencies: list[float] = plans["latencies"]
    problems = list(plans["problems"]) + [f"service log: {x}" for x in run.service_failures]
    missing = sizes.s6_plans - len(latencies)
    delay = sizes.s6_delay_ms / 1000
    rows: list[tuple[str, ...]] = [("scenario", "figure", "value", "target", "")]
    rows += [
        (
            f"6. model {delay:g} s, {sizes.s6_plans} plans x 3 delegates",
            "instruction -> plan done p50",
            _s(percentile(latencies, 50)),
            f"~{2 * delay:g} s (parallel), not {4 * delay:g} s",
            _verdict(bool(latencies) and percentile(latencies, 50) < 3 * delay),
        ),
        (
            "",
            "p95 / max",
            f"{_s(percentile(latencies, 95))} / {_s(max(latencies, default=0))}",
            "",
            "",
        ),
        ("", "plans not done", str(missing), "0", _verdict(missing == 0)),
        ("", "model calls", harness.describe_calls(plans["calls"]), "", ""),
    ]
    harness.print_table(f"{run.stack.config.runtime} runtime: plans", rows)
    for line in problems[:20]:
        print(f"  - {line}")
    return problems


def print_summary(results: list[Figures], failed: dict[str, str]) -> None:
    rows: list[tuple[str, ...]] = [("figure", *(f.runtime for f in results))]

    def row(label: str, cells: list[str]) -> None:
        rows.append((label, *cells))

    row(
        "1. first delta p50 / p95 (model 2 s)",
        [
            f"{_s(f.s1_p50)} / {_s(f.s1_p95)} {_verdict(f.s1_p50 <= S1_P50 and f.s1_p95 <= S1_P95)}"
            for f in results
        ],
    )
    row("1. lost / doubled", [f"{f.s1_lost} / {f.s1_doubled}" for f in results])
    row("1. peak DB connections", [f.s1_connections for f in results])
    row("1. peak RSS", [f.s1_rss for f in results])
    row(
        "2. missions/s (target)",
        [
            f"{f.s2_mps:.1f} (>= {TARGETS[f.runtime]['s2_missions_per_s']:g}) "
            f"{_verdict(f.s2_mps >= TARGETS[f.runtime]['s2_missions_per_s'])}"
            for f in results
        ],
    )
    row("2. echo/s", [f"{f.echo_mps:.1f}" for f in results])
    row("2. missions/s / echo/s", [f"{f.s2_ratio:.3f}" for f in results])
    row(
        "2. CPU per mission, the servers",
        [f"{_servers_ms(f.s2_cpu_ms):.0f} ms" for f in results],
    )
    row(
        "2. servers' CPU / the model's per request",
        [_ratio(_gauged(f.s2_cpu_ms)) for f in results],
    )
    cores = [_cores(f.s2_mps, f.s2_cpu_ms) for f in results]
    row("2. cores the servers kept busy", [f"{c:.2f}" for c in cores])
    row(
        "2. CPU per mission the target allows at that",
        [
            f"{_allowed_ms(c, TARGETS[f.runtime]['s2_missions_per_s']):.0f} ms"
            for c, f in zip(cores, results, strict=True)
        ],
    )
    row(
        "3. lone first delta p50",
        [f"{_s(f.s3_p50)} {_verdict(f.s3_p50 <= TARGETS[f.runtime]['s3_p50'])}" for f in results],
    )
    row(
        "3. ... sending only once idle",
        [
            f"{_s(f.s3_idle_p50)} {_verdict(f.s3_idle_p50 <= TARGETS[f.runtime]['s3_p50'])}"
            for f in results
        ],
    )
    row(
        "4. p95 with backlog / alone",
        [f"{f.s4_ratio:.2f} {_verdict(f.s4_ratio <= S4_RATIO)}" for f in results],
    )
    for key, label in (("s5_b1", "before (FOLD_BATCH=1)"), ("s5_b8", "after (FOLD_BATCH=8)")):
        row(
            f"5. calls / 100 missions {label}",
            [f"{f.s5[key]['all']:.0f} (folds {f.s5[key]['folds']:.1f})" for f in results],
        )
    row("count-check / client problems", [str(len(f.problems)) for f in results])
    harness.print_table("Summary", rows)
    for runtime, reason in failed.items():
        print(f"  {runtime}: not measured: {reason}")


# --- Command line -----------------------------------------------------------------------


class _Explicit(argparse.Action):
    """Stores the value and remembers that it was given (so --quick leaves it alone)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.explicit = {*getattr(namespace, "explicit", set()), self.dest}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument(
        "--only-plans", action="store_true", help="run scenario 6 (plan latency) alone"
    )
    parser.add_argument(
        "--runtimes",
        default="embedded,production",
        help="comma-separated: embedded, production",
    )
    sizes: list[tuple[str, type, Any, str]] = [
        ("s1_clients", int, 50, "scenario 1: clients"),
        ("s1_instructions", int, 4, "scenario 1: instructions per client"),
        ("s1_delay_ms", float, 2000.0, "scenario 1: the model's delay"),
        ("s2_clients", int, 50, "scenario 2: clients (and echo clients)"),
        ("s2_instructions", int, 20, "scenario 2: instructions per client"),
        ("s3_instructions", int, 20, "scenario 3: instructions of the lone client"),
        ("s4_clients", int, 20, "scenario 4: clients"),
        ("s4_instructions", int, 10, "scenario 4: instructions per client"),
        ("s4_backlog", int, 200, "scenario 4: folds queued"),
        ("s4_delay_ms", float, 200.0, "scenario 4: the model's delay"),
        ("s5_clients", int, 10, "scenario 5: clients (sessions)"),
        ("s5_instructions", int, 40, "scenario 5: instructions per session"),
        ("s6_plans", int, 10, "scenario 6: plans of three delegates sent at once"),
        ("s6_delay_ms", float, 2000.0, "scenario 6: the model's delay"),
        ("warmup", int, 2, "instructions of the unmeasured warm-up client after each restart"),
    ]
    for name, kind, default, help_text in sizes:
        parser.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            type=kind,
            default=default,
            action=_Explicit,
            help=help_text,
        )
    harness.add_stack_arguments(parser)
    parser.add_argument(
        "--instruction-timeout", type=float, default=120.0, help="seconds to wait for a reply"
    )
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds one client phase may take"
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds the whole run may take, cleanup included (default 3600, quick 1200)",
    )
    args = parser.parse_args(argv)
    if not hasattr(args, "explicit"):
        args.explicit = set()
    if args.budget is None:
        args.budget = 1200.0 if args.quick else 3600.0
    args.delay_ms = 0.0
    runtimes = [r.strip() for r in args.runtimes.split(",") if r.strip()]
    if not runtimes or any(r not in TARGETS for r in runtimes):
        parser.error("--runtimes takes embedded and/or production")
    args.runtime_list = runtimes
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = sizes_from(args)
    started = time.monotonic()
    results: list[Figures] = []
    plan_problems: list[str] = []
    failed: dict[str, str] = {}
    try:
        with harness.run_deadline(args.budget):
            for runtime in args.runtime_list:
                try:
                    run = run_runtime(runtime, args, sizes)
                except BenchError as exc:
                    if "stopped by" in str(exc):
                        raise
                    log(f"{runtime}: {exc}")
                    failed[runtime] = str(exc)[:500]
                    continue
                if not args.only_plans:
                    results.append(print_runtime(run, sizes))
                plan_problems += print_plans(run, sizes)
                sys.stdout.flush()
    except BenchError as exc:
        print(f"\nBenchmark stopped: {exc}", file=sys.stderr)
        failed.setdefault("run", str(exc))
    except KeyboardInterrupt:
        print("\nBenchmark interrupted", file=sys.stderr)
        return 130
    if results:
        print_summary(results, failed)
    print(f"\n(total {time.monotonic() - started:.0f} s)")
    if failed:
        return 2
    return 1 if any(f.problems for f in results) or plan_problems else 0


if __name__ == "__main__":
    sys.exit(main())
