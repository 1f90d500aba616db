"""A mission whose instruction the office wrote is listed by what it is, in the reader's
language: a synthesis's instruction is the office's internal brief to the model ("Your
colleagues have worked on the parts of mission #1…"), never shown as its title on the
search page or the cost page. Delegated parts and meeting follow-ups keep the words they
were given (the person's own, or the chief of staff's brief as written)."""

from typing import Any

import pytest
from django.test import Client

from missions.intake import instruction_accept
from missions.models import Mission, MissionSource, MissionStatus
from office.models import ChannelKind
from office.services import office_create_with_team, user_set_language
from tests.factories import channel_of, make_user

pytestmark = pytest.mark.django_db(transaction=True)

TITLES = {"ko": "#1의 팀 결과 종합", "en": "The team's results for #1, summed up"}
PLANS = {
    "ko": "@Iris 봄 배너 초안을 그려 줘. @Theo 신청 폼을 연결해 줘.",
    "en": "@Iris draft the spring banner. @Theo wire the signup form.",
}


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_synthesis_is_listed_by_what_it_is_on_search_and_cost(
    settings: Any, language: str
) -> None:
    settings.LLM_PROVIDER = "offline"
    owner = make_user()
    office = office_create_with_team(owner=owner, name="Office", language=language)
    user_set_language(user=owner, language=language)
    master = channel_of(office, ChannelKind.MASTER)
    plan = instruction_accept(channel=master, text=PLANS[language]).mission
    [synthesis] = Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS)
    assert synthesis.status == MissionStatus.DONE and synthesis.label == "1a"
    assert synthesis.instruction.startswith("Your colleagues have worked")
    # Delegated parts, as the person wrote them, are listed by their words.
    [part] = Mission.objects.filter(parent=plan, assignee__name="Iris")
    client = Client()
    client.force_login(owner)

    cost = client.get("/cost/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'#mission-1a">#1a</a> {TITLES[language]}' in cost.replace("&#x27;", "'")
    assert "Your colleagues" not in cost
    assert part.instruction[:40] in cost

    found = client.get("/search/", {"q": "Iris"}, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    shown = found.replace("&#x27;", "'")
    assert f"<strong>#1a</strong> {TITLES[language]}</a>" in shown
    assert "Your colleagues" not in found
    assert "mission #1 you delegated" not in found


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_synthesis_is_listed_by_what_it_is_in_the_admin(settings: Any, language: str) -> None:
    settings.LLM_PROVIDER = "offline"
    owner = make_user()
    office = office_create_with_team(owner=owner, name="Office", language=language)
    user_set_language(user=owner, language=language)
    plan = instruction_accept(channel=channel_of(office, ChannelKind.MASTER), text=PLANS[language])
    assert Mission.objects.filter(parent=plan.mission, source=MissionSource.SYNTHESIS).exists()
    owner.is_staff = owner.is_superuser = True
    owner.save()
    client = Client()
    client.force_login(owner)
    listed = client.get("/admin/missions/mission/", HTTP_ACCEPT_LANGUAGE=language)
    shown = listed.content.decode().replace("&#x27;", "'")
    assert listed.status_code == 200
    assert f"#1a {TITLES[language]}" in shown
    i = shown.find("Your colleagues")
    assert i < 0, shown[i - 300 : i + 100]
