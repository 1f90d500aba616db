"""What the office says (errors, events, notices) is stored as a kind and its parameters
and rendered from the translation catalogue in the reader's language: on the page, in
the JSON API and in the socket's frames. No wording is stored, and the chat script
matches none."""

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client

from missions.intake import instruction_accept
from missions.lifecycle import mission_fail
from missions.models import Message, MessageKind, Mission, MissionSource
from missions.queueing import mission_mark_delayed
from missions.texts import KINDS, LEGACY
from missions.timeline import message_post
from office.models import Channel, ChannelKind, Profile
from sessions.selectors import session_current
from tests.factories import channel_of, dm_channel, make_office, make_user
from tests.missions.helpers import frames_until
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]

NOTICE = {
    "en": "💡 This conversation has grown long. If the topic has changed, we recommend starting "
    "a new session: answers get more accurate and AI costs drop. If you continue, the earlier "
    "flow is kept as a summary.",
    "ko": "💡 이 대화가 꽤 길어졌어요. 주제가 바뀌었다면 새 세션 시작하기를 추천해요. 응답이 더 "
    "정확해지고 AI 사용료도 줄어듭니다. 이어서 진행해도 이전 흐름은 요약으로 유지돼요.",
}

# kind: (message kind, stored data, what an English reader sees, what a Korean reader sees)
CASES: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "could_not_answer": (
        MessageKind.ERROR,
        {"employee": "Theo", "error": "The model timed out."},
        "Theo could not answer: The model timed out.",
        "Theo이(가) 답하지 못했어요: The model timed out.",
    ),
    "reported_back": (
        MessageKind.EVENT,
        {"employee": "Theo", "excerpt": "배너 완료했어요."},
        "Theo reported back: 배너 완료했어요.",
        "Theo의 보고: 배너 완료했어요.",
    ),
    "follow_up": (
        MessageKind.EVENT,
        {"employee": "Iris", "task": "send the deck"},
        "Follow-up for Iris: send the deck",
        "Iris의 후속 작업: send the deck",
    ),
    "unknown_mention": (
        MessageKind.EVENT,
        {"names": ["Nova", "Rex"]},
        "No one called @Nova works here. No one called @Rex works here.",
        "여기에는 @Nova(이)라는 직원이 없어요. 여기에는 @Rex(이)라는 직원이 없어요.",
    ),
    "plan": (
        MessageKind.EVENT,
        {
            "seq": 3,
            "parts": [
                {"employee": "Iris", "task": "draft the banner"},
                {"employee": "Theo", "task": "폼 연결"},
            ],
        },
        "Plan of mission #3: Iris: draft the banner; Theo: 폼 연결",
        "미션 #3의 계획: Iris: draft the banner; Theo: 폼 연결",
    ),
    "synthesis_started": (
        MessageKind.EVENT,
        {"employee": "Avery"},
        "Avery is putting the team's results together.",
        "Avery이(가) 팀의 결과를 정리하고 있어요.",
    ),
    "delayed": (
        MessageKind.EVENT,
        {"employee": "Theo"},
        "Delayed: Theo will answer as soon as the task queue is reachable again. Your "
        "instruction is saved.",
        "지연됨: 작업 대기열에 다시 연결되는 대로 Theo이(가) 답할 거예요. 지시는 저장되어 있어요.",
    ),
    "long_session": (MessageKind.NOTICE, {}, NOTICE["en"], NOTICE["ko"]),
    "looked_up": (
        MessageKind.EVENT,
        {"employee": "Theo", "query": "원두 단가", "found": ["#3", "#7"], "more": 2},
        "Theo searched the history for “원두 단가”: #3, #7 and 2 more",
        "Theo님이 이전 기록에서 “원두 단가”을(를) 찾아봤어요: #3, #7 외 2건",
    ),
    "read_back": (
        MessageKind.EVENT,
        {"employee": "Iris", "number": "#12"},
        "Iris read mission #12 again",
        "Iris님이 미션 #12을(를) 다시 읽었어요",
    ),
    # From before texts were data: shown as it was stored, in any language.
    LEGACY: (MessageKind.EVENT, {}, "Kept as it was written.", "Kept as it was written."),
}
LANGUAGES = ("en", "ko")


def _expected(kind: str, language: str) -> str:
    _, _, english, korean = CASES[kind]
    return english if language == "en" else korean


def _reader(language: str) -> tuple[User, Channel]:
    """A person who chose `language` for themselves, in an office set to the other one:
    the reader's own choice decides."""
    user = make_user()
    office = make_office(user)
    office.language = "ko" if language == "en" else "en"
    office.save(update_fields=["language"])
    Profile.objects.create(user=user, language=language)
    return user, dm_channel(office)


def _post(channel: Channel, kind: str) -> Message:
    message_kind, params, english, _ = CASES[kind]
    session = session_current(channel=channel)
    assert session is not None
    with transaction.atomic():
        return message_post(
            channel_id=channel.pk,
            session_id=session.pk,
            kind=message_kind,
            text=english if kind == LEGACY else "",
            office_text={"kind": kind, **params},
            payload={"event": kind},
        )


