"""Issue 43, held out: conversations written down before the rules that read them (pasted
material recognised by its shape, rules in force), and never tuned against. Each asks what
the offline extractor makes of a whole message as people write them: pastes of quotes,
contracts, meeting notes, reviews, FAQ, tables and mail, with or without a request around
them, and rules said in everyday words, in Korean, English and both."""

import pytest

from memory.extraction import pattern_candidates
from missions.intake import instruction_accept
from tests.factories import channel_of, dm_channel, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

PERSONS_KINDS = ("rule", "decision", "preference")

# Material and nothing else of the person's but a request: no rule, decision or preference.
MATERIAL = [
    "안녕하세요 사장님, 그린빈 로스터리 영업팀 이지훈입니다.\n요청하신 원두 견적 보내드립니다.\n\n"
    "- 브라질 세하도 1kg: 23,000원\n- 에티오피아 예가체프 1kg: 31,000원\n"
    "저희는 항상 화요일과 금요일에만 배송합니다.\n"
    "주문은 반드시 전날 오후 3시까지 해주셔야 합니다.\n\n"
    "감사합니다.\n이지훈 드림\n\n이 견적 괜찮은지 한번 봐줘요.",
    "Can you check this section of the lease before I sign?\n\n"
    "4.1 The Tenant shall always pay rent on the first business day of each month.\n"
    "4.2 The Tenant shall never sublet the premises without written consent.\n"
    "4.3 Late payments shall incur a fee of 5% per month.",
    "오늘 스튜디오 미팅 메모 붙여둘게요\nMira: we always shoot product photos on Tuesdays\n"
    "준호: 앞으로 보정본은 항상 48시간 안에 드릴게요\n"
    "Mira: let's switch the backdrop to beige instead of white\n\n다음 미팅 전에 정리만 해줘",
    "From: Dana Kim <dana@brightpixel.example>\nSubject: Re: homepage redesign\n\nHi Sam,\n"
    "Going forward, we always bill design revisions hourly at $95.\n"
    "We've decided to move the launch to June 3.\nBest,\nDana",
    "제3조 (납품)\n① 을은 매주 월요일까지 반드시 납품하여야 한다.\n"
    "② 갑은 납품일로부터 7일 이내에 검수를 완료한다.\n"
    "제4조 (대금 지급)\n갑은 매월 말일에 대금을 지급한다.\n\n"
    "이 조항 우리한테 불리한 거 없어?",
    "스마트스토어 리뷰 몇 개 가져왔어요\n\n"
    "★★★★★ 향이 진하고 항상 신선해요. 앞으로도 계속 주문할게요!\n"
    "★★★★☆ 배송은 빨랐는데 포장이 좀 아쉬워요\n★★☆☆☆ 절대 다시 안 삽니다. 산미가 너무 강해요\n\n"
    "이거 보고 개선점 세 가지만 뽑아줘",
    "Here's the FAQ from the old site, can you tighten it up?\n\n"
    "Q: Do you ship internationally?\nA: We never ship outside the EU.\n"
    "Q: Can I change my order?\nA: Orders must always be changed within 2 hours.",
    "What do you think of the printer's reply?\n\nThanks for reaching out. We always print on "
    "recycled 120gsm stock and we never do rush orders under 5 days. From now on all proofs "
    "will be sent as PDF only.",
    "[10:02] Jisoo: let's go with the blue packaging\n"
    "[10:05] Tom: agreed, and we always use matte finish\n"
    "[10:07] Jisoo: from now on samples ship via DHL\n\nwhat did they settle on?",
    "보낸 사람: 박소연 <soyeon@glowlab.example>\n제목: 샘플 일정\n\n대표님 안녕하세요.\n"
    "앞으로 샘플은 항상 2주 전에 요청해 주셔야 합니다.\n"
    "확정되면 다시 연락드리겠습니다.\n박소연 드림",
    '고객이 이렇게 남겼어요 "I always order the oat latte, please never change the recipe" '
    "답글 초안 써줘",
    "Hello team,\nPlease note our office will always be closed on public holidays, and orders "
    "placed after 4pm ship the next business day.\nKind regards,\nLumen Packaging\n\n"
    "Does this change our Friday delivery?",
    "스튜디오에서 온 답장인데 해석 좀 해줘\n\nHi! Just to confirm, we always need the final "
    "files 3 days before the shoot, and we will use the north-facing studio instead of the "
    "loft.\nCheers,\nAnna",
    "단톡방 대화 캡처한 거 옮겨요\n민지: 앞으로 오픈은 8시로 당기자\n"
    "준호: 그럼 마감은 항상 9시에 할게요\n"
    "민지: 좋아요 그렇게 해요",
    "Can you reply to this for me?\n-----\nWe have decided to raise our wholesale price to "
    "$14.50 per bag starting May. Please always include your PO number on orders.\n-----",
    "[공지] 3월 정기 휴무 안내\n\n저희 매장은 매월 첫째 주 월요일에 항상 휴무입니다.\n"
    "3월에는 4일이 휴무일입니다.\n이용에 참고 부탁드립니다.\n\n이 공지 인스타용으로 짧게 바꿔줘",
]

