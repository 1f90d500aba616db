"""Issue 43, point 2: rules in force. A rule the person states in chat, in whatever words
(앞으로, 항상, 매번, "from now on", "going forward", "make sure to" …), is remembered as a
rule and shown in the system section of every mission of its scope (the office's from the
master and all-hands channels, a project's in that project) until it is retired, whether
or not the question shares a word with it. Rules in force have a share of the prompt
budget of their own (context.budget); when they do not all fit, pinned ones and the
newest come first, and the section says how many were left out."""

import pytest

from context.budget import prompt_budget
from memory.models import MemoryItem
from memory.services import memory_item_create, memory_item_retire, memory_target
from missions.intake import instruction_accept
from office.models import Office
from office.services import project_channel_create
from tests.factories import channel_of, dm_channel, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

STATED = {
    "ko": [
        ("앞으로 인스타 게시물은 저녁 7시에 올려 주세요.", "저녁 7시에 올려"),
        ("매번 견적서에는 부가세 포함 여부를 적어 주세요.", "부가세 포함 여부"),
        ("이제부터 신메뉴 사진은 자연광에서만 찍어요.", "자연광에서만"),
    ],
    "en": [
        ("From now on, our posts go out at 7pm.", "posts go out at 7pm"),
        ("Going forward, quote wholesale prices without VAT.", "without VAT"),
        ("Make sure to cc Hana on every supplier email.", "cc Hana"),
    ],
    "mixed": [
        ("앞으로 client emails는 항상 English로 보내 주세요.", "English로 보내"),
        ("From now on 영수증은 공유 드라이브에 올려 주세요.", "공유 드라이브"),
    ],
}
# Questions that share no word with any rule above.
UNRELATED = {"ko": "오늘 매장 재고 현황 알려줘", "en": "How many bags of oat milk are left?"}


def _system(channel_office: Office, channel_kind: str = "dm", question: str = "") -> str:
    channel = (
        dm_channel(channel_office) if channel_kind == "dm" else channel_of(channel_office, "all")
    )
    return (
        next_context(channel=channel, instruction=question or UNRELATED["en"])
        .section("system")
        .text
    )


@pytest.mark.parametrize("language", ["ko", "en", "mixed"])
def test_a_rule_stated_in_the_master_channel_is_in_force_in_every_mission(language: str) -> None:
    office = make_office()
    master = channel_of(office, "master")
    for said, _ in STATED[language]:
        instruction_accept(channel=master, text=said)
    rules = MemoryItem.objects.filter(office=office, kind="rule", active=True)
    assert rules.count() == len(STATED[language]), [r.text for r in rules]
    for question in UNRELATED.values():
        for kind in ("dm", "all"):
            system = _system(office, kind, question)
            for _, words in STATED[language]:
                assert words in system, (question, kind, system)


def test_a_projects_rule_is_in_force_in_that_project_only() -> None:
    office = make_office()
    project = channel_of(office, "project")
    employees = list(office.employees.filter(is_master=False))
    other = project_channel_create(
        office=office, name="Pop-up store", members=employees[:1], lead=employees[0]
    )
    instruction_accept(channel=project, text="앞으로 이 프로젝트 보고서는 항상 표로 정리해 주세요.")
    here = next_context(channel=project, instruction="What's next?").section("system").text
    there = next_context(channel=other, instruction="What's next?").section("system").text
    assert "표로 정리" in here
    assert "표로 정리" not in there


def test_a_retired_rule_is_no_longer_in_force() -> None:
    office = make_office()
    instruction_accept(
        channel=channel_of(office, "master"), text="Going forward, no emoji in posts."
    )
    rule = MemoryItem.objects.get(office=office, kind="rule", active=True)
    assert "no emoji" in _system(office)
    memory_item_retire(item=rule)
    assert "no emoji" not in _system(office)


@pytest.mark.parametrize(
    "paste",
    [
        "Message from the studio:\n\nFrom now on, all shoots start at 6am.\nBest,\nNorth Light",
        "업체 메일이에요\n\n안녕하세요, 커피상회입니다.\n"
        "앞으로 주문은 항상 전날 오후 3시까지 부탁드립니다.\n"
        "감사합니다.\n커피상회 드림",
    ],
)
def test_a_pasted_rule_is_not_in_force_and_the_persons_stays(paste: str) -> None:
    office = make_office()
    master = channel_of(office, "master")
    instruction_accept(channel=master, text="From now on, all shoots start at 10am.")
    instruction_accept(channel=master, text=paste)
    system = _system(office)
    assert "10am" in system
    assert "6am" not in system and "오후 3시" not in system


def test_too_many_rules_keep_pinned_and_newest_first_and_count_the_rest(settings) -> None:
    settings.RULES_BUDGET_CHARS = 600
    settings.SYSTEM_BUDGET_CHARS = 1_400
    office = make_office()
    target = memory_target(office=office, scope="office")
    made = [
        memory_item_create(
            target=target,
            kind="rule",
            text=f"Rule number {n}: always label shelf {n} with its roast date and origin.",
            origin="user",
        )
        for n in range(20)
    ]
    pinned = memory_item_create(
        target=target, kind="fact", text="Our shop opens at 8am.", origin="user", pinned=True
    )
    section = next_context(channel=dm_channel(office), instruction="hello").section("system")
    shown = section.memory_ids
    assert shown[0] == pinned.pk
    rules = [pk for pk in shown if pk != pinned.pk]
    # The newest, in order, as many as fit; the others are counted, not hidden.
    assert rules == [m.pk for m in reversed(made)][: len(rules)]
    assert 0 < len(rules) < 20
    left = 20 - len(rules)
    assert f"{left} more rules" in section.text
    assert section.chars <= settings.SYSTEM_BUDGET_CHARS


def test_rules_in_force_have_a_named_share_of_the_budget(settings) -> None:
    settings.RULES_BUDGET_CHARS = 1_234
    assert prompt_budget("dm").rules == 1_234
    # A long persona does not crowd them out: it gives up what the rules' share needs.
    office = make_office()
    employee = dm_channel(office).employee
    assert employee is not None
    employee.persona = "Calm and precise. " * 400
    employee.save()
    target = memory_target(office=office, scope="office")
    rules = [
        memory_item_create(
            target=target,
            kind="rule",
            text=f"Always answer supplier {n} within a day, with the order number.",
            origin="user",
        )
        for n in range(12)
    ]
    section = next_context(channel=dm_channel(office), instruction="hello").section("system")
    assert section.trimmed  # the persona gave way
    assert {r.pk for r in rules} <= set(section.memory_ids)
