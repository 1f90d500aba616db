"""Values as values (language/values.py): an amount, a date or a percentage written in
different ways reads as one value, in English and Korean; words that look like Hangul
numerals are not values."""

import pytest

from language.values import Value, parse_number, unsupported, value_terms, values_in


def _labels(text: str) -> list[str]:
    return sorted(v.label() for v in values_in(text))


@pytest.mark.parametrize(
    ("forms", "label"),
    [
        (["29,900", "29900"], "29900"),
        (
            ["29,900원", "29900원", "이만구천구백원", "2만 9천9백원", "₩29,900", "29,900 KRW"],
            "29900 KRW",
        ),
        (["80만원", "800,000원", "80만 원", "팔십만원"], "800000 KRW"),
        (["1240만원", "1,240만원", "12,400,000원"], "12400000 KRW"),
        (["1억 2천만원", "120,000,000원"], "120000000 KRW"),
        # A unit alone before the currency is one of it.
        (["만원", "만 원", "1만원", "일만원", "10,000원", "₩10,000"], "10000 KRW"),
        (["천원", "천 원", "1천원", "1,000원"], "1000 KRW"),
        (["억원", "억 원", "1억원", "일억원", "100,000,000원"], "100000000 KRW"),
        (["천 달러", "$1,000"], "1000 USD"),
        (["백프로", "100%"], "100%"),
        (["$1,240", "1240 dollars", "1,240달러", "1240 USD"], "1240 USD"),
        (["$1.5 million", "$1,500,000"], "1500000 USD"),
        (["3월 14일", "3/14", "03-14", "삼월 십사일", "March 14", "Mar 14th", "14 March"], "03-14"),
        (["2026년 3월 14일", "2026-03-14", "March 14, 2026", "3/14/2026"], "2026-03-14"),
        (["유월 십일", "6월 10일", "June 10"], "06-10"),
        (["15%", "15 퍼센트", "십오 퍼센트", "15 percent"], "15%"),
        (["1.5%", "1.5 percent"], "1.5%"),
    ],
)
def test_every_form_of_a_value_reads_as_one_value(forms: list[str], label: str) -> None:
    for form in forms:
        assert _labels(form) == [label], form
    assert len({tuple(value_terms(form)) for form in forms}) == 1


@pytest.mark.parametrize(
    ("sentence", "labels"),
    [
        ("만원짜리 선물로 하자", ["10000 KRW"]),
        ("천원 더 내면 음료도 줘요", ["1000 KRW"]),
        ("이번 캠페인 예산은 억원대예요", ["100000000 KRW"]),
        ("커피는 천 원, 케이크는 만 원이에요", ["1000 KRW", "10000 KRW"]),
        ("입장료는 만원, 주차는 2천원", ["10000 KRW", "2000 KRW"]),
        ("백프로 확신해요", ["100%"]),
    ],
)
def test_a_unit_alone_reads_as_one_of_it_in_a_sentence(sentence: str, labels: list[str]) -> None:
    assert _labels(sentence) == labels


@pytest.mark.parametrize(
    "text",
    [
        "천천히 하자",
        "이천에서 만나요",
        "팀의 일원으로",
        "구원 투수",
        "만약에",
        "이번 달은 바빠요",
        "조원들과 회의했어요",
        "그것만 원해요",
    ],
)
def test_words_that_look_like_hangul_numerals_are_not_values(text: str) -> None:
    assert values_in(text) == set()


def test_a_day_without_a_month_is_a_number_not_a_date() -> None:
    assert _labels("매월 15일에 정산해요") == ["15"]
    assert _labels("see #12 for 2 items") == ["2"]  # mission pointers are not values


def test_numbers_compose_the_korean_way() -> None:
    assert parse_number("1,240만") == 12_400_000
    assert parse_number("이만구천구백") == 29_900
    assert parse_number("3만 5천") == 35_000
    assert parse_number("십사") == 14
    assert parse_number("1 2") is None


@pytest.mark.parametrize(
    ("claimed", "source", "missing"),
    [
        ("3월 4일", "출시는 3월 14일, 인원은 4명", ["03-04"]),
        ("3만 원", "샘플은 3천 원, 3개 보내요", ["30000 KRW"]),
        ("29,900달러", "가격은 29,900원", ["29900 USD"]),
        ("천원", "입장료는 만원", ["1000 KRW"]),
        ("억원", "예산은 10,000,000원", ["100000000 KRW"]),
        ("이만구천구백원", "가격은 19,900원", ["29900 KRW"]),
        ("March 4", "Launch on March 14 with 4 people", ["03-04"]),
        ("20%", "We give 2 codes at 10% off", ["20%"]),
        ("2027-03-14", "Launch on 2026-03-14", ["2027-03-14"]),
    ],
)
def test_a_value_is_unsupported_unless_the_source_states_that_value(
    claimed: str, source: str, missing: list[str]
) -> None:
    assert unsupported(claimed, source) == missing


@pytest.mark.parametrize(
    ("claimed", "source"),
    [
        ("80만원", "월 광고 예산은 800,000원"),
        ("1,240만원", "매출 1240만원"),
        ("3/14", "출시는 삼월 십사일"),
        ("March 14", "출시는 2026년 3월 14일"),
        ("29900원", "가격 29,900"),
        ("10,000원", "기념품은 만원짜리로 해요"),
        ("만 원", "가격은 10,000원"),
        ("1억원", "예산은 억원대예요"),
        ("14", "출시는 3월 14일"),
    ],
)
def test_the_same_value_written_otherwise_is_supported(claimed: str, source: str) -> None:
    assert unsupported(claimed, source) == []


def test_a_run_of_more_digits_than_any_amount_is_no_value() -> None:
    # An identifier, not an amount: read as one, its digits past Decimal's precision
    # became zeros, and a clipped copy of it no longer gave the same value.
    assert values_in("송장 번호 " + "7" * 40 + " 확인해 주세요") == set()
    assert values_in("Tracking " + "2" * 300) == set()
    eighteen = "1" * 18
    assert values_in(f"Total {eighteen} won") == {Value("amount", eighteen, "krw")}
