"""What the office writes is in the office's language: a plan's reply, a failure, the
summary's items as a person reads them, the JSON API's refusals and the socket's error
frames. A Korean office walked through these flows shows no English label; an English
office keeps its English."""

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from llm.base import ProviderError
from missions.intake import instruction_accept
from missions.models import Message, MessageKind, Mission, MissionStatus
from missions.timeline import message_data
from office.models import ChannelKind, Office
from office.services import office_create_with_team, user_set_language
from push.frames import CLIENT_FRAME_TYPES
from summaries.models import RollingSummary
from summaries.render import DIGEST_PREFIX
from tests.factories import add_finished_missions, channel_of, make_user
from tests.i18n.visible import english_words
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

# Words a Korean text may hold: the names a client sends (frame fields, the format).
DATA_WORDS = {"client_id", "JSON"}


def _office(language: str) -> tuple[Office, Client]:
    owner = make_user(f"owner-{language}")
    office = office_create_with_team(owner=owner, name=f"office {language}", language=language)
    user_set_language(user=owner, language=language)
    client = Client()
    client.force_login(owner)
    return office, client


def _colleague(office: Office) -> str:
    return str(office.employees.filter(is_master=False, is_active=True)[0].name)


def _english(text: str, office: Office) -> list[str]:
    names = list(office.employees.values_list("name", flat=True))
    return english_words(text, allowed=DATA_WORDS, data=names)


@pytest.mark.parametrize(("language", "heading"), [("ko", "계획:"), ("en", "Plan:")])
def test_a_plans_reply_begins_in_the_offices_language(language: str, heading: str) -> None:
    office, _ = _office(language)
    master = channel_of(office, ChannelKind.MASTER)
    name = _colleague(office)
    task = "다음 주 보고서 초안을 써 줘" if language == "ko" else "draft next week's report"
    accepted = instruction_accept(channel=master, text=f"@{name} {task}")

    plan = Mission.objects.get(pk=accepted.mission.pk)
    assert plan.reply.startswith(heading), plan.reply
    assert f"- {name}: {task}" in plan.reply
    if language == "ko":
        assert "Plan" not in plan.reply


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_failed_reply_is_explained_in_the_offices_language(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Unreachable:
        calls_tools = False

        def stream_chat(self, **_: Any) -> Any:
            raise ProviderError("connection", "Could not reach the model server.")

    monkeypatch.setattr("missions.run.get_provider", lambda: Unreachable())
    office, client = _office(language)
    channel = channel_of(office, ChannelKind.DM, _colleague(office))
    text = "보고서 써 줘" if language == "ko" else "write the report"
    accepted = instruction_accept(channel=channel, text=text)

    mission = Mission.objects.get(pk=accepted.mission.pk)
    assert mission.status == MissionStatus.FAILED
    error = Message.objects.get(mission=mission, kind=MessageKind.ERROR)
    page = client.get(f"/api/channels/{channel.pk}/messages?after=0").json()
    shown = next(m["text"] for m in page["messages"] if m["id"] == error.pk)
    if language == "ko":
        assert "모델 서버에 연결할 수 없어요." in shown
        assert not _english(shown, office), shown
    else:
        assert "Could not reach the model server." in shown
    assert message_data(error).text == shown


@pytest.mark.parametrize(("language", "asked"), [("ko", "요청: "), ("en", "Asked: ")])
def test_the_summarys_digest_items_are_shown_in_the_readers_language(
    language: str, asked: str
) -> None:
    office, client = _office(language)
    channel = channel_of(office, ChannelKind.DM, _colleague(office))
    session = channel.sessions.get()
    add_finished_missions(session, 2)
    state = {
        "goal": "",
        "facts": [{"text": DIGEST_PREFIX + "보고서 초안을 써 줘", "missions": [1]}],
        "decisions": [{"text": "출시는 5월 20일", "missions": [2]}],
    }
    RollingSummary.objects.update_or_create(
        session=session, defaults={"state": state, "text": "x", "folded_through_seq": 2}
    )

    summary = client.get(f"/api/channels/{channel.pk}/summary").json()
    [fact] = summary["state"]["facts"]
    assert fact["text"] == asked + "보고서 초안을 써 줘"
    assert summary["state"]["decisions"][0]["text"] == "출시는 5월 20일"
    # The stored state keeps its marker: the fold and the verifier read it.
    stored = RollingSummary.objects.get(session=session).state
    assert stored["facts"][0]["text"].startswith(DIGEST_PREFIX)


@pytest.mark.parametrize(
    ("language", "missing", "no_plan"),
    [
        ("ko", "그런 채널이 없어요.", "이 미션에는 계획이 없어요."),
        ("en", "No such channel.", "This mission has no plan."),
    ],
)
def test_the_json_apis_refusals_are_in_the_persons_language(
    language: str, missing: str, no_plan: str
) -> None:
    office, client = _office(language)
    channel = channel_of(office, ChannelKind.DM, _colleague(office))
    accepted = instruction_accept(channel=channel, text="안녕" if language == "ko" else "hello")

    assert client.get("/api/channels/999999/summary").json()["detail"] == missing
    refused = client.get(f"/api/missions/{accepted.mission.pk}/plan")
    assert refused.status_code == 404 and refused.json()["message"] == no_plan
    empty = client.post(
        f"/api/channels/{channel.pk}/instructions",
        {"text": "   ", "client_id": "c-1"},
        content_type="application/json",
    ).json()
    if language == "ko":
        assert not _english(empty["message"], office), empty


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_sockets_error_frames_are_in_the_persons_language(language: str) -> None:
    office, _ = await database_sync_to_async(_office)(language)
    master = await database_sync_to_async(channel_of)(office, ChannelKind.MASTER)
    owner = await database_sync_to_async(lambda: office.owner)()
    connected, _, socket = await open_socket(master.pk, owner)
    assert connected
    try:
        frames = []
        for sent in (
            "{not json",
            json.dumps({"type": "dance"}),
            json.dumps({"type": "instruction", "text": "  ", "client_id": "c-2"}),
            json.dumps({"type": "mission.stop", "mission": 999999}),
        ):
            await socket.send_to(text_data=sent)
            frames.append(json.loads(await socket.receive_from(timeout=5)))
    finally:
        await socket.disconnect()

    assert [f["type"] for f in frames] == ["error"] * 4
    assert [f["code"] for f in frames] == ["bad_json", "unknown_type", "empty", "not_found"]
    messages = [f["message"] for f in frames]
    if language == "ko":
        assert messages[0] == "프레임이 올바른 JSON이 아니에요."
        assert messages[3] == "이 채널에 그런 미션이 없어요."
        types = [", ".join(CLIENT_FRAME_TYPES)]
        leftovers = {m: english_words(m, allowed=DATA_WORDS, data=types) for m in messages}
        assert not any(leftovers.values()), leftovers
    else:
        assert messages[0] == "The frame is not valid JSON."
        assert messages[3] == "No such mission in this channel."
