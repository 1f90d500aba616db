"""What a statement says (language/statements.py), in Korean and English: the rules the
fold, the verifier and long-term memory share. (Here because the summary is their first
user; the module imports no domain app.)"""

import pytest

from language.statements import (
    conflicts,
    is_question,
    names_in,
    numbers_in,
    replaced_values,
    reverses,
    same_topic,
    split_sentences,
    subject_of,
    supersedes,
)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("The brand color is coral.", "brand color"),
        ("We decided to drop coral; the brand color is now teal.", "brand color"),
        ("Change of plan: we decided the launch date is June 10 instead.", "launch date"),
        ("Our price is $29.99 per month.", "price"),
        ("Pricing: $29/month", "pricing"),
        ("브랜드 색상은 틸로 변경", "브랜드 색상"),
        ("브랜드 색상은 코랄", "브랜드 색상"),
        ("이제 브랜드 색상은 코랄 대신 틸로 변경하기로 했다.", "브랜드 색상"),
        ("새로운 브랜드 색상은 틸이야.", "브랜드 색상"),
        ("Fly.io 대신 Hetzner로 호스팅을 옮기기로 했다.", "호스팅"),
        ("단가는 29달러예요.", "단가"),
        ("It is done.", ""),
        ("Decision: use teal for the brand.", "brand"),  # a value for a named thing
        ("Cream for the gift set box.", "gift set box"),
        ("Draft the weekly update.", ""),
    ],
)
def test_the_subject_of_a_statement(text: str, subject: str) -> None:
    assert subject_of(text) == subject


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("브랜드 색상은 틸로 변경", "브랜드 색상은 코랄"),
        ("We decided to drop coral; the brand color is now teal.", "The brand color is coral."),
        ("Let's switch to Hetzner for hosting instead of Fly.io.", "We decided to host on Fly.io."),
        ("Fly.io 대신 Hetzner로 호스팅을 옮기기로 했다.", "우리는 Fly.io에 배포하기로 했다."),
        ("코랄 말고 틸로 가자.", "메인 색은 코랄로 하자."),
        ("Our price is $59 per month.", "Our price is $49 per month."),
    ],
)
def test_a_reversal_replaces_what_it_names(new: str, old: str) -> None:
    assert supersedes(new, old)
    assert conflicts(new, old)
    assert not supersedes(old, old)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("브랜드 색상은 틸이야.", "출시일은 3월 14일이야."),
        ("We decided to host on Hetzner.", "We decided the brand color is teal."),
        ("Always cc Dana on contracts.", "Always cc Jamie on invoices."),
        ("Decision: launch in May.", "Decision: use teal for the brand."),
    ],
)
def test_statements_about_different_things_do_not_conflict(new: str, old: str) -> None:
    assert not conflicts(new, old) and not supersedes(new, old)


def test_korean_reversal_words_and_topics() -> None:
    assert reverses("브랜드 색상은 틸로 변경") and reverses("코랄 대신 틸") and reverses("취소했어")
    assert not reverses("브랜드 색상은 코랄")
    assert same_topic("브랜드 색상은 틸로 변경했어요", "브랜드 색상을 코랄로 정했어요")
    assert replaced_values("코랄 대신 틸로 바꾸자") == ["코랄"]
    assert replaced_values("Fly.io에서 Hetzner로 옮기기로 했다") == ["Fly.io"]
    assert replaced_values("switch to Hetzner instead of Fly.io.") == ["Fly.io"]


def test_sentences_keep_amounts_addresses_and_abbreviations_whole() -> None:
    text = (
        "Our price is $29.99. Churn is 7.5% e.g. in March. Mail jane.doe@example.com today! "
        "Docs: https://x.io/a.b now. We host on Fly.io. 가격은 29,900원이야. 다음은?\n끝"
    )
    assert split_sentences(text) == [
        "Our price is $29.99.",
        "Churn is 7.5% e.g. in March.",
        "Mail jane.doe@example.com today!",
        "Docs: https://x.io/a.b now.",
        "We host on Fly.io.",
        "가격은 29,900원이야.",
        "다음은?",
        "끝",
    ]


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("What is our price per month?", True),
        ("What is our price per month", True),
        ("가격이 얼마지?", True),
        ("가격이 얼마지", True),
        ("출시일이 언제예요", True),
        ("보고서를 보내도 될까요", True),
        ("Our price is $29.99.", False),
        ("Do not share the deck.", False),
        ("May 3 is the launch.", False),
        ("가격은 29,900원이야.", False),
    ],
)
def test_questions_in_both_languages(text: str, asks: bool) -> None:
    assert is_question(text) is asks


def test_values_are_compared_whole() -> None:
    assert numbers_in("$1,240 and 29.99 on 2025-03-14") == {"1240", "29.99", "2025", "3", "14"}
    assert "29" not in numbers_in("$29.99")
    assert numbers_in("see #12 and [s1#3]") == set()  # mission pointers are not values
    assert names_in("The designer is Priya Raman; host on Fly.io, mail a.b@c.io") == {
        "priya",
        "raman",
        "fly.io",
        "a.b@c.io",
    }
    assert names_in("한국 매니저는 김서연 님이고 한국 예산은 800만 원") == {"김서연"}


def test_korean_names_with_titles_and_honorifics_are_names() -> None:
    text = (
        "표지는 김서연 작가님, 교정은 박지훈 실장님, 색은 이하나 디자이너님, "
        "계약은 최민수 대표가 해요"
    )
    assert names_in(text) == {"김서연", "박지훈", "이하나", "최민수"}
    assert names_in("정리는 한지민씨가, 검토는 오세훈 과장님이") == {"한지민", "오세훈"}


def test_korean_people_named_by_surname_and_post_or_given_name_are_names() -> None:
    # A surname and a post (spaced or not), a given name with 님 or 씨.
    assert names_in("검토는 김 대표님이, 결정은 정대표님께서") == {"김대표", "정대표"}
    assert names_in("정리는 서연님이, 발송은 민지 씨가") == {"서연", "민지"}
    # A full name with its post is the full name.
    assert names_in("표지는 김서연 작가님이 맡아요") == {"김서연"}
    # A post alone names no one: the person spoken to ("대표님, …"), or the post's holders
    # in general ("매장 사장님": shop owners).
    assert names_in("대표님, 초안 올렸습니다. 베타 매장 사장님 두 분이 발표해요") == set()
    # Words that take 님 or 씨 but are not names.
    assert names_in("고객님께 안내하고 아저씨에게 호박씨와 말솜씨 얘기를 했어요") == set()
