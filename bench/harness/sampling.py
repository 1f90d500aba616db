"""Reading the kernel's figures of the processes a run started: peak RSS and PSS of each
process tree, CPU seconds by process tree and by thread, and the peak connections to the
scratch PostgreSQL database (pg_stat_activity)."""

from __future__ import annotations

import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bench.harness.base import SAMPLE_INTERVAL


def _children() -> dict[int, list[int]]:
    """Every live process's children, by parent pid."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if len(fields) > 1:
            children[int(fields[1])].append(int(entry.name))
    return children


def _tree(root: int, children: dict[int, list[int]]) -> Iterator[int]:
    """The pids of `root`'s process tree (at most 1000), `root` first."""
    pending = [root]
    seen: set[int] = set()
    while pending and len(seen) < 1000:
        pid = pending.pop()
        if pid not in seen:
            seen.add(pid)
            pending.extend(children.get(pid, []))
            yield pid


def _proc_kib(path: str, name: str) -> int:
    """A "Name: N kB" figure of a /proc file; 0 once the process is gone."""
    try:
        with open(path) as handle:
            for line in handle:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def status_kib(pid: int) -> tuple[int, int]:
    """(VmHWM, VmRSS) in KiB; (0, 0) once the process is gone."""
    path = f"/proc/{pid}/status"
    return _proc_kib(path, "VmHWM"), _proc_kib(path, "VmRSS")


def _stat_cpu_seconds(path: str) -> float | None:
    """User + system CPU seconds from a /proc stat file (None: the process or thread is
    gone)."""
    try:
        with open(path) as handle:
            fields = handle.read().rsplit(")", 1)[-1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU seconds of a process and its live descendants so far."""
    return sum(_stat_cpu_seconds(f"/proc/{pid}/stat") or 0.0 for pid in _tree(root, _children()))


def thread_cpu_seconds(pid: int) -> dict[int, float]:
    """User + system CPU seconds of each live thread of one process so far, by thread id."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    seconds = {int(tid): _stat_cpu_seconds(f"/proc/{pid}/task/{tid}/stat") for tid in tids}
    return {tid: spent for tid, spent in seconds.items() if spent is not None}


@dataclass
class PidPeak:
    pid: int
    role: str  # "main" or "child"
    hwm_kib: int = 0
    rss_kib: int = 0

    @property
    def peak_kib(self) -> int:
        return max(self.hwm_kib, self.rss_kib)


@dataclass
class TreePeak:
    name: str
    pids: dict[int, PidPeak] = field(default_factory=dict)
    tree_pss_kib: int = 0

    @property
    def main(self) -> PidPeak | None:
        return next((p for p in self.pids.values() if p.role == "main"), None)

    @property
    def children(self) -> list[PidPeak]:
        return [p for p in self.pids.values() if p.role == "child"]


class Sampler:
    """Samples the process trees and pg_stat_activity until stopped (bounded by max_seconds)."""

    def __init__(self, *, pg_url: str | None, database: str, max_seconds: float) -> None:
        self.pg_url = pg_url
        self.database = database
        self.max_seconds = max_seconds
        self._roots: dict[str, int] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self.errors: list[str] = []
        self.reset()

    def watch(self, name: str, pid: int) -> None:
        with self._lock:
            self._roots[name] = pid
            self.trees[name] = TreePeak(name=name)

    def start(self) -> None:
        loops: list[tuple[Callable[[], None], str]] = [(self._rss_loop, "rss")]
        if self.pg_url is not None:
            loops.append((self._pg_loop, "pg"))
        for target, name in loops:
            thread = threading.Thread(target=target, name=f"bench-sampler-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def reset(self) -> None:
        """Forget the peaks so far: the next figures are those of one phase."""
        with self._lock:
            self.trees = {name: TreePeak(name=name) for name in self._roots}
            self.peak_connections = 0
            self.peak_active = 0
            self.connection_samples = 0
            self.rss_samples = 0

    def forget(self, name: str) -> None:
        """Stop watching a process tree (a service that was stopped)."""
        with self._lock:
            self._roots.pop(name, None)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)

    def sample_rss(self) -> None:
        with self._lock:
            roots = dict(self._roots)
            trees = dict(self.trees)
        children = _children()
        for name, root in roots.items():
            tree = trees.get(name)
            if tree is None:
                continue
            total_pss = 0
            for pid in _tree(root, children):
                hwm, rss = status_kib(pid)
                if not hwm and not rss:
                    continue
                peak = tree.pids.setdefault(
                    pid, PidPeak(pid=pid, role="main" if pid == root else "child")
                )
                peak.hwm_kib = max(peak.hwm_kib, hwm)
                peak.rss_kib = max(peak.rss_kib, rss)
                total_pss += _proc_kib(f"/proc/{pid}/smaps_rollup", "Pss")
            tree.tree_pss_kib = max(tree.tree_pss_kib, total_pss)
        self.rss_samples += 1

    def _rss_loop(self) -> None:
        deadline = time.monotonic() + self.max_seconds
        while time.monotonic() < deadline:
            try:
                self.sample_rss()
            except Exception as exc:  # a sampler must never take the run down
                self.errors.append(f"rss: {exc!r}")
            if self._stop.wait(SAMPLE_INTERVAL):
                return

    def _pg_loop(self) -> None:
        import psycopg

        assert self.pg_url is not None
        deadline = time.monotonic() + self.max_seconds
        try:
            conn = psycopg.connect(self.pg_url, autocommit=True, connect_timeout=5)
        except Exception as exc:
            self.errors.append(f"pg: {exc!r}")
            return
        with conn:
            while time.monotonic() < deadline:
                try:
                    row = conn.execute(
                        "SELECT count(*), count(*) FILTER (WHERE state = 'active') "
                        "FROM pg_stat_activity WHERE datname = %s",
                        (self.database,),
                    ).fetchone()
                    if row is not None:
                        self.peak_connections = max(self.peak_connections, int(row[0]))
                        self.peak_active = max(self.peak_active, int(row[1]))
                        self.connection_samples += 1
                except Exception as exc:
                    self.errors.append(f"pg: {exc!r}")
                    return
                if self._stop.wait(SAMPLE_INTERVAL / 2):
                    return
