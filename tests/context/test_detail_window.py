"""The detail window under pressure (context v3): when the last missions do not fit the
channel's detail budget, each keeps its request and the passages that matter for the
current instruction, with markers naming what was left out; a mission that would get
less than a useful minimum becomes a digest line and is recalled like older missions."""

import re
from collections.abc import Callable
from typing import Any

import pytest

from context.detail import DETAIL_MIN_USEFUL, DIGEST_TITLE, detail_plan
from context.rendering import AssembledContext
from sessions.services import session_get_or_open_current
from tests.factories import add_finished_missions, dm_channel, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

FILLER = {
    "en": [
        "ok where are we with the agenda?",
        "I pinged Lena about the agenda but no answer yet",
        "can we park that until Thursday?",
        "sure, I'll add it to the doc",
        "let me check the contract and come back",
        "the venue people still haven't sent the floor plan",
        "I think we said 40 people last time, not sure",
        "the caterer wants numbers by Friday, just a heads up",
    ],
    "ko": [
        "일정표 건 지금 어디까지 됐어요?",
        "유나한테 일정표 물어봤는데 아직 답이 없어요",
        "그건 목요일까지 미뤄도 될까요?",
        "네 문서에 추가해 둘게요",
        "계약서 확인하고 다시 말씀드릴게요",
        "장소 쪽에서 아직 평면도를 안 보냈어요",
        "지난번에 40명이라고 했던 것 같은데 확실하진 않아요",
        "케이터링 쪽에서 금요일까지 인원수 달래요, 참고로요",
    ],
}
# Said once, in the middle of the oldest mission of the window, asked in other words.
FACT = {
    "en": (
        "Priya: the storage room for the swag boxes is Room 4B, key is at reception.",
        "Where are the swag boxes kept?",
        "Room 4B",
    ),
    "ko": (
        "서연: 기념품 상자 보관 창고는 4B호실이에요, 열쇠는 안내데스크에 있어요.",
        "기념품 상자를 어디에 보관하고 있죠?",
        "4B호실",
    ),
}
REQUEST = {
    "en": "Dana: can we sort out topic {n} today?",
    "ko": "지민: 오늘 {n}번 주제 정리할까요?",
}