def _boot_messages(page: str) -> list[dict[str, Any]]:
    found = re.search(r'<script id="boot" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None
    return list(json.loads(html.unescape(found.group(1)))["messages"])


def test_every_kind_the_office_writes_has_a_case_here() -> None:
    assert set(CASES) == KINDS | {LEGACY}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", sorted(CASES))
def test_the_page_and_the_api_show_it_in_the_readers_language(kind: str, language: str) -> None:
    user, channel = _reader(language)
    message = _post(channel, kind)
    client = Client()
    client.force_login(user)

    [shown] = _boot_messages(client.get(f"/c/{channel.pk}/").content.decode())
    assert shown["text"] == _expected(kind, language)

    listed = client.get(f"/api/channels/{channel.pk}/messages?after=0").json()["messages"]
    [entry] = [m for m in listed if m["id"] == message.pk]
    assert entry["text"] == _expected(kind, language)
    assert entry["office_text"]["kind"] == kind


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", sorted(CASES))
async def test_the_socket_frame_says_it_in_the_readers_language(kind: str, language: str) -> None:
    user, channel = await database_sync_to_async(_reader)(language)
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    try:
        await database_sync_to_async(_post)(channel, kind)
        frame_type = "notice" if CASES[kind][0] == MessageKind.NOTICE else "message"
        [frame] = [f for f in await frames_until(socket, frame_type) if f["type"] == frame_type]
        assert frame["message"]["text"] == _expected(kind, language)
        assert frame["message"]["office_text"]["kind"] == kind
    finally:
        await socket.disconnect()


def test_the_notices_action_is_labelled_in_the_readers_language() -> None:
    for language, label in (("en", "Start new session"), ("ko", "새 세션 시작하기")):
        user, channel = _reader(language)
        session = session_current(channel=channel)
        assert session is not None
        message_post(
            channel_id=channel.pk,
            session_id=session.pk,
            kind=MessageKind.NOTICE,
            office_text={"kind": "long_session"},
            payload={"action": {"type": "session.new", "session_id": session.pk}},
        )
        client = Client()
        client.force_login(user)
        [entry] = client.get(f"/api/channels/{channel.pk}/messages?after=0").json()["messages"]
        assert entry["payload"]["action"]["label"] == label


def _office_entries(channel_ids: list[int]) -> list[Message]:
    return list(
        Message.objects.filter(
            channel_id__in=channel_ids,
            kind__in=[MessageKind.EVENT, MessageKind.ERROR, MessageKind.NOTICE],
        ).order_by("id")
    )


def test_what_the_office_writes_is_stored_as_a_kind_and_its_parameters(settings: Any) -> None:
    settings.LLM_PROVIDER = "offline"
    user = make_user()
    office = make_office(user)
    master = channel_of(office, ChannelKind.MASTER)
    project = channel_of(office, ChannelKind.PROJECT)
    # A plan from @mentions (its card, then the synthesis), an unknown name; meeting notes
    # (a follow-up, and its report once answered).
    plan = instruction_accept(
        channel=master, text="@Iris draft the banner. @Theo wire the form. @Nova check."
    ).mission
    notes = instruction_accept(channel=project, text="Meeting notes\n- @Iris: send the deck")
    theo = dm_channel(office, "Theo")
    failed = instruction_accept(channel=theo, text="Summarize the week").mission
    mission_fail(mission=failed, code="provider_error", message="The model timed out.")
    mission_mark_delayed(mission_id=failed.pk)

    entries = _office_entries([master.pk, project.pk, theo.pk])
    by_kind = {m.office_text["kind"]: m for m in entries}
    assert set(by_kind) >= {
        "plan",
        "synthesis_started",
        "unknown_mention",
        "follow_up",
        "reported_back",
        "could_not_answer",
        "delayed",
    }
    # No wording is stored for any of them: only data, rendered when shown.
    assert [m.text for m in entries] == [""] * len(entries)
    iris, theo_part = Mission.objects.filter(parent=plan, source=MissionSource.DELEGATION).order_by(
        "id"
    )
    assert by_kind["plan"].office_text == {
        "kind": "plan",
        "seq": plan.seq,
        "label": plan.label,
        "parts": [
            {"employee": "Iris", "task": iris.instruction[:80]},
            {"employee": "Theo", "task": theo_part.instruction[:80]},
        ],
    }
    assert by_kind["unknown_mention"].office_text["names"] == ["Nova"]
    assert by_kind["follow_up"].office_text == {
        "kind": "follow_up",
        "employee": "Iris",
        "task": "send the deck",
    }
    assert by_kind["follow_up"].mission_id == notes.mission.pk
    assert by_kind["could_not_answer"].office_text == {
        "kind": "could_not_answer",
        "employee": "Theo",
        "error": "The model timed out.",
    }


def test_the_chat_script_matches_no_wording_of_the_office() -> None:
    script = (ROOT / "static" / "office" / "chat.js").read_text(encoding="utf-8")
    for english in ("could not answer", "reported back", "Follow-up for", "Delegated to"):
        assert english not in script
    # What the office says is shown as the server rendered it.
    assert "body.textContent = message.text;" in script
