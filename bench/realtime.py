"""Real-time benchmark: Daphne + Redis channel layer + a Celery worker per lane (one
`replies` worker on threads, one `background` worker) + the local OpenAI-compatible server
answering at once.

50 concurrent WebSocket clients (default), each its own user with its own office, connect
to a 1:1 channel with a real session cookie and Origin header, and send 20 instructions one
after another (a unique client_id each, the next only after the previous reply.done).

Reported: missions per second (reply.done frames received / wall time from the first send
to the last reply.done), p50/p95 time from sending an instruction to its first
reply.delta and to its reply.done, and the count check read from the database afterwards:
every instruction has exactly one mission, done, with a non-empty reply and exactly one
saved reply message (nothing lost, nothing doubled), and the model calls made until the
queues drained (counted by the model server). Long-session notices are shown too (20
instructions take every session to the threshold). Exit status 1 when the count check
fails. --pool / --concurrency / --background-* choose the workers' pools and sizes.

Everything runs on 127.0.0.1 in a scratch PostgreSQL database and a dedicated Redis DB
index, both cleaned up afterwards (see bench/harness/). From the project root:

    .venv/bin/python bench/realtime.py                            # full size
    .venv/bin/python bench/realtime.py --clients 5 --instructions 3   # quick
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402


def main() -> int:
    parser = harness.benchmark_parser(__doc__)
    harness.add_common_arguments(parser, clients=50, instructions=20, workers=1, delay_ms=0.0)
    args = parser.parse_args()
    return harness.run_benchmark(
        args,
        title="Realtime",
        prefill=[0] * args.clients,
        percentiles=(50, 95),
        notices_must_match=False,
    )


if __name__ == "__main__":
    sys.exit(main())
