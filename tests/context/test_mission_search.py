"""Search across the office's missions: the recall search (Korean particles and endings
do not matter, English word forms neither, amounts as values), over indexed and not yet
indexed missions alike, only in the person's own offices; each result opens its mission
in its channel."""

from typing import Any

import pytest
from django.test import Client

from context.finding import mission_search
from context.models import Passage
from context.services import passages_index_session
from missions.intake import instruction_accept
from missions.models import Mission
from office.models import ChannelKind
from sessions.services import session_start_new
from tests.factories import channel_of, dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _answered(model: FakeOpenAI, channel: Any, instruction: str, reply: str) -> Mission:
    model.enqueue(Reply(reply))
    return Mission.objects.get(pk=instruction_accept(channel=channel, text=instruction).mission.pk)


@pytest.mark.parametrize("indexed", [True, False])
def test_korean_is_found_whatever_the_particles(model: FakeOpenAI, indexed: bool) -> None:
    user = make_user()
    office = make_office(user)
    theo, master = dm_channel(office), channel_of(office, ChannelKind.MASTER)
    budget = _answered(model, theo, "마케팅 예산을 정리해 줘", "마케팅 예산은 80만원으로 정했어요.")
    _answered(model, master, "출시 일정을 알려 줘", "출시는 3월 14일이에요.")
    if indexed:
        passages_index_session(session_id=budget.session_id)
        assert Passage.objects.filter(mission=budget).exists()
    for query in ("예산이 얼마였지?", "예산을", "800,000원"):
        hits = mission_search(user=user, text=query)
        assert [h.mission for h in hits] == [budget.pk], query
    [launch] = mission_search(user=user, text="출시가 언제야")
    assert launch.channel == master.pk and launch.seq == 1


@pytest.mark.parametrize("indexed", [True, False])
def test_english_word_forms_match_and_the_best_comes_first(
    model: FakeOpenAI, indexed: bool
) -> None:
    user = make_user()
    theo = dm_channel(make_office(user))
    pricing = _answered(
        model, theo, "Draft the pricing page", "Three plans; the Team plan is highlighted."
    )
    other = _answered(model, theo, "Plan the launch party", "Cake and music on Friday.")
    if indexed:
        passages_index_session(session_id=pricing.session_id)
    hits = mission_search(user=user, text="which plans were highlighted?")
    assert hits[0].mission == pricing.pk
    assert other.pk not in [h.mission for h in hits] or hits.index(hits[0]) == 0
    assert mission_search(user=user, text="nothing like this zebra") == []


def test_another_offices_missions_are_never_found(model: FakeOpenAI) -> None:
    me, stranger = make_user(), make_user()
    mine = dm_channel(make_office(me))
    theirs = dm_channel(make_office(stranger))
    _answered(model, theirs, "마케팅 예산을 정리해 줘", "예산은 80만원이에요.")
    passages_index_session(session_id=Mission.objects.get(channel=theirs).session_id)
    _answered(model, mine, "Draft a tagline", "Calm money.")
    assert mission_search(user=me, text="예산") == []
    client = Client()
    client.force_login(me)
    page = client.get("/search/", {"q": "예산"}).content.decode()
    assert 'id="no-results"' in page and "80만원" not in page


def test_the_search_page_links_each_result_to_its_mission_in_its_channel(
    model: FakeOpenAI,
) -> None:
    user = make_user()
    theo = dm_channel(make_office(user))
    _answered(model, theo, "Draft a tagline", "Calm money.")
    found = _answered(model, theo, "마케팅 예산을 정리해 줘", "예산은 80만원이에요.")
    client = Client()
    client.force_login(user)
    page = client.get("/search/", {"q": "예산이"}).content.decode()
    assert f'href="/c/{theo.pk}/#mission-{found.seq}"' in page
    assert "80만원" in page


