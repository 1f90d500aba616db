"""A meeting follow-up lands in the employee's 1:1 as the office's words on behalf of the
meeting notes it came from, with a link back to them: never as if the person had typed
it there. Checked on the page, in the socket's frame and the JSON API, in English and
Korean, and for follow-ups saved before they carried their source (the migration)."""

import json
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from missions.intake import instruction_accept
from missions.models import Message, MessageKind, Mission, MissionSource
from missions.timeline import message_data
from office.services import user_set_language
from sessions.models import ChatSession
from tests.factories import channel_of, dm_channel, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)

NOTES = "Meeting notes\n- agreed on the launch date\n- @Theo: fix the login bug LB-7"


def _boot(html: str, name: str = "boot") -> Any:
    return json.loads(html.split(f'id="{name}" type="application/json">')[1].split("</script>")[0])


@pytest.fixture
def owner() -> Any:
    user = make_user()
    make_office(user)
    return user


def _notes_sent(owner: Any) -> tuple[Mission, Mission]:
    office = owner.offices.get()
    project = channel_of(office, "project")
    # Two earlier instructions: the notes are #3 of the project, the follow-up #1 of Theo's.
    instruction_accept(channel=project, text="first")
    instruction_accept(channel=project, text="second")
    notes = instruction_accept(channel=project, text=NOTES).mission
    followup = Mission.objects.get(source=MissionSource.MEETING_FOLLOWUP)
    return notes, followup


def test_the_follow_up_message_names_the_office_and_links_back_to_the_notes(owner: Any) -> None:
    notes, followup = _notes_sent(owner)
    assert notes.seq == 3
    assert followup.parent_id == notes.pk and followup.channel == dm_channel(owner.offices.get())
    shown = Message.objects.get(mission=followup, kind=MessageKind.USER)
    data = message_data(shown).model_dump(mode="json")
    assert data["text"] == "fix the login bug LB-7"
    assert data["payload"]["written_by"] == "office"
    assert data["payload"]["follow_up_of"] == 3
    assert data["payload"]["from_url"] == f"/c/{notes.channel_id}/#mission-3"
    # The person's own instruction in the project carries none of it.
    own = Message.objects.get(mission=notes, kind=MessageKind.USER)
    assert "written_by" not in own.payload and "follow_up_of" not in own.payload


@pytest.mark.parametrize(
    ("language", "label", "link"),
    [
        ("en", "The office · follow-up from the meeting notes of #{seq}", "Open the meeting notes"),
        ("ko", "사무실 · #{seq} 회의록에서 나온 후속 업무", "회의록 열기"),
    ],
)
def test_the_one_to_one_page_hands_the_script_the_attribution_and_the_link(
    owner: Any, language: str, label: str, link: str
) -> None:
    user_set_language(user=owner, language=language)
    notes, followup = _notes_sent(owner)
    client = Client()
    client.force_login(owner)
    html = client.get(f"/c/{followup.channel_id}/").content.decode()
    boot, ui = _boot(html), _boot(html, "ui")
    shown = [m for m in boot["messages"] if m["kind"] == "user"]
    assert [m["payload"]["follow_up_of"] for m in shown] == [notes.seq]
    assert shown[0]["payload"]["from_url"] == f"/c/{notes.channel_id}/#mission-{notes.seq}"
    assert ui["follow_up_from"] == label
    assert ui["back_to_notes"] == link
    # The API a non-browser client reads says the same.
    api = client.get(f"/api/channels/{followup.channel_id}/messages").json()
    rows = api["messages"] if isinstance(api, dict) else api
    assert [m["payload"].get("follow_up_of") for m in rows if m["kind"] == "user"] == [notes.seq]


def test_follow_ups_saved_before_get_their_source_from_the_migration(owner: Any) -> None:
    notes, followup = _notes_sent(owner)
    shown = Message.objects.get(mission=followup, kind=MessageKind.USER)
    Message.objects.filter(pk=shown.pk).update(payload={"seq": 1, "assignee": "Theo"})
    executor = MigrationExecutor(connection)
    executor.migrate([("missions", "0009_translated_labels")])
    executor.loader.build_graph()
    executor.migrate([("missions", "0010_followups_shown_as_the_offices")])
    # The later migrations back, so the tests after this one find today's schema.
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    shown.refresh_from_db()
    assert shown.payload == {
        "seq": 1,
        "assignee": "Theo",
        "written_by": "office",
        "follow_up_of": notes.seq,
        "from_channel": notes.channel_id,
        "from_url": f"/c/{notes.channel_id}/#mission-{notes.seq}",
        # The numbers a person sees, given by the migration that introduced them.
        "label": "1",
        "follow_up_label": notes.label,
    }
    assert ChatSession.objects.filter(channel_id=followup.channel_id).count() == 1
