"""How a reply streams (docs/design.md §7): its pieces go out in batches of at most 50 ms, and
the first one as soon as it arrives (the person is waiting for it)."""

from typing import Any

import pytest

from missions import run
from missions.intake import instruction_accept
from missions.models import Mission, MissionStatus
from push.frames import ReplyDeltaFrame
from tests.factories import dm_channel, make_office
from tests.fake_openai import FakeOpenAI, Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _deltas(monkeypatch: pytest.MonkeyPatch) -> list[ReplyDeltaFrame]:
    sent: list[ReplyDeltaFrame] = []

    def send_frame(channel_id: int, frame: Any) -> None:
        if isinstance(frame, ReplyDeltaFrame):
            sent.append(frame)

    monkeypatch.setattr(run, "send_frame", send_frame)
    return sent


@pytest.mark.parametrize(
    "chunks",
    [["Hello", " there,", " friend."], ["안녕하세요", ", 팀장님", ". 초안입니다."]],
)
def test_the_first_piece_of_a_slow_stream_goes_out_alone_and_at_once(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, chunks: list[str]
) -> None:
    sent = _deltas(monkeypatch)
    # Each piece comes 0.3 s after the one before: longer than a batch may wait.
    model.enqueue(Reply("".join(chunks), chunks=chunks, chunk_delay=0.3))
    accepted = instruction_accept(channel=dm_channel(make_office()), text="Draft a greeting")
    mission = Mission.objects.get(pk=accepted.mission.pk)
    assert mission.status == MissionStatus.DONE
    assert [f.text for f in sent] == chunks
    assert [f.index for f in sent] == [0, 1, 2]


def test_pieces_that_come_together_are_sent_in_one_batch(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _deltas(monkeypatch)
    pieces = [f"part {n} " for n in range(12)]
    model.enqueue(Reply("".join(pieces), chunks=pieces))
    instruction_accept(channel=dm_channel(make_office()), text="Draft twelve parts")
    # The first piece alone, then the rest in batches, not one frame per piece.
    assert sent[0].text == pieces[0]
    assert "".join(f.text for f in sent) == "".join(pieces)
    assert len(sent) < len(pieces)
