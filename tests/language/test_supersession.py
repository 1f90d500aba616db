"""Supersession by subject, not by phrase (issue 43): a later statement replaces an earlier
one about the same thing when it gives another value of the same kind, however it is
worded; most of these say neither "decided" nor "결정" nor "바꿔". Never a question, a
repeat of the current value, another subject, or material the person pasted.

Each pair is plainly about one thing or plainly about two, so the cases hold whether the
subject is decided by words (the fallback) or by meaning (`same_subject`)."""

import pytest
from django.test import override_settings

from language.statements import conflicts, names_in
from language.supersession import changes_value, replacement, same_subject, supersedes

REVERSED = [
    pytest.param(
        "원두 1kg 21,000원에 팔아요.",
        "원두 가격 올렸어요, 이제 1kg 23,500원.",
        "23500",
        id="ko-price",
    ),
    pytest.param(
        "원두 1kg 21,000원이에요.",
        "가격 올렸어요, 이제 23,500원",
        "23500",
        id="ko-price-no-subject",
    ),
    pytest.param("런칭은 5월 2일이에요.", "런칭 5/9로 밀렸대요.", "05-09", id="ko-date"),
    pytest.param("런칭 5월 2일", "5/9로 밀렸대요", "05-09", id="ko-date-bare"),
    pytest.param(
        "Jonas will shoot the photos.", "let's go with Mira instead", "mira", id="en-name"
    ),
    pytest.param(
        "The photo shoot is with Jonas on Friday.",
        "The photo shoot is with Mira now.",
        "mira",
        id="en-name-copula",
    ),
    pytest.param(
        "The team lunch is at 12:30.", "Team lunch got pushed to 1pm.", "1pm", id="en-time"
    ),
    pytest.param(
        "We give a 10% launch discount.", "The launch discount is 15% now.", "15%", id="en-percent"
    ),
    pytest.param(
        "We print 200 flyers for the fair.",
        "Make it 350 flyers for the fair.",
        "350",
        id="en-count",
    ),
    pytest.param("쇼핑백은 크림색이에요.", "쇼핑백은 남색으로 가요.", "navy", id="ko-colour"),
    pytest.param("The tote bag is cream.", "Tote bag: navy from now on.", "navy", id="en-colour"),
    pytest.param(
        "월 광고 예산은 80만원이에요.",
        "월 광고 예산 이제 100만원 써요.",
        "1000000",
        id="ko-amount-units",
    ),
    pytest.param(
        "Cupping 클래스는 토요일 오후 2시예요.",
        "Cupping 클래스 오후 4시로 옮겼어요.",
        "4시",
        id="mixed-time",
    ),
    pytest.param(
        "Aqua Cream 가격은 28,000원이에요.",
        "Aqua Cream 다음 달부터 31,000원 받아요.",
        "31000",
        id="mixed-one-product-named-by-both",
    ),
    # A span of days, in Korean's own numerals or in digits.
    pytest.param(
        "샘플 요청은 발송 이틀 전까지 받아요.",
        "샘플 요청은 이제 발송 사흘 전까지 받아요.",
        "사흘",
        id="ko-days-in-korean-numerals",
    ),
    pytest.param(
        "Refunds are processed within 14 days.",
        "Refunds are processed within 10 days from March.",
        "10 days",
        id="en-days",
    ),
    # The reason for the change takes more words than the thing: context, not its name.
    pytest.param(
        "아이스티는 4,500원이에요.",
        "날이 추워져서 찾는 손님이 줄었네요, 아이스티 가격 내렸어요, 이제 4,000원.",
        "4000",
        id="ko-the-reason-is-no-part-of-the-thing",
    ),
    pytest.param(
        "The oat latte is $5.50.",
        "Since the dairy supplier raised its prices again, the oat latte is $6 now.",
        "6",
        id="en-the-reason-is-no-part-of-the-thing",
    ),
]

# What the statement is about is the same head noun, one of them saying more of it ("야간
# 시급" of "시급"), whatever else each sentence names around it (issue 43).
REVERSED += [
    pytest.param(
        "공고 올려 주세요. 시급은 9,860원이에요.",
        "주말 알바 시급은 이번 달부터 10,300원이에요.",
        "10300",
        id="ko-the-subject-said-more-fully",
    ),
    pytest.param(
        "The open day is on June 6.", "The open day got moved to June 13.", "06-13", id="en-month"
    ),
    pytest.param(
        "Team offsite: it runs on June 6 at the lake house.",
        "Heads up, the team offsite got pushed to June 20.",
        "06-20",
        id="en-a-heading-names-the-subject",
    ),
    pytest.param(
        "The deposit is $20 per key.",
        "After two keys went missing, the locker deposit is $35 from today.",
        "35",
        id="en-the-subject-said-more-fully",
    ),
]

