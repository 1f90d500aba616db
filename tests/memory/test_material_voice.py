"""Issue 43, point 1: material is not the person's voice. What the person pastes or forwards
is recognised by its shape in any request, not only one that asks for a summary: a block
set apart from their own sentences, mail structure (headers, a greeting and a sign-off),
contract clauses, another speaker's lines, a vendor's own "we", tables, FAQ and reviews.
It is evidence to recall, never a rule, preference or decision of the person, unless they
adopt it in their own words outside it ("이대로 하자", "use their terms"). The person's own
lists and paragraphs, however long, stay theirs. (Held-out conversations, written before
these rules: tests/memory/test_material_held_out.py.)"""

import pytest

from language.material import material_spans
from language.statements import own_words
from memory.extraction import pattern_candidates
from memory.models import MemoryItem
from missions.intake import instruction_accept
from tests.factories import channel_of, make_office

pytestmark = pytest.mark.django_db(transaction=True)

PERSONS_KINDS = ("rule", "decision", "preference")

# A request that asks for no summary, and material of each shape after or before it.
PASTES = {
    "ko-quote-greeting-sign-off": (
        "원두 납품 업체 견적 왔어요.\n\n안녕하세요, 커피상회 박민수입니다.\n"
        "저희는 항상 월요일에 배송하고, 주문 마감은 무조건 금요일 정오입니다.\n"
        "1kg당 21,000원으로 드리겠습니다.\n감사합니다.\n박민수 드림"
    ),
    "en-contract-sections": (
        "Anything risky here?\n\nSection 2.1 The Supplier shall always deliver within 5 "
        "business days.\nSection 2.2 The Buyer shall never resell the goods outside Korea.\n"
        "Section 2.3 Invoices shall be paid within 30 days."
    ),
    "ko-contract-articles": (
        "제1조 (목적) 본 계약은 원두 공급에 관한 사항을 정한다.\n"
        "제2조 (납기) 을은 발주 후 반드시 3일 이내에 납품한다.\n"
        "제3조 (단가) 단가는 1kg당 22,000원으로 한다."
    ),
    "en-meeting-speakers": (
        "Notes from the call with the agency, can you turn them into tasks?\n\n"
        "A: We always send the report on Mondays.\nB: From now on the budget is $3,000.\n"
        "A: Let's go with the spring campaign instead of the summer one."
    ),
    "en-vendor-we": (
        "Got this from the roaster today.\n\nWe always roast on Mondays and ship on "
        "Wednesdays. We never accept returns on opened bags. Going forward, prices will be "
        "quoted in USD and we decided to drop the 250g size."
    ),
    "en-mail-subject-greeting": (
        "Subject: Spring order\n\nHi Jordan,\nPlease always send your order by Thursday.\n"
        "We've decided to raise the minimum order to 20 bags.\nThanks,\nPriya"
    ),
    "ko-table-tabs": (
        "재고표 붙입니다\n\n품목\t수량\t단가\n원두\t40\t21,000원\n우유\t120\t2,800원\n"
        "시럽\t15\t9,000원\n\n이번 주 발주량 계산해 줘"
    ),
    "ko-faq": (
        "홈페이지 FAQ예요, 말투만 다듬어 주세요.\n\n질문: 주말에도 배송되나요?\n"
        "답변: 주말에는 절대 배송하지 않습니다.\n질문: 환불은 언제 되나요?\n"
        "답변: 환불은 항상 영업일 기준 3일 이내에 처리됩니다."
    ),
    "ko-reviews": (
        "⭐️⭐️⭐️⭐️⭐️ 5점 - 항상 친절하고 커피가 맛있어요\n⭐️⭐️ 2점 - 앞으로는 절대 안 갈래요\n"
        "⭐️⭐️⭐️⭐️ 4점 - 라떼가 최고예요\n\n위 리뷰들 보고 답글 달아줘"
    ),
    "mixed-ko-request-en-mail": (
        "이 메일 무슨 말인지 봐 줄래?\n\nDear Ms. Han,\nGoing forward we will always invoice in "
        "USD, and we have decided to switch couriers to FedEx.\nKind regards,\nOliver Grant"
    ),
    "en-material-first": (
        "Hello,\nOur studio is always closed on Sundays, and from now on deposits are 50%.\n"
        "Best regards,\nNorth Light Studio\n\nDoes this work with our shoot on the 14th?"
    ),
    "ko-material-first-refers-back": (
        "저희 로스터리는 항상 화요일에 휴무입니다.\n앞으로 소량 주문은 받지 않기로 했습니다.\n"
        "거래처 여러분의 양해 부탁드립니다.\n\n위 공지 보고 우리 발주 일정 어떻게 할지 알려줘"
    ),
}


@pytest.mark.parametrize("text", PASTES.values(), ids=PASTES.keys())
def test_pasted_material_is_no_rule_or_decision_of_the_person(text: str) -> None:
    assert [c for c in pattern_candidates(text).items if c.kind in PERSONS_KINDS] == []


