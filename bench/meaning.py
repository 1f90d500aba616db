"""The meaning layer's costs (docs/meaning.md): embedding in the background lane (CPU ms per
passage, in the batches the lane writes), the model's resident memory, and what it adds
to the reply path: context assembly with every passage embedded against the same
assembly with the layer off, in one run, at 10 and 1,000 missions of history.

    OMP_NUM_THREADS=1 python bench/meaning.py --database sqlite --no-record
    OMP_NUM_THREADS=1 python bench/meaning.py --database postgres --no-record

Figures are ratios within one run (the machine is shared and noisy) and CPU time where a
wall clock would count other processes' work."""

import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.context import bulk_history, filler  # noqa: E402
from bench.meaning_models import _rss_mb  # noqa: E402
from bench.report import per_database, scratch_database  # noqa: E402

LENGTHS = (10, 1000)
ROUNDS = 15


def measure() -> dict[str, Any]:
    with scratch_database():
        return _measure()


def _measure() -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import override_settings

    from context import dense
    from context.models import Passage
    from context.selectors import context_for_next
    from context.services import passages_sweep
    from context.vectors import passages_embed
    from language import meaning
    from office.services import office_create_with_team

    before = _rss_mb()
    began = time.perf_counter()
    meaning.warm_up()
    load_s = time.perf_counter() - began
    model_mb = _rss_mb() - before

    owner = get_user_model().objects.create(username="bench")
    office = office_create_with_team(owner=owner, name="Bench office")
    rng = random.Random(7)
    channels = list(office.channels.filter(kind="dm", employee__is_master=False).order_by("id"))

    def texts(n: int) -> tuple[str, str]:
        # Instruction and reply from two draws of the filler, as in the recorded runs.
        return filler(rng, n)[0], filler(rng, n)[1]

    sessions = {count: bulk_history(channels.pop(0), count, texts)[0] for count in LENGTHS}
    passages_sweep(limit=sum(LENGTHS))
    passages = Passage.objects.count()
    began, began_cpu = time.perf_counter(), time.process_time()
    embedded = passages_embed(limit=passages)
    embed_cpu_ms = (time.process_time() - began_cpu) * 1000 / max(embedded, 1)
    embed_wall_ms = (time.perf_counter() - began) * 1000 / max(embedded, 1)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")

    instruction = "How much did we agree to pay for the pricing page rewrite?"
    # The first assembly of a process reads the channel's vectors whole.
    dense.forget()
    began = time.perf_counter()
    context_for_next(
        channel=sessions[1000].channel, session=sessions[1000], instruction=instruction
    )
    first_read_ms = (time.perf_counter() - began) * 1000
    timings: dict[str, list[float]] = {}
    for _ in range(ROUNDS):
        for count, session in sessions.items():
            for layer in ("on", "off"):
                with override_settings(
                    MEANING_MODEL="off" if layer == "off" else "use-multilingual-3"
                ):
                    started = time.process_time()
                    context_for_next(
                        channel=session.channel, session=session, instruction=instruction
                    )
                    timings.setdefault(f"{count}/{layer}", []).append(time.process_time() - started)
    median = {key: statistics.median(values) * 1000 for key, values in timings.items()}
    return {
        "vendor": connection.vendor,
        "model": meaning.model_name(),
        "model_load_s": round(load_s, 2),
        "model_rss_mb": round(model_mb),
        "passages": passages,
        "embed_cpu_ms_per_passage": round(embed_cpu_ms, 2),
        "embed_wall_ms_per_passage": round(embed_wall_ms, 2),
        "first_vector_read_ms_1000": round(first_read_ms, 1),
        "assembly_cpu_ms": {key: round(value, 2) for key, value in median.items()},
        "ratio_on_off": {
            count: round(median[f"{count}/on"] / median[f"{count}/off"], 2) for count in LENGTHS
        },
        "ratio_1000_to_10_on": round(median["1000/on"] / median["10/on"], 2),
        "process_rss_mb": round(_rss_mb()),
    }


def print_report(results: list[dict[str, Any]]) -> None:
    for result in results:
        print(json.dumps(result))


if __name__ == "__main__":
    per_database(
        script=__file__,
        description=__doc__ or "",
        measure=measure,
        report=print_report,
    )
