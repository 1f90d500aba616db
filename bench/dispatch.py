"""What Channels' own `dispatch` costs a broadcast.

Before every handler, Channels' `AsyncConsumer.dispatch` closes stale database connections
on the thread that runs thread-sensitive sync code (`aclose_old_connections`): a trip there
and back for every event every socket receives, reply deltas included. In Daphne that is
the one thread every database call of the sockets queues on.

Sockets of the real consumer (`realtime.consumers.ChannelConsumer`, whose dispatch calls
the handler straight away: realtime.dispatch) and of the same consumer with Channels' own
dispatch join one group of the embedded channel layer; a frame is broadcast to the group
--events times, and every socket receives every one. Reported per delivered event: wall
time and the process's CPU time, lowest and median of --rounds rounds, each variant in
turn. With --db-busy, short database reads keep the sync thread busy meanwhile (as sockets
taking instructions do): the wall time shows the wait (the CPU time then counts the reads
too). Under a busy machine, trust the CPU time: a variant with two busy threads gets more
of the machine's time than one with one.

    .venv/bin/python bench/dispatch.py
    .venv/bin/python bench/dispatch.py --db-busy
"""

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.pop("REDIS_URL", None)  # the embedded layer: the broadcast path alone

import django  # noqa: E402

django.setup()

from asgiref.sync import sync_to_async  # noqa: E402
from channels.consumer import AsyncConsumer  # noqa: E402
from channels.testing import WebsocketCommunicator  # noqa: E402
from django.db import connection  # noqa: E402

from bench.report import Table, emit  # noqa: E402
from push.events import group_name, send_frame  # noqa: E402
from push.frames import ReplyDeltaFrame  # noqa: E402
from realtime.consumers import ChannelConsumer  # noqa: E402

GROUP_CHANNEL = 1
BURST = 50


class Probe(ChannelConsumer):
    """The consumer (its dispatch: realtime.dispatch), joined to one group without a
    database: only the broadcast path."""

    async def connect(self) -> None:
        await self.channel_layer.group_add(group_name(GROUP_CHANNEL), self.channel_name)
        await self.accept()


class ProbeOnChannelsDispatch(Probe):
    dispatch = AsyncConsumer.dispatch


async def _round(
    consumer: type[Probe], sockets: int, events: int, db_busy: bool
) -> tuple[float, float]:
    clients = [WebsocketCommunicator(consumer.as_asgi(), "/ws/") for _ in range(sockets)]
    for client in clients:
        connected, _ = await client.connect()
        assert connected
    stop = asyncio.Event()

    def read() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")

    async def busy() -> None:
        reader = sync_to_async(read)  # thread-sensitive: the sockets' database thread
        while not stop.is_set():
            await reader()

    background = asyncio.ensure_future(busy()) if db_busy else None
    frame = ReplyDeltaFrame(mission=1, index=0, text="한국어 and English ")
    wall, cpu = time.perf_counter(), time.process_time()
    sent = 0
    while sent < events:
        # In bursts a socket's queue holds (the layer's capacity is 100 events).
        burst = min(BURST, events - sent)
        for _ in range(burst):
            send_frame(GROUP_CHANNEL, frame)
        for client in clients:
            for _ in range(burst):
                await client.receive_output(timeout=30)
        sent += burst
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stop.set()
    if background is not None:
        await background
    for client in clients:
        await client.disconnect()
    delivered = sockets * events
    return wall / delivered * 1e6, cpu / delivered * 1e6


async def _main(args: argparse.Namespace) -> None:
    from push import events

    events.remember_server_loop()
    variants = (("Channels' dispatch", ProbeOnChannelsDispatch), ("realtime.dispatch", Probe))
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in variants}
    for _ in range(args.rounds):
        for name, consumer in variants:
            results[name].append(await _round(consumer, args.sockets, args.events, args.db_busy))
    title = (
        f"µs per delivered event, {args.sockets} sockets × {args.events} events, "
        f"{args.rounds} rounds{', sync thread busy' if args.db_busy else ''}"
    )
    rows: list[list[object]] = [
        ["dispatch", "wall lowest", "wall median", "CPU lowest", "CPU median"]
    ]
    for name, measured in results.items():
        walls, cpus = [w for w, _ in measured], [c for _, c in measured]
        figures = [min(walls), statistics.median(walls), min(cpus), statistics.median(cpus)]
        rows.append([name, *(f"{figure:.1f}" for figure in figures)])
    emit("dispatch.py", [Table(title, rows)], record=not args.no_record)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sockets", type=int, default=20)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--db-busy", action="store_true")
    parser.add_argument(
        "--no-record", action="store_true", help="do not append the figures to docs/benchmarks.md"
    )
    asyncio.run(_main(parser.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
