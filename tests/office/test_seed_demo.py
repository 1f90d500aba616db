import pytest
from django.core.management import call_command
from django.test import Client

from office.models import Channel, Employee, Office

pytestmark = pytest.mark.django_db


def _counts() -> tuple[int, int, int]:
    return Office.objects.count(), Employee.objects.count(), Channel.objects.count()


def test_seed_demo_creates_the_team_and_its_channels_once() -> None:
    call_command("seed_demo")
    first = _counts()
    call_command("seed_demo")
    assert _counts() == first

    office = Office.objects.get(owner__username="demo")
    employees = list(office.employees.all())
    assert len(employees) >= 4
    assert sum(e.is_master for e in employees) == 1
    specialists = [e for e in employees if not e.is_master]
    assert len({e.role for e in specialists}) == len(specialists) >= 3
    assert len({e.persona for e in employees}) == len(employees)
    for employee in employees:
        assert office.channels.filter(kind="dm", employee=employee).count() == 1
    assert office.channels.filter(kind="master").count() == 1
    assert office.channels.filter(kind="all").count() == 1
    project = office.channels.get(kind="project")
    assert project.members.count() >= 2 and project.lead in project.members.all()


def test_the_demo_user_logs_in_with_the_given_password() -> None:
    call_command("seed_demo", "--password", "s3cret-demo")
    client = Client()
    response = client.post("/accounts/login/", {"username": "demo", "password": "s3cret-demo"})
    assert response.status_code == 302
    home = client.get("/")
    assert home.status_code == 200
    assert "Demo office" in home.content.decode()
    assert Office.objects.get().owner.is_staff
