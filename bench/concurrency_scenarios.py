"""The scenarios of bench/concurrency.py: sizes, the stack of each runtime, and what one
phase of clients measured."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import time
from dataclasses import dataclass, field, fields
from typing import Any

from bench import harness
from bench.harness import ClientsOutcome, Stack, UserFixture, log, percentile

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
# How the CPU the run measured is labelled besides the servers' own processes.
MODEL = "fake model"
CLIENTS = "clients (this process)"


def _s(seconds: float) -> str:
    if seconds != seconds:
        return "-"
    return f"{seconds * 1000:,.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _size(default: float, help_text: str, quick: int | None = None) -> Any:
    """A size of Sizes: its default, its value under --quick (None: the same), its help."""
    return field(default=default, metadata={"help": help_text, "quick": quick})


@dataclass(frozen=True)
class Sizes:
    """The scenarios' sizes, each an option of its own (--s1-clients, ...)."""

    s1_clients: int = _size(50, "scenario 1: clients", quick=6)
    s1_instructions: int = _size(4, "scenario 1: instructions per client", quick=2)
    s1_delay_ms: float = _size(2000.0, "scenario 1: the model's delay")
    s2_clients: int = _size(50, "scenario 2: clients (and echo clients)", quick=6)
    s2_instructions: int = _size(20, "scenario 2: instructions per client", quick=5)
    s3_instructions: int = _size(20, "scenario 3: instructions of the lone client", quick=8)
    s4_clients: int = _size(20, "scenario 4: clients", quick=4)
    s4_instructions: int = _size(10, "scenario 4: instructions per client", quick=4)
    s4_backlog: int = _size(200, "scenario 4: folds queued", quick=20)
    s4_delay_ms: float = _size(200.0, "scenario 4: the model's delay")
    s5_clients: int = _size(10, "scenario 5: clients (sessions)", quick=2)
    s5_instructions: int = _size(40, "scenario 5: instructions per session", quick=16)
    s6_plans: int = _size(10, "scenario 6: plans of three delegates sent at once")
    s6_delay_ms: float = _size(2000.0, "scenario 6: the model's delay")
    warmup: int = _size(2, "instructions of the unmeasured warm-up client after each restart")


def sizes_from(args: argparse.Namespace) -> Sizes:
    """The sizes of the options; --quick shrinks those not given explicitly."""
    values = {}
    for size in fields(Sizes):
        quick = size.metadata["quick"]
        given = size.name in args.explicit
        use_quick = args.quick and quick is not None and not given
        values[size.name] = quick if use_quick else getattr(args, size.name)
    return Sizes(**values)


def layout(sizes: Sizes) -> list[tuple[str, int, int]]:
    """(group, users, finished missions pre-filled in each user's session), in the order the
    setup subprocess creates the users."""
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


