import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connections, transaction
from django.utils import translation

from missions.intake import instruction_accept
from missions.models import Message, Mission, MissionStatus
from missions.texts import message_text
from office.models import Channel
from office.selectors import channel_default_assignee
from sessions.models import ChatSession
from sessions.services import (
    LONG_SESSION_NOTICE,
    long_session_check_on_entry,
    long_session_check_on_instruction,
    session_get_or_open_current,
    session_start_new,
)
from tests.factories import channel_of, dm_channel, make_office, make_user
from tests.missions.helpers import frames_until
from tests.threads import at_once
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

ENGLISH = "💡 This conversation has grown long."
KOREAN = "💡 이 대화가 꽤 길어졌어요. 주제가 바뀌었다면 새 세션 시작하기를 추천해요."


def fill(channel: Channel, count: int) -> ChatSession:
    """A current session that already holds `count` finished missions."""
    session = session_get_or_open_current(channel=channel)
    assignee = channel_default_assignee(channel=channel)
    start = session.mission_count
    Mission.objects.bulk_create(
        Mission(
            session=session,
            channel=channel,
            seq=n,
            label=str(n),
            source="dm",
            assignee=assignee,
            instruction=f"Earlier task {n}",
            reply=f"Earlier answer {n}",
            status=MissionStatus.DONE,
        )
        for n in range(start + 1, start + count + 1)
    )
    ChatSession.objects.filter(pk=session.pk).update(mission_count=start + count)
    session.refresh_from_db()
    return session


def notices(channel: Channel) -> list[Message]:
    return list(Message.objects.filter(channel=channel, kind="notice").order_by("id"))


def test_19_missions_no_notice_the_20th_one_and_later_still_one() -> None:
    channel = dm_channel(make_office())
    fill(channel, 18)
    instruction_accept(channel=channel, text="nineteenth")
    assert notices(channel) == []
    instruction_accept(channel=channel, text="twentieth")
    [notice] = notices(channel)
    with translation.override("en"):
        assert message_text(notice).startswith(ENGLISH)
    assert notice.payload["action"]["type"] == "session.new"
    assert notice.payload["trigger"] == "instruction"
    twentieth = Message.objects.get(channel=channel, kind="user", text="twentieth")
    assert notice.payload["after_message"] == twentieth.pk
    # Directly under the instruction: before the reply in the timeline.
    reply = Message.objects.get(channel=channel, kind="employee", mission=twentieth.mission)
    assert twentieth.pk < notice.pk < reply.pk
    for n in range(3):
        instruction_accept(channel=channel, text=f"later {n}")
    assert len(notices(channel)) == 1
    long_session_check_on_entry(channel_id=channel.pk)
    assert len(notices(channel)) == 1


def test_the_notice_follows_the_users_language() -> None:
    from django.test import Client

    user = make_user()
    office = make_office(user)
    client = Client()
    client.force_login(user)
    assert client.post("/language/", {"language": "ko"}).status_code == 302
    office.refresh_from_db()
    assert office.language == "ko"
    channel = dm_channel(office)
    fill(channel, 20)
    assert long_session_check_on_entry(channel_id=channel.pk)
    [notice] = notices(channel)
    # What the person reads: the API (and the page) in their language.
    listed = client.get(f"/api/channels/{channel.pk}/messages?after=0").json()["messages"]
    [shown] = [m for m in listed if m["kind"] == "notice"]
    assert shown["text"].startswith(KOREAN)
    assert shown["payload"]["action"]["label"] == "새 세션 시작하기"
    assert notice.office_text == {"kind": "long_session"}
    with translation.override("en"):
        assert translation.gettext(LONG_SESSION_NOTICE).startswith(ENGLISH)


@pytest.mark.parametrize(
    "route", ["dm", "master", "all", "project", "delegation", "meeting_followup"]
)
def test_every_route_runs_the_check_on_instruction(route: str) -> None:
    office = make_office()
    theo_dm = dm_channel(office, "Theo")
    if route in ("delegation", "meeting_followup"):
        watched = theo_dm
        fill(watched, 19)
        if route == "delegation":
            instruction_accept(channel=channel_of(office, "master"), text="@Theo check the API")
        else:
            instruction_accept(
                channel=channel_of(office, "project"), text="Meeting notes\n- @Theo: check the API"
            )
    else:
        watched = theo_dm if route == "dm" else channel_of(office, route)
        fill(watched, 19)
        instruction_accept(channel=watched, text="One more thing")
    [notice] = notices(watched)
    assert notice.payload["trigger"] == "instruction"


