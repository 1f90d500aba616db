"""The WebSocket clients: one per user, on that user's 1:1 channel, one instruction at a
time; what each saw and when."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.harness.base import CLIENT_ID_PREFIX, UserFixture, log
from bench.harness.stack import Stack


@dataclass
class Instruction:
    client_id: str
    sent: float = 0.0
    mission: int | None = None
    first_delta: float | None = None
    done: float | None = None
    done_frames: int = 0
    employee_frames: int = 0
    error: str = ""
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def to_first_delta(self) -> float | None:
        return None if self.first_delta is None else self.first_delta - self.sent

    @property
    def to_done(self) -> float | None:
        return None if self.done is None else self.done - self.sent


@dataclass
class ClientRun:
    user: UserFixture
    instructions: list[Instruction] = field(default_factory=list)
    notices: list[dict[str, Any]] = field(default_factory=list)
    error_frames: list[str] = field(default_factory=list)
    unmatched: Counter[str] = field(default_factory=Counter)
    failure: str = ""
    # How the server closed the socket before the client did, if it did.
    closed_by_server: str = ""


@dataclass
class ClientsOutcome:
    runs: list[ClientRun]
    started: float
    finished: float
    queue_idle: bool

    @property
    def instructions(self) -> list[Instruction]:
        return [i for run in self.runs for i in run.instructions]

    @property
    def elapsed(self) -> float:
        return max(self.finished - self.started, 1e-9)


class _ClientState:
    """One client's instructions, matched with the frames the server sent about them."""

    def __init__(self, run: ClientRun) -> None:
        self.run = run
        self.by_client_id: dict[str, Instruction] = {}
        self.by_mission: dict[int, Instruction] = {}
        # Frames about a mission whose instruction echo has not arrived yet.
        self.early: dict[int, list[tuple[str, float]]] = defaultdict(list)
        self.current: Instruction | None = None
        self.last_frame = time.perf_counter()

    async def instruct(
        self, ws: Any, reading: asyncio.Task[None], token: str, number: int, timeout: float
    ) -> None:
        """Send instruction `number`; wait for its reply.done, the socket to close or `timeout`."""
        index = self.run.user.index
        item = Instruction(client_id=f"{CLIENT_ID_PREFIX}{token}-{index}-{number}")
        self.by_client_id[item.client_id] = item
        self.current = item
        self.run.instructions.append(item)
        text = f"Request {number + 1} from client {index}: status of task {number}"
        item.sent = time.perf_counter()
        await ws.send(
            json.dumps({"type": "instruction", "text": text, "client_id": item.client_id})
        )
        waiter = asyncio.create_task(item.finished.wait())
        await asyncio.wait({waiter, reading}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if not item.finished.is_set():
            item.error = item.error or (
                "the server closed the socket before reply.done"
                if reading.done()
                else f"no reply.done within {timeout:g} s"
            )

    def _apply(self, item: Instruction, kind: str, at: float) -> None:
        if kind == "delta":
            if item.first_delta is None:
                item.first_delta = at
        elif kind == "done":
            item.done_frames += 1
            if item.done is None:
                item.done = at
                item.finished.set()
        elif kind == "employee":
            item.employee_frames += 1
        elif kind == "error":
            item.error = item.error or "mission failed (error message)"
            item.finished.set()

    def _about_mission(self, mission: Any, kind: str, at: float) -> None:
        if not isinstance(mission, int):
            self.run.unmatched[kind] += 1
            return
        item = self.by_mission.get(mission)
        if item is None:
            self.early[mission].append((kind, at))
        else:
            self._apply(item, kind, at)

    def handle(self, raw: str | bytes, at: float) -> None:
        frame = json.loads(raw)
        kind = frame.get("type")
        if kind == "reply.delta":
            self._about_mission(frame.get("mission"), "delta", at)
        elif kind == "reply.done":
            self._about_mission(frame.get("mission"), "done", at)
            # The saved reply comes with it (a separate employee message would be a second).
            if (frame.get("message") or {}).get("kind") == "employee":
                self._about_mission(frame.get("mission"), "employee", at)
        elif kind == "notice":
            self.run.notices.append(frame.get("message") or {})
        elif kind == "message":
            message = frame.get("message") or {}
            message_kind = message.get("kind")
            if message_kind == "user":
                client_id = (message.get("payload") or {}).get("client_id", "")
                item = self.by_client_id.get(client_id)
                mission = message.get("mission")
                if item is None or not isinstance(mission, int):
                    self.run.unmatched["user"] += 1
                    return
                if item.mission is not None and item.mission != mission:
                    item.error = f"echoed with two missions: {item.mission} and {mission}"
                item.mission = mission
                self.by_mission[mission] = item
                for early_kind, early_at in self.early.pop(mission, []):
                    self._apply(item, early_kind, early_at)
            elif message_kind == "employee":
                self._about_mission(message.get("mission"), "employee", at)
            elif message_kind == "error":
                self._about_mission(message.get("mission"), "error", at)
        elif kind == "error":
            text = f"{frame.get('code')}: {frame.get('message')}"
            self.run.error_frames.append(text)
            if self.current is not None and not self.current.finished.is_set():
                self.current.error = text
                self.current.finished.set()


def connect(port: int, user: UserFixture, channel_id: int | None = None) -> Any:
    """A WebSocket of `user` to a channel (theirs by default) of the server on `port`, with
    the user's session cookie and the page's Origin, as a browser opens it."""
    from websockets.asyncio.client import connect as ws_connect
    from websockets.typing import Origin

    return ws_connect(
        f"ws://127.0.0.1:{port}/ws/channels/{channel_id or user.channel_id}/",
        origin=Origin(f"http://127.0.0.1:{port}"),
        additional_headers={"Cookie": f"{user.cookie_name}={user.cookie}"},
        compression=None,
        ping_interval=None,
        open_timeout=60,
        close_timeout=5,
        max_size=2**22,
    )


async def _drive_clients(
    *,
    port: int,
    users: list[UserFixture],
    instructions: int,
    per_instruction_timeout: float,
    phase_timeout: float,
    linger: float = 0.0,
    wait_idle: Callable[[float], bool] | None = None,
    before_go: Callable[[], None] | None = None,
    between: Callable[[], None] | None = None,
) -> ClientsOutcome:
    """Connect one client per user to the server on `port`, start them together (after
    `before_go`, run once every client is connected), wait for every reply, then keep the
    sockets open until `wait_idle` says the server's tasks have drained (and at least
    `linger` seconds after each client's last reply). `between` runs (in a thread) before
    each instruction but the first, e.g. to wait until the server is idle again."""
    run_token = secrets.token_hex(3)
    go, release = asyncio.Event(), asyncio.Event()
    runs = [ClientRun(user=user) for user in users]
    connected = [asyncio.Event() for _ in runs]
    sent_all = [asyncio.Event() for _ in runs]

    async def client(run: ClientRun, connected: asyncio.Event, sent_all: asyncio.Event) -> None:
        user = run.user
        state = _ClientState(run)
        try:
            async with connect(port, user) as ws:

                async def reader() -> None:
                    async for raw in ws:
                        state.last_frame = time.perf_counter()
                        state.handle(raw, state.last_frame)

                reading = asyncio.create_task(reader())
                connected.set()
                try:
                    await go.wait()
                    for number in range(instructions):
                        if number and between is not None:
                            await asyncio.to_thread(between)
                        await state.instruct(
                            ws, reading, run_token, number, per_instruction_timeout
                        )
                        if reading.done():
                            run.failure = (
                                f"the server closed the socket (code {ws.close_code}) after "
                                f"{len(run.instructions)} of {instructions} instructions"
                            )
                            break
                    last_reply = time.perf_counter()
                    sent_all.set()
                    # Stay connected while the queue drains: late notices still arrive here.
                    await release.wait()
                    await asyncio.sleep(max(0.3, linger - (time.perf_counter() - last_reply)))
                    if reading.done():
                        run.closed_by_server = (
                            f"code {ws.close_code} {ws.close_reason!r}, "
                            f"{time.perf_counter() - state.last_frame:.1f} s after the last frame"
                        )
                finally:
                    reading.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await reading
        except Exception as exc:
            run.failure = run.failure or f"{type(exc).__name__}: {exc}"
        finally:
            connected.set()
            sent_all.set()

    tasks = [
        asyncio.create_task(client(*each)) for each in zip(runs, connected, sent_all, strict=True)
    ]
    phase_deadline = time.monotonic() + phase_timeout
    queue_idle = wait_idle is None
    started = finished = time.perf_counter()
    try:
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in connected)), timeout=120)
        failed = [run for run in runs if run.failure]
        log(f"{len(runs) - len(failed)} of {len(runs)} clients connected")
        if before_go is not None:
            await asyncio.to_thread(before_go)
        started = time.perf_counter()
        go.set()
        remaining = max(1.0, phase_deadline - time.monotonic())
        try:
            await asyncio.wait_for(
                asyncio.gather(*(event.wait() for event in sent_all)), timeout=remaining
            )
        except TimeoutError:
            log(f"the client phase hit its {phase_timeout:g} s limit")
        done_times = [i.done for run in runs for i in run.instructions if i.done is not None]
        finished = max(done_times) if done_times else time.perf_counter()
        log(f"all clients finished after {time.perf_counter() - started:.1f} s; draining")
        if wait_idle is not None:
            queue_idle = await asyncio.to_thread(wait_idle, 120.0)
            if not queue_idle:
                log("the task queues did not drain within 120 s")
    finally:
        release.set()
        try:
            await asyncio.wait_for(
                asyncio.gather(*tasks, return_exceptions=True), timeout=linger + 30
            )
        except TimeoutError:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    return ClientsOutcome(runs=runs, started=started, finished=finished, queue_idle=queue_idle)


def drive_clients(**options: Any) -> ClientsOutcome:
    """`_drive_clients` (its options), from synchronous code."""
    return asyncio.run(_drive_clients(**options))


def run_clients(
    stack: Stack, *, users: list[UserFixture] | None = None, **options: Any
) -> ClientsOutcome:
    """`drive_clients` against the stack's Daphne, for its users (or the ones given),
    draining the stack's task queues at the end."""
    return drive_clients(
        port=stack.http_port,
        users=stack.users if users is None else users,
        wait_idle=stack.wait_queue_idle,
        **options,
    )
