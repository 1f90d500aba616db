"""Offline memory extraction (docs/design.md §5): explicit patterns in the person's words, in
Korean and English, one whole sentence at a time, so that amounts, percentages, e-mail
addresses and URLs are not cut at their dots; questions are never remembered as facts.
And what it remembers replaces what it reverses, by the rule the summary uses: at once
where the old item was a model's alone, after the person confirms where they said it
(issue 42: tests/memory/test_provenance.py)."""

import pytest

from memory.extraction import pattern_candidates
from memory.models import MemoryItem, MemoryProposal
from memory.services import Target, memory_item_remember, memory_proposal_confirm, memory_target
from missions.intake import instruction_accept
from office.models import Office
from tests.factories import dm_channel, make_office

pytestmark = pytest.mark.django_db(transaction=True)


def _extracted(text: str) -> list[tuple[str, str]]:
    return [(c.kind, c.text) for c in pattern_candidates(text).items]


def _models_target(office: Office) -> Target:
    """Where a model's item without a source in the person's words may live (one
    employee's memory, never the office's): such items are replaced at once."""
    employee = dm_channel(office).employee
    return memory_target(office=office, scope="employee", employee=employee)


def _confirm_what_waits(office: Office) -> int:
    """The person confirms every change extraction proposed to what they had said."""
    pending = list(MemoryProposal.objects.filter(office=office, state="pending"))
    for proposal in pending:
        memory_proposal_confirm(proposal=proposal, user=office.owner)
    return len(pending)


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        pytest.param(
            "Our price is $29.99 per month. Always cc jane.doe@example.com on invoices.",
            [
                ("fact", "Our price is $29.99 per month"),
                ("rule", "Always cc jane.doe@example.com on invoices"),
            ],
            id="en-amount-and-email",
        ),
        pytest.param(
            "Remember that churn must stay under 7.5% a month, see https://wiki.acme.io/kpi.v2 "
            "for the sheet. Draft the update.",
            [
                (
                    "fact",
                    "Churn must stay under 7.5% a month, see https://wiki.acme.io/kpi.v2 "
                    "for the sheet",
                )
            ],
            id="en-percent-and-url",
        ),
        pytest.param(
            "Never send drafts to Acme Inc. without my review, e.g. the Q3 deck.",
            [("rule", "Never send drafts to Acme Inc. without my review, e.g. the Q3 deck")],
            id="en-abbreviations",
        ),
        pytest.param(
            "우리 가격은 월 29,900원이라는 걸 기억해줘. 메일에는 항상 jane.doe@example.com을 "
            "참조로 넣어줘.",
            [
                ("fact", "우리 가격은 월 29,900원"),
                ("rule", "메일에는 항상 jane.doe@example.com을 참조로 넣어줘"),
            ],
            id="ko-remember-and-always",
        ),
        pytest.param(
            "기억해: 출시일은 3월 14일이야. 절대 고객 이메일을 외부에 공유하지 마.",
            [
                ("fact", "출시일은 3월 14일이야"),
                ("rule", "절대 고객 이메일을 외부에 공유하지 마"),
            ],
            id="ko-remember-colon-and-never",
        ),
        pytest.param(
            "브랜드 색상은 틸로 하기로 했다. 배포는 반드시 금요일 전에 끝내.",
            [
                ("decision", "브랜드 색상은 틸로 하기로 했다"),
                ("rule", "배포는 반드시 금요일 전에 끝내"),
            ],
            id="ko-decided-and-must",
        ),
        pytest.param(
            "호스팅은 Hetzner로 결정했어요.",
            [("decision", "호스팅은 Hetzner로 결정했어요")],
            id="ko-decision",
        ),
        pytest.param(
            "Let's switch to Hetzner for hosting instead of Fly.io.",
            [("decision", "Let's switch to Hetzner for hosting instead of Fly.io")],
            id="en-lets-switch",
        ),
    ],
)
def test_it_keeps_whole_sentences_in_both_languages(
    instruction: str, expected: list[tuple[str, str]]
) -> None:
    assert _extracted(instruction) == expected


