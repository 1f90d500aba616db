"""Issue 45, point 6: a contradiction of a pinned item becomes a proposal, as for the other
items a person set down, also when it is said where another scope's memory applies: a
person's pinned office rule, reversed in a 1:1 (or an employee's pinned rule reversed in
the master channel), is never left standing beside a conflicting new item unasked. English
and Korean."""

import pytest

from memory.models import MemoryItem, MemoryOrigin, MemoryProposal, MemoryScope
from memory.services import memory_item_create, memory_proposal_confirm, memory_target
from missions.intake import instruction_accept
from office.models import ChannelKind, Employee, Office
from tests.factories import channel_of, dm_channel, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

RULE = {
    "en": "Always send reports in English.",
    "ko": "앞으로 보고서는 항상 영어로 보내주세요.",
}
CHANGE = {
    "en": "From now on, always send reports in French instead of English.",
    "ko": "앞으로 보고서는 항상 영어 대신 프랑스어로 보내주세요.",
}
UNRELATED = {
    "en": "Always use Stripe for payments.",
    "ko": "앞으로 결제는 항상 Stripe로 해 주세요.",
}
FRENCH = {"en": "French", "ko": "프랑스어"}


def _pinned(office: Office, language: str, employee: Employee | None = None) -> MemoryItem:
    scope = MemoryScope.EMPLOYEE if employee else MemoryScope.OFFICE
    return memory_item_create(
        target=memory_target(office=office, scope=scope, employee=employee),
        kind="rule",
        text=RULE[language],
        origin=MemoryOrigin.USER,
        pinned=True,
        created_by=office.owner,
    )


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_pinned_office_rule_reversed_in_a_one_to_one_is_proposed_not_doubled(
    language: str,
) -> None:
    office = make_office()
    rule = _pinned(office, language)
    one_to_one = dm_channel(office)
    instruction_accept(channel=one_to_one, text=CHANGE[language])

    rule.refresh_from_db()
    assert rule.active and rule.superseded_by is None
    # No second item contradicting it: the change waits for the person.
    assert list(MemoryItem.objects.filter(office=office, active=True)) == [rule]
    proposal = MemoryProposal.objects.get(office=office)
    assert proposal.state == "pending" and list(proposal.replaces.all()) == [rule]
    assert FRENCH[language] in proposal.text
    # The 1:1's memory panel shows it.
    from memory.selectors import proposals_pending_for_channel_panel

    assert list(proposals_pending_for_channel_panel(channel=one_to_one)) == [proposal]
    # The prompt of the 1:1 still holds one rule on reports: the pinned one.
    system = next_context(channel=one_to_one, instruction="Send the report").messages[0]
    assert RULE[language] in system["content"] and FRENCH[language] not in system["content"]

    # Confirmed, the new rule replaces the pinned one where it stood, pinned as it was.
    new = memory_proposal_confirm(proposal=proposal, user=office.owner)
    rule.refresh_from_db()
    assert not rule.active and rule.superseded_by == new
    assert new.scope == MemoryScope.OFFICE and new.pinned and FRENCH[language] in new.text
    assert list(MemoryItem.objects.filter(office=office, active=True)) == [new]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_an_employees_pinned_rule_reversed_for_the_whole_office_is_proposed(
    language: str,
) -> None:
    office = make_office()
    one_to_one = dm_channel(office)
    assert one_to_one.employee is not None
    rule = _pinned(office, language, employee=one_to_one.employee)
    instruction_accept(channel=channel_of(office, ChannelKind.MASTER), text=CHANGE[language])
    rule.refresh_from_db()
    assert rule.active
    assert list(MemoryItem.objects.filter(office=office, active=True)) == [rule]
    assert MemoryProposal.objects.get(office=office).replaces.get() == rule


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_rule_on_something_else_leaves_the_pinned_rule_alone(language: str) -> None:
    office = make_office()
    rule = _pinned(office, language)
    instruction_accept(channel=dm_channel(office), text=UNRELATED[language])
    rule.refresh_from_db()
    assert rule.active
    assert not MemoryProposal.objects.filter(office=office).exists()
    assert MemoryItem.objects.filter(office=office, active=True).count() == 2


@pytest.mark.parametrize("language", ["en", "ko"])
def test_an_extracted_office_item_nobody_set_down_is_not_asked_about(language: str) -> None:
    """Only what a person set down waits for them: a 1:1's own rule beside an office item
    a model took from a reply is simply remembered for that employee."""
    office = make_office()
    taken = memory_item_create(
        target=memory_target(office=office, scope=MemoryScope.OFFICE),
        kind="fact",
        text=RULE[language],
        origin=MemoryOrigin.EXTRACTED,
        source_span=RULE[language],
    )
    taken.source_span = ""
    taken.save(update_fields=["source_span"])
    instruction_accept(channel=dm_channel(office), text=CHANGE[language])
    assert not MemoryProposal.objects.filter(office=office).exists()
    assert MemoryItem.objects.filter(
        office=office, active=True, scope=MemoryScope.EMPLOYEE
    ).exists()
