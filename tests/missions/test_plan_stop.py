"""Stop in the master channel stops the whole plan (docs/design.md §7): every part still
queued or running is stopped, each keeping what came in its employee's channel; the
synthesis is not started, or is stopped like any reply, keeping what came. A part that
ends as the plan stops starts no synthesis whichever of the two commits first (the
plan's row lock orders them: real transactions on PostgreSQL). A part retried after the
stop starts the plan again."""

import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.db import connection

from missions import lifecycle, plans, queueing
from missions.intake import instruction_accept
from missions.lifecycle import mission_complete, mission_retry, mission_stop, plan_stop
from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
from missions.run import mission_run
from missions.selectors import plan_data
from office.models import ChannelKind, Office
from tests.factories import channel_of, make_office
from tests.fake_openai import Fail, FakeOpenAI, Reply
from tests.realtime.capture import SentFrames, captured_frames  # noqa: F401

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.model(max_attempts=1, timeout=10.0),
]

PLAN = "@Iris 배너 시안을 만들어 주세요 P-IRIS. @Theo build the landing page P-THEO."
PIECES = 40
GAP = 0.1  # a whole reply takes 4 s


@pytest.fixture
def queued_only(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Missions stay queued (their runs are started by the test, or never)."""
    runs: list[int] = []
    monkeypatch.setattr(queueing, "queue_task", lambda name, mission_id: runs.append(mission_id))
    return runs


def _plan(office: Office | None = None, text: str = PLAN) -> Mission:
    master = channel_of(office or make_office(), ChannelKind.MASTER)
    return instruction_accept(channel=master, text=text).mission


def _parts(plan: Mission) -> list[Mission]:
    return list(
        Mission.objects.filter(parent=plan, source=MissionSource.DELEGATION)
        .select_related("assignee")
        .order_by("pk")
    )


def _syntheses(plan: Mission) -> list[Mission]:
    return list(Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS))


def _stopped_reply(mission: Mission) -> Message:
    [reply] = Message.objects.filter(mission=mission, kind=MessageKind.EMPLOYEE)
    assert reply.payload["stopped"] is True and reply.channel_id == mission.channel_id
    return reply


def _in_thread(target: Callable[[], Any]) -> threading.Thread:
    def run() -> None:
        try:
            target()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _wait_for(condition: Callable[[], bool], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _slow(words: list[str]) -> Reply:
    return Reply("".join(words), chunks=words, chunk_delay=GAP)


def test_stopping_a_plan_stops_its_queued_parts_and_no_synthesis_comes(
    model: FakeOpenAI, frames: SentFrames, queued_only: list[int]
) -> None:
    plan = _plan()
    parts = _parts(plan)
    assert [p.status for p in parts] == [MissionStatus.QUEUED] * 2
    frames.clear()

    assert mission_stop(mission=plan) is True

    for part in _parts(plan):
        assert part.status == MissionStatus.STOPPED and part.reply == ""
        assert _stopped_reply(part).text == ""
        # Its run, when its task comes, finds nothing to answer.
        mission_run(mission_id=part.pk)
    assert model.requests == [] and _syntheses(plan) == []
    data = plan_data(plan_id=plan.pk)
    assert data is not None and data.status == "stopped"
    assert [d.status for d in data.delegates] == ["stopped", "stopped"]
    # The master channel's card hears of it: the last plan frame is the stopped plan.
    [*_, last] = [f for f in frames.to(plan.channel_id) if f["type"] == "plan"]
    assert last["plan"]["status"] == "stopped"
    # A second click finds nothing left to stop.
    assert mission_stop(mission=Mission.objects.get(pk=plan.pk)) is False


@pytest.mark.postgres
def test_a_plan_stops_its_running_parts_at_once_each_keeping_what_came(
    model: FakeOpenAI, queued_only: list[int]
) -> None:
    plan = _plan()
    parts = _parts(plan)
    words = {
        "Iris": [f"배너 {n}번째 문단. " for n in range(PIECES)],
        "Theo": [f"page step {n}. " for n in range(PIECES)],
    }
    for part in parts:
        model.enqueue_for(part.instruction, _slow(words[part.assignee.name]))
    runs = [_in_thread(partial(mission_run, mission_id=p.pk)) for p in parts]
    # Both stream at once, each a few pieces in.
    _wait_for(
        lambda: all(r.answered_at is None for r in model.requests) and len(model.requests) == 2
    )
    time.sleep(GAP * 5)
    started = time.monotonic()

    assert plan_stop(plan_id=plan.pk) is True
    for run in runs:
        run.join(timeout=10)
    assert not any(run.is_alive() for run in runs)
    assert time.monotonic() - started < PIECES * GAP / 2

    for part in _parts(plan):
        whole = "".join(words[part.assignee.name])
        assert part.status == MissionStatus.STOPPED
        # What came is kept, in its employee's channel: a start of the whole, not all of it.
        assert 0 < len(part.reply) < len(whole.strip()) and whole.startswith(part.reply)
        assert _stopped_reply(part).text == part.reply
    # Both parts told the plan as they stopped (each under its row lock): no synthesis.
    assert _syntheses(plan) == []
    data = plan_data(plan_id=plan.pk)
    assert data is not None and data.status == "stopped"


def test_stopping_the_synthesis_stops_the_plan_and_keeps_what_came(
    model: FakeOpenAI, queued_only: list[int]
) -> None:
    plan = _plan()
    for part in _parts(plan):
        mission_run(mission_id=part.pk)  # the fake model echoes: done at once
    [synthesis] = _syntheses(plan)
    words = [f"정리 {n}. " for n in range(PIECES)]
    model.enqueue(_slow(words))
    run = _in_thread(lambda: mission_run(mission_id=synthesis.pk))
    _wait_for(lambda: len(model.requests) == 3)
    time.sleep(GAP * 5)

    # The page names the synthesis (its `stop` is the plan, but either stops it).
    assert mission_stop(mission=Mission.objects.get(pk=synthesis.pk)) is True
    run.join(timeout=10)

    synthesis.refresh_from_db()
    assert synthesis.status == MissionStatus.STOPPED
    assert 0 < len(synthesis.reply) < len("".join(words).strip())
    reply = _stopped_reply(synthesis)
    assert reply.text == synthesis.reply and reply.payload["regenerable"] is False
    assert all(p.status == MissionStatus.DONE for p in _parts(plan))
    data = plan_data(plan_id=plan.pk)
    assert data is not None and data.status == "stopped"


def test_a_part_retried_after_the_plan_stopped_starts_it_again(
    model: FakeOpenAI, queued_only: list[int]
) -> None:
    plan = _plan()
    iris, theo = _parts(plan)
    model.enqueue_for("P-IRIS", Fail(500))
    mission_run(mission_id=iris.pk)
    assert Mission.objects.get(pk=iris.pk).status == MissionStatus.FAILED
    assert plan_stop(plan_id=plan.pk) is True
    assert Mission.objects.get(pk=theo.pk).status == MissionStatus.STOPPED
    assert _syntheses(plan) == []

    assert mission_retry(mission=Mission.objects.select_related("assignee").get(pk=iris.pk))
    mission_run(mission_id=iris.pk)

    [synthesis] = _syntheses(plan)
    mission_run(mission_id=synthesis.pk)
    synthesis.refresh_from_db()
    assert synthesis.status == MissionStatus.DONE
    # The part stopped earlier is named as such, in the office's language.
    assert "Theo" in synthesis.reply and "stopped before it was finished" in synthesis.reply
    data = plan_data(plan_id=plan.pk)
    assert data is not None and data.status == "done"
    # The stopped part can be started again too (the card offers it): a new synthesis.
    assert mission_retry(mission=Mission.objects.select_related("assignee").get(pk=theo.pk))
    mission_run(mission_id=theo.pk)
    assert Mission.objects.get(pk=theo.pk).status == MissionStatus.DONE
    first, second = sorted(_syntheses(plan), key=lambda m: m.pk)
    assert first.pk == synthesis.pk and second.status == MissionStatus.QUEUED


@pytest.mark.postgres
def test_the_last_part_ending_as_the_plan_stops_never_leaves_a_synthesis_running(
    model: FakeOpenAI, queued_only: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both orders, forced: the stop holds the plan's row while the last part ends (the
    part waits, then sees the stop), and the last part holds it while the stop comes (the
    stop waits, then stops the synthesis that part started)."""
    # The stop takes the plan first.
    plan = _plan()
    iris, theo = _parts(plan)
    mission_run(mission_id=iris.pk)
    Mission.objects.filter(pk=theo.pk).update(status=MissionStatus.RUNNING)
    locked, go = threading.Event(), threading.Event()
    send = lifecycle.plan_send_on_commit

    def held(plan_id: int) -> None:  # inside plan_stop's transaction, the plan locked
        locked.set()
        assert go.wait(10)
        send(plan_id)

    monkeypatch.setattr(lifecycle, "plan_send_on_commit", held)
    stopping = _in_thread(lambda: plan_stop(plan_id=plan.pk))
    assert locked.wait(10)
    ending = _in_thread(
        lambda: mission_complete(
            mission=Mission.objects.select_related("assignee").get(pk=theo.pk),
            reply="랜딩 페이지 완성: https://staging.example.com",
        )
    )
    time.sleep(0.5)  # the part's end waits for the plan's row
    go.set()
    stopping.join(timeout=10)
    ending.join(timeout=10)
    monkeypatch.setattr(lifecycle, "plan_send_on_commit", send)

    theo.refresh_from_db()
    assert theo.status == MissionStatus.DONE and theo.reply.startswith("랜딩 페이지 완성")
    assert _syntheses(plan) == []
    assert plan_data(plan_id=plan.pk).status == "stopped"  # type: ignore[union-attr]

    # The last part takes the plan first.
    plan = _plan()
    iris, theo = _parts(plan)
    mission_run(mission_id=iris.pk)
    Mission.objects.filter(pk=theo.pk).update(status=MissionStatus.RUNNING)
    created, go = threading.Event(), threading.Event()
    queue = plans.mission_queue_run

    def queue_held(mission: Mission) -> None:  # the synthesis made, the plan locked
        created.set()
        assert go.wait(10)
        queue(mission)

    monkeypatch.setattr(plans, "mission_queue_run", queue_held)
    ending = _in_thread(
        lambda: mission_complete(
            mission=Mission.objects.select_related("assignee").get(pk=theo.pk),
            reply="The landing page is live on staging.",
        )
    )
    assert created.wait(10)
    stopping = _in_thread(lambda: plan_stop(plan_id=plan.pk))
    time.sleep(0.5)  # the stop waits for the plan's row
    go.set()
    ending.join(timeout=10)
    stopping.join(timeout=10)

    [synthesis] = _syntheses(plan)
    assert synthesis.status == MissionStatus.STOPPED and synthesis.reply == ""
    mission_run(mission_id=synthesis.pk)  # its task, when it comes, answers nothing
    assert Mission.objects.get(pk=synthesis.pk).status == MissionStatus.STOPPED
    assert plan_data(plan_id=plan.pk).status == "stopped"  # type: ignore[union-attr]
    assert not any("Your colleagues" in str(r.messages[-1:]) for r in model.requests)


def test_a_part_is_not_stopped_alone_from_its_employees_channel(queued_only: list[int]) -> None:
    plan = _plan()
    iris, _ = _parts(plan)
    with pytest.raises(lifecycle.StopRefused):
        mission_stop(mission=iris)
    assert Mission.objects.get(pk=iris.pk).status == MissionStatus.QUEUED