def _chat(language: str, planted_in: int | None) -> Callable[[int], tuple[str, str]]:
    """Missions of about 3,500 chars of short turns; the fact in mission `planted_in`."""

    def text(n: int) -> tuple[str, str]:
        filler = FILLER[language]
        turns = [REQUEST[language].format(n=n)]
        i = n
        while sum(len(t) + 1 for t in turns) < 3400:
            turns.append(f"{'Jun' if i % 2 else 'Theo'}: {filler[i % len(filler)]} ({i})")
            i += 1
        if n == planted_in:
            turns.insert(len(turns) // 2, FACT[language][0])
        cut = len(turns) * 2 // 5
        return "\n".join(turns[:cut]), "\n".join(turns[cut:])

    return text


def _block(context: AssembledContext, seq: int) -> str:
    """A window mission as sent: its instruction message and the reply after it."""
    messages = context.messages
    for index, message in enumerate(messages[:-1]):
        if message["role"] == "user" and message["content"].startswith(f"[mission #{seq} ·"):
            assert messages[index + 1]["role"] == "assistant"
            return f"{message['content']}\n{messages[index + 1]['content']}"
    raise AssertionError(f"mission #{seq} is not in the window")


def _recent(context: AssembledContext) -> dict[str, Any]:
    return next(s for s in context.report()["sections"] if s["name"] == "recent")


@pytest.mark.parametrize("language", ["en", "ko"])
def test_an_old_mission_of_a_full_window_keeps_the_turn_the_question_is_about(
    language: str,
) -> None:
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    add_finished_missions(session, 8, text=_chat(language, planted_in=1))
    line, question, answer = FACT[language]

    context = next_context(channel=channel, instruction=question)

    recent = context.section("recent")
    assert recent.mission_seqs == list(range(1, 9))
    assert recent.budget is not None and recent.chars <= recent.budget
    # The eight missions (≈ 28K) do not fit the 20K budget: mission #1 was cut, and kept
    # the turn that answers the question, whole, with its request and a marker.
    assert line in recent.text
    assert answer in "\n".join(m["content"] for m in context.messages)
    assert REQUEST[language].format(n=1) in recent.text
    assert re.search(r"\[… mission #1: [\d,]+ chars \(\d+ lines\) left out …\]", recent.text)
    # The report says what each mission kept, and none shrank to a skeleton.
    kept = {row["seq"]: row for row in _recent(context)["kept"]}
    assert kept[1]["kept"] == "selected"
    assert kept[8]["kept"] == "full"
    assert all(row["chars"] >= DETAIL_MIN_USEFUL for row in kept.values())


def test_the_choice_follows_the_question_and_is_deterministic() -> None:
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    add_finished_missions(session, 8, text=_chat("en", planted_in=1))
    line = FACT["en"][0]

    about = next_context(channel=channel, instruction="Where are the swag boxes kept?")
    again = next_context(channel=channel, instruction="Where are the swag boxes kept?")
    other = next_context(channel=channel, instruction="What did the caterer ask for?")

    assert about.messages == again.messages
    assert line in about.section("recent").text
    # Asked about something else, mission #1 keeps other turns: the fact line was kept
    # for the question, not by position.
    assert line not in other.section("recent").text
    assert "caterer" in other.section("recent").text


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_mission_too_small_to_be_useful_becomes_a_digest_line_and_is_recalled(
    language: str,
) -> None:
    channel = dm_channel(make_office())
    channel.detail_budget_chars = 4_000
    channel.save(update_fields=["detail_budget_chars"])
    session = session_get_or_open_current(channel=channel)
    add_finished_missions(session, 8, text=_chat(language, planted_in=2))
    _, question, answer = FACT[language]

    context = next_context(channel=channel, instruction=question)

    recent = context.section("recent")
    assert recent.chars <= 4_000
    kept = {row["seq"]: row for row in _recent(context)["kept"]}
    digests = [seq for seq, row in kept.items() if row["kept"] == "digest"]
    assert 2 in digests and 8 not in digests
    assert DIGEST_TITLE in recent.text
    for seq, row in kept.items():
        if row["kept"] == "selected":
            assert row["chars"] >= DETAIL_MIN_USEFUL - 100, (seq, row)
    # Mission #2 gave its room to newer ones: its passages are recallable, and the one
    # that answers the question is recalled.
    recall = context.section("recall")
    assert 2 in recall.mission_seqs
    assert answer in recall.text
    assert set(recall.mission_seqs) <= set(digests)


# The last turn of each mission: how it ended. Shares no word with BROAD (nor, in
# Korean, with the request).
OUTCOME = {
    "en": "Dana: settled then, topic {n} is signed off",
    "ko": "서연: 좋아요 그건 확정이에요, 결재까지 끝났어요 ({n})",
}
# Words that many filler turns hold: their lines alone would fill every cut mission.
BROAD = {
    "en": "Where are we with the agenda, the caterer and the venue people?",
    "ko": "일정표랑 장소, 케이터링은 어떻게 되고 있어요?",
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_mission_cut_hard_keeps_its_request_and_its_outcome(language: str) -> None:
    channel = dm_channel(make_office())
    channel.detail_budget_chars = 6_000
    channel.save(update_fields=["detail_budget_chars"])
    session = session_get_or_open_current(channel=channel)
    chat = _chat(language, planted_in=None)

    def text(n: int) -> tuple[str, str]:
        instruction, reply = chat(n)
        return instruction, f"{reply}\n{OUTCOME[language].format(n=n)}"

    add_finished_missions(session, 8, text=text)

    context = next_context(channel=channel, instruction=BROAD[language])

    recent = context.section("recent")
    assert recent.chars <= 6_000
    kept = {row["seq"]: row for row in _recent(context)["kept"]}
    selected = [seq for seq, row in kept.items() if row["kept"] == "selected"]
    # The question's words are in about half of every mission's turns, more than a cut
    # mission's room: each mission cut still opens with its request and ends with its
    # outcome, the turns about the question between them.
    assert len(selected) >= 3, kept
    for seq in selected:
        block = _block(context, seq)
        assert REQUEST[language].format(n=seq) in block, block
        assert block.rstrip().endswith(OUTCOME[language].format(n=seq)), block
        assert re.search(rf"\[… mission #{seq}: [\d,]+ chars \(\d+ lines\) left out …\]", block)


def test_the_plan_gives_the_newest_its_text_and_the_oldest_become_digests_first() -> None:
    window = [(seq, 3_500) for seq in range(1, 9)]

    roomy = detail_plan(window, 20_000, 240)
    tight = detail_plan(window, 4_000, 240)

    assert sum(s.allowed for s in roomy) <= 20_000
    assert roomy[-1].allowed == 3_500
    assert all(s.allowed >= DETAIL_MIN_USEFUL for s in roomy)
    digests = [s.seq for s in tight if s.allowed == 0]
    assert digests == list(range(1, len(digests) + 1)) and digests
    assert all(s.allowed >= DETAIL_MIN_USEFUL for s in tight if s.allowed)
    assert sum(s.allowed for s in tight) + 240 * len(digests) + len(DIGEST_TITLE) <= 4_000
    # A mission smaller than the minimum is whole, not starved.
    assert [s.allowed for s in detail_plan([(1, 30_000), (2, 300)], 20_000, 240)] == [
        19_700,
        300,
    ]
