"""Real-time and load benchmarks: the production stack (Daphne, Redis, PostgreSQL, Celery
workers of both queues, the local OpenAI-compatible server), N WebSocket clients, each its
own user, office, session cookie and 1:1 channel, sending M instructions one after another;
then the count check of the database (every instruction exactly one mission, done, with
exactly one saved reply; the long-session notices exactly where due). Reported: missions/s,
latency percentiles to the first reply.delta and to reply.done, model calls, peak
connections and RSS. Exit status 1 when the count check (with --load, also the notice
check) fails, 2 when the run could not complete. See docs/benchmarks.md.

    .venv/bin/python bench/realtime.py                   # 50 clients x 20, model at once
    .venv/bin/python bench/realtime.py --load            # 100 x 10, 2 replies workers,
                                                         # model 50 ms, every other session
                                                         # pre-filled to cross 20 missions
    .venv/bin/python bench/realtime.py --clients 5 --instructions 3   # quick
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402

# The two presets: (clients, instructions, replies workers, model delay ms, percentiles).
REALTIME = (50, 20, 1, 0.0, (50, 95))
LOAD = (100, 10, 2, 50.0, (50, 95, 99))


def main(argv: list[str] | None = None) -> int:
    load = "--load" in (sys.argv[1:] if argv is None else argv)
    clients, instructions, workers, delay_ms, percentiles = LOAD if load else REALTIME
    parser = harness.benchmark_parser(__doc__)
    parser.add_argument("--load", action="store_true", help="the load preset (above)")
    harness.add_common_arguments(
        parser, clients=clients, instructions=instructions, workers=workers, delay_ms=delay_ms
    )
    parser.add_argument(
        "--prefill",
        type=int,
        default=15 if load else 0,
        help="finished missions already in every other client's session",
    )
    args = parser.parse_args(argv)
    return harness.run_benchmark(
        args,
        title="Load" if load else "Realtime",
        prefill=[args.prefill if n % 2 == 0 else 0 for n in range(args.clients)],
        percentiles=percentiles,
        notices_must_match=load,
    )


if __name__ == "__main__":
    sys.exit(main())
