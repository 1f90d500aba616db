"""Several people in one office: the owner invites with a link that works once; whoever
joins works in every channel (their instructions named, theirs alone to edit, counted
against their own limit) and hears of every reply; only the owner runs the office; a
person taken out loses it at once, open sockets included."""

import contextlib
import re
import threading
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from missions.intake import InstructionRejected, instruction_accept
from missions.models import Message, Mission
from missions.timeline import message_data
from office.models import ChannelKind, Office, OfficeInvitation, OfficeMember
from office.people import services
from office.people.services import PeopleError, invitation_accept, invitation_create, member_remove
from office.selectors import channel_get_for_user, office_get_for_user
from tests.factories import channel_of, dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, last_user_text
from tests.threads import at_once
from tests.ws import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

LINK = re.compile(r'id="invite-link" value="(?P<link>[^"]+)"')


def _client(user: User, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def _invite(owner_client: Client) -> str:
    """The path of a new invitation link, as the office page shows it once: the POST
    sends the owner back to the page, and a reload shows it no more and makes no other."""
    made = OfficeInvitation.objects.count()
    response = owner_client.post("/people/invite/")
    assert response.status_code == 302 and response["Location"] == "/"
    found = LINK.search(owner_client.get("/").content.decode())
    assert found is not None, "the office page shows the new link"
    assert LINK.search(owner_client.get("/").content.decode()) is None
    assert OfficeInvitation.objects.count() == made + 1
    return "/" + found["link"].split("/", 3)[3]


def _office_with_member() -> tuple[User, User, Office]:
    owner, member = make_user("owner"), make_user("minji")
    office = make_office(owner)
    invitation = invitation_create(office=office, by=owner)
    invitation_accept(secret=invitation.secret, user=member)
    return owner, member, office


@pytest.mark.parametrize(
    ("language", "joined"), [("en", "You joined Test office."), ("ko", "Test office에 합류했어요.")]
)
def test_a_link_the_owner_makes_lets_one_person_join_once(language: str, joined: str) -> None:
    owner, member, stranger = make_user("owner"), make_user("minji"), make_user("stranger")
    office = make_office(owner)
    path = _invite(_client(owner, language))
    member_client = _client(member, language)

    page = member_client.get(path)
    assert page.status_code == 200
    assert "Test office" in page.content.decode() and "owner" in page.content.decode()
    title = "Join Test office" if language == "en" else "Test office에 합류하기"
    assert title in page.content.decode()
    assert not OfficeMember.objects.filter(office=office, user=member).exists()  # GET joins no one

    response = member_client.post(path, follow=True)
    assert response.status_code == 200
    assert joined in response.content.decode()
    assert OfficeMember.objects.filter(office=office, user=member).exists()
    assert office_get_for_user(user=member) == office
    # The office page is the office's, with its people; not the owner's tools.
    home = response.content.decode()
    assert 'data-person="owner"' in home and 'data-person="minji"' in home
    assert 'id="hire-form"' not in home and 'id="invite-button"' not in home

    # Used: the next person is told so, and does not join.
    again = _client(stranger, language).post(path)
    assert again.status_code == 410
    assert not OfficeMember.objects.filter(office=office, user=stranger).exists()


@pytest.mark.postgres
def test_two_people_opening_one_link_at_the_same_moment_join_one_of_them() -> None:
    owner = make_user("owner")
    office = make_office(owner)
    secret = invitation_create(office=office, by=owner).secret
    people = [make_user("first"), make_user("second")]

    def join() -> str:
        person = people.pop()  # one each (atomic)
        try:
            invitation_accept(secret=secret, user=person)
        except PeopleError as refused:
            return refused.code
        return "joined"

    assert sorted(at_once(join)) == ["invitation_used", "joined"]
    joined = OfficeMember.objects.filter(office=office).exclude(user=owner)
    assert joined.count() == 1
    invitation = OfficeInvitation.objects.get(office=office)
    assert invitation.accepted_by_id == joined.get().user_id


@pytest.mark.postgres
def test_two_links_used_at_the_same_moment_never_take_the_office_over_its_limit(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.OFFICE_MAX_PEOPLE = 2  # the owner and one more
    owner = make_user("owner")
    office = make_office(owner)
    links = [invitation_create(office=office, by=owner).secret for _ in (1, 2)]
    pairs = list(zip(links, [make_user("p1"), make_user("p2")], strict=True))
    # Both would count the office's people together, were they let: each waits (up to a
    # second) for the other at the last step before counting.
    together = threading.Barrier(2, timeout=1)
    problem = services.invitation_problem

    def waiting(invitation: OfficeInvitation) -> str | None:
        with contextlib.suppress(threading.BrokenBarrierError):
            together.wait()
        return problem(invitation)

    monkeypatch.setattr(services, "invitation_problem", waiting)

    def join() -> str:
        secret, person = pairs.pop()  # one each (atomic)
        try:
            invitation_accept(secret=secret, user=person)
        except PeopleError as refused:
            return refused.code
        return "joined"

    assert sorted(at_once(join, times=2)) == ["joined", "office_full"]
    assert OfficeMember.objects.filter(office=office).count() == 2


def test_an_expired_withdrawn_or_made_up_link_joins_nobody() -> None:
    owner, person = make_user("owner"), make_user("person")
    office = make_office(owner)
    expired = invitation_create(office=office, by=owner)
    OfficeInvitation.objects.filter(pk=expired.row.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    withdrawn = invitation_create(office=office, by=owner)
    owner_client = _client(owner)
    assert owner_client.post(f"/people/invitations/{withdrawn.row.pk}/withdraw/").status_code == 302
    client = _client(person)
    for secret, status, said in [
        (expired.secret, 410, "expired"),
        (withdrawn.secret, 410, "withdrawn"),
        (expired.secret[:-2] + "xy", 404, "not valid"),
    ]:
        response = client.post(f"/join/{secret}/")
        assert response.status_code == status
        assert said in response.content.decode()
    assert list(OfficeMember.objects.filter(office=office).values_list("user_id", flat=True)) == [
        owner.pk
    ]
    # Another office's invitation cannot be withdrawn from here.
    other_owner = make_user("other")
    foreign = invitation_create(office=make_office(other_owner), by=other_owner)
    assert owner_client.post(f"/people/invitations/{foreign.row.pk}/withdraw/").status_code == 404


@pytest.mark.parametrize("language", ["en", "ko"])
def test_signing_up_through_a_link_joins_the_office_and_makes_none(language: str) -> None:
    owner = make_user("owner")
    office = make_office(owner)
    path = _invite(_client(owner))
    secret = path.rstrip("/").rsplit("/", 1)[1]
    client = Client(headers={"accept-language": language})
    form = client.get(f"/signup/?invite={secret}")
    assert 'name="invite"' in form.content.decode()
    response = client.post(
        "/signup/",
        {
            "username": "jisoo",
            "password1": "a long pass phrase 4",
            "password2": "a long pass phrase 4",
            "language": language,
            "invite": secret,
        },
    )
    assert response.status_code == 302
    jisoo = User.objects.get(username="jisoo")
    assert not Office.objects.filter(owner=jisoo).exists()
    assert office_get_for_user(user=jisoo) == office
    assert client.get("/").context["office"] == office
    # Later, an office of their own, which they then work in.
    assert 'id="own-office-button"' in client.get("/").content.decode()
    assert client.post("/start/").status_code == 302
    own = Office.objects.get(owner=jisoo)
    assert client.get("/").context["office"] == own
    assert list(own.employees.values_list("name", flat=True))  # with its team


def test_without_a_link_sign_up_still_makes_the_persons_own_office() -> None:
    client = Client()
    response = client.post(
        "/signup/",
        {
            "username": "solo",
            "password1": "a long pass phrase 4",
            "password2": "a long pass phrase 4",
            "invite": "made-up",
        },
    )
    assert response.status_code == 302
    solo = User.objects.get(username="solo")
    assert Office.objects.filter(owner=solo).count() == 1


def test_a_member_works_in_every_channel_but_only_the_owner_runs_the_office() -> None:
    owner, member, office = _office_with_member()
    client = _client(member)
    for kind in (ChannelKind.MASTER, ChannelKind.ALL, ChannelKind.DM, ChannelKind.PROJECT):
        channel = channel_of(office, kind)
        assert client.get(f"/c/{channel.pk}/").status_code == 200
    theo = dm_channel(office)
    project = channel_of(office, ChannelKind.PROJECT)
    refused = [
        client.post("/employees/hire/", {"name": "Mallory", "role": "x", "persona": "y"}),
        client.get(f"/employees/{theo.employee_id}/"),
        client.post("/projects/new/", {"name": "Side", "lead": theo.employee_id}),
        client.get(f"/projects/{project.pk}/"),
        client.post(f"/projects/{project.pk}/archive/", {"archived": "1"}),
        client.get("/cost/"),
        client.post("/import/"),
        client.post("/people/invite/"),
        client.post(f"/people/{owner.pk}/remove/"),
    ]
    assert [r.status_code for r in refused] == [403] * len(refused)
    assert "Only the office&#x27;s owner can do this." in refused[0].content.decode()
    assert office.employees.filter(name="Mallory").count() == 0
    # Members export what they work in; an import goes into an office the person owns
    # (through the API too), and they own none.
    exported = client.get(f"/api/channels/{theo.pk}/export")
    assert exported.status_code == 200
    imported = client.post("/api/office/import", exported.content, content_type="application/json")
    assert imported.status_code == 404 and imported.json()["code"] == "no_office"
    assert OfficeInvitation.objects.count() == 1  # the one that brought the member in
    # The memory API and search are the office's for its people too.
    api = client.get("/api/memory")
    assert api.status_code == 200
    created = client.post(
        "/api/memory",
        {
            "office": office.pk,
            "scope": "office",
            "kind": "fact",
            "text": "우리 매장은 월요일 휴무예요.",
        },
        content_type="application/json",
    )
    assert created.status_code == 201, created.content


def test_someone_outside_the_office_sees_none_of_it() -> None:
    _, _, office = _office_with_member()
    outsider = make_user("outsider")
    make_office(outsider)
    theo = dm_channel(office)
    assert channel_get_for_user(user=outsider, channel_id=theo.pk) is None
    client = _client(outsider)
    assert client.get(f"/c/{theo.pk}/").status_code == 404
    assert (
        client.post(
            "/api/memory",
            {"office": office.pk, "scope": "office", "kind": "fact", "text": "x"},
            content_type="application/json",
        ).status_code
        == 404
    )
    assert client.post("/offices/switch/", {"office": office.pk}).status_code == 404


def test_instructions_are_named_by_their_writer_and_only_theirs_to_edit(model: FakeOpenAI) -> None:
    owner, member, office = _office_with_member()
    theo = dm_channel(office)
    accepted = instruction_accept(channel=theo, text="재고 목록 정리해 줘", user_id=member.pk)
    mission = Mission.objects.get(pk=accepted.mission.pk)
    assert mission.requested_by_id == member.pk
    shown = message_data(Message.objects.get(pk=accepted.message.pk))
    assert (shown.sender, shown.sender_id) == ("minji", member.pk)
    # The owner may not edit it; its writer may.
    with pytest.raises(InstructionRejected) as refused:
        instruction_accept(channel=theo, text="다시", user_id=owner.pk, edits=mission.pk)
    assert refused.value.code == "not_yours"
    edited = instruction_accept(
        channel=theo, text="재고 목록 다시", user_id=member.pk, edits=mission.pk
    )
    assert edited.mission.edited_from_id == mission.pk
    # The page knows who reads it, to tell "You" from another person.
    page = _client(owner).get(f"/c/{theo.pk}/")
    assert page.context["boot"]["me"] == owner.pk
    senders = {m["sender"] for m in page.context["boot"]["messages"] if m["kind"] == "user"}
    assert senders == {"minji"}


@pytest.mark.parametrize("text", ["재고 목록 정리해 줘", "Sort out the stock list"])
def test_the_prompt_says_which_person_asked_when_it_is_not_the_owner(
    model: FakeOpenAI, text: str
) -> None:
    owner, member, office = _office_with_member()
    theo = dm_channel(office)
    instruction_accept(channel=theo, text=text, user_id=member.pk)
    instruction_accept(channel=theo, text=f"{text} 2", user_id=owner.pk)
    sent = [last_user_text(r.messages) for r in model.requests]
    theirs = next(t for t in sent if t.rstrip().endswith(text))
    mine = next(t for t in sent if t.rstrip().endswith(f"{text} 2"))
    assert "Current mission (asked by minji, one of the office's people) — answer this:" in theirs
    assert "Current mission — answer this:" in mine and "asked by" not in mine


def test_each_person_is_held_to_their_own_instruction_limit(
    model: FakeOpenAI, settings: Any
) -> None:
    settings.INSTRUCTION_RATE_LIMIT = 2
    owner, member, office = _office_with_member()
    theo = dm_channel(office)
    for n in range(2):
        instruction_accept(channel=theo, text=f"Task {n}", user_id=member.pk)
    with pytest.raises(InstructionRejected):
        instruction_accept(channel=theo, text="One more", user_id=member.pk)
    # The owner's budget is their own.
    instruction_accept(channel=theo, text="Mine", user_id=owner.pk)


def test_the_owner_takes_a_person_out_and_cannot_leave() -> None:
    owner, member, office = _office_with_member()
    theo = dm_channel(office)
    with pytest.raises(PeopleError):
        member_remove(office=office, user_id=owner.pk)
    response = _client(owner).post(f"/people/{member.pk}/remove/")
    assert response.status_code == 302
    assert not OfficeMember.objects.filter(office=office, user=member).exists()
    assert _client(member).get(f"/c/{theo.pk}/").status_code == 404
    # A member leaves by themselves, too.
    other = make_user("other")
    invitation_accept(secret=invitation_create(office=office, by=owner).secret, user=other)
    other_client = _client(other)
    assert other_client.post("/people/leave/").status_code == 302
    assert not OfficeMember.objects.filter(office=office, user=other).exists()
    assert _client(owner).post("/people/leave/").status_code == 302
    assert OfficeMember.objects.filter(office=office, user=owner).exists()


def test_a_person_of_two_offices_switches_between_them() -> None:
    _, member, office = _office_with_member()
    own = make_office(member, name="Minji's studio")
    client = _client(member)
    assert client.get("/").context["office"] == own  # their own comes first
    assert client.post("/offices/switch/", {"office": office.pk}).status_code == 302
    assert client.get("/").context["office"] == office
    # Opening a channel of an office makes it the current one.
    client.get(f"/c/{dm_channel(own).pk}/")
    assert client.get("/").context["office"] == own


@database_sync_to_async
def _people_and_channels() -> tuple[User, User, Any, Any]:
    owner, member, office = _office_with_member()
    return owner, member, dm_channel(office), channel_of(office, ChannelKind.MASTER)


async def test_every_person_of_the_office_hears_of_a_reply_elsewhere(model: FakeOpenAI) -> None:
    owner, member, theo, master = await _people_and_channels()
    sockets = [(await open_socket(master.pk, person))[2] for person in (owner, member)]
    await database_sync_to_async(instruction_accept)(
        channel=theo, text="Draft a tagline", user_id=member.pk
    )
    for socket in sockets:
        frame = await socket.receive_json_from(timeout=10)
        while frame["type"] != "channel.unread":
            frame = await socket.receive_json_from(timeout=10)
        assert frame["channel"] == theo.pk
        await socket.disconnect()


async def test_a_person_taken_out_has_their_open_socket_closed_as_unavailable(
    model: FakeOpenAI,
) -> None:
    _, member, theo, _ = await _people_and_channels()
    connected, _, socket = await open_socket(theo.pk, member)
    assert connected
    office = await database_sync_to_async(lambda: theo.office)()
    await database_sync_to_async(member_remove)(office=office, user_id=member.pk)
    closed = await socket.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4404}
    # Nothing they send afterwards is saved.
    again = await open_socket(theo.pk, member)
    assert again[0] is False
    await again[2].disconnect()
    assert await database_sync_to_async(Mission.objects.filter(channel=theo).count)() == 0