def test_a_result_from_an_earlier_session_opens_that_session_at_its_mission(
    model: FakeOpenAI,
) -> None:
    """A mission of a closed session is not on the channel's current page: its link names
    its session, and following it shows that session, where the mission is."""
    user = make_user()
    theo = dm_channel(make_office(user))
    earlier = _answered(model, theo, "마케팅 예산을 정리해 줘", "예산은 80만원이에요.")
    current = session_start_new(channel=theo)
    assert current.pk != earlier.session_id
    now = _answered(model, theo, "출시 예산도 알려 줘", "출시 예산은 30만원이에요.")
    assert now.session_id == current.pk and now.label == earlier.label == "1"
    client = Client()
    client.force_login(user)
    page = client.get("/search/", {"q": "마케팅 예산"}).content.decode()
    old_link = f"/c/{theo.pk}/?session={earlier.session_id}#mission-{earlier.label}"
    assert f'href="{old_link}"' in page
    # The current session's mission opens the channel's own page.
    assert f'href="/c/{theo.pk}/#mission-{now.label}"' in page

    opened = client.get(old_link.split("#")[0])
    assert opened.status_code == 200
    boot = opened.context["boot"]
    assert boot["session"] == earlier.session_id
    # Its timeline is the earlier session's: "#1" there is the mission found (the
    # current session has a "#1" of its own).
    assert {m["mission"] for m in boot["messages"]} == {earlier.pk}
    assert any("80만원" in m["text"] for m in boot["messages"])
    assert f'<option value="{earlier.session_id}" selected>' in opened.content.decode()


# Issue 45, point 5: a search for a sum ranks by the value and the words, never by a unit
# alone. Each set: the question, the mission that states the value however written, a
# near value, a near miss (the digits of another order of magnitude) and a mission that
# shares only the unit.
VALUE_SETS = {
    "ko": (
        "노트북 80만원",
        "노트북 견적은 800,000원으로 받았어요.",
        "노트북 다른 견적은 79만원이었어요.",
        "노트북 파우치는 8만원이에요.",
        "넷플릭스 구독료는 29,900원이에요.",
    ),
    "en": (
        "laptop $800",
        "The laptop quote came in at 800 dollars.",
        "Another laptop quote was $790.",
        "The laptop sleeve costs $80.",
        "The streaming plan costs $29.99 a month.",
    ),
}


@pytest.mark.parametrize("indexed", [True, False])
@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_sum_ranks_by_how_near_its_value_is_and_a_unit_alone_matches_nothing(
    model: FakeOpenAI, language: str, indexed: bool
) -> None:
    user = make_user()
    theo = dm_channel(make_office(user))
    query, exact, near, far, unit_only = VALUE_SETS[language]
    # The unit-only mission is the newest: recency must not lift it.
    missions = {text: _answered(model, theo, text, "OK.") for text in (far, near, exact, unit_only)}
    if indexed:
        passages_index_session(session_id=missions[exact].session_id)
        assert Passage.objects.filter(mission=missions[exact]).exists()
    hits = [h.mission for h in mission_search(user=user, text=query)]
    assert hits == [missions[exact].pk, missions[near].pk, missions[far].pk], hits
    # The value alone: the mission that states it, never one that only shares the unit.
    value = query.split()[-1]
    assert [h.mission for h in mission_search(user=user, text=value)] == [missions[exact].pk]


@pytest.mark.parametrize("indexed", [True, False])
def test_the_same_sum_written_two_ways_ranks_equal_by_the_words(
    model: FakeOpenAI, indexed: bool
) -> None:
    """80만원 and 800,000원 are one value: between them the words decide."""
    user = make_user()
    theo = dm_channel(make_office(user))
    written = _answered(model, theo, "광고 예산 800,000원 확정", "OK.")
    other = _answered(model, theo, "회식 예산 80만원", "OK.")
    subscription = _answered(model, theo, "광고 툴 구독 29,900원", "OK.")
    if indexed:
        passages_index_session(session_id=written.session_id)
    hits = [h.mission for h in mission_search(user=user, text="광고 예산 80만원")]
    assert hits[:2] == [written.pk, other.pk]
    # The subscription shares a word (광고), not the value: it ranks last.
    assert hits[-1] == subscription.pk
