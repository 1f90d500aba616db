"""Regenerate: a new attempt of the same mission, the earlier attempts kept (their
replies in the timeline, their text and cost in MissionAttempt). Edit and resend: a new
mission with the edited text, linked to the original, which stays as it was."""

from typing import Any

import pytest
from django.test import Client

from missions.intake import InstructionRejected, instruction_accept
from missions.lifecycle import RegenerateRefused, mission_regenerate
from missions.models import Message, MessageKind, Mission, MissionAttempt, MissionStatus
from tests.caching import clear_cache
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Tagline: Calm money.", "Tagline: Money, calmly."),
        ("슬로건: 차분한 돈.", "슬로건: 돈을 차분하게."),
    ],
)
def test_regenerate_answers_the_same_mission_again_and_keeps_the_earlier_attempt(
    model: FakeOpenAI, first: str, second: str
) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    model.enqueue(Reply(first))
    accepted = instruction_accept(channel=channel, text="Draft a tagline")
    model.enqueue(Reply(second))
    response = _client(user).post(f"/api/missions/{accepted.mission.pk}/regenerate")
    assert response.status_code == 202
    mission = Mission.objects.get(pk=accepted.mission.pk)
    assert mission.status == MissionStatus.DONE and mission.reply == second
    assert mission.regenerations == 1
    assert Mission.objects.filter(channel=channel).count() == 1  # the same mission
    [earlier] = MissionAttempt.objects.filter(mission=mission)
    assert (earlier.number, earlier.reply, earlier.status) == (1, first, MissionStatus.DONE)
    assert earlier.completion_tokens > 0
    # Both replies are in the timeline, the new one marked as the second attempt.
    replies = list(Message.objects.filter(mission=mission, kind=MessageKind.EMPLOYEE))
    assert [m.text for m in replies] == [first, second]
    assert "attempt" not in replies[0].payload and replies[1].payload["attempt"] == 2
    listed = _client(user).get(f"/api/missions/{mission.pk}/attempts").json()
    assert [(a["number"], a["reply"]) for a in listed] == [(1, first)]


def test_a_stopped_mission_can_be_regenerated_and_a_running_one_cannot(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    channel = dm_channel(make_office())
    accepted = instruction_accept(channel=channel, text="Draft a tagline")
    mission = Mission.objects.get(pk=accepted.mission.pk)
    Mission.objects.filter(pk=mission.pk).update(status=MissionStatus.RUNNING)
    mission.refresh_from_db()
    with pytest.raises(RegenerateRefused):
        mission_regenerate(mission=mission)
    Mission.objects.filter(pk=mission.pk).update(status=MissionStatus.STOPPED, reply="Tag")
    mission.refresh_from_db()
    again = mission_regenerate(mission=mission)
    again.refresh_from_db()
    assert again.status == MissionStatus.DONE and again.reply.startswith("Echo")
    assert MissionAttempt.objects.get(mission=mission).status == MissionStatus.STOPPED


def test_regenerate_counts_against_the_persons_instruction_limit(
    model: FakeOpenAI, settings: Any
) -> None:
    clear_cache()
    settings.INSTRUCTION_RATE_LIMIT = 2
    user = make_user()
    channel = dm_channel(make_office(user))
    accepted = instruction_accept(channel=channel, text="Draft a tagline", user_id=user.pk)
    client = _client(user)
    codes = [
        client.post(f"/api/missions/{accepted.mission.pk}/regenerate").status_code for _ in range(3)
    ]
    # One instruction and one new attempt fill the window.
    assert codes == [202, 429, 429]
    assert MissionAttempt.objects.filter(mission=accepted.mission).count() == 1


def test_another_persons_mission_cannot_be_regenerated(model: FakeOpenAI) -> None:
    owner, stranger = make_user(), make_user()
    accepted = instruction_accept(channel=dm_channel(make_office(owner)), text="Draft a tagline")
    assert (
        _client(stranger).post(f"/api/missions/{accepted.mission.pk}/regenerate").status_code == 404
    )
    assert Mission.objects.get(pk=accepted.mission.pk).regenerations == 0


@pytest.mark.parametrize(
    ("original", "edited"),
    [
        ("Draft a tagline for Zephyr", "Draft a tagline for Zephyr Analytics"),
        ("예산안 요약해 줘", "예산안을 세 줄로 요약해 줘"),
    ],
)
def test_edit_and_resend_makes_a_new_mission_linked_to_the_original_which_stays(
    model: FakeOpenAI, original: str, edited: str
) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    first = instruction_accept(channel=channel, text=original)
    response = _client(user).post(
        f"/api/channels/{channel.pk}/instructions",
        {"text": edited, "client_id": "edit-1", "edits": first.mission.pk},
        content_type="application/json",
    )
    assert response.status_code == 202
    body = response.json()["mission"]
    assert body["edited_from"] == first.mission.pk and body["seq"] == 2 and body["label"] == "2"
    kept = Mission.objects.get(pk=first.mission.pk)
    assert kept.instruction == original and kept.status == MissionStatus.DONE
    new = Mission.objects.get(pk=body["id"])
    assert new.instruction == edited and new.edited_from_id == kept.pk
    message = Message.objects.get(mission=new, kind=MessageKind.USER)
    assert message.payload["edited_from"] == {
        "mission": kept.pk,
        "seq": kept.seq,
        "label": kept.label,
        "session": kept.session_id,
    }


def test_an_edit_of_another_channels_mission_is_refused(model: FakeOpenAI) -> None:
    office = make_office()
    theo, other = dm_channel(office), dm_channel(make_office())
    foreign = instruction_accept(channel=other, text="Someone else's")
    with pytest.raises(InstructionRejected) as refused:
        instruction_accept(channel=theo, text="Mine", edits=foreign.mission.pk)
    assert refused.value.code == "bad_edit"
    assert not Mission.objects.filter(channel=theo).exists()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Tagline: Calm money.", "Tagline: Money, calmly."),
        ("슬로건: 차분한 돈.", "슬로건: 돈을 차분하게."),
    ],
)
def test_recall_quotes_the_regenerated_reply_not_the_earlier_attempt(
    model: FakeOpenAI, first: str, second: str
) -> None:
    from context.models import Passage
    from context.services import passages_index_session

    channel = dm_channel(make_office())
    model.enqueue(Reply(first))
    accepted = instruction_accept(channel=channel, text="Draft a tagline")
    mission = Mission.objects.get(pk=accepted.mission.pk)
    passages_index_session(session_id=mission.session_id)
    assert first in " ".join(Passage.objects.filter(mission=mission).values_list("text", flat=True))

    model.enqueue(Reply(second))
    mission_regenerate(mission=mission)
    passages_index_session(session_id=mission.session_id)

    indexed = " ".join(Passage.objects.filter(mission=mission).values_list("text", flat=True))
    assert second in indexed
    assert first not in indexed
