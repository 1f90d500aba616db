"""A small Korean/English paraphrase check for sentence-embedding models (bench/meaning_models.py).

Each probe is a question and the statement that answers it, written with no content word in
common (a paraphrase, not a rewording), plus a near-miss distractor: a statement that shares
the question's words but answers something else. A probe asked in one language of a
statement in the other is a cross-language probe. The statements of every probe (facts and
distractors) are one corpus: a model passes a probe when the fact ranks first for its
question, and separates it when the fact scores above the probe's own distractor.

`SUBJECT_PAIRS` are pairs of statements marked whether they are about the same thing (a
later value of the same subject, in other words) or not (the same words about another
subject): what `language.meaning.same_subject` decides."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    question: str
    fact: str
    distractor: str
    kind: str  # ko, en, ko→en (a Korean question of an English fact), en→ko


_FACTS = {
    "beans": "원두 납품은 매주 화요일 오전에 들어옵니다.",
    "hours": "매장 영업은 아침 8시부터 시작해요.",
    "payday": "급여는 매달 25일에 지급됩니다.",
    "sns": "SNS 게시물은 지수 씨가 맡고 있어요.",
    "latte": "신메뉴 라떼 가격은 6,500원으로 하기로 했어요.",
    "rent": "매장 월세 계약 만료일은 내년 3월 말이에요.",
    "site": "The Harbor Dental site launches on June 11.",
    "books": "Accounts are kept by Priya at Ledgerly.",
    "shoot": "The fee agreed with Mira for the shoot is $1,800.",
    "friday": "At the end of the week the office closes at 3pm.",
    "font": "Headlines are set in Inter and body copy in Source Serif.",
    "offsite": "We booked a lodge in Asheville for the retreat.",
}

# One probe a line: its kind, the question, the fact it asks about (a key of _FACTS) and
# the distractor.
_PROBE_LINES = """
ko | 커피콩은 언제 배달돼요? | beans | 배달 앱 수수료가 이번 달부터 올랐어요.
ko | 가게 문 여는 시간이 몇 시죠? | hours | 문 앞 화분은 다음 주에 바꿀게요.
ko | 직원 월급날이 언제예요? | payday | 직원 휴게실 에어컨이 고장 났어요.
ko | 인스타그램에 글 올리는 담당자가 누구죠? | sns | 담당자 연락처는 명함에 적혀 있어요.
ko | 새로 나온 음료 값은 얼마로 정했나요? | latte | 음료 컵 뚜껑 재고가 얼마 안 남았어요.
ko | 가게 임대가 끝나는 때가 언제죠? | rent | 가게 간판 조명이 깜빡거려요.
en | When does the dentist's website go live? | site | The client asked for a darker website header.
en | Who does our bookkeeping? | books | Our bookkeeping software renewal is due in May.
en | How much are we paying the photographer? | shoot | The photographer prefers morning light.
en | What time do we stop working on Fridays? | friday | Fridays are for code review.
en | Which typefaces did we pick? | font | We pick the winner of the logo contest next week.
en | Where is the team getaway? | offsite | The team lunch is on Thursday.
ko→en | 사진작가한테 얼마 주기로 했죠? | shoot | 사진 보정은 내일까지 끝내 주세요.
ko→en | 치과 홈페이지는 언제 공개돼요? | site | 홈페이지 배너 색을 더 어둡게 해 달래요.
ko→en | 금요일엔 몇 시에 퇴근해요? | friday | 금요일 점심은 피자로 할게요.
ko→en | 장부 정리는 누가 해요? | books | 장부 양식을 새로 만들어야 해요.
en→ko | When do the coffee beans arrive? | beans | The coffee grinder arrives next month.
en→ko | Who runs our Instagram? | sns | Instagram changed its ad prices again.
en→ko | What is the new drink going to cost? | latte | The new menu boards cost too much.
en→ko | When is payday for the staff? | payday | The staff room needs a new fridge.
"""
PROBES: list[Probe] = [
    Probe(question, _FACTS[fact], distractor, kind)
    for kind, question, fact, distractor in (
        line.split(" | ") for line in _PROBE_LINES.strip().splitlines()
    )
]

# (a, b, same subject?)
SUBJECT_PAIRS: list[tuple[str, str, bool]] = [
    ("라떼 가격은 6,500원이에요.", "라떼 값 올렸어요, 이제 7,000원이에요.", True),
    ("라떼 가격은 6,500원이에요.", "스콘 가격은 4,000원이에요.", False),
    ("원두 납품은 화요일 오전이에요.", "원두 들어오는 날이 목요일로 바뀌었대요.", True),
    ("원두 납품은 화요일 오전이에요.", "직원 회식은 화요일 저녁이에요.", False),
    ("오픈 행사는 5월 2일에 해요.", "오픈 행사 5/9로 밀렸대요.", True),
    ("오픈 행사는 5월 2일에 해요.", "세무 신고는 5월 2일까지예요.", False),
    ("The shoot is with Mira.", "Let's go with Jun for the photos instead.", True),
    ("The shoot is with Mira.", "The invoice goes to Mira.", False),
    ("The site launches on June 11.", "Launch moved to 6/18.", True),
    ("The site launches on June 11.", "The invoice is due on June 11.", False),
    ("The retainer is $4,000 a month.", "We agreed to lower the monthly retainer to $3,500.", True),
    ("The retainer is $4,000 a month.", "The new laptop costs $4,000.", False),
    ("라떼 가격은 6,500원이에요.", "The latte now sells for 7,000 won.", True),
    ("The site launches on June 11.", "홈페이지 오픈은 6월 18일로 미뤘어요.", True),
    ("The shoot is with Mira.", "촬영 작가는 준 씨로 바꿨어요.", True),
    ("원두 납품은 화요일 오전이에요.", "The team lunch is on Tuesday.", False),
]