@pytest.mark.parametrize("text", PASTES.values(), ids=PASTES.keys())
def test_pasted_material_is_found_by_its_shape(text: str) -> None:
    spans = material_spans(text)
    assert spans, "no material found"
    # The material is the bulk of the message, and the person's own words are the rest.
    assert sum(end - start for start, end in spans) > len(text) // 2
    assert len(own_words(text)) < len(text) // 2


@pytest.mark.parametrize(
    ("text", "heard", "unheard"),
    [
        pytest.param(
            "거래처 공지 옮겨요\n\n"
            "저희는 항상 오후 4시에 주문을 마감합니다.\n주말에는 배송하지 않습니다.\n\n"
            "참고만 하고, 우리 쪽 규칙은 앞으로도 오후 2시 마감이에요.",
            "오후 2시",
            "오후 4시",
            id="ko-own-rule-after-paste",
        ),
        pytest.param(
            "The agency's proposal:\n\nWe always post at 8am.\nWe never boost posts.\n\n"
            "No — from now on we post at 6pm, and always boost the launch post.",
            "6pm",
            "8am",
            id="en-own-rule-after-paste",
        ),
    ],
)
def test_the_persons_own_rule_beside_a_paste_is_heard_alone(
    text: str, heard: str, unheard: str
) -> None:
    items = pattern_candidates(text).items
    assert any(heard in c.text and c.kind == "rule" for c in items), items
    assert not any(unheard in c.text for c in items), items


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param(
            "업체 조건입니다\n\n- 납품은 항상 수요일\n- 결제는 월말\n\n이대로 하자.",
            "수요일",
            id="ko-이대로-하자",
        ),
        pytest.param(
            "Their offer:\n\n- Delivery always on Thursdays.\n- Net 30 payment.\n\n"
            "Looks fine, use their terms.",
            "Thursdays",
            id="en-use-their-terms",
        ),
        pytest.param(
            "스튜디오 조건\n\nShoots always start at 10am.\nOvertime is $150 per hour.\n\n"
            "그 조건으로 진행해요.",
            "10am",
            id="mixed-그-조건으로",
        ),
    ],
)
def test_material_the_person_adopts_in_their_words_is_theirs(text: str, value: str) -> None:
    items = pattern_candidates(text).items
    assert any(value in c.text and c.kind in PERSONS_KINDS for c in items), items


@pytest.mark.parametrize(
    "text",
    [
        "업체 조건입니다\n\n- 납품은 항상 수요일\n- 결제는 월말\n\n이대로 해도 될까?",
        "Their offer:\n\n- Delivery always on Thursdays.\n- Net 30 payment.\n\n"
        "Should we use their terms?",
    ],
)
def test_asking_whether_to_adopt_material_adopts_nothing(text: str) -> None:
    assert [c for c in pattern_candidates(text).items if c.kind in PERSONS_KINDS] == []


@pytest.mark.parametrize(
    ("text", "count"),
    [
        pytest.param(
            "앞으로 지킬 것:\n1. 항상 영수증 챙기기\n2. 매주 월요일 재고 체크는 반드시 하기\n"
            "3. 절대 외상 주지 않기",
            3,
            id="ko-own-numbered-list",
        ),
        pytest.param(
            "House rules going forward:\n1. Always greet regulars by name.\n"
            "2. Never run out of oat milk.\n3. Always log waste every night.",
            3,
            id="en-own-numbered-list",
        ),
        pytest.param(
            "이번 주 정리할게요.\n\n"
            "라떼 가격은 이제 5,500원이에요. 앞으로 원두는 항상 로스팅 3일 후에 써요.\n\n"
            "다음 주엔 신메뉴 사진 찍어요.",
            1,
            id="ko-own-paragraphs",
        ),
    ],
)
def test_the_persons_own_lists_and_paragraphs_stay_theirs(text: str, count: int) -> None:
    rules = [c for c in pattern_candidates(text).items if c.kind == "rule"]
    assert len(rules) == count, rules


def test_a_paste_in_the_master_channel_leaves_no_memory_of_the_persons() -> None:
    office = make_office()
    master = channel_of(office, "master")
    for text in PASTES.values():
        instruction_accept(channel=master, text=text)
    made = MemoryItem.objects.filter(office=office, kind__in=PERSONS_KINDS)
    assert [i.text for i in made] == []


def test_material_spans_read_a_long_paste_in_linear_time() -> None:
    # 20K chars of pasted lines: found as one block, quickly (tests/language/
    # test_linear_time.py times the functions on adversarial input).
    text = "이거 봐줘\n\n" + "A: we always ship on Fridays.\n" * 700
    spans = material_spans(text)
    assert spans and spans[0][1] - spans[0][0] > 19_000
