"""The figures of bench/concurrency.py, derived from what its scenarios measured, and the
tables it prints."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bench import harness
from bench.concurrency_scenarios import (
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
)
from bench.harness import (
    percentile,
)

# --- Report -----------------------------------------------------------------------------


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


def _info(label: str, value: str, scenario: str = "") -> tuple[str, ...]:
    """A row of a figure without a target."""
    return (scenario, label, value, "", "")


def print_runtime(run: Run, sizes: Sizes) -> Figures:
    f = figures(run)
    p = run.phases
    target = TARGETS[f.runtime]
    backlog = p["s4_backlog"]
    backlog_folds_while = backlog.extra["calls_while_chatting"].get("SummaryState", 0)
    backlog_folds_all = backlog.calls.get("SummaryState", 0)
    s2_target, s3_target = target["s2_missions_per_s"], target["s3_p50"]
    print(f"\n=== {f.runtime}: {run.stack.workers_summary()} ===")
    lost_doubled = f"{f.s1_lost} / {f.s1_doubled}"
    rows: list[tuple[str, ...]] = [
        ("scenario", "figure", "value", "target", ""),
        (
            f"1. model 2 s, {sizes.s1_clients} x {sizes.s1_instructions}",
            "instruction -> first delta p50",
            _s(f.s1_p50),
            f"<= {S1_P50:g} s",
            _verdict(f.s1_p50 <= S1_P50),
        ),
        ("", "first delta p95", _s(f.s1_p95), f"<= {S1_P95:g} s", _verdict(f.s1_p95 <= S1_P95)),
        ("", "lost / doubled", lost_doubled, "0 / 0", _verdict(lost_doubled == "0 / 0")),
        _info("peak DB connections", f.s1_connections),
        _info("peak RSS", f.s1_rss),
        (
            f"2. model at once, {sizes.s2_clients} x {sizes.s2_instructions}",
            "missions/s",
            f"{f.s2_mps:.1f}",
            f">= {s2_target:g}",
            _verdict(f.s2_mps >= s2_target),
        ),
        _info("echo (Daphne + Channels) /s", f"{f.echo_mps:.1f}"),
        _info("missions/s / echo/s", f"{f.s2_ratio:.3f}"),
        _info("first delta p50 / p95", _p50_p95(p["s2"])),
        _info(
            "CPU per mission (queues drained)",
            ", ".join(f"{name} {ms:.1f} ms" for name, ms in f.s2_cpu_ms.items()),
        ),
        _info("... Daphne's, by thread", _by_thread(f.s2_web_threads_ms)),
        _info("... the same, one client alone (3.)", _by_thread(f.s3_web_threads_ms)),
        _info("servers' CPU / the model's per request", _ratio(_gauged(f.s2_cpu_ms))),
        (
            f"3. one client, model at once, x {sizes.s3_instructions}",
            "first delta p50",
            _s(f.s3_p50),
            f"<= {s3_target * 1000:g} ms",
            _verdict(f.s3_p50 <= s3_target),
        ),
        _info(
            "first delta p95 / echo p50",
            f"{_s(p['s3'].first_delta(95))} / {_s(p['echo'].first_delta(50))}",
        ),
        _info("p50 / p95 sending only once idle", _p50_p95(p["s3_idle"])),
        _info(
            "first delta p95 alone (before + after)",
            _s(f.s4_alone_p95),
            f"4. model {sizes.s4_delay_ms:g} ms, {sizes.s4_clients} x {sizes.s4_instructions}, "
            "FOLD_BATCH=1",
        ),
        _info(f"... with {sizes.s4_backlog} folds queued", _s(f.s4_backlog_p95)),
        ("", "ratio", f"{f.s4_ratio:.2f}", f"<= {S4_RATIO:g}", _verdict(f.s4_ratio <= S4_RATIO)),
        _info(
            "p95 alone before / after",
            f"{_s(p['s4_alone'].first_delta(95))} / {_s(p['s4_alone_after'].first_delta(95))}",
        ),
        _info(
            "p50 alone before / with backlog / after",
            " / ".join(
                _s(p[k].first_delta(50)) for k in ("s4_alone", "s4_backlog", "s4_alone_after")
            ),
        ),
        _info(
            "fold requests while chatting / in all", f"{backlog_folds_while} / {backlog_folds_all}"
        ),
        _info(
            "FOLD_BATCH=1 -> 8 (before -> after)",
            "",
            f"5. model calls per 100 missions, {sizes.s5_clients} x {sizes.s5_instructions}",
        ),
    ]
    b1, b8 = f.s5["s5_b1"], f.s5["s5_b8"]
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
    harness.print_table(f"{f.runtime} runtime", rows)
    if f.problems:
        print("Problems:")
        for line in f.problems[:30]:
            print(f"  - {line}")
    return f


def _p50_p95(phase: Phase) -> str:
    return f"{_s(phase.first_delta(50))} / {_s(phase.first_delta(95))}"


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


def _s2_target(f: Figures) -> float:
    return TARGETS[f.runtime]["s2_missions_per_s"]


def _s3(seconds: float, f: Figures) -> str:
    return f"{_s(seconds)} {_verdict(seconds <= TARGETS[f.runtime]['s3_p50'])}"


SUMMARY: list[tuple[str, Callable[[Figures], str]]] = [
    (
        "1. first delta p50 / p95 (model 2 s)",
        lambda f: (
            f"{_s(f.s1_p50)} / {_s(f.s1_p95)} "
            + _verdict(f.s1_p50 <= S1_P50 and f.s1_p95 <= S1_P95)
        ),
    ),
    ("1. lost / doubled", lambda f: f"{f.s1_lost} / {f.s1_doubled}"),
    ("1. peak DB connections", lambda f: f.s1_connections),
    ("1. peak RSS", lambda f: f.s1_rss),
    (
        "2. missions/s (target)",
        lambda f: f"{f.s2_mps:.1f} (>= {_s2_target(f):g}) {_verdict(f.s2_mps >= _s2_target(f))}",
    ),
    ("2. echo/s", lambda f: f"{f.echo_mps:.1f}"),
    ("2. missions/s / echo/s", lambda f: f"{f.s2_ratio:.3f}"),
    ("2. CPU per mission, the servers", lambda f: f"{_servers_ms(f.s2_cpu_ms):.0f} ms"),
    ("2. servers' CPU / the model's per request", lambda f: _ratio(_gauged(f.s2_cpu_ms))),
    ("2. cores the servers kept busy", lambda f: f"{_cores(f.s2_mps, f.s2_cpu_ms):.2f}"),
    (
        "2. CPU per mission the target allows at that",
        lambda f: f"{_allowed_ms(_cores(f.s2_mps, f.s2_cpu_ms), _s2_target(f)):.0f} ms",
    ),
    ("3. lone first delta p50", lambda f: _s3(f.s3_p50, f)),
    ("3. ... sending only once idle", lambda f: _s3(f.s3_idle_p50, f)),
    (
        "4. p95 with backlog / alone",
        lambda f: f"{f.s4_ratio:.2f} {_verdict(f.s4_ratio <= S4_RATIO)}",
    ),
    *(
        (
            f"5. calls / 100 missions {label}",
            lambda f, key=key: f"{f.s5[key]['all']:.0f} (folds {f.s5[key]['folds']:.1f})",
        )
        for key, label in (("s5_b1", "before (FOLD_BATCH=1)"), ("s5_b8", "after (FOLD_BATCH=8)"))
    ),
    ("count-check / client problems", lambda f: str(len(f.problems))),
]


def print_summary(results: list[Figures], failed: dict[str, str]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [("figure", *(f.runtime for f in results))]
    rows += [(label, *(cell(f) for f in results)) for label, cell in SUMMARY]
    harness.print_table("Summary", rows)
    for runtime, reason in failed.items():
        print(f"  {runtime}: not measured: {reason}")
    return rows
