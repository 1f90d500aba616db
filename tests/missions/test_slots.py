"""Reply slots (missions/slots.py): only so many replies do Python work at once in a
process, and a reply waiting for the model holds none."""

import threading
import time
from typing import Any

import pytest

from missions import slots
from missions.slots import reply_slot, slot_lent
from tests.threads import Gauge


@pytest.fixture(autouse=True)
def _own_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each test its own semaphores: a thread stuck in a failed test keeps its slot.
    monkeypatch.setattr(slots, "_semaphores", {})


def _run_threads(*works: Any) -> None:
    """Each on a thread of its own, all at once; daemons, so that a thread stuck in a
    failed test does not keep the test run from ending."""
    threads = [threading.Thread(target=work, daemon=True) for work in works]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)


def test_no_more_threads_than_slots_work_at_once(settings: Any) -> None:
    settings.REPLY_CPU_SLOTS = 2
    gauge = Gauge()

    def work() -> None:
        with reply_slot(), gauge:
            time.sleep(0.05)

    _run_threads(*[work] * 6)
    assert gauge.most == 2


def test_a_slot_lent_for_the_model_lets_another_reply_work(settings: Any) -> None:
    settings.REPLY_CPU_SLOTS = 1
    lent, other_done = threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def waiting_reply() -> None:
        with reply_slot(), slot_lent():
            lent.set()
            # The other reply gets the only slot while this one waits for the model.
            seen["other worked meanwhile"] = other_done.wait(5)

    def other_reply() -> None:
        if lent.wait(5):
            with reply_slot():
                other_done.set()

    _run_threads(waiting_reply, other_reply)
    assert seen == {"other worked meanwhile": True}


def test_a_reply_back_from_the_model_waits_for_a_free_slot(settings: Any) -> None:
    settings.REPLY_CPU_SLOTS = 1
    lent, other_working = threading.Event(), threading.Event()
    order: list[str] = []

    def waiting_reply() -> None:
        with reply_slot():
            with slot_lent():
                lent.set()
                other_working.wait(5)
            order.append("back from the model")

    def other_reply() -> None:
        lent.wait(5)
        with reply_slot():
            other_working.set()
            time.sleep(0.2)
            order.append("other saved")

    _run_threads(waiting_reply, other_reply)
    assert order == ["other saved", "back from the model"]


def test_a_nested_reply_neither_waits_for_nor_lends_the_outer_slot(settings: Any) -> None:
    settings.REPLY_CPU_SLOTS = 1
    entered = threading.Event()
    seen: dict[str, bool] = {}

    def outsider() -> None:
        with reply_slot():
            entered.set()

    def mission_with_inline_followup() -> None:
        with reply_slot():
            # The inline runner runs a follow-up inside the mission that queued it.
            with reply_slot(), slot_lent():
                threading.Thread(target=outsider, daemon=True).start()
                # The outer mission still holds the only slot.
                seen["outsider got in"] = entered.wait(0.2)
            seen["outsider got in before the outer ended"] = entered.is_set()

    # On a thread of its own: a slot taken twice would hang here, not fail.
    thread = threading.Thread(target=mission_with_inline_followup, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "the nested reply waited for the slot its thread holds"
    assert seen == {"outsider got in": False, "outsider got in before the outer ended": False}
    assert entered.wait(10)


@pytest.mark.parametrize("slots", [1, 3])
def test_a_slot_is_given_back_when_the_work_fails(settings: Any, slots: int) -> None:
    settings.REPLY_CPU_SLOTS = slots
    for _ in range(slots + 1):
        with pytest.raises(RuntimeError), reply_slot():
            raise RuntimeError("the save failed")
    done = threading.Event()

    def work() -> None:
        with reply_slot():
            done.set()

    _run_threads(*[work] * slots)
    assert done.is_set()
