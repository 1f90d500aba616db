"""Issue 37, point 5: a worker that was frozen (SIGSTOP) past MISSION_STUCK_AFTER, whose
mission another worker meanwhile answered, sends no stale `reply.delta` when it resumes."""

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from llm.base import ChatStream
from llm.gateway import set_provider_override
from llm.offline import OfflineProvider
from missions import heartbeat, run
from missions.intake import instruction_accept
from missions.models import Mission, MissionStatus
from tests.factories import dm_channel, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)


class FreezingProvider(OfflineProvider):
    """Streams a few pieces, then 'freezes': another run takes the mission over and
    finishes it, and this process's clock jumps past its last confirmed beat."""

    def __init__(self, mission_id: int) -> None:
        super().__init__()
        self.mission_id = mission_id

    def stream_chat(self, **kwargs: Any) -> ChatStream:
        stream = ChatStream(pieces=iter(()))

        def pieces() -> Iterator[str]:
            for n in range(3):
                time.sleep(run.DELTA_INTERVAL)
                yield f"before {n} "
            # Meanwhile, elsewhere: the sweeper re-queued it and another worker answered.
            Mission.objects.filter(pk=self.mission_id).update(
                status=MissionStatus.DONE, run_token="another-run", finished_at=timezone.now()
            )
            with heartbeat._lock:
                heartbeat._confirmed[self.mission_id] -= 3600  # the freeze
            for n in range(20):
                time.sleep(run.DELTA_INTERVAL)
                yield f"stale {n} "

        stream.pieces = pieces()
        return stream


def test_a_resumed_frozen_worker_sends_no_stale_deltas(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.MISSION_HEARTBEAT_INTERVAL = 1
    user = make_user()
    channel = dm_channel(make_office(user))
    # Queued but not run yet: the inline runner would answer at once.
    monkeypatch.setattr("missions.queueing.mission_queue_run", lambda mission: None)
    mission = instruction_accept(channel=channel, text="write the memo", user_id=user.pk).mission
    Mission.objects.filter(pk=mission.pk).update(status=MissionStatus.QUEUED)
    sent: list[str] = []
    monkeypatch.setattr(
        run, "send_frame", lambda channel_id, frame: sent.append(getattr(frame, "text", ""))
    )
    set_provider_override(FreezingProvider(mission.pk))
    try:
        run.mission_run(mission_id=mission.pk)
    finally:
        set_provider_override(None)
    assert sent and all(text.startswith("before") for text in sent), sent
    mission.refresh_from_db()
    assert mission.run_token == "another-run" and "stale" not in mission.reply