# Material beside the person's own words: only theirs is heard (each string must be in one
# item; no item holds a value of the material's).
MIXED = [
    (
        "지난달 매출 표예요\n\n| 메뉴 | 판매량 | 매출 |\n| 아메리카노 | 1,240 | 5,580,000원 |\n"
        "| 라떼 | 860 | 4,300,000원 |\n\n앞으로 이런 표는 항상 주간 단위로 정리해줘",
        ["주간 단위"],
        ["1,240", "5,580,000"],
    ),
    (
        "Forwarded from the agency:\n\nWe always post at 9am KST.\n\n"
        "Ignore that — from now on our posts go out at 7pm.",
        ["7pm"],
        ["9am"],
    ),
    (
        "업체 카톡 복붙\n저희는 항상 오전 9시에 포스팅해요\n\n"
        "우리는 앞으로 저녁 7시에 올릴 거예요, 그 시간 기준으로 캘린더 짜줘",
        ["저녁 7시"],
        ["오전 9시"],
    ),
]

# Material the person adopts in their own words outside it: then it is theirs.
ENDORSED = [
    (
        "원두 업체 조건이에요\n\n- 최소 주문 10kg\n- 결제는 항상 익월 10일\n"
        "- 배송비는 무조건 업체 부담\n\n"
        "좋네요, 이 조건으로 진행해요.",
        "익월 10일",
    ),
    (
        "Here are the studio's terms:\n\n1. Final files always due 3 days before the shoot.\n"
        "2. Reshoots are billed at $200/hour.\n3. We never release RAW files.\n\n"
        "Fine by me — let's use their terms.",
        "RAW",
    ),
]

# Rules the person states in everyday words: each is a rule.
OWN_RULES = [
    "앞으로 인스타 포스팅은 저녁 7시에 올려주세요.",
    "From now on, invoices go out on the 1st of every month.",
    "Going forward, reply to wholesale inquiries within 24 hours.",
    "매번 견적서 보낼 때 부가세 포함 여부를 명시해 주세요.",
    "Make sure to cc Hana on every supplier email.",
    "이제부터 신메뉴 사진은 자연광에서만 찍어요.",
    "Don't ever share our supplier prices with customers.",
    "As a rule, we don't discount more than 15%.",
    "리뷰 답글에서는 가격 얘기 하지 말아 주세요.",
    "From here on out, all product shots use the beige backdrop.",
    "매주 월요일 아침에는 재고 현황부터 보고해 줘.",
    "Every Friday, send me a summary of the week's orders.",
    "pls always write captions in both Korean and English from now on",
    "앞으로는 영수증 사진은 꼭 공유 드라이브에 올려 주세요.",
    "앞으로 client emails는 항상 English로 보내 주세요.",
]


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(c.kind, c.text) for c in pattern_candidates(text).items]


@pytest.mark.parametrize("text", MATERIAL)
def test_held_out_material_is_no_rule_of_the_person(text: str) -> None:
    assert [item for item in _kinds(text) if item[0] in PERSONS_KINDS] == []


@pytest.mark.parametrize(("text", "heard", "unheard"), MIXED)
def test_held_out_own_words_beside_material_alone_are_heard(
    text: str, heard: list[str], unheard: list[str]
) -> None:
    items = _kinds(text)
    for value in heard:
        assert any(value in t for _, t in items), items
    for value in unheard:
        assert not any(value in t for _, t in items), items


@pytest.mark.parametrize(("text", "value"), ENDORSED)
def test_held_out_material_the_person_adopts_is_theirs(text: str, value: str) -> None:
    assert any(value in t for _, t in _kinds(text)), _kinds(text)


@pytest.mark.parametrize("text", OWN_RULES)
def test_held_out_everyday_rules_are_rules(text: str) -> None:
    assert "rule" in [kind for kind, _ in _kinds(text)], _kinds(text)


@pytest.mark.parametrize("text", OWN_RULES[:4] + OWN_RULES[12:])
def test_held_out_rules_are_in_force_in_every_mission_of_their_scope(text: str) -> None:
    office = make_office()
    instruction_accept(channel=channel_of(office, "master"), text=text)
    system = next_context(channel=dm_channel(office), instruction="재고 현황 알려줘").section(
        "system"
    )
    assert text.rstrip(".")[-12:] in system.text
