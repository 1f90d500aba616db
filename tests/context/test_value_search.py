"""Recall finds a value however it was written (language.values): "29900" finds
"29,900", "800,000원" finds "80만원", "10,000원" finds "만원" (and back), "1,240만원" finds
"1240만원", "3/14" finds "3월 14일" and "삼월 십사일", while passages that only share loose
digits ("29 posters", "3명", "14개") rank below."""

import pytest

from sessions.services import session_get_or_open_current
from tests.context.test_search import _ranked_seqs
from tests.factories import add_finished_missions, dm_channel, make_office

pytestmark = pytest.mark.django_db(transaction=True)


def _first_seq(instructions: list[str], question: str) -> int | None:
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, len(instructions), text=lambda n: (instructions[n - 1], "OK."))
    ranked = _ranked_seqs(session, question)
    return ranked[0] if ranked else None


@pytest.mark.parametrize(
    ("target", "decoys", "question"),
    [
        pytest.param(
            "The gift bundle sells at 29,900 won from Friday.",
            ["We printed 29 posters and 900 flyers.", "Rented 29 chairs, 900 cups."],
            "Which item was 29900?",
            id="en-comma",
        ),
        pytest.param(
            "Kickoff with the printer is on March 14.",
            ["Ordered 3 boxes of 14 mugs.", "Booked 3 rooms for 14 guests."],
            "What happens on 3/14?",
            id="en-date",
        ),
        pytest.param(
            "월 광고 예산은 80만원으로 잡았어요.",
            ["행사에 800명이 왔어요.", "전단지 800장, 스티커 000번 인쇄했어요."],
            "800,000원짜리는 뭐였지?",
            id="ko-man",
        ),
        pytest.param(
            "기념품은 만원짜리로 맞췄어요.",
            ["회의실 10개를 500원에 잡았어요.", "샘플 10개, 스티커 000번을 300원에 보냈어요."],
            "10,000원 든 게 뭐였지?",
            id="ko-man-alone",
        ),
        pytest.param(
            "The souvenirs are 10,000원 each, shipped by Friday.",
            ["We booked 10 rooms at 500원 each.", "Sent 10 samples and 000 stickers for 300원."],
            "만원짜리가 뭐였죠?",
            id="ko-man-alone-asked",
        ),
        pytest.param(
            "입장권은 천원 더 받기로 했어요.",
            ["참가자 1명이 500원 냈어요.", "의자 1개, 컵 000개를 300원에 샀어요."],
            "1,000원 올린 게 뭐였지?",
            id="ko-cheon-alone",
        ),
        pytest.param(
            "지난달 매출은 1240만원이었어요.",
            ["1,240명이 가입했어요.", "샘플 1,240개를 보냈어요."],
            "1,240만원 나온 게 뭐였더라?",
            id="ko-comma-man",
        ),
        pytest.param(
            "출시는 삼월 십사일로 정했어요.",
            ["3명이 14개 샘플을 만들었어요.", "3층 회의실 14시 예약했어요."],
            "3월 14일에 뭐 있었지?",
            id="ko-hangul-date",
        ),
        pytest.param(
            "출시는 3월 14일로 정했어요.",
            ["3명이 14개 샘플을 만들었어요.", "3층 회의실 14시 예약했어요."],
            "3/14 일정이 뭐였지?",
            id="ko-slash-date",
        ),
    ],
)
def test_a_value_is_found_however_either_side_writes_it(
    target: str, decoys: list[str], question: str
) -> None:
    history = [*decoys, target, *decoys]
    assert _first_seq(history, question) == len(decoys) + 1