@pytest.mark.parametrize(
    "question",
    [
        "What is our price per month?",
        "What is our price per month",
        "Do you remember our price?",
        "Should we always cc Jane on invoices?",
        "가격이 얼마지?",
        "가격이 얼마지",
        "우리 가격 기억해?",
        "항상 참조로 넣어야 할까요",
    ],
)
def test_a_question_is_never_remembered(question: str) -> None:
    assert _extracted(question) == []


def test_a_question_beside_a_statement_leaves_the_statement() -> None:
    assert _extracted("What is our price per month? Remember it is $29.99 now.") == [
        ("fact", "It is $29.99 now")
    ]
    assert _extracted("가격이 얼마지? 항상 원화로 표기해줘.") == [("rule", "항상 원화로 표기해줘")]


@pytest.mark.parametrize(
    ("instruction", "kept"),
    [
        ("Our price is $29.99 per month. Always cc jane.doe@example.com.", ["$29.99", "jane.doe"]),
        ("가격이 얼마지? 우리 가격은 월 29,900원이라는 걸 기억해줘.", ["29,900원"]),
    ],
)
def test_through_a_real_mission_the_values_arrive_whole_and_questions_do_not(
    instruction: str, kept: list[str]
) -> None:
    office = make_office()
    accepted = instruction_accept(channel=dm_channel(office), text=instruction)
    texts = [i.text for i in MemoryItem.objects.filter(source_mission=accepted.mission)]
    for value in kept:
        assert any(value in t for t in texts), texts
    assert not any("얼마" in t or t.endswith("?") for t in texts)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The brand color is coral", "We decided to drop coral; the brand color is now teal"),
        ("We decided to host on Fly.io", "Let's switch to Hetzner for hosting instead of Fly.io"),
        ("브랜드 색상은 코랄", "브랜드 색상은 틸로 변경"),
        ("호스팅은 Fly.io로 하기로 했다", "Fly.io 대신 Hetzner로 호스팅을 옮기기로 했다"),
    ],
)
def test_a_reversal_supersedes_the_item_it_replaces_across_fact_and_decision(
    old: str, new: str
) -> None:
    office = make_office()
    target = _models_target(office)
    first, _ = memory_item_remember(target=target, kind="fact", text=old, origin="extracted")
    unrelated, _ = memory_item_remember(
        target=target, kind="fact", text="The office dog is called Biscuit", origin="user"
    )

    newer, outcome = memory_item_remember(
        target=target, kind="decision", text=new, origin="extracted"
    )

    assert outcome == "superseded"
    first.refresh_from_db()
    unrelated.refresh_from_db()
    assert not first.active and first.superseded_by_id == newer.pk
    assert unrelated.active
    assert set(MemoryItem.objects.filter(office=office, active=True)) == {newer, unrelated}


def test_one_statement_retires_every_item_it_replaces() -> None:
    office = make_office()
    target = _models_target(office)
    # Both a model's: a person's own items would wait for their confirmation instead
    # (tests/reliability/test_pasted_text.py).
    fact, _ = memory_item_remember(
        target=target, kind="fact", text="The brand color is coral", origin="extracted"
    )
    decision, _ = memory_item_remember(
        target=target, kind="decision", text="We decided coral for the brand", origin="extracted"
    )
    newer, outcome = memory_item_remember(
        target=target,
        kind="decision",
        text="We decided to drop coral; the brand color is now teal",
        origin="extracted",
    )
    assert outcome == "superseded"
    for old in (fact, decision):
        old.refresh_from_db()
        assert not old.active and old.superseded_by_id == newer.pk


