"""A person's own settings: the channels they muted (kept on the server, handed to the
chat page) and the time zone their times are shown in: the pages and the admin, and the
prompts of their office's replies (so a reply's "at 3 pm" is theirs)."""

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from llm.base import ChatStream
from missions.intake import instruction_accept
from office.models import ChannelKind, ChannelMute, Office, Profile
from office.services import user_set_language, user_set_time_zone
from tests.factories import channel_of, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def _boot(client: Client, channel_id: int) -> dict[str, Any]:
    page = client.get(f"/c/{channel_id}/").content.decode()
    found = re.search(r'<script id="boot" type="application/json">(.*?)</script>', page, re.S)
    assert found
    return dict(json.loads(found.group(1)))


def _signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- mute --------------------------------------------------------------------------------


def test_a_person_mutes_a_channel_and_the_chat_page_knows_it_until_they_unmute() -> None:
    user = make_user("hana")
    office = make_office(user)
    client = _signed_in(user)
    project = channel_of(office, ChannelKind.PROJECT)
    master = channel_of(office, ChannelKind.MASTER)

    muted = client.put(
        f"/api/channels/{project.pk}/mute", {"muted": True}, content_type="application/json"
    )
    assert muted.status_code == 200 and muted.json() == {"channel": project.pk, "muted": True}
    again = client.put(
        f"/api/channels/{project.pk}/mute", {"muted": True}, content_type="application/json"
    )
    assert again.status_code == 200
    assert list(ChannelMute.objects.values_list("user_id", "channel_id")) == [(user.pk, project.pk)]
    # Every page of the office knows which channels are muted (the sidebar marks them).
    assert _boot(client, master.pk)["muted"] == [project.pk]

    client.put(
        f"/api/channels/{project.pk}/mute", {"muted": False}, content_type="application/json"
    )
    assert not ChannelMute.objects.exists()
    assert _boot(client, master.pk)["muted"] == []


@pytest.mark.parametrize(
    ("language", "missing"), [("ko", "그런 채널이 없어요."), ("en", "No such channel.")]
)
def test_a_mute_is_the_persons_own_and_another_offices_channel_is_not_found(
    language: str, missing: str
) -> None:
    owner, other = make_user("owner"), make_user("other")
    office = make_office(owner)
    make_office(other, name="Other office")
    user_set_language(user=other, language=language)
    project = channel_of(office, ChannelKind.PROJECT)
    client = _signed_in(other)

    refused = client.put(
        f"/api/channels/{project.pk}/mute", {"muted": True}, content_type="application/json"
    )
    assert refused.status_code == 404 and refused.json()["detail"] == missing
    assert not ChannelMute.objects.exists()
    # The owner's page does not show another person's mute.
    _signed_in(other).put(
        f"/api/channels/{channel_of(Office.objects.get(owner=other), ChannelKind.MASTER).pk}/mute",
        {"muted": True},
        content_type="application/json",
    )
    assert _boot(_signed_in(owner), project.pk)["muted"] == []


# --- time zone ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "refusal"), [("ko", "알 수 없는 시간대예요."), ("en", "Unknown time zone.")]
)
def test_a_person_sets_their_time_zone_and_an_unknown_one_is_refused(
    language: str, refusal: str
) -> None:
    user = make_user("minji")
    make_office(user)
    user_set_language(user=user, language=language)
    client = _signed_in(user)

    saved = client.put("/api/me/time_zone", {"time_zone": "Asia/Seoul"}, "application/json")
    assert saved.status_code == 200 and saved.json() == {"time_zone": "Asia/Seoul"}
    bad = client.put("/api/me/time_zone", {"time_zone": "Mars/Olympus"}, "application/json")
    assert bad.status_code == 400 and bad.json()["message"] == refusal
    assert Profile.objects.get(user=user).time_zone == "Asia/Seoul"
    # The home page's form too; blank goes back to the browser's.
    page = client.post("/time-zone/", {"time_zone": "Europe/Nowhere"}, follow=True)
    assert refusal in page.content.decode()
    client.post("/time-zone/", {"time_zone": ""})
    assert Profile.objects.get(user=user).time_zone == ""


def test_the_admin_shows_times_in_the_persons_zone_chosen_or_from_the_browser() -> None:
    admin = User.objects.create_superuser("root", password="pw-for-tests-1")
    office = make_office(admin, name="Harbor")
    Office.objects.filter(pk=office.pk).update(created_at=datetime(2026, 12, 1, 15, 30, tzinfo=UTC))
    client = _signed_in(admin)

    def shown() -> str:
        return client.get("/admin/office/office/").content.decode()

    assert "Dec. 1, 2026, 3:30 p.m." in shown()  # the server's default, UTC
    client.cookies["tz"] = "America/New_York"  # what the page's script says the browser uses
    assert "Dec. 1, 2026, 10:30 a.m." in shown()
    client.cookies["tz"] = "Nowhere/Else"
    assert "Dec. 1, 2026, 3:30 p.m." in shown()
    user_set_time_zone(user=admin, time_zone="Asia/Seoul")  # a choice wins over the browser
    client.cookies["tz"] = "America/New_York"
    assert "Dec. 2, 2026, 12:30 a.m." in shown()


@pytest.mark.parametrize(("zone", "written"), [("Asia/Seoul", "KST"), ("", "UTC")])
def test_a_reply_is_asked_with_times_in_the_owners_zone(
    zone: str, written: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompts: list[str] = []

    class Recording:
        calls_tools = False

        def stream_chat(self, *, messages: list[dict[str, Any]], **_: Any) -> ChatStream:
            prompts.append("\n".join(str(m["content"]) for m in messages))
            return ChatStream(pieces=iter(["네, 알겠어요."]))

    monkeypatch.setattr("missions.run.get_provider", lambda: Recording())
    owner = make_user("jiwoo")
    office = make_office(owner)
    if zone:
        user_set_time_zone(user=owner, time_zone=zone)
    channel = channel_of(office, ChannelKind.DM, "Theo")
    instruction_accept(channel=channel, text="내일 오후 3시 회의 잡아 줘")
    instruction_accept(channel=channel, text="회의 시간 다시 알려 줘")

    assert len(prompts) == 2
    stamps = re.findall(r"mission #\d+ · \d{4}-\d\d-\d\d \d\d:\d\d (\w+)\]", prompts[1])
    assert stamps and set(stamps) == {written}, prompts[1]
