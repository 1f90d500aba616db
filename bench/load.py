"""Load benchmark: Daphne + Redis + PostgreSQL + 2 `replies` Celery workers (threads) and a
`background` worker + the local OpenAI-compatible server answering in 50 ms.

100 concurrent WebSocket clients (default), each its own user with its own office, send 10
instructions each on a 1:1 channel, one after another. Half of the sessions (every other
client) start with 15 finished missions already stored, so their 10 instructions take
them across the long-session threshold (LONG_SESSION_MISSIONS, 20); the other half start
empty and stay below it.

Reported: missions per second, p50/p95/p99 from instruction to first reply.delta and to
reply.done, notices (exactly one per session that crossed the threshold, stored and
received over the socket; none for the others), missions lost or doubled (0), peak
PostgreSQL connections to the scratch database, and peak RSS of every process started
(Daphne, each Celery worker and its children if prefork, the model server). Exit status 1
when the count check or the notice check fails. --pool / --concurrency / --background-*
choose the workers' pools and sizes.

Everything runs on 127.0.0.1 in a scratch PostgreSQL database and a dedicated Redis DB
index, both cleaned up afterwards (see bench/harness/). From the project root:

    .venv/bin/python bench/load.py                                # full size
    .venv/bin/python bench/load.py --clients 6 --instructions 6   # quick
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402


def main() -> int:
    parser = harness.benchmark_parser(__doc__)
    harness.add_common_arguments(parser, clients=100, instructions=10, workers=2, delay_ms=50.0)
    parser.add_argument(
        "--prefill",
        type=int,
        default=15,
        help="finished missions already in every other client's session",
    )
    args = parser.parse_args()
    return harness.run_benchmark(
        args,
        title="Load",
        prefill=[args.prefill if n % 2 == 0 else 0 for n in range(args.clients)],
        percentiles=(50, 95, 99),
        notices_must_match=True,
    )


if __name__ == "__main__":
    sys.exit(main())