def test_moving_off_a_decided_host_retires_the_old_decision() -> None:
    office = make_office()
    channel = dm_channel(office, "Mara")
    instruction_accept(
        channel=channel,
        text="Theo confirmed this morning: we decided to host the marketing site, the docs and "
        "the waitlist on Fly.io. What does that mean for the landing page?",
    )
    instruction_accept(
        channel=channel,
        text="Heads-up from Theo: we're moving the marketing site, the docs and the waitlist "
        "off Fly.io to Hetzner instead. What changes for us?",
    )
    # Said by the person: the change waits for them, then replaces the old decision.
    assert MemoryItem.objects.get(office=office, text__contains="on Fly.io").active
    assert _confirm_what_waits(office) == 1
    live = list(
        MemoryItem.objects.filter(office=office, active=True).values_list("text", flat=True)
    )
    assert any("Hetzner" in text for text in live)
    assert not any("Fly.io" in text and "Hetzner" not in text for text in live)
    old = MemoryItem.objects.get(office=office, text__contains="on Fly.io")
    assert not old.active and old.superseded_by is not None


def test_moving_fast_is_no_decision() -> None:
    assert _extracted("We are moving fast on this one, thanks.") == []


@pytest.mark.parametrize(
    ("old_kind", "old", "new_kind", "new"),
    [
        ("preference", "Cream for the gift set box", "decision", "The gift set box will be navy"),
        ("fact", "Our ads run mainly on Instagram Reels", "decision", "Move the ads off Reels"),
        (
            "preference",
            "선물세트 박스는 크림색이 좋아요",
            "decision",
            "선물세트 박스는 남색으로 변경",
        ),
        ("rule", "월 광고 예산은 80만원", "fact", "월 광고 예산은 100만원으로 바뀌었어요"),
    ],
)
def test_a_reversal_supersedes_whatever_memory_kind_holds_the_old_value(
    old_kind: str, old: str, new_kind: str, new: str
) -> None:
    target = _models_target(make_office())
    first, _ = memory_item_remember(target=target, kind=old_kind, text=old, origin="extracted")
    newer, outcome = memory_item_remember(
        target=target, kind=new_kind, text=new, origin="extracted"
    )
    first.refresh_from_db()
    assert outcome == "superseded" and not first.active and first.superseded_by_id == newer.pk


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("월 광고 예산은 80만원", "예산을 옮기기로 했어요"),
        ("The monthly ads budget is $800", "We decided to move the budget review"),
    ],
)
def test_a_topic_match_alone_does_not_retire_a_memory_item(old: str, new: str) -> None:
    target = _models_target(make_office())
    first, _ = memory_item_remember(target=target, kind="rule", text=old, origin="user")
    _, outcome = memory_item_remember(target=target, kind="decision", text=new, origin="extracted")
    first.refresh_from_db()
    assert outcome == "created" and first.active


def _live_memory(office: Office) -> list[str]:
    return list(
        MemoryItem.objects.filter(office=office, active=True).values_list("text", flat=True)
    )


