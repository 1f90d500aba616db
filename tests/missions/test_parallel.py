"""The office works in parallel (docs/design.md §8): replies stream at once, delegated
missions run side by side, and no reply holds a database connection while the model
thinks. Real threads and transactions, on PostgreSQL."""

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from config.celery import wait_for_background_tasks
from llm.base import ChatMessages, ChatStream, Usage
from llm.gateway import set_provider_override
from missions.intake import instruction_accept
from missions.models import Mission, MissionStatus
from office.models import ChannelKind
from tests.factories import channel_of, dm_channel, make_office
from tests.fake_openai import FakeOpenAI, last_user_text, served_at_once
from tests.threads import Gauge

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


@pytest.fixture
def embedded(settings: Any) -> None:
    settings.TASK_RUNNER = "thread"


def _sent_to_a_slow_model(model: FakeOpenAI, kind: str, text: str) -> Mission:
    """`text` sent in the office's channel of `kind`, every answer taking 3 s; its mission
    once every task it started has ended. (One reply's context may take a second or more on
    a loaded machine, the first Korean text of a process loading the analyser: the model's
    time is what keeps "at once" apart from "one after another".)"""
    model.default_delay = 3.0
    set_provider_override(model.provider(timeout=10.0))
    try:
        channel = channel_of(make_office(), kind)
        accepted = instruction_accept(channel=channel, text=text)
        wait_for_background_tasks(timeout=60)
    finally:
        set_provider_override(None)
    return accepted.mission


def test_delegated_missions_run_at_the_same_time(fake_openai: FakeOpenAI, embedded: None) -> None:
    master = _sent_to_a_slow_model(
        fake_openai,
        ChannelKind.MASTER,
        "@Mara @Theo @Iris each draft your part of the spring launch.",
    )
    children = Mission.objects.filter(parent=master, source="delegation")
    assert sorted(c.assignee.name for c in children) == ["Iris", "Mara", "Theo"]
    assert all(c.status == MissionStatus.DONE for c in children)
    replies = [r for r in fake_openai.requests if r.body.get("stream")]
    # Three delegates, then the chief of staff's one synthesis (named people: the plan
    # needed no model call).
    assert len(replies) == 4
    delegates, synthesis = replies[:3], replies[3]
    assert served_at_once(delegates)
    assert synthesis.received_at >= max(r.answered_at or 0 for r in delegates)


@pytest.mark.parametrize("heading", ["Meeting notes", "회의록"])
def test_meeting_follow_ups_run_at_the_same_time(
    fake_openai: FakeOpenAI, embedded: None, heading: str
) -> None:
    tasks = {
        "Mara": "예산 초안을 금요일까지 정리",
        "Theo": "draft the launch timeline",
        "Iris": "발표 자료 준비",
    }
    notes = heading + "\n" + "\n".join(f"- @{name}: {task}" for name, task in tasks.items())
    meeting = _sent_to_a_slow_model(fake_openai, ChannelKind.PROJECT, notes)
    followups = Mission.objects.filter(parent=meeting, source="meeting_followup")
    assert sorted(m.assignee.name for m in followups) == ["Iris", "Mara", "Theo"]
    assert all(m.status == MissionStatus.DONE for m in followups)
    streams = [r for r in fake_openai.requests if r.body.get("stream")]
    # A follow-up's request names its own task; the notes' own reply names all three.
    asked = [
        r for r in streams if sum(t in last_user_text(r.messages) for t in tasks.values()) == 1
    ]
    assert len(asked) == 3
    assert served_at_once(asked)


class _Gate:
    """A model whose streams all wait until `parties` of them are in flight."""

    name = "gate"
    structured_output = False
    calls_tools = False

    def __init__(self, parties: int) -> None:
        self.barrier = threading.Barrier(parties, timeout=30)

    def stream_chat(
        self, *, messages: ChatMessages, model: str | None = None, tools: Any = None
    ) -> ChatStream:
        def pieces() -> Iterator[str]:
            self.barrier.wait()
            yield "Done."

        return ChatStream(pieces=pieces(), usage=Usage())

    def structured(self, *, messages: ChatMessages, schema: Any, model: str | None = None) -> Any:
        raise NotImplementedError


def test_more_replies_stream_at_once_than_the_pool_has_connections(
    embedded: None, settings: Any
) -> None:
    streams = settings.DATABASE_POOL_MAX * 2
    # Every stream reaches the model; a reply that kept its connection while waiting
    # would have left the others waiting for the pool.
    assert _answered_once_all_met_the_model(streams) == streams


def _answered_once_all_met_the_model(streams: int) -> int:
    """Send `streams` instructions to a model that answers none until all of them are
    in flight at one moment; how many were answered (the barrier breaks, after its
    timeout, if some never reached the model)."""
    gate = _Gate(streams + 1)
    set_provider_override(gate)
    try:
        channel = dm_channel(make_office())
        missions = [
            instruction_accept(channel=channel, text=f"Task {n}").mission for n in range(streams)
        ]
        gate.barrier.wait()
        wait_for_background_tasks(timeout=60)
    finally:
        set_provider_override(None)
    done = Mission.objects.filter(pk__in=[m.pk for m in missions], status=MissionStatus.DONE)
    return done.count()


def test_replies_assemble_a_few_at_a_time_and_all_wait_for_the_model_at_once(
    embedded: None, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """REPLY_CPU_SLOTS bounds the replies reading their context at one moment; a reply
    waiting for the model holds no slot, so every stream still reaches the model."""
    from missions import run

    settings.REPLY_CPU_SLOTS = 2
    streams = 6
    assembling = Gauge()
    assemble = run.context_for_mission

    def slow_assembly(**kwargs: Any) -> Any:
        with assembling:
            time.sleep(0.05)
            return assemble(**kwargs)

    monkeypatch.setattr(run, "context_for_mission", slow_assembly)
    # Six streams in flight at one moment with two slots: none kept its slot.
    assert _answered_once_all_met_the_model(streams) == streams
    assert assembling.most == 2