# Korean with English words in it: a name that is the subject is no value it gives, and
# a capital that opens an English phrase is the sentence's, not a name's.
REVERSED += [
    pytest.param(
        "Clay는 계속 Laguna 걸로 주문할게요.",
        "Clay는 이제 Standard 걸로 주문해요.",
        "standard",
        id="mixed-a-named-subject-and-another-name",
    ),
    pytest.param(
        "Sample boxes는 50개씩 보내요.",
        "The sample boxes go out in batches of 80 now.",
        "80",
        id="mixed-a-capital-opening-an-english-phrase",
    ),
]

KEPT = [
    pytest.param(
        "이제 원두 1kg 23,500원이에요.",
        "원두 1kg 23,500원으로 메뉴판 고쳐 주세요.",
        id="ko-repeat-of-the-current-value",
    ),
    pytest.param(
        "원두 1kg 23,500원이에요.",
        "원두 21,000원에서 23,500원으로 올린 거 공지해 주세요.",
        id="ko-from-old-to-current",
    ),
    pytest.param(
        "원두 1kg 21,000원이에요.", "드립백 10개입은 12,000원이에요.", id="ko-another-product"
    ),
    pytest.param(
        "Jonas will shoot the photos.",
        "Is Jonas still shooting the photos, or Mira?",
        id="en-question",
    ),
    pytest.param(
        "We open at 8am on weekdays.", "The supplier delivers beans at 7am.", id="en-other-subject"
    ),
    pytest.param(
        "Our rule: we never post on weekends.",
        "Here's the studio's quote, what do you think?\n\n"
        "> We post client photos on Saturdays and Sundays.\n"
        "> Rate: $1,800 per shoot, 3 revisions.\n\nBest,\nLumen Studio",
        id="en-pasted-quote",
    ),
    pytest.param(
        "앞으로 주말에는 게시물 올리지 않아요.",
        "스튜디오가 보낸 견적이에요:\n\n> 게시물은 토요일과 일요일에 올립니다.\n"
        "> 촬영 1회 180만원\n\n검토해 주세요.",
        id="ko-pasted-quote",
    ),
    pytest.param(
        "배송은 이제부터 CJ대한통운으로 바꿔요.",
        "업체 FAQ 붙여요, 다듬어 주세요.",
        id="ko-an-earlier-change-ties-nothing-to-it",
    ),
    pytest.param(
        "아이스티는 4,500원, 레모네이드는 5,000원, 자몽에이드는 5,500원이에요.",
        "자몽청 1kg 납품가는 5,300원이에요.",
        id="ko-another-thing-than-any-item-of-the-list",
    ),
    pytest.param(
        "Espresso is $3, the flat white $4.50, and cold brew $5.",
        "The cold brew bottles for the market cost $4.80 each.",
        id="en-a-longer-name-is-another-thing",
    ),
    pytest.param(
        "주말 시급은 10,500원이에요.",
        "평일 시급은 10,000원으로 맞춰 주세요.",
        id="ko-two-subjects-of-one-head",
    ),
    pytest.param(
        "The checklist for the weekly review is in the gold folder.",
        "The checklist for the monthly review is in the blue folder.",
        id="en-one-head-two-things-after-it",
    ),
    pytest.param(
        "The kitchen checklist for the weekly review is in the gold folder.",
        "The printer checklist for the weekly review is in the blue folder.",
        id="en-a-head-another-noun-qualifies",
    ),
    pytest.param(
        "보름달 뜨는 날 야간 개장을 해요.",
        "야간 개장은 하루 동안만 해요.",
        id="ko-a-full-moon-is-no-span",
    ),
    pytest.param(
        "The launch is on June 3.",
        "The launch party venue holds the date June 10 for us.",
        id="en-the-launch-and-its-party-venue",
    ),
]


@pytest.mark.parametrize(("old", "new", "value"), REVERSED)
def test_another_value_of_the_same_kind_on_one_subject_replaces_the_earlier(
    old: str, new: str, value: str
) -> None:
    assert supersedes(new, old)
    assert value in replacement(new, old).lower().replace(",", "").replace(" krw", "")


@pytest.mark.parametrize(("old", "new"), KEPT)
def test_what_gives_no_other_value_of_the_subject_replaces_nothing(old: str, new: str) -> None:
    assert not supersedes(new, old)


def test_a_statement_never_replaces_itself() -> None:
    text = "원두 가격 올렸어요, 이제 1kg 23,500원."
    assert not supersedes(text, text)


def test_most_reversals_here_say_neither_decided_nor_changed() -> None:
    plain = [
        str(p.values[1])
        for p in REVERSED
        if not any(w in str(p.values[1]).lower() for w in ("decid", "결정", "바꿔", "chang"))
    ]
    assert len(plain) * 2 >= len(REVERSED)


