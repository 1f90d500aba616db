"""A client_id is looked up by pages (in selectors and attributes): only a plain alphabet
is accepted, with a clear error, over the API and the socket alike."""

import pytest

from missions.models import Mission
from tests.factories import dm_channel, make_office, make_user

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
