"""Issue 43, point 3: a fold that keeps what matters. In the extractive fold the person's
rules and decisions rank above what they pasted (table rows, reviews, FAQ lines, a
vendor's boilerplate): when the summary is over its budget, pasted lines go first. A
pasted line is kept as evidence, marked as pasted, never as a decision or a constraint of
the person's, and it never supersedes what the person decided."""

from datetime import UTC, datetime, timedelta

import pytest

from summaries.extractive import MATERIAL_PREFIX, extractive_fold
from summaries.prompts import FOLD_SYSTEM, render_fold_mission
from summaries.render import render_summary
from summaries.schemas import FoldMission, SummaryState

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

OWN = {
    "ko": [
        "앞으로 인스타 게시물은 항상 저녁 7시에 올려요.",
        "시즌 블렌드 가격은 1kg 24,000원으로 정했어요.",
        "배송은 이제부터 CJ대한통운으로 바꿔요.",
    ],
    "en": [
        "From now on, we always post at 7pm on weekdays.",
        "We decided the seasonal blend sells at $24 per bag.",
        "We're switching couriers to DHL instead of UPS.",
    ],
}
# Pasted material full of money, dates and names: what plain salience would keep first.
PASTES = {
    "ko": [
        "지난달 판매표 붙여요\n\n| 메뉴 | 판매량 | 매출 |\n| 아메리카노 | 1,240잔 | 5,580,000원 |\n"
        "| 카페라떼 | 860잔 | 4,300,000원 |\n| 바닐라라떼 | 410잔 | 2,255,000원 |\n"
        "| 콜드브루 | 390잔 | 2,145,000원 |\n\n이거 그래프로 그려줘",
        "리뷰 모음이에요\n\n★★★★★ 3월 4일 방문, 김하늘 바리스타님 라떼아트 최고예요\n"
        "★★☆☆☆ 3월 6일 주문, 배송이 5일이나 걸렸어요 15,000원어치 샀는데\n"
        "★★★★☆ 3월 9일, 원두 200g 12,000원 가성비 좋아요\n\n위 리뷰에 답글 달아줘",
        "업체 FAQ 붙여요, 다듬어 주세요.\n\n질문: 최소 주문은?\n"
        "답변: 저희는 항상 10kg부터 받습니다.\n"
        "질문: 결제일은?\n답변: 매월 25일에 청구되며 3월 31일까지 할인 12%가 적용됩니다.",
        "거래처 견적이에요\n\n안녕하세요, 그린빈입니다.\n저희 시즌 블렌드는 1kg 19,500원이고 "
        "앞으로 배송은 항상 한진택배로 합니다.\n4월 1일부터 운임 3,000원이 추가됩니다.\n"
        "감사합니다.\n그린빈 드림\n\n어떤지 봐줘",
    ],
    "en": [
        "Last month's sales, pasted:\n\n| Item | Units | Revenue |\n| Americano | 1,240 | "
        "$5,580 |\n| Latte | 860 | $4,300 |\n| Vanilla latte | 410 | $2,255 |\n"
        "| Cold brew | 390 | $2,145 |\n\nCan you chart this?",
        "Some reviews:\n\n★★★★★ Visited March 4, Maya Brooks made the best flat white\n"
        "★★☆☆☆ Ordered March 6, shipping took 5 days for a $150 order\n"
        "★★★★☆ March 9, the 200g bag at $12 is great value\n\nDraft replies to these.",
        "The supplier's FAQ, please tidy it:\n\nQ: What is the minimum order?\n"
        "A: We always require 10kg minimum.\nQ: When is payment due?\n"
        "A: Billed on the 25th; a 12% discount applies until March 31.",
        "What do you think of this quote?\n\nHi there,\nOur seasonal blend is $19.50 per bag "
        "and going forward we always ship with FedEx.\nFrom April 1 freight adds $30.\n"
        "Best,\nGreen Bean Co.",
    ],
}


def _missions(language: str) -> list[FoldMission]:
    texts = [*OWN[language], *PASTES[language]]
    return [
        FoldMission(id=n, seq=n, at=AT + timedelta(hours=n), instruction=text, reply="")
        for n, text in enumerate(texts, start=1)
    ]


def _fold(language: str, budget: int) -> SummaryState:
    return extractive_fold(
        previous=SummaryState(), missions=_missions(language), budget_chars=budget
    )


@pytest.mark.parametrize("language", ["ko", "en"])
def test_pasted_lines_are_never_the_persons_decisions_or_constraints(language: str) -> None:
    state = _fold(language, 10_000)
    persons = [i.text for i in [*state.decisions, *state.constraints]]
    for item in persons:
        assert not item.startswith(MATERIAL_PREFIX)
    # Nothing of the vendor's own habits among them.
    for vendor in ("한진택배", "FedEx", "10kg", "19,500", "19.50"):
        assert not any(vendor in item for item in persons), persons
    # The pastes are still evidence: their lines stay, marked as pasted.
    assert any(i.text.startswith(MATERIAL_PREFIX) for i in state.facts)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_tight_budget_evicts_pasted_lines_before_the_persons_rules(language: str) -> None:
    roomy = render_summary(_fold(language, 10_000))
    tight = _fold(language, len(roomy) // 2)
    text = render_summary(tight)
    assert len(text) <= len(roomy) // 2
    for said in OWN[language]:
        assert said.rstrip(".")[:20] in text, text
    kept_pasted = [i for i in tight.facts if i.text.startswith(MATERIAL_PREFIX)]
    all_pasted = [i for i in _fold(language, 10_000).facts if i.text.startswith(MATERIAL_PREFIX)]
    assert len(kept_pasted) < len(all_pasted)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_pasted_price_does_not_supersede_the_persons_decision(language: str) -> None:
    state = _fold(language, 10_000)
    price = OWN[language][1].rstrip(".")[:20]
    live = [d for d in state.decisions if not d.superseded and price in d.text]
    assert live, state.decisions


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_models_fold_sees_the_persons_words_and_the_paste_apart(language: str) -> None:
    mission = _missions(language)[-1]  # a vendor's quote and the person's question
    shown = render_fold_mission(mission)
    own, _, material = shown.partition("Material the person pasted or forwarded")
    assert material, shown
    assert ("그린빈 드림" if language == "ko" else "Green Bean Co.") in material
    assert ("그린빈 드림" if language == "ko" else "Green Bean Co.") not in own
    assert ("어떤지 봐줘" if language == "ko" else "What do you think") in own
    assert MATERIAL_PREFIX in FOLD_SYSTEM


@pytest.mark.parametrize("language", ["ko", "en"])
def test_nothing_pasted_retires_what_the_person_said(language: str) -> None:
    # A review ("배송이 5일이나 걸렸어요"), a table row or a vendor's FAQ names the same
    # things as the person's courier rule; it is someone else's words and replaces none.
    state = _fold(language, 10_000)
    text = render_summary(state)
    for said in OWN[language]:
        assert said.rstrip(".")[:20] in text, text
    pasted = {n for n in range(len(OWN[language]) + 1, len(OWN[language]) + 5)}
    retired_by_a_paste = [
        d for d in state.dropped if any(f"superseded by #{n};" in d.reason for n in pasted)
    ]
    assert not retired_by_a_paste, retired_by_a_paste