def test_the_subject_decision_is_one_function() -> None:
    assert same_subject("원두 가격 올렸어요, 이제 23,500원", "원두 1kg 21,000원")
    assert not same_subject("드립백 10개입은 12,000원", "원두 1kg 21,000원")


# One item of a list the person gave: each value goes with its own clause's thing.
LIST_ITEMS = [
    pytest.param(
        "아이스티는 4,500원, 레모네이드는 5,000원, 자몽에이드는 5,500원이에요.",
        "레모네이드 5,300원으로 올려 주세요.",
        "5300",
        id="ko",
    ),
    pytest.param(
        "Espresso is $3, the flat white $4.50, and cold brew $5.",
        "The flat white is $4.80 from Monday.",
        "4.8",
        id="en",
    ),
    pytest.param(
        "Opening hours: weekdays 8 till 7, Sundays 10 till 4pm.",
        "Sundays we close at 3pm from now on, it's been dead after three.",
        "3pm",
        id="en-one-day-of-the-opening-hours",
    ),
    # The subject's head, in a sentence of other rules: marked, and the rules stand.
    pytest.param(
        "Locker rules: the deposit is $20 per key, ID required, and towels are free with "
        "every booking.",
        "After two keys went missing, the locker deposit is $35 from today.",
        "35",
        id="en-the-subject-among-other-rules",
    ),
]


@pytest.mark.parametrize(("old", "new", "value"), LIST_ITEMS)
def test_one_item_of_a_list_changed_marks_the_list_and_retires_nothing(
    old: str, new: str, value: str
) -> None:
    assert changes_value(new, old)
    assert value in replacement(new, old).lower().replace(",", "").replace(" krw", "")
    # The other items still hold: the list is marked where it is shown, never retired.
    assert not supersedes(new, old)
    assert not changes_value(new, old, by_clause=False)


def test_a_clause_that_marks_its_own_subject_is_read_alone() -> None:
    # Its other clause (the photo) still stands: marked where shown, never retired.
    old = "수선 접수는 방문 나흘 전까지 받고, 사진은 꼭 첨부해 달라고 해 주세요."
    new = "손님 불만이 많아서 바지 수선 접수는 이제 하루 전까지만 받을게요."
    assert changes_value(new, old)
    assert replacement(new, old) == "하루"
    assert not changes_value(new, old, by_clause=False)


def test_the_same_names_again_give_no_other_value() -> None:
    assert not changes_value(
        "Clay는 Laguna 걸로 계속 주문해 주세요, 배송이 빨라요.",
        "Clay는 계속 Laguna 걸로 주문할게요.",
    )


def test_a_subject_another_noun_qualifies_is_only_part_of_the_thing() -> None:
    # "광고의 예산" and "체험단의 예산": one head, two things.
    assert not changes_value(
        "블로그 체험단의 예산은 한 달 20만 원이에요.", "인스타 광고의 예산은 한 달 30만 원이에요."
    )


def test_a_span_of_days_is_one_value_however_it_is_written() -> None:
    # "이틀" and "2일 전", "2주" and "14 days": the same span, so no other value.
    assert not changes_value(
        "샘플 요청은 발송 이틀 전까지 받아요.", "샘플 요청은 발송 2일 전까지 받아요."
    )
    assert not changes_value("Refunds take 14 days.", "Refunds take 2 weeks.")
    assert changes_value("Refunds take 10 days.", "Refunds take 2 weeks.")


# A subject said in one language and changed in the other: words cannot be compared, so
# meaning decides (language.meaning.same_thing on the two subjects, not the sentences).
ACROSS_LANGUAGES = [
    pytest.param("The shipping fee is $5 per order.", "배송비는 이제 7달러로 올려요.", id="fee"),
    pytest.param("Launch date is May 3.", "출시일은 5월 17일로 미뤘어요.", id="date"),
    pytest.param(
        "Our photographer is Mina Park.", "촬영 작가는 Jisoo Han 님으로 바꿨어요.", id="name"
    ),
    pytest.param("Minimum order is 50 units.", "최소 주문 수량은 100개로 올렸어요.", id="count"),
    pytest.param("로고 색은 남색이에요.", "The logo colour is green now.", id="colour-ko-first"),
]
# The same kind of value of another thing, in the other language.
ANOTHER_THING_ACROSS_LANGUAGES = [
    pytest.param("The shipping fee is $5 per order.", "포장비는 3달러예요.", id="fee"),
    pytest.param("Launch date is May 3.", "마감일은 5월 17일이에요.", id="date"),
    pytest.param("Our photographer is Mina Park.", "디자이너는 Jisoo Han 님이에요.", id="name"),
    pytest.param("Minimum order is 50 units.", "샘플 수량은 100개예요.", id="count"),
    pytest.param(
        "광고 예산은 한 달 50만 원이에요.", "The interior budget is 8,000,000 won.", id="budget"
    ),
    pytest.param("The vase wholesale price is $30.", "접시 도매가는 22달러예요.", id="price"),
]


