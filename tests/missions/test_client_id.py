"""A client_id is looked up by pages (in selectors and attributes): only a plain alphabet
is accepted, with a clear error, over the API and the socket alike."""

import pytest

from missions import intake
from missions.intake import Accepted, instruction_accept
from missions.models import Mission
from tests.factories import dm_channel, make_office, make_user
from tests.threads import at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("client_id", ['a"]b', "x y", "ünï", "<b>"])
def test_a_client_id_outside_the_plain_alphabet_is_refused(client, client_id: str) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client.force_login(user)
    response = client.post(
        f"/api/channels/{channel.pk}/instructions",
        {"text": "Draft the launch email", "client_id": client_id},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "bad_client_id"
    assert not Mission.objects.filter(channel=channel).exists()


def test_a_generated_client_id_is_accepted(client) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client.force_login(user)
    response = client.post(
        f"/api/channels/{channel.pk}/instructions",
        {"text": "Draft the launch email", "client_id": "c-1732999999.42:7_a"},
        content_type="application/json",
    )
    assert response.status_code == 202


@pytest.mark.postgres
def test_one_client_id_sent_twice_at_once_is_one_mission() -> None:
    """Both sends look the client_id up before writing and find nothing; the constraint
    lets one write through, and the other answers with that mission (real transactions:
    the second insert waits for the first to commit)."""
    channel = dm_channel(make_office())
    results = at_once(
        lambda: instruction_accept(channel=channel, text="Draft the invite", client_id="tab-1")
    )
    assert len({r.mission.pk for r in results}) == 1
    assert sorted(r.created for r in results) == [False, True]
    missions = Mission.objects.filter(channel=channel)
    assert [m.seq for m in missions] == [1]
    assert channel.sessions.get().mission_count == 1


def test_a_send_the_lookup_missed_answers_with_the_mission_that_won(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The other send committed between this one's lookup and its write: the insert
    fails on the constraint, nothing of this send is kept, and the first mission is
    the answer."""
    channel = dm_channel(make_office())
    first = instruction_accept(channel=channel, text="Draft the invite", client_id="tab-2")
    lookup = intake._resent
    calls: list[str] = []

    def missed_once(*, channel: object, client_id: str) -> Accepted | None:
        calls.append(client_id)
        return None if len(calls) == 1 else lookup(channel=channel, client_id=client_id)  # type: ignore[arg-type]

    monkeypatch.setattr(intake, "_resent", missed_once)
    again = instruction_accept(channel=channel, text="Draft the invite", client_id="tab-2")
    assert calls == ["tab-2", "tab-2"]
    assert not again.created and again.mission.pk == first.mission.pk
    assert again.message.pk == first.message.pk
    assert [m.seq for m in Mission.objects.filter(channel=channel)] == [1]
    assert channel.sessions.get().mission_count == 1
