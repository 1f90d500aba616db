"""Budgets follow the envelope (issue 36): the current instruction is budgeted first and
is never cut while the channel's envelope has room for it (the window and recall make
room); and what the detail window leaves out of a mission it trims or lists as a digest
can be recalled in the same prompt, not only once the mission has left the window."""

from typing import Any

import pytest
from django.conf import settings

from office.models import ChannelKind
from tests.factories import add_finished_missions, channel_of, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

CASES: dict[str, dict[str, Any]] = {
    "en": {
        "fact": "We agreed the venue deposit with Casa Lumen is 4,200 euros, due on May 2.",
        "question": "Which deposit did we agree with Casa Lumen?",
        "pasted": "Notes from the call with the printers about paper stock. ",
        "filler": (
            "Mission {n}: tidy the onboarding copy and the buttons.",
            "Reviewed the onboarding screens; sentences shortened, labels aligned. ",
        ),
        "repeat": 20,
    },
    "ko": {
        "fact": "카사 루멘 대관 보증금은 420만 원으로 합의했고 5월 2일까지 내기로 했어요.",
        "question": "카사 루멘 보증금은 얼마로 합의했지?",
        "pasted": "인쇄소와 통화한 내용 정리: 종이 두께와 색감 이야기. ",
        "filler": (
            "작업 {n}: 온보딩 화면 문구와 버튼을 정리해 주세요.",
            "온보딩 화면을 검토했습니다. 문장을 줄이고 버튼 이름을 맞췄습니다. ",
        ),
        "repeat": 40,
    },
}
FACT_SEQ = 3


def _texts(case: dict[str, Any]):
    def text(n: int) -> tuple[str, str]:
        instruction, reply = case["filler"]
        half = case["repeat"] // 2
        body = reply * case["repeat"]
        if n == FACT_SEQ:
            # The fact in the middle of the reply: not in a digest line, not in the head.
            body = reply * half + "\n" + case["fact"] + "\n" + reply * half
        return instruction.format(n=n), body

    return text


def _long_instruction(case: dict[str, Any]) -> str:
    """An instruction of MAX_INSTRUCTION_CHARS: the question, then pasted material."""
    question = case["question"] + "\n"
    room = settings.MAX_INSTRUCTION_CHARS - len(question)
    return question + (case["pasted"] * (room // len(case["pasted"]) + 1))[:room]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_longest_instruction_accepted_is_whole_in_the_prompt_while_the_envelope_has_room(
    language: str,
) -> None:
    case = CASES[language]
    channel = channel_of(make_office(), ChannelKind.MASTER)
    add_finished_missions(channel.sessions.get(), 8, text=_texts(case))
    instruction = _long_instruction(case)
    context = next_context(channel=channel, instruction=instruction)
    current = context.section("current")
    assert current.text.endswith(instruction) and not current.trimmed
    assert context.total_chars <= context.envelope == settings.CONTEXT_BUDGET_CHARS["master"]
    # The window made room: its missions are cut or listed as digests, all still there.
    recent = context.section("recent")
    assert recent.trimmed and recent.mission_seqs == list(range(1, 9))
    assert recent.budget is not None and recent.budget < settings.DETAIL_BUDGET_CHARS["master"]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_what_the_window_leaves_out_of_a_mission_in_it_is_recalled_at_once(
    language: str,
) -> None:
    case = CASES[language]
    channel = channel_of(make_office(), ChannelKind.MASTER)
    add_finished_missions(channel.sessions.get(), 8, text=_texts(case))
    context = next_context(channel=channel, instruction=_long_instruction(case))
    recent = context.section("recent")
    kept = {row["seq"]: row["kept"] for row in recent.kept}
    assert kept[FACT_SEQ] in ("digest", "selected")
    assert case["fact"] not in recent.text
    recall = context.section("recall")
    assert FACT_SEQ in recall.mission_seqs
    line = next(x for x in recall.text.splitlines() if x.startswith(f"- [mission #{FACT_SEQ} "))
    assert case["fact"] in line


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_window_mission_shown_whole_is_not_recalled_again(language: str) -> None:
    case = CASES[language]
    channel = channel_of(make_office(), ChannelKind.MASTER)
    add_finished_missions(channel.sessions.get(), 8, text=_texts(case))
    context = next_context(channel=channel, instruction=case["question"])
    recent = context.section("recent")
    assert not recent.trimmed and case["fact"] in recent.text
    assert FACT_SEQ not in context.section("recall").mission_seqs
