"""Long-term memory benchmark: retrieval time as an office's memory grows, and how often
the one relevant item makes it into the prompt within MEMORY_BUDGET_CHARS.

    python bench/memory.py                  # SQLite and, when reachable, PostgreSQL
    python bench/memory.py --database postgres

Offices of 100, 1,000 and 10,000 items; 100 probes, each planting one relevant item among
the 10,000 and asking about it in other words than the item's own (only the name is
shared, as when a person asks about "the Zanzibar account"). Timings are medians of
interleaved rounds, reported as ratios to the 100-item office."""

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import Table, per_database, scratch_database  # noqa: E402

SIZES = (100, 1_000, 10_000)
PROBES = 100
ROUNDS = 30

_SUBJECTS = [
    "the invoice run",
    "the team lunch",
    "our support hours",
    "the design review",
    "the hiring plan",
    "the office wifi",
    "the sales pipeline",
    "the backup job",
    "the travel policy",
    "the release train",
    "the customer survey",
    "the roadmap",
]
_VERBS = [
    "happens",
    "is scheduled",
    "moves",
    "is reviewed",
    "is owned by the ops team",
    "needs approval",
    "is tracked",
    "is paused",
]
_WHEN = [
    "on Mondays",
    "every quarter",
    "at 9:30",
    "after each sprint",
    "in the spring",
    "twice a month",
    "before launches",
    "on the last Friday",
]
_NAMES = [
    "Zanzibar",
    "Orinoco",
    "Kestrel",
    "Marigold",
    "Tundra",
    "Quasar",
    "Halcyon",
    "Juniper",
    "Obsidian",
    "Sequoia",
]


def filler(rng: random.Random, n: int) -> str:
    return (
        f"Note {n}: {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_WHEN)}; "
        f"ask {rng.choice(['Dana', 'Lee', 'Sam', 'Kim'])} about item {rng.randint(1, 999)}."
    )


def measure() -> dict[str, object]:
    with scratch_database():
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.db import connection

        from context.selectors import context_for_next
        from language.analysis import normalised
        from memory.models import MemoryItem
        from office.services import office_create_with_team
        from sessions.services import session_get_or_open_current

        def item(office: Any, text: str) -> MemoryItem:
            # Made without the memory services: given their search terms here.
            return MemoryItem(
                office=office,
                scope="office",
                kind="fact",
                origin="admin",
                text=text,
                terms=normalised(text),
            )

        def assemble(channel: Any, instruction: str) -> Any:
            session = session_get_or_open_current(channel=channel)
            return context_for_next(channel=channel, session=session, instruction=instruction)

        rng = random.Random(5)
        owner = get_user_model().objects.create(username="bench")
        offices = {}
        for size in SIZES:
            office = office_create_with_team(owner=owner, name=f"Memory {size}")
            texts = [filler(rng, n) for n in range(size)]
            MemoryItem.objects.bulk_create((item(office, t) for t in texts), batch_size=1000)
            offices[size] = office
        channels = {
            size: office.channels.get(kind="dm", employee__name="Theo")
            for size, office in offices.items()
        }
        instruction = "Can you check when the design review happens and who owns it?"
        timings: dict[int, list[float]] = {size: [] for size in SIZES}
        for channel in channels.values():
            assemble(channel, instruction)
        for _ in range(ROUNDS):
            for size, channel in channels.items():
                started = time.perf_counter()
                assemble(channel, instruction)
                timings[size].append(time.perf_counter() - started)

        # recall@budget: plant one item per probe in the 10,000-item office.
        office, channel = offices[SIZES[-1]], channels[SIZES[-1]]
        hits, over_budget = 0, 0
        for probe in range(PROBES):
            name = f"{rng.choice(_NAMES)}{probe}"
            planted = item(
                office, f"The {name} account renews {rng.choice(_WHEN)} and is billed yearly."
            )
            planted.save()
            question = f"Remind me: what do we know about {name}? Anything due soon?"
            section = assemble(channel, question).section("memory")
            hits += planted.pk in section.memory_ids
            over_budget += section.chars > settings.MEMORY_BUDGET_CHARS
            planted.delete()
        return {
            "vendor": connection.vendor,
            "assembly_ms": {size: statistics.median(t) * 1000 for size, t in timings.items()},
            "recall_at_budget": hits / PROBES,
            "over_budget": over_budget,
            "budget": settings.MEMORY_BUDGET_CHARS,
        }


def tables(results: list[dict[str, Any]]) -> list[Table]:
    """The run's figures for docs/benchmarks.md: one row per database."""
    header = (
        "database",
        *(f"assembly at {size:,} items" for size in SIZES),
        "recall@budget",
        "sections over budget",
    )
    rows: list[tuple[object, ...]] = [header]
    for data in results:
        times = {int(k): v for k, v in data["assembly_ms"].items()}
        base = times[SIZES[0]]
        rows.append(
            (
                data["vendor"],
                *(f"{times[size]:.1f} ms (×{times[size] / base:.2f})" for size in SIZES),
                f"{data['recall_at_budget']:.2f}",
                data["over_budget"],
            )
        )
    return [Table("Memory section assembly by office size", rows)]


if __name__ == "__main__":
    per_database(
        script=__file__,
        description=(__doc__ or "").split("\n\n")[0],
        measure=measure,
        tables=tables,
    )