@pytest.mark.parametrize(("old", "new"), ACROSS_LANGUAGES)
def test_a_subject_changed_in_the_other_language_is_replaced(old: str, new: str) -> None:
    assert changes_value(new, old)
    assert supersedes(new, old)


@pytest.mark.parametrize(("old", "new"), ANOTHER_THING_ACROSS_LANGUAGES)
def test_another_thing_in_the_other_language_replaces_nothing(old: str, new: str) -> None:
    assert not changes_value(new, old)


@override_settings(MEANING_MODEL="off")
def test_without_the_meaning_layer_two_languages_share_no_subject() -> None:
    assert not changes_value("택배비는 이제 9달러예요.", "The delivery fee is $6 per order.")


def test_a_korean_noun_that_ends_like_a_verb_still_qualifies_its_subject() -> None:
    # "광고" ends in 고 as "가고" does; it is a noun, so "광고 예산" is not every budget.
    assert not changes_value("인테리어 예산은 800만 원이에요.", "광고 예산은 한 달 50만 원이에요.")
    assert changes_value(
        "광고 예산은 이제 한 달 80만 원이에요.", "광고 예산은 한 달 50만 원이에요."
    )


def test_a_korean_clause_after_a_connective_ending_is_read_alone() -> None:
    # The reason clause has its own subject (장비 설치가); the changed date is the event's.
    old = "온라인 오픈 행사는 5월 2일이에요."
    assert changes_value("장비 설치가 늦어져서 오픈 행사 5월 9일로 미뤘어요.", old)
    assert replacement("장비 설치가 늦어져서 오픈 행사 5월 9일로 미뤘어요.", old) == "05-09"
    # A date of the other clause's thing is not the event's.
    assert not changes_value("장비 설치가 5월 9일로 늦어져서 오픈 행사 준비가 바빠요.", old)
    # A noun that ends like a connective ("보고서") ends no clause.
    assert not changes_value(
        "보고서 제출 마감일은 5월 9일이에요.", "보고서 검토 회의는 5월 2일이에요."
    )


def test_a_latin_word_before_a_korean_date_names_no_identifier() -> None:
    # "launch 6" is not "Step 2": the number is the month of "6월 10일".
    assert (
        replacement("Spring sale 6월 10일로 밀렸어요.", "Spring sale은 6월 3일이에요.") == "06-10"
    )
    assert not changes_value("Step 2를 먼저 해 주세요.", "Step 3를 먼저 해 주세요.")


def test_an_earlier_change_that_names_no_thing_is_tied_only_to_a_later_change() -> None:
    # A reply's "Changed on Google, …" names no thing: a later request that names another
    # name ("Send the booking page to Mira") does not replace it; a later change does.
    old = "Changed on Google, the website and the calendar."
    assert not changes_value("Send the booking page to Mira.", old)
    assert changes_value(
        "let's switch the shoot back to Jonas instead", "let's go with Mira instead"
    )


def test_an_abbreviation_with_an_ampersand_is_no_name() -> None:
    # "T&Cs" read as the name "Cs" made "Update the T&Cs" another name than Google's.
    assert names_in("Update the T&Cs, the R&D plan and the AT&T contract for Mira.") == {"mira"}


@pytest.mark.parametrize(
    ("dropping", "other", "clashes"),
    [
        pytest.param(
            "So the price is $25, not $20.", "We decided the price is $20.", True, id="en-same"
        ),
        pytest.param(
            "So the price is $25, not $20.",
            "Task 20: prepare brief 20 for Client Alpha.",
            False,
            id="en-a-number-of-another-kind",
        ),
        pytest.param(
            "행사 가격은 3만원이에요, 2만원 아니고요.",
            "행사 가격은 2만원으로 결정했어요.",
            True,
            id="ko-same",
        ),
        pytest.param(
            "행사 가격은 3만원이에요, 2만원 아니고요.",
            "참석자 20,000명 목표로 잡았어요.",
            False,
            id="ko-a-count",
        ),
    ],
)
def test_a_dropped_value_is_found_as_that_value_not_as_its_digits(
    dropping: str, other: str, clashes: bool
) -> None:
    # "not $20" said once made every later mission that held the digits 20 ("brief 20")
    # supersede it: the current price was then marked replaced by a task list.
    assert conflicts(dropping, other) is clashes
