"""Concurrency benchmark: both runtimes of docs/design.md §8 one after the other, with real
WebSocket clients against the local OpenAI-compatible server (see bench/harness/).

Scenarios (docs/benchmarks.md has the targets): 1. the model answers in 2 s, 50 clients x 4:
first-delta p50 / p95, nothing lost or doubled; 2. the model answers at once, 50 x 20:
missions/s beside a bare Daphne + Channels echo of the same frames (bench/echo_asgi.py);
3. one client alone: first-delta p50 (also sending only once the server is idle); 4. reply
p95 while 200 folds are queued (FOLD_BATCH=1, model 200 ms) against without; 5. model calls
per 100 missions with FOLD_BATCH 1 and 8; 6. ten master-channel plans of three delegates at
once: instruction to plan done (last: its missions land in the 1:1 channels counted above).
Between scenarios the services restart with the scenario's model delay and FOLD_BATCH (same
database), then an unmeasured warm-up client runs; INSTRUCTION_RATE_LIMIT=0 and
SWEEP_INTERVAL=3600 throughout. Everything started is stopped and removed within --budget.

    .venv/bin/python bench/concurrency.py --quick    # smoke run, a few minutes
    .venv/bin/python bench/concurrency.py            # full size

Exit status: 0 when every scenario ran and nothing was lost or doubled (targets missed are
reported, not failed), 1 when a count check failed, 2 when a runtime could not be run.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402
from bench.concurrency_scenarios import (  # noqa: E402
    CLIENTS,
    MODEL,
    S1_P50,
    S1_P95,
    S4_RATIO,
    TARGETS,
    Phase,
    Run,
    Sizes,
    _s,
    run_runtime,
    sizes_from,
)
from bench.harness import BenchError, log, percentile, print_table  # noqa: E402
from bench.report import Table, record_run  # noqa: E402


class _Explicit(argparse.Action):
    """Stores the value and remembers that it was given (so --quick leaves it alone)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.explicit = {*getattr(namespace, "explicit", set()), self.dest}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness.benchmark_parser(__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument(
        "--only-plans", action="store_true", help="run scenario 6 (plan latency) alone"
    )
    harness.add_run_arguments(parser, timeout=600.0, runtimes="embedded,production")
    for size in dataclasses.fields(Sizes):
        parser.add_argument(
            "--" + size.name.replace("_", "-"),
            dest=size.name,
            type=type(size.default),
            default=size.default,
            action=_Explicit,
            help=size.metadata["help"],
        )
    harness.add_stack_arguments(parser)
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
    args.runtime_list = harness.runtime_list(parser, args.runtimes)
    return args


def _by_thread(phase: Phase) -> str:
    """The CPU per mission of Daphne's threads, by role, most first."""
    spent = phase.extra.get("web_threads", {})
    ms = {role: 1000 * seconds / max(phase.done, 1) for role, seconds in spent.items()}
    ordered = sorted(ms.items(), key=lambda item: -item[1])
    return ", ".join(f"{role} {value:.1f} ms" for role, value in ordered if value) or "-"


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


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


def _info(label: str, value: str, scenario: str = "") -> tuple[str, ...]:
    """A row of a figure without a target."""
    return (scenario, label, value, "", "")


def _p50_p95(phase: Phase) -> str:
    return f"{_s(phase.first_delta(50))} / {_s(phase.first_delta(95))}"


def _per_100(phase: Phase) -> dict[str, float]:
    """Model calls per 100 missions, by what they were for; folds: revisions committed."""
    calls, per_mission = phase.calls, 100 / max(phase.done, 1)
    return {
        "all": sum(calls.values()) * per_mission,
        "replies": calls.get("stream", 0) * per_mission,
        "folds": phase.extra["folds"] * per_mission,
        "fold requests": calls.get("SummaryState", 0) * per_mission,
        "extractions": calls.get("MemoryCandidates", 0) * per_mission,
    }


def print_runtime(run: Run, sizes: Sizes) -> tuple[dict[str, str], list[str]]:
    """Print the runtime's table; return its summary cells (by figure) and its problems."""
    p = run.phases
    s1, s2, s3, s3_idle, echo = p["s1"], p["s2"], p["s3"], p["s3_idle"], p["echo"]
    target = TARGETS[run.runtime]
    s2_target, s3_target = target["s2_missions_per_s"], target["s3_p50"]
    s1_p50, s1_p95 = s1.first_delta(50), s1.first_delta(95)
    lost_doubled = f"{s1.lost} / {s1.doubled}"
    rss = ", ".join(
        f"{name} {kib / 1024:,.0f} MiB"
        for name, kib in s1.rss.items()
        if name != MODEL and not name.startswith("echo")
    )
    s2_mps, echo_mps = s2.missions_per_s, echo.missions_per_s
    s2_ratio = s2_mps / echo_mps if echo_mps else float("nan")
    s2_verdict = _verdict(s2_mps >= s2_target)
    cpu_ms = {
        name: 1000 * seconds / max(s2.done, 1)
        for name, seconds in s2.extra["cpu"].items()
        if not name.startswith("echo")
    }
    s3_p50, s3_idle_p50 = s3.first_delta(50), s3_idle.first_delta(50)
    # The baseline ran before and after the backlog: both runs pooled.
    alone, backlog, after = p["s4_alone"], p["s4_backlog"], p["s4_alone_after"]
    s4_alone_p95 = percentile(alone.first_deltas + after.first_deltas, 95)
    s4_backlog_p95 = backlog.first_delta(95)
    s4_ratio = s4_backlog_p95 / s4_alone_p95 if s4_alone_p95 else float("nan")
    folds_while = backlog.extra["calls_while_chatting"].get("SummaryState", 0)
    b1, b8 = _per_100(p["s5_b1"]), _per_100(p["s5_b8"])
    problems = [f"{name}: {line}" for name, phase in p.items() for line in phase.problems]
    problems += [f"service log: {line}" for line in run.service_failures]
    print(f"\n=== {run.runtime}: {run.stack.workers_summary()} ===")
    rows: list[tuple[str, ...]] = [
        ("scenario", "figure", "value", "target", ""),
        (
            f"1. model 2 s, {sizes.s1_clients} x {sizes.s1_instructions}",
            "instruction -> first delta p50",
            _s(s1_p50),
            f"<= {S1_P50:g} s",
            _verdict(s1_p50 <= S1_P50),
        ),
        ("", "first delta p95", _s(s1_p95), f"<= {S1_P95:g} s", _verdict(s1_p95 <= S1_P95)),
        ("", "lost / doubled", lost_doubled, "0 / 0", _verdict(lost_doubled == "0 / 0")),
        _info("peak DB connections", s1.peak_connections),
        _info("peak RSS", rss),
        (
            f"2. model at once, {sizes.s2_clients} x {sizes.s2_instructions}",
            "missions/s",
            f"{s2_mps:.1f}",
            f">= {s2_target:g}",
            s2_verdict,
        ),
        _info("echo (Daphne + Channels) /s", f"{echo_mps:.1f}"),
        _info("missions/s / echo/s", f"{s2_ratio:.3f}"),
        _info("first delta p50 / p95", _p50_p95(s2)),
        _info(
            "CPU per mission (queues drained)",
            ", ".join(f"{name} {ms:.1f} ms" for name, ms in cpu_ms.items()),
        ),
        _info("... Daphne's, by thread", _by_thread(s2)),
        _info("... the same, one client alone (3.)", _by_thread(s3)),
        _info("servers' CPU / the model's per request", _ratio(_gauged(cpu_ms))),
        (
            f"3. one client, model at once, x {sizes.s3_instructions}",
            "first delta p50",
            _s(s3_p50),
            f"<= {s3_target * 1000:g} ms",
            _verdict(s3_p50 <= s3_target),
        ),
        _info(
            "first delta p95 / echo p50", f"{_s(s3.first_delta(95))} / {_s(echo.first_delta(50))}"
        ),
        _info("p50 / p95 sending only once idle", _p50_p95(s3_idle)),
        _info(
            "first delta p95 alone (before + after)",
            _s(s4_alone_p95),
            f"4. model {sizes.s4_delay_ms:g} ms, {sizes.s4_clients} x {sizes.s4_instructions}, "
            "FOLD_BATCH=1",
        ),
        _info(f"... with {sizes.s4_backlog} folds queued", _s(s4_backlog_p95)),
        ("", "ratio", f"{s4_ratio:.2f}", f"<= {S4_RATIO:g}", _verdict(s4_ratio <= S4_RATIO)),
        _info(
            "p95 alone before / after", f"{_s(alone.first_delta(95))} / {_s(after.first_delta(95))}"
        ),
        _info(
            "p50 alone before / with backlog / after",
            " / ".join(_s(phase.first_delta(50)) for phase in (alone, backlog, after)),
        ),
        _info(
            "fold requests while chatting / in all",
            f"{folds_while} / {backlog.calls.get('SummaryState', 0)}",
        ),
        _info(
            "FOLD_BATCH=1 -> 8 (before -> after)",
            "",
            f"5. model calls per 100 missions, {sizes.s5_clients} x {sizes.s5_instructions}",
        ),
    ]
    for name, label in (
        ("all", "all model calls"),
        ("replies", "replies (streamed)"),
        ("folds", "folds that called the model"),
        ("fold requests", "fold requests (SummaryState)"),
        ("extractions", "extractions (MemoryCandidates)"),
    ):
        rows.append(_info(label, f"{b1[name]:.1f} -> {b8[name]:.1f}"))
    # The fake model answers a fold with "{}", which the verifier rejects: each fold asks
    # twice, then falls back to the extractive fold. More than two requests per committed
    # fold are proposals that lost the commit race to a concurrent fold of the session.
    per_fold = [c["fold requests"] / c["folds"] if c["folds"] else float("nan") for c in (b1, b8)]
    rows.append(
        _info("fold requests per committed fold", f"{per_fold[0]:.2f} -> {per_fold[1]:.2f}")
    )
    print_table(f"{run.runtime} runtime", rows)
    if problems:
        print("Problems:")
        for line in problems[:30]:
            print(f"  - {line}")
    cores = _cores(s2_mps, cpu_ms)
    calls_cells = [f"{c['all']:.0f} (folds {c['folds']:.1f})" for c in (b1, b8)]
    summary = {
        "1. first delta p50 / p95 (model 2 s)": (
            f"{_s(s1_p50)} / {_s(s1_p95)} " + _verdict(s1_p50 <= S1_P50 and s1_p95 <= S1_P95)
        ),
        "1. lost / doubled": lost_doubled,
        "1. peak DB connections": s1.peak_connections,
        "1. peak RSS": rss,
        "2. missions/s (target)": f"{s2_mps:.1f} (>= {s2_target:g}) {s2_verdict}",
        "2. echo/s": f"{echo_mps:.1f}",
        "2. missions/s / echo/s": f"{s2_ratio:.3f}",
        "2. CPU per mission, the servers": f"{_servers_ms(cpu_ms):.0f} ms",
        "2. servers' CPU / the model's per request": _ratio(_gauged(cpu_ms)),
        "2. cores the servers kept busy": f"{cores:.2f}",
        "2. CPU per mission the target allows at that": f"{_allowed_ms(cores, s2_target):.0f} ms",
        "3. lone first delta p50": f"{_s(s3_p50)} {_verdict(s3_p50 <= s3_target)}",
        "3. ... sending only once idle": f"{_s(s3_idle_p50)} {_verdict(s3_idle_p50 <= s3_target)}",
        "4. p95 with backlog / alone": f"{s4_ratio:.2f} {_verdict(s4_ratio <= S4_RATIO)}",
        "5. calls / 100 missions before (FOLD_BATCH=1)": calls_cells[0],
        "5. calls / 100 missions after (FOLD_BATCH=8)": calls_cells[1],
        "count-check / client problems": str(len(problems)),
    }
    return summary, problems


def print_plans(run: Run, sizes: Sizes) -> list[str]:
    """Scenario 6's table; returns its problems."""
    plans = run.plans
    if not plans:
        return []
    latencies: list[float] = plans["latencies"]
    problems = list(plans["problems"]) + [f"service log: {x}" for x in run.service_failures]
    missing = sizes.s6_plans - len(latencies)
    delay = sizes.s6_delay_ms / 1000
    p95_max = f"{_s(percentile(latencies, 95))} / {_s(max(latencies, default=0))}"
    rows: list[tuple[str, ...]] = [
        ("scenario", "figure", "value", "target", ""),
        (
            f"6. model {delay:g} s, {sizes.s6_plans} plans x 3 delegates",
            "instruction -> plan done p50",
            _s(percentile(latencies, 50)),
            f"~{2 * delay:g} s (parallel), not {4 * delay:g} s",
            _verdict(bool(latencies) and percentile(latencies, 50) < 3 * delay),
        ),
        ("", "p95 / max", p95_max, "", ""),
        ("", "plans not done", str(missing), "0", _verdict(missing == 0)),
        ("", "model calls", harness.describe_calls(plans["calls"]), "", ""),
    ]
    print_table(f"{run.runtime} runtime: plans", rows)
    for line in problems[:20]:
        print(f"  - {line}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = sizes_from(args)
    started = time.monotonic()
    # Each runtime's summary cells, by figure, and its problems.
    results: dict[str, tuple[dict[str, str], list[str]]] = {}
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
                    results[runtime] = print_runtime(run, sizes)
                plan_problems += print_plans(run, sizes)
                sys.stdout.flush()
    except BenchError as exc:
        print(f"\nBenchmark stopped: {exc}", file=sys.stderr)
        failed.setdefault("run", str(exc))
    except KeyboardInterrupt:
        print("\nBenchmark interrupted", file=sys.stderr)
        return 130
    if results:
        summary: list[tuple[str, ...]] = [("figure", *results)]
        for label in next(iter(results.values()))[0]:
            summary.append((label, *(cells[label] for cells, _ in results.values())))
        print_table("Summary", summary)
        for runtime, reason in failed.items():
            print(f"  {runtime}: not measured: {reason}")
        if not args.no_record:
            size = "quick sizes" if args.quick else "full sizes"
            record_run(f"concurrency.py ({size})", [Table("Summary", summary)])
    print(f"\n(total {time.monotonic() - started:.0f} s)")
    if failed:
        return 2
    return 1 if any(problems for _, problems in results.values()) or plan_problems else 0


if __name__ == "__main__":
    sys.exit(main())
