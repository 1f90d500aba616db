"""Each employee can answer with their own model of the configured server, chosen on the
employee's page from what the server lists; the cost view names the model and turns the
tokens into money by the operator's price table (through the real openai SDK against
the local server)."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client

from llm.models import ModelPrice
from missions.intake import instruction_accept
from missions.models import Mission
from missions.selectors import office_cost
from office.models import Employee
from office.services import user_set_language
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FAKE_MODEL, FakeOpenAI, Reply

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.model(max_attempts=1, timeout=10.0),
]


def _owner_client(owner: User) -> Client:
    client = Client()
    client.force_login(owner)
    return client


def _form(employee: Employee, model: str) -> dict[str, str]:
    return {
        "name": employee.name,
        "role": employee.role,
        "persona": employee.persona,
        "model": model,
    }


def test_the_page_offers_the_servers_models_and_the_choice_answers(model: FakeOpenAI) -> None:
    owner = make_user()
    office = make_office(owner)
    theo = office.employees.get(name="Theo")
    client = _owner_client(owner)
    page = client.get(f"/employees/{theo.pk}/").content.decode()
    for name in ("fake-model-large", "fake-model-mini"):
        assert f'<option value="{name}"' in page
    assert f"The office&#x27;s default ({FAKE_MODEL})" in page

    refused = client.post(f"/employees/{theo.pk}/", _form(theo, "gpt-imaginary"))
    assert refused.status_code == 200 and "errorlist" in refused.content.decode()
    theo.refresh_from_db()
    assert theo.model == ""

    assert client.post(f"/employees/{theo.pk}/", _form(theo, "fake-model-large")).status_code == 302
    theo.refresh_from_db()
    assert theo.model == "fake-model-large"
    model.enqueue(Reply("Done.", prompt_tokens=1000, cached_tokens=400, completion_tokens=500))
    mission = instruction_accept(channel=dm_channel(office), text="Summarise the week").mission
    [request] = [r for r in model.requests if r.body.get("stream")]
    assert request.body["model"] == "fake-model-large"
    mission.refresh_from_db()
    assert mission.model == "fake-model-large"

    # Back to the office's default: the next reply uses the server's default model.
    client.post(f"/employees/{theo.pk}/", _form(theo, ""))
    instruction_accept(channel=dm_channel(office), text="And next week?")
    assert [r.body["model"] for r in model.requests if r.body.get("stream")][-1] == FAKE_MODEL


def test_the_cost_view_prices_tokens_by_the_model_that_answered(model: FakeOpenAI) -> None:
    owner = make_user()
    office = make_office(owner)
    Employee.objects.filter(office=office, name="Theo").update(model="fake-model-large")
    ModelPrice.objects.create(
        model="fake-model-large",
        prompt=Decimal("2.00"),
        cached_prompt=Decimal("0.50"),
        completion=Decimal("8.00"),
    )
    model.enqueue(Reply("Done.", prompt_tokens=1000, cached_tokens=400, completion_tokens=500))
    instruction_accept(channel=dm_channel(office, "Theo"), text="Summarise the week")
    model.enqueue(Reply("Done.", prompt_tokens=100, cached_tokens=0, completion_tokens=10))
    instruction_accept(channel=dm_channel(office, "Iris"), text="Draft the banner")
    # Theo changes model afterwards: his mission keeps the price of the one that answered.
    Employee.objects.filter(office=office, name="Theo").update(model="fake-model-mini")

    report = office_cost(office_id=office.pk)
    by_employee = {e["employee"]: e for e in report["employees"]}
    # (600 × 2.00 + 400 × 0.50 + 500 × 8.00) / 1,000,000
    assert by_employee["Theo"]["money"] == {"USD": Decimal("0.0054")}
    assert by_employee["Theo"]["models"] == ["fake-model-large"]
    assert by_employee["Iris"]["money"] == {} and report["unpriced"] == [FAKE_MODEL]
    assert report["totals"]["money_text"] == "0.0054 USD"

    page = _owner_client(owner).get("/cost/").content.decode()
    assert "0.0054 USD" in page and "Cached tokens are the part of a prompt" in page
    assert f"No price is set for {FAKE_MODEL}" in page
    user_set_language(user=owner, language="ko")
    korean = _owner_client(owner).get("/cost/").content.decode()
    assert "캐시된 토큰은" in korean and "0.0054 USD" in korean


def test_an_owner_sees_the_price_table_and_only_an_operator_changes_it() -> None:
    from office.services import office_open_for_user

    owner = make_user()
    office_open_for_user(user=owner)
    ModelPrice.objects.create(model="m-1", prompt=Decimal(1), completion=Decimal(2))
    client = _owner_client(owner)
    assert client.get("/admin/llm/modelprice/").status_code == 200
    assert client.get("/admin/llm/modelprice/add/").status_code == 403
    operator = User.objects.create_superuser("ops", password="a-long-pass-phrase-9")
    ops = _owner_client(operator)
    added = ops.post(
        "/admin/llm/modelprice/add/",
        {"model": "m-2", "currency": "KRW", "prompt": "2800", "completion": "11200"},
    )
    assert added.status_code == 302
    assert ModelPrice.objects.get(model="m-2").cost(
        prompt_tokens=1_000_000, cached_tokens=0, completion_tokens=0
    ) == Decimal(2800)


def test_without_a_listing_server_any_model_name_is_accepted() -> None:
    owner = make_user()
    office = make_office(owner)
    theo = office.employees.get(name="Theo")
    client = _owner_client(owner)
    assert client.post(f"/employees/{theo.pk}/", _form(theo, "my-local-model")).status_code == 302
    assert Employee.objects.get(pk=theo.pk).model == "my-local-model"
    assert not Mission.objects.exists()
