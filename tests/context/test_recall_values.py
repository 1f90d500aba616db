"""A question that asks for a value or a person (docs/design.md §3, recall): its answer is a
line that states one, often with none of the question's words ("AV 장비 견적이
얼마였죠?" — "업체가 이틀에 294만 원 달래요"). The best-ranked missions come whole to
recall's line choice, and the line stating a value of the kind asked for is kept though it
shares no word with the question. Checked on the assembled prompt, Korean and English."""

from typing import Any

import pytest

from sessions.services import session_get_or_open_current
from tests.factories import add_finished_missions, dm_channel, long_text, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

PLANTED = 4

CASES: dict[str, dict[str, Any]] = {
    "en": {
        "opening": "Mina: can we get a quote and a plan for the AV gear?",
        "filler": [
            "Jun: I will share the draft by noon",
            "Priya: the venue still has not sent the floor plan",
            "Mina: let us put it on Friday's agenda",
            "Jun: printing usually takes a week, order early",
            "Priya: back, where were we?",
        ],
        "answer": "Jun: the vendor wants $2,940 for the two days, mics and screens in.",
        "question": "How much did the AV gear quote come to?",
        "who_line": "Mina: by the way, Dana Whitfield handles the sponsor paperwork now.",
        "who": "Who is the sponsor contact for the AV gear now?",
        "who_answer": "Dana Whitfield",
        "other": "Did the AV gear plan get agreed?",
    },
    "ko": {
        "opening": "지민: Iris, AV 장비 견적이랑 계획 좀 받아 볼까요?",
        "filler": [
            "준호: 초안 써서 점심까지 공유할게요",
            "서연: 장소 쪽에서 아직 평면도를 안 보냈어요",
            "지민: 금요일 안건에 올릴까요?",
            "준호: 인쇄는 보통 일주일 걸리니까 일찍 주문해야 해요",
            "서연: 돌아왔어요, 어디까지 했죠?",
        ],
        "answer": "준호: 음향영상 업체가 이틀에 294만 원 달래요, 마이크랑 스크린 포함이고요.",
        "question": "AV 장비 견적이 얼마였죠?",
        "who_line": "지민: 참, 한빛상사 쪽 담당자는 이제 오가은 과장님이에요.",
        "who": "AV 장비 후원 서류는 누가 맡아요?",
        "who_answer": "오가은",
        "other": "AV 장비 계획은 합의됐나요?",
    },
}


def _history(language: str) -> Any:
    case = CASES[language]
    # A conversation of many short turns, its answers deep inside, in passages that hold
    # none of the question's words.
    talk = [case["filler"][k % len(case["filler"])] for k in range(90)]
    talk.insert(40, case["answer"])
    talk.insert(70, case["who_line"])
    planted = (case["opening"] + "\n" + "\n".join(talk[:45]), "\n".join(talk[45:]))

    def text(n: int) -> tuple[str, str]:
        return planted if n == PLANTED else long_text(n)

    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, 20, text=text)
    return session


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_value_question_recalls_the_line_stating_the_value_it_asks_for(language: str) -> None:
    case = CASES[language]
    session = _history(language)

    recall = next_context(channel=session.channel, instruction=case["question"]).section("recall")
    other = next_context(channel=session.channel, instruction=case["other"]).section("recall")

    assert PLANTED in recall.mission_seqs
    assert case["answer"].split(": ", 1)[1] in recall.text
    # Asked for no value, the mission still comes back. (Whether the price line comes with
    # it is no longer asserted: this history is a chat log, read as material since issue
    # 43, and its summary lines plus meaning-ranked lines change what recall has room for.)
    assert PLANTED in other.mission_seqs


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_who_question_recalls_the_line_naming_someone(language: str) -> None:
    case = CASES[language]
    session = _history(language)

    recall = next_context(channel=session.channel, instruction=case["who"]).section("recall")

    assert PLANTED in recall.mission_seqs
    assert case["who_answer"] in recall.text
