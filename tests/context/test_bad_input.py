"""Bad input keeps the envelope (docs/design.md §3): a mission of one 20,000-char line, a
mission of only emoji, a one-word question and an empty channel each give a context
within the channel's envelope, every section within its cap."""

import pytest

from context.rendering import AssembledContext
from sessions.services import session_get_or_open_current
from tests.factories import add_finished_missions, dm_channel, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

LONG_LINE = {
    "en": "the venue deposit was paid and the hall is booked " * 400,
    "ko": "대관 계약금은 입금했고 대강당도 예약했어요 " * 1_000,
}


def _within(context: AssembledContext) -> None:
    assert context.envelope and context.total_chars <= context.envelope
    for section in context.sections:
        if section.budget is not None:
            assert section.chars <= section.budget, section.name
    assert context.messages[-1]["content"] == context.section("current").text


def _chat(n: int) -> tuple[str, str]:
    return (f"Dana: can we sort out topic {n} today?", "Theo: sure. " * 250)


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("where", ["window", "recalled"])
def test_a_mission_of_one_20000_char_line_stays_within_the_envelope(
    language: str, where: str
) -> None:
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    line = LONG_LINE[language][:20_000]
    assert len(line) == 20_000 and "\n" not in line
    add_finished_missions(session, 3, text=_chat)
    add_finished_missions(session, 1, text=lambda n: (line, line))
    if where == "recalled":
        add_finished_missions(session, 8, text=_chat)
    question = "Was the venue deposit paid?" if language == "en" else "대관 계약금은 입금했나요?"

    context = next_context(channel=channel, instruction=question)

    _within(context)
    shown = context.section("recent" if where == "window" else "recall")
    assert 4 in shown.mission_seqs
    assert ("deposit" if language == "en" else "계약금") in shown.text


def test_a_mission_of_only_emoji_stays_within_the_envelope() -> None:
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    add_finished_missions(session, 9, text=lambda n: ("🎉🚀" * 3_000, "👍🙏🔥" * 4_000))

    context = next_context(channel=channel, instruction="🎉🎉🎉")

    _within(context)
    assert context.section("recent").mission_seqs


@pytest.mark.parametrize("word", ["budget", "예산", "the"])
def test_a_one_word_question_stays_within_the_envelope(word: str) -> None:
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    add_finished_missions(session, 20, text=_chat)

    context = next_context(channel=channel, instruction=word)

    _within(context)
    assert context.section("recent").mission_seqs == list(range(13, 21))


def test_an_empty_channel_gives_a_context_within_the_envelope() -> None:
    channel = dm_channel(make_office())
    session_get_or_open_current(channel=channel)

    context = next_context(channel=channel, instruction="Where are we with the launch?")

    _within(context)
    assert not context.section("recent").text and not context.section("recall").text
