"""Every person sees what their office's prompts cost (not only staff in the admin): per
employee and per recent mission, characters sent against the full history and the tokens
reported; a share below zero is explained (the prompt's fixed parts outweigh a short
history), never shown as a bare negative. Nothing of another office is counted."""

import pytest
from django.test import Client

from missions.models import Mission, MissionStatus
from missions.selectors import office_cost
from office.models import Office
from office.services import user_set_language
from sessions.services import session_get_or_open_current, session_start_new
from tests.factories import add_finished_missions, dm_channel, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def _history(office: Office, employee: str, sizes: list[tuple[int, int]]) -> list[Mission]:
    """Missions of `employee`'s 1:1 whose instruction + reply are 100 chars each, and whose
    prompts were `sizes[i] = (prompt chars, cached tokens)`."""
    session = session_get_or_open_current(channel=dm_channel(office, employee))
    made = add_finished_missions(
        session, len(sizes), text=lambda n: (f"{n:02d}" + "i" * 48, "r" * 50)
    )
    for mission, (chars, cached) in zip(made, sizes, strict=True):
        Mission.objects.filter(pk=mission.pk).update(
            prompt_chars=chars,
            prompt_tokens=chars // 4,
            cached_tokens=cached,
            completion_tokens=10,
        )
    return made


def test_it_reports_per_employee_and_per_mission_against_the_full_history() -> None:
    owner = make_user()
    office = make_office(owner)
    _history(office, "Theo", [(500, 0), (500, 100), (500, 120)])  # full: 50, 150, 250
    _history(office, "Iris", [(100, 0)])  # full: 50
    other = make_office(make_user())
    _history(other, "Theo", [(9_999, 0)])

    report = office_cost(office_id=office.pk)

    by_name = {row["employee"]: row for row in report["employees"]}
    assert set(by_name) == {"Theo", "Iris"}
    theo = by_name["Theo"]
    assert (theo["missions"], theo["prompt_chars"], theo["full_history_chars"]) == (3, 1500, 450)
    assert theo["cached_tokens"] == 220 and theo["prompt_tokens"] == 375
    assert theo["fixed_parts"] and theo["saved_pct"] < 0
    assert [m["full_history_chars"] for m in report["missions"] if m["employee"] == "Theo"] == [
        250,
        150,
        50,
    ]
    assert report["totals"]["missions"] == 4 and report["totals"]["prompt_chars"] == 1_600


def test_a_long_session_shows_its_savings_as_a_share() -> None:
    office = make_office(make_user())
    _history(office, "Theo", [(300, 0)] * 12)  # full: 50 + 150 + … + 1150 = 7200
    theo = office_cost(office_id=office.pk)["employees"][0]
    assert theo["full_history_chars"] == 7_200 and theo["prompt_chars"] == 3_600
    assert theo["saved_pct"] == 50.0 and not theo["fixed_parts"]


@pytest.mark.parametrize(
    ("language", "why", "not_yet", "per_employee"),
    [
        ("en", "Why a share can be below zero", "not yet (fixed parts)", "Per employee"),
        ("ko", "절감률이 0보다 낮을 수 있는 이유", "아직 없음(고정 부분)", "직원별"),
    ],
)
def test_a_signed_up_person_sees_their_cost_page_with_the_reason_for_early_figures(
    language: str, why: str, not_yet: str, per_employee: str
) -> None:
    owner = make_user()
    office = make_office(owner)
    _history(office, "Theo", [(500, 0), (500, 0)])
    _history(make_office(make_user()), "Mara", [(777, 0)])
    user_set_language(user=owner, language=language)
    client = Client()
    client.force_login(owner)

    home = client.get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert 'href="/cost/"' in home
    page = client.get("/cost/", HTTP_ACCEPT_LANGUAGE=language).content.decode()

    assert why in page and per_employee in page
    assert page.count(not_yet) == 3  # Theo's row and both missions: none shown as "-…%"
    assert "-" + "100" not in page and "%</td>" not in page.split("cost-missions")[1]
    assert "Mara" not in page and "777" not in page
    assert "#1" in page and "#2" in page


def test_the_cost_page_needs_a_log_in() -> None:
    response = Client().get("/cost/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_admins_cost_page_explains_early_figures_too() -> None:
    office = make_office(make_user())
    _history(office, "Theo", [(500, 0)])
    admin = make_user("root")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client = Client()
    client.force_login(admin)
    page = client.get("/admin/office/office/cost/").content.decode()
    assert "not yet (fixed parts)" in page and "Why a share can be below zero" in page
    assert "-900.0%" not in page


def test_a_regenerated_mission_counts_every_attempt_it_was_paid_for() -> None:
    from missions.models import MissionAttempt, MissionStatus

    office = make_office(make_user())
    [first, second] = _history(office, "Theo", [(500, 0), (600, 100)])  # full: 50, 150
    MissionAttempt.objects.create(
        mission=second,
        number=1,
        reply="an earlier reply",
        status=MissionStatus.DONE,
        prompt_chars=550,
        prompt_tokens=137,
        cached_tokens=40,
        completion_tokens=12,
    )

    report = office_cost(office_id=office.pk)

    by_id = {m["id"]: m for m in report["missions"]}
    assert (by_id[first.pk]["attempts"], by_id[first.pk]["prompt_chars"]) == (1, 500)
    again = by_id[second.pk]
    assert again["attempts"] == 2
    assert (again["prompt_chars"], again["prompt_tokens"]) == (1_150, 150 + 137)
    assert (again["cached_tokens"], again["completion_tokens"]) == (140, 22)
    # Sending the full history would have been paid twice too.
    assert again["full_history_chars"] == 300
    assert report["totals"]["prompt_chars"] == 1_650


def test_a_mission_of_an_earlier_session_links_to_that_session() -> None:
    owner = make_user()
    office = make_office(owner)
    channel = dm_channel(office, "Theo")
    [earlier] = _history(office, "Theo", [(500, 0)])
    session_start_new(channel=channel)
    [now] = _history(office, "Theo", [(500, 0)])
    assert now.session_id != earlier.session_id and now.label == earlier.label
    client = Client()
    client.force_login(owner)
    page = client.get("/cost/").content.decode()
    assert f'href="/c/{channel.pk}/?session={earlier.session_id}#mission-{earlier.label}"' in page
    assert f'href="/c/{channel.pk}/#mission-{now.label}"' in page


def test_a_stopped_mission_is_counted_its_prompt_was_sent() -> None:
    """A reply the person stopped was paid for, and what came is history from then on."""
    office = make_office(make_user())
    _, stopped, third = _history(office, "Theo", [(500, 0), (500, 0), (500, 0)])
    Mission.objects.filter(pk=stopped.pk).update(status=MissionStatus.STOPPED)

    report = office_cost(office_id=office.pk)

    [theo] = report["employees"]
    assert (theo["missions"], theo["prompt_chars"]) == (3, 1_500)
    # The third mission's full history holds the stopped one: 2 x 100 + its own 50.
    by_label = {m["label"]: m["full_history_chars"] for m in report["missions"]}
    assert by_label[third.label] == 250