def test_a_check_on_a_channel_without_a_session_creates_nothing() -> None:
    channel = dm_channel(make_office())
    channel.sessions.all().delete()
    assert long_session_check_on_entry(channel_id=channel.pk) is False
    assert ChatSession.objects.filter(channel=channel).count() == 0
    assert Message.objects.count() == 0
    assert long_session_check_on_instruction(mission_id=10**9) is False


def test_a_new_session_can_notify_again_at_20() -> None:
    channel = dm_channel(make_office())
    fill(channel, 20)
    assert long_session_check_on_entry(channel_id=channel.pk)
    new = session_start_new(channel=channel)
    assert new.number == 2 and new.long_notice_sent_at is None
    assert not long_session_check_on_entry(channel_id=channel.pk)
    fill(channel, 20)
    assert long_session_check_on_entry(channel_id=channel.pk)
    assert [n.session_id for n in notices(channel)] == [new.carried_over_from_id, new.pk]


@pytest.mark.postgres
def test_100_concurrent_checks_give_exactly_one_notice_each_time() -> None:
    office = make_office()
    channels = [dm_channel(office, name) for name in ("Theo", "Mara", "Iris", "Avery")]
    errors: list[BaseException] = []
    for round_ in range(20):
        channel = channels[round_ % len(channels)]
        if round_ >= len(channels):
            session_start_new(channel=channel)
        session = fill(channel, 20)
        mission = Mission.objects.filter(session=session).order_by("-seq").first()
        assert mission is not None
        start = threading.Barrier(100, timeout=30)

        def check(
            n: int,
            mission_id: int = mission.pk,
            channel_id: int = channel.pk,
            start: threading.Barrier = start,
        ) -> None:
            try:
                start.wait()
                if n % 2:
                    long_session_check_on_instruction(mission_id=mission_id)
                else:
                    long_session_check_on_entry(channel_id=channel_id)
            except BaseException as exc:
                errors.append(exc)
            finally:
                connections.close_all()

        threads = [threading.Thread(target=check, args=(n,)) for n in range(100)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors[:3]
        assert Message.objects.filter(session=session, kind="notice").count() == 1, round_


@pytest.mark.postgres
def test_two_concurrent_new_session_requests_start_one_session() -> None:
    channel = dm_channel(make_office())
    current = session_get_or_open_current(channel=channel)
    results = at_once(lambda: session_start_new(channel=channel, expected_session_id=current.pk))
    assert results[0].pk == results[1].pk
    assert ChatSession.objects.filter(channel=channel).count() == 2


def test_an_instruction_sent_while_a_new_session_starts_lands_in_the_new_session() -> None:
    """The accept reads the current session with its row lock: one closed while it waited
    is not written to (on PostgreSQL the old read-then-lock put it there)."""
    channel = dm_channel(make_office())
    old = session_get_or_open_current(channel=channel)
    started, release = threading.Event(), threading.Event()
    accepted: list[Any] = []

    def start_new() -> None:
        try:
            with transaction.atomic():
                session_start_new(channel=channel, expected_session_id=old.pk)
                started.set()
                release.wait(20)
        finally:
            connections.close_all()

    def send() -> None:
        try:
            accepted.append(instruction_accept(channel=channel, text="Draft the memo"))
        except BaseException as exc:
            accepted.append(exc)
        finally:
            connections.close_all()

    starter = threading.Thread(target=start_new)
    starter.start()
    assert started.wait(20)
    sender = threading.Thread(target=send)
    sender.start()
    sender.join(0.5)
    assert sender.is_alive()  # waiting for the session's lock
    release.set()
    starter.join(20)
    sender.join(20)
    [result] = accepted
    mission = Mission.objects.get(pk=result.mission.pk)
    new = ChatSession.objects.get(channel=channel, closed_at__isnull=True)
    assert new.pk != old.pk
    assert (mission.session_id, mission.seq) == (new.pk, 1)
    assert ChatSession.objects.get(pk=old.pk).mission_count == 0


@database_sync_to_async
def _channel_with(count: int):
    user = make_user()
    channel = dm_channel(make_office(user))
    fill(channel, count)
    return user, channel


async def test_the_entry_notice_arrives_right_after_connect() -> None:
    user, channel = await _channel_with(20)
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    frame = await socket.receive_json_from(timeout=5)
    assert frame["type"] == "notice"
    assert frame["message"]["payload"]["trigger"] == "entry"
    await socket.disconnect()
    # Reloading shows the saved notice; it does not notify again.
    _, _, again = await open_socket(channel.pk, user)
    assert await again.receive_nothing(timeout=0.3)
    await again.disconnect()


@pytest.mark.parametrize(
    ("missions", "told", "queued"), [(19, False, False), (20, False, True), (25, True, False)]
)
async def test_opening_a_channel_queues_the_entry_check_only_when_a_notice_can_follow(
    monkeypatch: pytest.MonkeyPatch, missions: int, told: bool, queued: bool
) -> None:
    """Every socket that opens would otherwise send a broker message (and a burst of
    reconnects would queue hundreds of checks that post nothing)."""
    import realtime.consumers

    sent: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(realtime.consumers, "queue_task", lambda name, *a: sent.append((name, a)))
    user, channel = await _channel_with(missions)
    if told:
        await database_sync_to_async(long_session_check_on_entry)(channel_id=channel.pk)
    connected, _, socket = await open_socket(channel.pk, user)
    assert connected
    await socket.send_json_to({"type": "ping"})
    assert (await socket.receive_json_from(timeout=5))["type"] == "pong"
    await socket.disconnect()
    expected = [("sessions.tasks.long_session_check_on_entry", (channel.pk,))] if queued else []
    assert sent == expected


def test_a_session_already_told_queues_no_more_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    import missions.creation

    channel = dm_channel(make_office())
    fill(channel, 24)
    assert long_session_check_on_entry(channel_id=channel.pk)
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(
        missions.creation, "queue_task_on_commit", lambda *args: queued.append(args)
    )
    instruction_accept(channel=channel, text="the twenty-fifth")
    assert queued == []
    session_start_new(channel=channel)
    fill(channel, 19)
    instruction_accept(channel=channel, text="다음 세션의 스무 번째")
    twentieth = Mission.objects.get(channel=channel, instruction="다음 세션의 스무 번째")
    assert queued == [("sessions.tasks.long_session_check_on_instruction", twentieth.pk)]


async def test_the_instruction_notice_arrives_after_that_instructions_frames() -> None:
    user, channel = await _channel_with(19)
    _, _, socket = await open_socket(channel.pk, user)
    assert await socket.receive_nothing(timeout=0.2)
    await socket.send_json_to({"type": "instruction", "text": "the twentieth"})
    frames = await frames_until(socket, "reply.done")
    await socket.disconnect()
    types = [f["type"] for f in frames]
    assert types[0] == "message" and frames[0]["message"]["text"] == "the twentieth"
    assert types[1] == "notice" and types.count("notice") == 1
    assert frames[1]["message"]["payload"]["after_message"] == frames[0]["message"]["id"]


async def test_session_new_over_the_socket_starts_the_next_session() -> None:
    user, channel = await _channel_with(3)
    _, _, socket = await open_socket(channel.pk, user)
    session = await database_sync_to_async(session_get_or_open_current)(channel=channel)
    await socket.send_json_to({"type": "session.new", "session_id": session.pk})
    await socket.send_json_to({"type": "session.new", "session_id": session.pk})
    frame = await socket.receive_json_from(timeout=5)
    assert frame["type"] == "session.started" and frame["session"]["number"] == 2
    assert await socket.receive_nothing(timeout=0.3)
    await socket.disconnect()
    count = await database_sync_to_async(ChatSession.objects.filter(channel=channel).count)()
    assert count == 2
