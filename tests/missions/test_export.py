"""Export of a conversation (JSON and Markdown) and its import into another office."""

import json
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memory.models import MemoryItem, MemoryKind, MemoryOrigin, MemoryScope
from memory.services import memory_item_create, memory_target
from missions.attachments import attachment_extract, attachment_upload, attachments_take
from missions.export import ChannelExport
from missions.models import Attachment, Message, Mission, MissionAttempt, MissionStatus
from office.models import Channel, ChannelKind, Office
from office.services import user_set_time_zone
from sessions.selectors import session_current
from tests.factories import add_finished_missions, dm_channel, make_office, make_user, next_context

pytestmark = pytest.mark.django_db(transaction=True)

TALK = {
    "ko": [
        ("원두 납품처 후보 정리해 줘", "빈스토리와 커피랩 두 곳이 후보예요."),
        (
            "시즌 블렌드 가격은 1kg 24,000원으로 정했어요. 공지 초안 써 줘",
            "공지 초안입니다: 24,000원",
        ),
        ("인스타 게시 시간 추천해 줘", "저녁 7시를 추천해요."),
    ],
    "en": [
        ("List the bean supplier candidates", "Two candidates: Bean Story and Coffee Lab."),
        ("We set the seasonal blend at $24 per bag. Draft the notice", "Notice draft: $24."),
        ("When should we post on Instagram?", "I suggest 7pm."),
    ],
}
MEMORY = {"ko": "앞으로 보고서는 항상 한국어로 써요.", "en": "Reports are always in English."}
HEADINGS = {"ko": ("세션 1", "요약", "메모리"), "en": ("Session 1", "Summary", "Memory")}
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 40


def _office(language: str) -> tuple[Any, Office, Channel]:
    user = make_user()
    office = make_office(user)
    Office.objects.filter(pk=office.pk).update(language=language)
    office.refresh_from_db()
    channel = dm_channel(office)
    session = session_current(channel=channel)
    assert session is not None
    talk = TALK[language]
    made = add_finished_missions(session, len(talk), text=lambda n: talk[n - 1])
    MissionAttempt.objects.create(
        mission=made[0], number=1, reply="(first try)", status=MissionStatus.DONE
    )
    memory_item_create(
        target=memory_target(office=office, scope=MemoryScope.OFFICE),
        kind=MemoryKind.RULE,
        text=MEMORY[language],
        origin=MemoryOrigin.USER,
        pinned=True,
    )
    return user, office, channel


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _export(client: Client, channel: Channel, **query: Any) -> Any:
    return client.get(f"/api/channels/{channel.pk}/export", query)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_session_exports_as_json_with_its_missions_attempts_and_memory(language: str) -> None:
    user, _, channel = _office(language)
    session = session_current(channel=channel)
    assert session is not None
    response = _export(_client(user), channel, format="json", session=session.pk)
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="channel-{channel.pk}-session-1.json"'
    )
    data = ChannelExport.model_validate_json(response.content)
    rows = list(Mission.objects.filter(session=session).order_by("seq"))
    exported = data.sessions[0].missions
    assert [(m.instruction, m.reply) for m in exported] == [(r.instruction, r.reply) for r in rows]
    assert [m.label for m in exported] == [r.label for r in rows]
    assert [a.reply for a in exported[0].earlier_attempts] == ["(first try)"]
    assert exported[0].assignee == "Theo" and data.channel.employee == "Theo"
    # The memory the channel's work reads: the pinned rule, and what extraction took from
    # the person's words ("…24,000원으로 정했어요").
    shown = MemoryItem.objects.filter(active=True, office__owner=user)
    assert sorted((i.text, i.pinned, i.kind) for i in data.memory) == sorted(
        (i.text, i.pinned, i.kind) for i in shown
    )
    assert (MEMORY[language], True, "rule") in [(i.text, i.pinned, i.kind) for i in data.memory]
    assert data.language == language


