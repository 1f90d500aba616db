"""Recall carries evidence (context v3): the lines of the ranked passages that hold the
instruction's rare terms, as many distinct hits as fit, each under its mission's header;
a word most lines share weighs little. Rendering is pure: no database."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from context.loading import RecalledPassage
from context.rendering import RECALL_TITLE, _recall_section
from language.analysis import asked_values, asks_for_value, query_terms

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

CASES = {
    "en": {
        "filler": "Jun: the agenda room is still open, nothing booked yet ({n})",
        "fact": "Priya: the swag lives in 4B now, key at reception.",
        "question": "Which agenda room holds the swag?",
        "ask": "Jun: so where did the swag end up?",
        "answer": "Priya: 4B, key at reception.",
    },
    "ko": {
        "filler": "준호: 안건 회의실은 아직 비어 있어요, 예약 없음 ({n})",
        "fact": "서연: 기념품은 이제 4B호실에 있어요, 열쇠는 안내데스크에 있어요.",
        "question": "안건 회의실에 기념품이 어디 있죠?",
        "ask": "준호: 그래서 기념품은 어디로 갔어요?",
        "answer": "서연: 4B호실이요.",
    },
}


def _passage(seq: int, text: str) -> RecalledPassage:
    return RecalledPassage(
        id=seq,
        mission_id=seq,
        seq=seq,
        session_number=1,
        at=START + timedelta(days=seq),
        position=0,
        text=text,
    )


def _history(language: str, fact_in: int, fact: str) -> list[RecalledPassage]:
    filler = CASES[language]["filler"]
    passages = []
    for seq in range(1, 13):
        lines = [filler.format(n=seq * 10 + k) for k in range(6)]
        if seq == fact_in:
            lines.insert(3, fact)
        passages.append(_passage(seq, "\n".join(lines)))
    return passages


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_rare_word_outranks_words_every_line_shares(language: str) -> None:
    case = CASES[language]
    # The ranking put the fact's mission last: the lines decide, not the passage order.
    passages = _history(language, 12, case["fact"])

    recall = _recall_section(
        [],
        budget=700,
        session_number=1,
        ranked=passages,
        terms=query_terms(case["question"]),
    )

    assert recall.chars <= 700
    assert case["fact"] in recall.text.replace('\\"', '"')
    assert 12 in recall.mission_seqs
    # Several distinct missions' lines fit beside it, each under its own header.
    assert len(recall.mission_seqs) >= 3
    for seq in recall.mission_seqs:
        assert f"[mission #{seq} ·" in recall.text
    assert "left out" in recall.text


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_question_turn_brings_the_turn_that_answers_it(language: str) -> None:
    case = CASES[language]
    passages = _history(language, 5, case["ask"] + "\n" + case["answer"])

    recall = _recall_section(
        [],
        budget=900,
        session_number=1,
        ranked=passages,
        terms=query_terms(case["question"]),
    )

    text = recall.text.replace("\\n", "\n")
    assert case["ask"] in text
    assert case["answer"] in text
    assert text.index(case["ask"]) < text.index(case["answer"])


def test_recall_is_the_same_for_the_same_question() -> None:
    case = CASES["en"]
    passages = _history("en", 7, case["fact"])
    terms = query_terms(case["question"])

    first = _recall_section([], budget=800, session_number=1, ranked=passages, terms=terms)
    again = _recall_section([], budget=800, session_number=1, ranked=passages, terms=terms)

    assert first.text == again.text and first.text


EVEN = {
    "en": (
        "Jun: the agenda room is still open for the offsite, nothing booked there yet ({n})",
        "Which agenda room do we use?",
    ),
    "ko": (
        "준호: 안건 회의실은 워크숍 때문에 아직 비어 있어요, 거기 예약은 아직 없어요 ({n})",
        "안건 회의실은 어디 써요?",
    ),
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_lines_that_score_alike_are_taken_one_excerpt_at_a_time(language: str) -> None:
    # Every line of every excerpt holds the question's words equally (all the person's):
    # the room goes to one line of each excerpt in turn, as many distinct hits as fit,
    # not to the best-ranked excerpt's every line.
    filler, question = EVEN[language]
    passages = []
    for seq in range(1, 13):
        text = "\n".join(filler.format(n=seq * 10 + k) for k in range(6))
        passages.append(replace(_passage(seq, text), instruction_chars=len(text)))

    recall = _recall_section(
        [], budget=1_200, session_number=1, ranked=passages, terms=query_terms(question)
    )

    assert recall.chars <= 1_200
    assert len(recall.mission_seqs) >= 5, recall.text
    for seq in recall.mission_seqs:
        assert f"[mission #{seq} ·" in recall.text


VALUES = {
    "en": {
        "vague": "Jun: the hall was on hold again, the venue team had no reply",
        "value": "Priya: the hall will hold 240 guests, the venue team said",
        "question": "How many does the hall hold?",
        "plain": "Which venue team holds the hall?",
    },
    "ko": {
        "vague": "준호: 대강당 수용 인원 얘기는 또 보류예요, 답이 없어요",
        "value": "서연: 대강당 수용 인원은 240명이에요, 확인했어요",
        "question": "대강당 수용 인원이 얼마나 돼요?",
        "plain": "대강당 수용 인원은요?",
    },
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_question_asking_how_many_keeps_the_line_that_states_a_number(language: str) -> None:
    case = VALUES[language]
    filler = CASES[language]["filler"]
    # Both lines hold the question's words; room for one of them.
    text = "\n".join([filler.format(n=1), case["vague"], filler.format(n=2), case["value"]])
    passages = [_passage(3, text)]
    assert asks_for_value(case["question"]) and not asks_for_value(case["plain"])

    def recalled(question: str) -> str:
        section = _recall_section(
            [],
            budget=len(RECALL_TITLE) + 180,
            session_number=1,
            ranked=passages,
            terms=query_terms(question),
            values_wanted=asked_values(question),
        )
        return section.text.replace('\\"', '"')

    assert case["value"] in recalled(case["question"])
    assert case["vague"] not in recalled(case["question"])
    # Asked for something else, the earlier line of the two comes first, as before.
    assert case["vague"] in recalled(case["plain"])


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("AV 장비 견적이 얼마였죠?", {"amount"}),
        ("How much was the AV quote?", {"amount", "count"}),
        ("어느 정도 크기의 가게를 노리고 있죠?", {"count"}),
        ("What's the size of our pilot user base?", {"count"}),
        ("연사들 슬라이드 제출 기한이 언제죠?", {"date"}),
        ("When are the slides due?", {"date"}),
        ("전환율이 몇 %였죠?", {"percent"}),
        ("서밋 오프닝 무대에는 누가 서나요?", {"person"}),
        ("Who opens the summit?", {"person"}),
        ("웰컴 드링크는 어디서 마셔요?", set()),
        ("Which venue team holds the hall?", set()),
    ],
)
def test_a_question_names_the_kind_of_value_it_asks_for(question: str, kinds: set[str]) -> None:
    assert asked_values(question) == kinds


def _ranked_recall(passages: list[RecalledPassage], budget: int, question: str) -> str:
    """Recall of the ranked `passages` for `question` (its terms and the kind of value it
    asks for), within `budget`."""
    section = _recall_section(
        [],
        budget=budget,
        session_number=1,
        ranked=passages,
        terms=query_terms(question),
        values_wanted=asked_values(question),
    )
    assert section.chars <= budget
    return section.text


ANSWERS_WITHOUT_ITS_WORDS = {
    "en": {
        "question": "How much did the AV quote come to?",
        "opening": "Mina: can we get a quote and a plan for the AV?",
        "answer": "Jun: the vendor wants $2,940 for two days, mics and screens in.",
        "count": "Jun: 15 people answered the survey so far",
        "filler": "Priya: I will share the draft by noon ({n})",
        "other": "Who wrote the notes?",
    },
    "ko": {
        "question": "AV 장비 견적이 얼마였죠?",
        "opening": "지민: Iris, AV 장비 견적이랑 계획 좀 받아 볼까요?",
        "answer": "준호: 음향영상 업체가 이틀에 294만 원 달래요, 마이크랑 스크린 포함이고요.",
        "count": "서연: 설문에 지금까지 15명이 답했어요",
        "filler": "지민: 초안 써서 점심까지 공유할게요 ({n})",
        "other": "AV 장비 회의록은 누가 써요?",
    },
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_line_stating_the_kind_of_value_asked_for_is_kept_though_it_shares_no_word(
    language: str,
) -> None:
    case = ANSWERS_WITHOUT_ITS_WORDS[language]
    lines = [case["opening"]]
    lines += [case["filler"].format(n=n) for n in range(1, 20)]
    lines.insert(8, case["count"])
    lines.insert(15, case["answer"])
    passages = [_passage(16, "\n".join(lines))]
    # Room for the opening and a few more lines: the answer has no word of the question,
    # only an amount, the kind of value asked for.
    budget = len(RECALL_TITLE) + 150 + len(case["opening"]) + 2 * len(case["answer"])

    def recalled(question: str) -> str:
        return _ranked_recall(passages, budget, question).replace('\\"', '"')

    text = recalled(case["question"])
    assert case["opening"] in text
    assert case["answer"] in text
    if language == "ko":
        # A count is not a sum of money: it does not jump the queue.
        assert text.index(case["answer"]) > text.index(case["opening"])
    # Asked something that is not a value, the amount line has no claim on the room.
    assert case["answer"] not in recalled(case["other"])


@pytest.mark.parametrize("language", ["en", "ko"])
def test_an_evidence_excerpt_too_long_keeps_the_lines_that_answer_not_its_head_and_tail(
    language: str,
) -> None:
    case = ANSWERS_WITHOUT_ITS_WORDS[language]
    lines = [case["filler"].format(n=n) for n in range(1, 40)]
    lines.insert(20, case["answer"])
    lines.insert(0, case["opening"])
    evidence = _passage(16, "\n".join(lines))
    budget = len(RECALL_TITLE) + 400

    section = _recall_section(
        [evidence],
        budget=budget,
        session_number=1,
        terms=query_terms(case["question"]),
        values_wanted=asked_values(case["question"]),
    )

    text = section.text.replace('\\"', '"')
    assert section.chars <= budget
    assert case["answer"] in text and case["opening"] in text
    assert "left out" in text
    # The filler around it gave its room to the lines that answer.
    assert case["filler"].format(n=39) not in text


def test_a_one_syllable_korean_term_does_not_make_every_line_of_a_speaker_a_hit() -> None:
    # "서나요" gives the stem "서", a substring of every line 서연 speaks: those lines are
    # not hits, and the line naming who opens the summit (no word of the question) is.
    question = "서밋 오프닝 무대에는 누가 서나요?"
    opening = "지민: 서밋 오프닝 무대 건 정리해 볼까요?"
    answer = "지민: 남궁현아 교수님이 개막 기조연설을 수락하셨어요!!"
    filler = ["서연: 잠깐만요, 통화 중이에요", "서연: 돌아왔어요, 어디까지 했죠?"]
    lines = [opening] + [filler[k % 2] for k in range(30)]
    lines.insert(20, answer)
    passages = [_passage(14, "\n".join(lines))]
    budget = len(RECALL_TITLE) + 140 + len(opening) + len(answer) + 2 * len(filler[0])

    assert "서" in query_terms(question)
    assert answer in _ranked_recall(passages, budget, question)


def test_a_one_syllable_korean_term_still_matches_as_a_word_of_its_own() -> None:
    # "명" (people, a counter) holds "218명이" and "5 명", not 명찰 (name tags).
    question = "신청한 사람이 몇 명이었지?"
    answer = "서연: 벌써 218명이에요, 작년보다 많아요."
    filler = ["준호: 명찰 건은 금요일까지 정해야 해요", "지민: 명찰 담당이 누구예요?"]
    lines = [filler[k % 2] for k in range(30)]
    lines.insert(17, answer)
    passages = [_passage(13, "\n".join(lines))]
    budget = len(RECALL_TITLE) + 130 + len(answer)

    section = _recall_section(
        [],
        budget=budget,
        session_number=1,
        ranked=passages,
        terms=query_terms(question),
    )

    assert "명" in query_terms(question)
    assert answer in section.text
    assert "명찰" not in section.text


ASKS = {
    "en": (
        "Loyalty card for the workshop: every sixth service is free. Design the card text.",
        "Back: one stamp per service; basic tune-ups and full services only.",
        "After how many tune-ups does a regular get the next on the house?",
    ),
    "ko": (
        "작업실 단골 카드 만들어 주세요: 여섯 번째 정비는 무료예요. 문구 부탁해요.",
        "뒷면: 정비마다 도장 하나, 기본 점검과 정밀 정비만 해당돼요.",
        "기본 점검 몇 번 받으면 한 번 공짜예요?",
    ),
}


def _mission(seq: int, ask: str, reply: list[str]) -> RecalledPassage:
    text = f"Instruction: {ask}\n\nReply: " + "\n".join(reply)
    return replace(_passage(seq, text), instruction_chars=len(ask))


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_reply_line_brings_the_short_instruction_it_answers(language: str) -> None:
    ask, line, question = ASKS[language]
    filler = CASES[language]["filler"]
    reply = [filler.format(n=k) for k in range(8)]
    passages = [_mission(1, ask, [*reply[:4], line, *reply[4:]])]
    passages += [_mission(seq, filler.format(n=seq), reply) for seq in range(2, 8)]

    recall = _recall_section(
        [], budget=600, session_number=1, ranked=passages, terms=query_terms(question)
    )

    text = recall.text.replace("\\n", "\n")
    assert line in text and ask in text
    assert text.index(ask) < text.index(line)
    # An instruction longer than RECALL_ASK_CHARS is not brought whole for one reply line.
    long_ask = ask + " " + filler.format(n=99) * 6
    passages[0] = _mission(1, long_ask, [*reply[:4], line, *reply[4:]])
    recall = _recall_section(
        [], budget=600, session_number=1, ranked=passages, terms=query_terms(question)
    )
    assert line in recall.text and long_ask not in recall.text.replace("\\n", "\n")


def test_a_line_cut_by_a_hard_wrap_brings_the_line_it_goes_on_in() -> None:
    filler = CASES["en"]["filler"]
    paste = [
        "DEALER AGREEMENT",
        *(filler.format(n=k) + "." for k in range(6)),
        "Schedule 2. Minimum order. The Dealer shall place an opening order of not less",
        "than 8 units, and maintain not fewer than 3 units on display at all times.",
        *(filler.format(n=k) + "." for k in range(6, 12)),
    ]
    passages = [_passage(seq, "\n".join(paste if seq == 3 else paste[1:7])) for seq in (1, 2, 3)]

    recall = _recall_section(
        [],
        budget=500,
        session_number=1,
        ranked=passages,
        terms=query_terms("What is the opening order in the dealer agreement?"),
    )

    text = recall.text.replace("\\n", "\n")
    assert "opening order of not less\nthan 8 units" in text
