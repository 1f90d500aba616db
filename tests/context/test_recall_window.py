"""Recall and the detail window meet at one edge (docs/design.md §3): recall covers the
channel's missions outside the detail window — the one just before it included — and
never brings back a mission the window already shows in full (one it trims is recalled
for what it leaves out). Checked on the assembled
prompt, in Korean and English, through a named mission ("#12") and through ranking."""

from collections.abc import Callable
from typing import Any

import pytest

from context.rendering import AssembledContext
from sessions.services import session_get_or_open_current, session_start_new
from tests.factories import add_finished_missions, dm_channel, long_text, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

MISSIONS = 20
# The window of the next mission (seq 21) holds 13..20; 12 has just left it.
WINDOW_START = MISSIONS + 1 - 8
TOPIC = {"en": "Quillfeather", "ko": "해바라기"}


def _facts(language: str) -> Callable[[int], tuple[str, str]]:
    topic = TOPIC[language]

    def text(n: int) -> tuple[str, str]:
        if n in (WINDOW_START - 1, WINDOW_START):
            if language == "ko":
                return (
                    f"작업 {n}: {topic} 캠페인 예산은 {n}00만 원으로 정했어요.",
                    f"네, {topic} 캠페인 예산 {n}00만 원으로 기록했습니다. " * 40,
                )
            return (
                f"Mission {n}: the {topic} campaign budget is {n},000 dollars.",
                f"Noted: the {topic} campaign budget is {n},000 dollars. " * 40,
            )
        return long_text(n)

    return text


def _shown_whole(context: AssembledContext) -> set[int]:
    return {k["seq"] for k in context.section("recent").kept if k["kept"] == "full"}


def _assert_at_the_edge(context: AssembledContext) -> None:
    recent = context.section("recent")
    recall = context.section("recall")
    assert recent.mission_seqs == list(range(WINDOW_START, MISSIONS + 1))
    # The mission just outside the window is recalled; one the window shows whole is not
    # recalled again. One it trims may be, for what it leaves out: never a line it shows.
    assert WINDOW_START - 1 in recall.mission_seqs
    assert WINDOW_START in _shown_whole(context)
    assert not set(recall.mission_seqs) & _shown_whole(context)
    quoted = [line.strip(' "-') for line in recall.text.split("\n")[1:]]
    repeated = [
        line for line in quoted if len(line) > 40 and "left out" not in line and line in recent.text
    ]
    assert not repeated, repeated


@pytest.fixture(autouse=True)
def _window_of_eight(settings: Any) -> None:
    settings.DETAIL_MISSIONS = 8


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_mission_named_at_the_windows_edge_is_recalled_and_the_window_is_not(
    language: str,
) -> None:
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, MISSIONS, text=_facts(language))
    instruction = (
        f"#{WINDOW_START - 1}와 #{WINDOW_START}의 {TOPIC['ko']} 예산을 비교해 줘"
        if language == "ko"
        else f"Compare the {TOPIC['en']} budget in #{WINDOW_START - 1} and #{WINDOW_START}."
    )

    context = next_context(channel=session.channel, instruction=instruction)

    _assert_at_the_edge(context)
    assert f"{WINDOW_START - 1}00" in context.section("recall").text or (
        f"{WINDOW_START - 1},000" in context.section("recall").text
    )


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_ranked_match_at_the_windows_edge_is_recalled_once(
    language: str,
) -> None:
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, MISSIONS, text=_facts(language))
    instruction = (
        f"{TOPIC['ko']} 캠페인 예산이 얼마였지?"
        if language == "ko"
        else f"What was the {TOPIC['en']} campaign budget?"
    )

    _assert_at_the_edge(next_context(channel=session.channel, instruction=instruction))


def test_an_earlier_sessions_mission_is_recalled_whatever_its_seq() -> None:
    """The window is this session's: an earlier session's mission with a seq inside it is
    outside the window all the same."""
    channel = dm_channel(make_office())
    first = session_get_or_open_current(channel=channel)

    def earlier(n: int) -> tuple[str, str]:
        if n == WINDOW_START + 2:
            return ("The venue Quillfeather Hall quoted 4,800 dollars for May 2.", "Noted.")
        return long_text(n)

    add_finished_missions(first, MISSIONS, text=earlier)
    second = session_start_new(channel=channel)
    add_finished_missions(second, MISSIONS)

    context = next_context(channel=channel, instruction="What did Quillfeather Hall quote?")

    recall = context.section("recall")
    assert f"s{first.number}#{WINDOW_START + 2}" in recall.mission_refs
    assert "4,800" in recall.text