@pytest.mark.parametrize("language", ["ko", "en"])
def test_markdown_is_in_the_persons_language_and_time_zone(language: str) -> None:
    user, _, channel = _office(language)
    user_set_time_zone(user=user, time_zone="Asia/Seoul")
    response = _export(_client(user), channel, format="markdown")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/markdown")
    text = response.content.decode()
    session, _summary, memory = HEADINGS[language]
    assert f"## {session}" in text and f"## {memory}" in text
    for instruction, reply in TALK[language]:
        assert f"> {instruction}" in text and reply in text
    assert "KST" in text and "UTC" not in text
    # The first mission's earlier attempt comes before its current reply.
    assert text.index("(first try)") < text.index(TALK[language][0][1])


def test_an_export_of_another_owners_channel_is_404_as_for_none() -> None:
    _, _, channel = _office("en")
    stranger = _client(make_user())
    assert _export(stranger, channel).status_code == 404
    assert stranger.get("/api/channels/999999/export").status_code == 404


def test_an_unknown_format_or_session_gets_a_clear_error() -> None:
    user, _, channel = _office("en")
    client = _client(user)
    assert _export(client, channel, format="pdf").status_code == 400
    assert _export(client, channel, session=999_999).status_code == 404


def test_an_export_reads_as_many_queries_for_30_missions_as_for_3() -> None:
    def count(extra: int) -> int:
        user, _, channel = _office("en")
        session = session_current(channel=channel)
        assert session is not None
        add_finished_missions(session, extra)
        client = _client(user)
        with CaptureQueriesContext(connection) as queries:
            assert _export(client, channel).status_code == 200
        return len(queries)

    assert count(0) == count(27)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_an_export_imports_into_another_office_where_its_history_is_recalled(
    language: str,
) -> None:
    user, _, channel = _office(language)
    body = _export(_client(user), channel, format="json").content
    other = make_user()
    other_office = make_office(other)
    response = _client(other).post("/api/office/import", body, content_type="application/json")
    assert response.status_code == 201, response.content
    imported = Channel.objects.get(pk=response.json()["channel"])
    assert imported.office_id == other_office.pk and imported.kind == ChannelKind.PROJECT
    assert response.json()["missions"] == len(TALK[language])
    missions = list(Mission.objects.filter(channel=imported).order_by("seq"))
    assert [(m.instruction, m.reply) for m in missions] == TALK[language]
    assert {m.assignee.name for m in missions if m.assignee} == {"Theo"}
    timeline = Message.objects.filter(channel=imported).order_by("id")
    assert [m.kind for m in timeline] == ["user", "employee"] * len(TALK[language])
    item = MemoryItem.objects.get(channel=imported, text=MEMORY[language])
    assert item.text == MEMORY[language] and item.pinned and item.origin == MemoryOrigin.USER
    # The new office's next mission reads the imported history.
    prompt = "\n".join(
        m["content"]
        for m in next_context(channel=imported, instruction=TALK[language][1][0]).messages
    )
    assert "24" in prompt and MEMORY[language] in prompt


def test_a_bad_import_is_refused_with_a_reason_and_leaves_nothing() -> None:
    user, _, channel = _office("en")
    data = json.loads(_export(_client(user), channel, format="json").content)
    data["sessions"][0]["missions"][1]["reply"] = "bad\x00reply"
    other = make_user()
    make_office(other)
    before = Channel.objects.count()
    response = _client(other).post("/api/office/import", data, content_type="application/json")
    assert response.status_code == 400
    assert "NUL" in response.json()["message"]
    assert Channel.objects.count() == before
    wrong = _client(other).post(
        "/api/office/import", {"format": "something-else"}, content_type="application/json"
    )
    assert wrong.status_code == 422


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_office_page_imports_an_exported_file_into_a_new_project(language: str) -> None:
    import io

    from django.contrib.messages import get_messages

    user, _, channel = _office(language)
    body = _export(_client(user), channel, format="json").content
    other = make_user()
    other_office = make_office(other)
    Office.objects.filter(pk=other_office.pk).update(language=language)
    client = _client(other)
    page = client.get("/")
    assert 'action="/import/"' in page.content.decode() and 'enctype="multipart/form-data"' in (
        page.content.decode()
    )
    projects = set(Channel.objects.filter(office=other_office).values_list("pk", flat=True))
    upload = io.BytesIO(body)
    upload.name = "channel-1.json"
    response = client.post("/import/", {"file": upload})
    imported = Channel.objects.filter(office=other_office).exclude(pk__in=projects).get()
    assert imported.kind == ChannelKind.PROJECT
    assert response.status_code == 302 and response["Location"] == f"/c/{imported.pk}/"
    missions = Mission.objects.filter(channel=imported).order_by("seq")
    assert [(m.instruction, m.reply) for m in missions] == TALK[language]
    # A file that is not an export: said so, in the person's language, and nothing made.
    bad = io.BytesIO(b'{"not": "an export"}')
    bad.name = "notes.json"
    refused = client.post("/import/", {"file": bad}, follow=True)
    said = [str(m) for m in get_messages(refused.wsgi_request)] or [refused.content.decode()]
    assert any("notes.json" in s for s in said)
    expected = "내보내기 파일이 아닙니다" if language == "ko" else "It is not an export"
    assert expected in refused.content.decode()
    assert Channel.objects.filter(office=other_office).count() == len(projects) + 1


