from collections.abc import Callable

import pytest
from django.db import IntegrityError, transaction

from memory.models import MemoryItem
from missions.models import Mission, MissionSource
from office.models import Channel, ChannelKind, Employee
from sessions.models import ChatSession
from tests.factories import dm_channel, make_office

pytestmark = pytest.mark.django_db


def _raises_integrity(fn: Callable[[], object]) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        fn()


def test_an_office_has_one_master_employee() -> None:
    office = make_office()
    _raises_integrity(
        lambda: Employee.objects.create(
            office=office, name="Second boss", role="x", persona="x", is_master=True
        )
    )


def test_a_dm_channel_needs_its_employee() -> None:
    office = make_office()
    _raises_integrity(
        lambda: Channel.objects.create(office=office, kind=ChannelKind.DM, name="nobody")
    )


def test_a_group_channel_cannot_hold_a_dm_employee() -> None:
    office = make_office()
    theo = office.employees.get(name="Theo")
    _raises_integrity(
        lambda: Channel.objects.create(
            office=office, kind=ChannelKind.PROJECT, name="p", employee=theo
        )
    )


def test_an_employee_has_one_dm_channel() -> None:
    office = make_office()
    theo = office.employees.get(name="Theo")
    _raises_integrity(
        lambda: Channel.objects.create(
            office=office, kind=ChannelKind.DM, name="again", employee=theo
        )
    )


def test_an_office_has_one_master_and_one_all_channel() -> None:
    office = make_office()
    _raises_integrity(
        lambda: Channel.objects.create(office=office, kind=ChannelKind.MASTER, name="m2")
    )
    _raises_integrity(
        lambda: Channel.objects.create(office=office, kind=ChannelKind.ALL, name="a2")
    )


def test_a_channel_has_one_current_session() -> None:
    channel = dm_channel(make_office())
    assert channel.sessions.filter(closed_at__isnull=True).count() == 1
    _raises_integrity(lambda: ChatSession.objects.create(channel=channel, number=2))


def _mission(
    session: ChatSession, seq: int, client_id: str = "", label: str | None = None
) -> Mission:
    assert session.channel.employee is not None
    return Mission.objects.create(
        session=session,
        channel=session.channel,
        seq=seq,
        label=str(seq) if label is None else label,
        source=MissionSource.DM,
        assignee=session.channel.employee,
        instruction="do it",
        client_id=client_id,
    )


def test_mission_seq_is_unique_per_session() -> None:
    session = dm_channel(make_office()).sessions.get()
    _mission(session, 1)
    _raises_integrity(lambda: _mission(session, 1, label="1a"))


def test_the_number_a_person_sees_is_unique_per_session() -> None:
    session = dm_channel(make_office()).sessions.get()
    _mission(session, 1, label="1")
    _mission(session, 2, label="1a")
    _raises_integrity(lambda: _mission(session, 3, label="1a"))
    other = dm_channel(make_office(), "Iris").sessions.get()
    _mission(other, 1, label="1a")


def test_mission_client_id_is_unique_per_session_but_may_be_blank() -> None:
    session = dm_channel(make_office()).sessions.get()
    _mission(session, 1, client_id="abc")
    _mission(session, 2)
    _mission(session, 3)
    _raises_integrity(lambda: _mission(session, 4, client_id="abc"))


def test_memory_scope_must_match_its_target() -> None:
    office = make_office()
    theo = office.employees.get(name="Theo")
    _raises_integrity(
        lambda: MemoryItem.objects.create(
            office=office, scope="employee", kind="fact", text="x", origin="user"
        )
    )
    _raises_integrity(
        lambda: MemoryItem.objects.create(
            office=office, scope="office", employee=theo, kind="fact", text="x", origin="user"
        )
    )
    MemoryItem.objects.create(
        office=office, scope="employee", employee=theo, kind="fact", text="x", origin="user"
    )