@pytest.mark.parametrize(
    ("decision", "reversal", "old_value", "new_value"),
    [
        pytest.param(
            "Cream for the gift set box.",
            "Navy for the gift set box instead.",
            "Cream",
            "Navy",
            id="en-value-for",
        ),
        pytest.param(
            "We decided to put our ads mainly into Instagram Reels.",
            "We'll move the ads budget off Reels.",
            "Instagram Reels",
            "off Reels",
            id="en-move-off",
        ),
        pytest.param(
            "We decided to put our ads mainly into Instagram Reels.",
            "The ads budget must go to TikTok, not Reels.",
            "Instagram Reels",
            "TikTok",
            id="en-x-not-y",
        ),
        pytest.param(
            "We decided the monthly ads budget is $800.",
            "We're raising the monthly ads budget to $1,000.",
            "$800",
            "$1,000",
            id="en-raising-to",
        ),
        pytest.param(
            "We decided to launch on March 14.",
            "The launch date must be March 21 at the latest.",
            "March 14",
            "March 21",
            id="en-must-be-date",
        ),
        pytest.param(
            "선물세트 박스는 크림색으로 해요.",
            "선물세트 박스는 남색으로 바꿔요.",
            "크림색",
            "남색",
            id="ko-change-to",
        ),
        pytest.param(
            "광고는 주로 인스타그램 릴스에 넣기로 했어요.",
            "광고 예산은 릴스 말고 틱톡으로.",
            "인스타그램 릴스",
            "틱톡",
            id="ko-x-not-y",
        ),
        pytest.param(
            "월 광고 예산은 80만원으로 정했어요.",
            "월 광고 예산을 100만원으로 올려요.",
            "80만원",
            "100만원",
            id="ko-raising-to",
        ),
        pytest.param(
            "3월 14일에 출시하기로 했어요.",
            "출시일은 늦어도 3월 21일이어야 해요.",
            "3월 14일",
            "3월 21일",
            id="ko-must-be-date",
        ),
    ],
)
def test_through_real_missions_a_reversal_retires_the_decision_it_reverses(
    decision: str, reversal: str, old_value: str, new_value: str
) -> None:
    office = make_office()
    channel = dm_channel(office, "Mara")
    instruction_accept(channel=channel, text=decision)
    assert any(old_value in text for text in _live_memory(office)), _live_memory(office)
    unrelated = instruction_accept(
        channel=channel, text="Remember that the office dog is called Biscuit."
    )
    instruction_accept(channel=channel, text=reversal)
    # Both said by the person: nothing changes until they confirm.
    assert any(old_value in text for text in _live_memory(office))
    assert _confirm_what_waits(office) == 1

    live = _live_memory(office)
    assert any(new_value in text for text in live), live
    assert not any(old_value in text and new_value not in text for text in live), live
    old = MemoryItem.objects.get(office=office, text__contains=old_value, active=False)
    assert old.superseded_by is not None and new_value in old.superseded_by.text
    assert MemoryItem.objects.get(source_mission=unrelated.mission).active


@pytest.mark.parametrize(
    ("decision", "later"),
    [
        pytest.param(
            "We decided the monthly ads budget is $800.",
            "We decided to move the budget review.",
            id="en-topic-only",
        ),
        pytest.param(
            "We decided to launch on March 14.",
            "The newsletter must be out by March 21.",
            id="en-other-subject",
        ),
        pytest.param(
            "월 광고 예산은 80만원으로 정했어요.", "예산을 옮기기로 했어요.", id="ko-topic-only"
        ),
        pytest.param(
            "선물세트 박스는 크림색으로 해요.",
            "쇼핑백은 남색으로 바꿔요.",
            id="ko-other-subject",
        ),
    ],
)
def test_through_real_missions_a_topic_match_alone_retires_nothing(
    decision: str, later: str
) -> None:
    office = make_office()
    channel = dm_channel(office, "Mara")
    first = instruction_accept(channel=channel, text=decision)
    instruction_accept(channel=channel, text=later)
    remembered = MemoryItem.objects.get(source_mission=first.mission)
    assert remembered.active and remembered.superseded_by is None


@pytest.mark.parametrize(
    "pasted",
    [
        'Translate this for the vendor: "We\'ll move the ads budget off Reels and raise it."',
        "Here is what the agency wrote - The gift set box must be navy, not cream.",
        "업체가 보낸 내용 번역해줘: 선물세트 박스는 남색으로 바꿔요.",
    ],
)
def test_a_pasted_reversal_retires_no_decision(pasted: str) -> None:
    office = make_office()
    channel = dm_channel(office, "Mara")
    first = instruction_accept(channel=channel, text="Cream for the gift set box.")
    instruction_accept(channel=channel, text="We decided to put our ads mainly into Reels.")
    instruction_accept(channel=channel, text=pasted)
    assert MemoryItem.objects.get(source_mission=first.mission).active
    assert MemoryItem.objects.filter(office=office, active=False).count() == 0
