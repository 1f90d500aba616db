"""Recall marks an old value with what replaced it, whatever words replaced it (issue 43):
"(superseded by #7: Mira)"; never the current statement by its own mission or by a repeat
of its value, never the person's rule by a quote they pasted. Korean and English."""

import pytest

from context.superseded import marker, reversals, superseded_by


def _marks(old: str, *later: tuple[int, str], at: int = 3) -> str:
    return marker(
        superseded_by((None, at), old, record={}, later=reversals(list(later)), with_values=True)
    )


@pytest.mark.parametrize(
    ("old", "new", "mark"),
    [
        ("Jonas will shoot the photos.", "let's go with Mira instead", "(superseded by #7: Mira)"),
        (
            "원두 1kg 21,000원에 팔아요.",
            "가격 올렸어요, 이제 원두 1kg 23,500원",
            "(superseded by #7: 23500 KRW)",
        ),
        ("런칭은 5월 2일이에요.", "런칭 5/9로 밀렸대요.", "(superseded by #7: 05-09)"),
    ],
)
def test_an_old_value_is_marked_with_what_replaced_it(old: str, new: str, mark: str) -> None:
    assert _marks(old, (7, new)) == mark


def test_the_current_price_is_not_marked_by_its_own_mission_nor_by_a_repeat() -> None:
    current = "가격 올렸어요, 이제 원두 1kg 23,500원"
    assert _marks(current, (5, current), at=5) == ""
    assert (
        _marks(current, (5, current), (8, "원두 1kg 23,500원으로 메뉴판 고쳐 주세요."), at=5) == ""
    )


@pytest.mark.parametrize(
    ("rule", "paste"),
    [
        (
            "Our rule: we never post on weekends.",
            "Here's the studio's quote, what do you think?\n\n"
            "> We post client photos on Saturdays and Sundays.\n"
            "> Rate: $1,800 per shoot, 3 revisions.\n\nBest,\nLumen Studio",
        ),
        (
            "앞으로 주말에는 게시물 올리지 않아요.",
            "스튜디오가 보낸 견적이에요:\n\n> 게시물은 토요일과 일요일에 올립니다.\n"
            "> 촬영 1회 180만원\n\n검토해 주세요.",
        ),
    ],
)
def test_the_owners_rule_is_not_superseded_by_a_pasted_quote(rule: str, paste: str) -> None:
    assert _marks(rule, (9, paste)) == ""
