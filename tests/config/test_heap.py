"""Server processes freeze what starting made (config.heap), so that the garbage
collector's full collections no longer walk it."""

import gc
import weakref

from config.heap import freeze_startup_objects
from tests.fresh import WORKER_START, embedded_env, run_python


class _Node:
    partner: "_Node | None" = None


def _in_collected_generations(target: object) -> bool:
    return any(o is target for o in gc.get_objects())


def test_it_frees_the_garbage_of_starting_and_freezes_what_lives_on() -> None:
    # A reference cycle nothing points to any more: only the collector can free it.
    first, second = _Node(), _Node()
    first.partner, second.partner = second, first
    garbage = weakref.ref(first)
    del first, second
    kept = _Node()
    gc.disable()  # no collection of its own may run before the call
    try:
        frozen = freeze_startup_objects()
        assert garbage() is None, "the cycle was frozen instead of freed"
        # The count moves a little from one read to the next (a frozen object that dies of
        # its last reference leaves the frozen set; another test's thread may freeze):
        # what it reports is that objects were frozen.
        assert frozen > 0 and gc.get_freeze_count() > 0
        assert not _in_collected_generations(kept)
    finally:
        gc.unfreeze()
        gc.enable()
    assert _in_collected_generations(kept)


def _frozen_after(script: str) -> int:
    output = run_python(
        "-c",
        script + "\nimport gc\nprint(gc.get_freeze_count())\n",
        env=embedded_env(DJANGO_SETTINGS_MODULE="config.settings"),
    )
    return int(output.split()[-1])


# The web server freezes at the end of its warm-up (config/warmup.py), not on import; the
# database step is left out here (no database in this fresh process).
WEB_START = (
    "import config.asgi\n"
    "from config import warmup\n"
    "warmup.STEPS = [step for step in warmup.STEPS if step[0] != 'urls and database']\n"
    "warmup.run()\n"
)


def test_a_started_web_process_has_frozen_its_startup_objects() -> None:
    # Django, the admin, Channels' routing and the SDK are loaded by then.
    assert _frozen_after(WEB_START) > 50_000


def test_a_started_task_worker_has_frozen_its_startup_objects() -> None:
    assert _frozen_after(WORKER_START) > 50_000