FILES = {
    "ko": (
        "납품가.csv",
        "품목,납품가\n시즌 블렌드 1kg,18,700원\n디카페인 1kg,21,300원\n",
        "디카페인 납품가 얼마였지?",
        "21,300원",
    ),
    "en": (
        "wholesale.csv",
        "item,price\nSeasonal blend 1kg,$18.70\nDecaf 1kg,$21.30\n",
        "What was the wholesale price of the decaf?",
        "$21.30",
    ),
}


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_files_of_a_mission_travel_by_their_text_and_are_recalled_after_the_import(
    language: str,
) -> None:
    name, content, question, answer = FILES[language]
    user, _, channel = _office(language)
    first = Mission.objects.filter(channel=channel).order_by("seq").first()
    assert first is not None
    upload = attachment_upload(
        channel=channel, user_id=user.pk, name=name, data=content.encode("utf-8")
    )
    picture = attachment_upload(channel=channel, user_id=user.pk, name="logo.png", data=PNG)
    attachments_take(mission=first, attachments=[upload, picture])
    attachment_extract(attachment_id=upload.pk)
    client = _client(user)
    markdown = _export(client, channel, format="markdown").content.decode()
    assert name in markdown and "logo.png" in markdown
    body = _export(client, channel, format="json").content
    exported = ChannelExport.model_validate_json(body).sessions[0].missions[0].attachments
    text = content.strip()  # as extracted
    assert [(f.name, f.kind, f.text) for f in exported] == [
        (name, "csv", text),
        ("logo.png", "image", ""),
    ]
    # Into another office: the file's text comes with its mission, the image does not.
    other = make_user()
    make_office(other)
    response = _client(other).post("/api/office/import", body, content_type="application/json")
    assert response.status_code == 201, response.content
    imported = Channel.objects.get(pk=response.json()["channel"])
    mission = Mission.objects.filter(channel=imported).order_by("seq").first()
    assert mission is not None and mission.attachment_count == 1
    [file] = Attachment.objects.filter(mission=mission)
    assert (file.name, file.kind, file.text, bytes(file.data)) == (
        name,
        "csv",
        text,
        text.encode("utf-8"),
    )
    prompt = "\n".join(
        m["content"] for m in next_context(channel=imported, instruction=question).messages
    )
    assert f"«{name}»" in prompt and answer in prompt


def test_an_import_with_a_file_no_export_writes_is_refused_whole() -> None:
    user, _, channel = _office("en")
    data = json.loads(_export(_client(user), channel, format="json").content)
    data["sessions"][0]["missions"][0]["attachments"] = [
        {
            "name": "x.exe",
            "kind": "program",
            "content_type": "x",
            "size": 1,
            "sha256": "",
            "text": "x",
        }
    ]
    other = make_user()
    make_office(other)
    before = Channel.objects.count()
    response = _client(other).post("/api/office/import", data, content_type="application/json")
    assert response.status_code == 400
    assert "x.exe" in response.json()["message"]
    assert Channel.objects.count() == before