def _by_thread_role(
    stack: Stack, before: dict[int, float], after: dict[int, float]
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
        name = names.get(tid, "")
        role = next((r for prefix, r in _THREAD_ROLES if name.startswith(prefix)), "other")
        spent[role] = spent.get(role, 0.0) + seconds - before.get(tid, 0.0)
    return spent


class Run:
    """One runtime's stack and the phases measured on it."""

    def __init__(self, stack: Stack, args: argparse.Namespace, sizes: Sizes) -> None:
        self.stack = stack
        self.runtime = stack.config.runtime
        self.sizes = sizes
        self.limits = {
            "per_instruction_timeout": args.instruction_timeout,
            "phase_timeout": args.timeout,
        }
        self.groups: dict[str, list[UserFixture]] = {}
        start = 0
        for name, count, _ in layout(sizes):
            self.groups[name] = stack.users[start : start + count]
            start += count
        self.phases: dict[str, Phase] = {}
        self.service_failures: list[str] = []
        self.plans: dict[str, Any] = {}

    def restart(self, *, delay_ms: float, fold_batch: int) -> None:
        log(f"{self.runtime}: model delay {delay_ms:g} ms, FOLD_BATCH={fold_batch}")
        self.stack.restart_services(delay_ms=delay_ms, env={"FOLD_BATCH": str(fold_batch)})
        self.warm_up()

    def warm_up(self) -> None:
        """Imports, the model client's connections and the thread pools are made on first
        use: one unmeasured client pays for that, as earlier traffic would have."""
        if self.sizes.warmup:
            users, count = self.groups["warmup"], self.sizes.warmup
            harness.run_clients(self.stack, users=users, instructions=count, **self.limits)

    def phase(
        self,
        name: str,
        instructions: int,
        *,
        group: str = "",
        before_go: Any = None,
        between: Any = None,
        drain: bool = True,
    ) -> Phase:
        """Run one group of clients (the phase's own by default) and check what they stored.
        With `drain`, wait until the task queues are empty before checking (and counting
        model calls); without, the background work still queued is left to the restart that
        follows."""
        stack = self.stack
        users = self.groups[group or name]
        sampler = stack.sampler
        if sampler is not None:
            sampler.reset()
        log(f"{self.runtime}: {name}: {len(users)} clients x {instructions}")
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
            wait_idle=wait_idle,
            before_go=before_go,
            between=between,
            **self.limits,
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
                if tree.main is not None:
                    result.rss[tree_name] = tree.main.peak_kib
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
            f"{self.runtime}: {name}: {result.done} replies, "
            f"{result.missions_per_s:.1f} missions/s, first delta p50 "
            f"{result.first_delta(50) * 1000:.0f} ms, p95 {result.first_delta(95) * 1000:.0f} ms, "
            f"calls {harness.describe_calls(result.calls)}"
        )
        return result

    def revisions(self, users: list[UserFixture]) -> int:
        """Fold revisions committed in these users' sessions (one per fold that ran)."""
        with self.stack.scratch() as db:
            rows = db.rows(
                """
                SELECT count(*) FROM summaries_summaryrevision r
                  JOIN summaries_rollingsummary s ON s.id = r.summary_id
                 WHERE r.kind = 'fold' AND s.session_id IN (%s)
                """,
                ([u.session_id for u in users],),
            )
        return int(rows[0][0]) if rows else 0

    def echo(self, instructions: int) -> Phase:
        """The same clients against the bare Channels echo (bench/echo_asgi.py)."""
        # index, username, cookie name and value, channel, session, employee, prefill
        users = [
            UserFixture(n, f"echo{n}", "sessionid", "none", n + 1, n + 1, "Echo", 0)
            for n in range(self.sizes.s2_clients)
        ]
        proc, port = self.stack.start_echo()
        try:
            # Warm the echo server as the office was warmed.
            warmup = max(1, self.sizes.warmup)
            harness.drive_clients(port=port, users=users[:1], instructions=warmup, **self.limits)
            log(f"{self.runtime}: echo: {len(users)} clients x {instructions}")
            outcome = harness.drive_clients(
                port=port, users=users, instructions=instructions, **self.limits
            )
        finally:
            self.stack.stop_procs([proc])
        result = Phase(name="echo", outcome=outcome, calls={})
        result.problems.extend(harness.client_problems(outcome)[:10])
        self.phases["echo"] = result
        log(f"{self.runtime}: echo: {result.missions_per_s:.1f} frames sets/s")
        return result

    def queue_backlog(self) -> None:
        sessions = [[u.session_id] for u in self.groups["backlog"]]
        started = time.perf_counter()
        queued = self.stack.queue_tasks("summaries.tasks.summary_fold", sessions)
        log(
            f"queued {queued} summary_fold tasks in {(time.perf_counter() - started) * 1000:.0f} ms"
        )

    def plan_phase(self, count: int) -> None:
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
        log(f"{self.runtime}: plans: {len(users)} plans of 3 delegates at once")
        before = stack.model_stats()
        timeout = self.limits["per_instruction_timeout"]
        results = asyncio.run(_drive_plans(stack.http_port, users, masters, timeout))
        stack.wait_queue_idle(120.0)
        latencies = [r for r in results if isinstance(r, float)]
        self.plans = {
            "latencies": latencies,
            "problems": [r for r in results if isinstance(r, str)],
            "calls": harness.stats_delta(before, stack.model_stats()),
        }
        log(
            f"{self.runtime}: plans: {len(latencies)} done, p50 "
            f"{_s(percentile(latencies, 50))}, max {_s(max(latencies, default=0.0))}"
        )


PLAN_TEXT = (
    "Spring campaign, plan {n}. @Iris design the banner. @Theo build the landing page. "
    "@Mara write the press release."
)


async def _drive_plans(
    port: int, users: list[UserFixture], masters: dict[str, int], timeout: float
) -> list[float | str]:
    """Each user's plan sent at once; each one's seconds to the plan done, or a problem."""
    go = asyncio.Event()
    connected = [asyncio.Event() for _ in users]

    async def plan(user: UserFixture, connected: asyncio.Event) -> float | str:
        async with harness.connect(port, user, masters[user.username]) as ws:
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

    tasks = [asyncio.create_task(plan(*each)) for each in zip(users, connected, strict=True)]
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in connected)), 60)
    go.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    return [r if isinstance(r, float | str) else f"client failed: {r!r}" for r in results]


def run_runtime(runtime: str, args: argparse.Namespace, sizes: Sizes) -> Run:
    prefill = [pre for _, count, pre in layout(sizes) for _ in range(count)]
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
            run.phase("s1", sizes.s1_instructions, drain=False)
            # 2, 3 and 5 (after batching): the model answers at once.
            run.restart(delay_ms=0, fold_batch=8)
            run.phase("s2", sizes.s2_instructions)
            run.echo(sizes.s2_instructions)
            run.phase("s3", sizes.s3_instructions)
            # 3 again, each instruction sent only once the previous one's background work
            # (extraction, fold, indexing) has finished: the reply path on its own.
            idle = functools.partial(stack.wait_queue_idle, 120.0)
            run.phase("s3_idle", sizes.s3_instructions, between=idle)
            run.phase("s5_b8", sizes.s5_instructions)
            # 4. A backlog of folds while clients chat; each fold is a model call.
            run.restart(delay_ms=sizes.s4_delay_ms, fold_batch=1)
            run.phase("s4_alone", sizes.s4_instructions)
            run.phase(
                "s4_backlog",
                sizes.s4_instructions,
                group="s4_backlog_chat",
                before_go=run.queue_backlog,
            )
            # The baseline again, after the backlog drained: the two pooled are "alone".
            run.phase("s4_alone_after", sizes.s4_instructions)
            # 5 (before batching).
            run.restart(delay_ms=0, fold_batch=1)
            run.phase("s5_b1", sizes.s5_instructions)
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
