"""Issue 42, point 7: names that look alike on screen are one name (Unicode's confusable
skeletons, UTS #39): a look-alike of "Theo" in Armenian, Cherokee, Lisu, Coptic, Osage or
Greek letters is refused on the hiring form and in the admin, with a message in the
person's language, and an @mention written with look-alike letters reaches whoever the
plain name reaches. Ordinary distinct names, Korean ones too, are still hired."""

import pytest
from django.test import Client
from django.urls import reverse

from language.names import name_skeleton
from missions.dispatch import mentioned, route_instruction
from office.models import ChannelKind, Employee
from office.services import NameTaken, employee_edit, employee_hire, user_set_language
from tests.factories import channel_of, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)

THEO_LOOK_ALIKES = [
    pytest.param("T\u0570eo", id="armenian-h"),
    pytest.param("The\u0585", id="armenian-o"),
    pytest.param("T\u0570e\u0585", id="armenian-h-and-o"),
    pytest.param("\u13a2heo", id="cherokee-t"),
    pytest.param("T\u13c2eo", id="cherokee-ni-for-h"),
    pytest.param("T\u13bbeo", id="cherokee-capital-h"),
    pytest.param("\ua4d4heo", id="lisu-t"),
    pytest.param("T\ua4e7eo", id="lisu-h"),
    pytest.param("\ua4d4\ua4e7\ua4f0\ua4f3", id="lisu-all"),
    pytest.param("\u2ca6heo", id="coptic-t"),
    pytest.param("The\u2c9f", id="coptic-o"),
    pytest.param("T\u2c8eeo", id="coptic-capital-h"),
    pytest.param("The\U000104ea", id="osage-small-o"),
    pytest.param("THE\U000104c2", id="osage-capital-o"),
    pytest.param("T\u0397eo", id="greek-capital-eta"),
    pytest.param("T\u0397\u0395\u039f", id="greek-capitals"),
    pytest.param("\u03a4heo", id="greek-tau"),
    pytest.param("T\u04bbeo", id="cyrillic-shha"),
    pytest.param("Theo\u3164", id="invisible-hangul-filler"),
    pytest.param("Th\u00e9o", id="accent"),
]


def _owner_client() -> tuple[Client, Employee]:
    user = make_user()
    office = make_office(user)
    client = Client()
    client.force_login(user)
    return client, Employee.objects.get(office=office, name="Theo")


def _hire(client: Client, name: str) -> tuple[int, str]:
    response = client.post(
        "/employees/hire/", {"name": name, "role": "Developer", "persona": "You code."}
    )
    return response.status_code, response.content.decode()


@pytest.mark.parametrize("look_alike", THEO_LOOK_ALIKES)
def test_a_look_alike_of_theo_is_not_hired(look_alike: str) -> None:
    client, theo = _owner_client()
    status, page = _hire(client, look_alike)
    assert status == 400
    assert "already has that name" in page
    assert Employee.objects.filter(office=theo.office).count() == 4


def test_the_refusal_names_the_colleague_it_looks_like_in_english_and_korean() -> None:
    client, theo = _owner_client()
    _, page = _hire(client, "T\u0570e\u0585")
    assert "looks the same as" in page and "“Theo”" in page
    user_set_language(user=theo.office.owner, language="ko")
    _, page = _hire(client, "T\u0397eo")
    assert "“Theo”" in page and "똑같아 보여" in page and "looks the same" not in page


@pytest.mark.parametrize(
    "name", ["Thea", "Teo", "Theodora", "테오", "Iris2", "Ir1s", "지수", "지우"]
)
def test_ordinary_distinct_names_are_hired(name: str) -> None:
    client, theo = _owner_client()
    status, _ = _hire(client, name)
    assert status == 302
    assert Employee.objects.filter(office=theo.office, name=name).exists()


def test_korean_names_two_ways_of_writing_one_name_are_one_name() -> None:
    client, theo = _owner_client()
    assert _hire(client, "지수")[0] == 302
    assert _hire(client, "지우")[0] == 302  # another name
    # The same syllables written as conjoining jamo, and with an invisible Hangul filler.
    for same in ["\u110c\u1175\u1109\u116e", "지수\u3164", "지수\u115f"]:
        status, page = _hire(client, same)
        assert status == 400, same
        assert "already has that name" in page
    assert Employee.objects.filter(office=theo.office).count() == 6


def test_the_service_refuses_what_any_edge_would_send() -> None:
    _, theo = _owner_client()
    with pytest.raises(NameTaken):
        employee_hire(office=theo.office, name="\u13a2heo", role="Spy", persona="You listen.")
    iris = Employee.objects.get(office=theo.office, name="Iris")
    with pytest.raises(NameTaken):
        employee_edit(employee=iris, name="T\u2c8eeo", role=iris.role, persona=iris.persona)
    iris.refresh_from_db()
    assert iris.name == "Iris"
    # Renaming someone to their own name spelt another way is no clash with themselves.
    employee_edit(employee=theo, name="THEO", role=theo.role, persona=theo.persona)


def test_the_admin_refuses_a_look_alike_too() -> None:
    user = make_user()
    user.is_staff = user.is_superuser = True
    user.save()
    office = make_office(user)
    client = Client()
    client.force_login(user)
    response = client.post(
        reverse("admin:office_employee_add"),
        {
            "office": office.pk,
            "name": "T\u0570e\u0585",
            "role": "Spy",
            "persona": "You listen.",
            "model": "",
        },
    )
    assert response.status_code == 200  # the form again, with its error
    assert "looks the same as" in response.content.decode()
    assert not Employee.objects.filter(office=office, role="Spy").exists()
    response = client.post(
        reverse("admin:office_employee_add"),
        {"office": office.pk, "name": "Thea", "role": "Analyst", "persona": "You count."},
    )
    assert response.status_code == 302
    assert Employee.objects.filter(office=office, name="Thea").exists()


@pytest.mark.parametrize("spelling", ["Theo", "T\u0570e\u0585", "\u13a2\u13bb\u13ac\u13be"])
def test_a_mention_in_look_alike_letters_reaches_whoever_the_plain_name_reaches(
    spelling: str,
) -> None:
    _, theo = _owner_client()
    office = theo.office
    # A look-alike hired before hiring refused them (made directly, as old data would be).
    fake = Employee.objects.create(office=office, name="T\u0570e\u0585", role="Spy", persona="x")
    employees = list(Employee.objects.filter(office=office, is_active=True))
    channel = channel_of(office, ChannelKind.ALL)
    for text in [f"@{spelling} please check the invoice", f"@{spelling}에게 부탁해요"]:
        route = route_instruction(channel=channel, text=text, employees=employees)
        assert route.assignee == theo, text
        assert mentioned(text, employees) == [theo]
        assert fake not in mentioned(text, employees)
        assert route.unknown == []


def test_the_skeleton_keeps_distinct_names_apart() -> None:
    assert name_skeleton("Theo") != name_skeleton("Thea")
    assert name_skeleton("지수") != name_skeleton("지우")
    assert name_skeleton("Iris") == name_skeleton("lris")  # capital I and small L
    assert name_skeleton("rnary") == name_skeleton("mary")
