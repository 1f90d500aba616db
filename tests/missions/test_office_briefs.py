"""An instruction the office wrote (a synthesis's brief, a delegated part the chief of
staff wrote) is never the person's words: not in the rolling summary, not in the fold
prompt, not in recall, not in long-term memory. Korean and English."""

from datetime import UTC, datetime
from typing import Any

import pytest

from context.models import Passage
from context.services import passages_index_session
from memory.extraction import memory_extract_from_mission
from memory.models import MemoryItem
from missions.creation import mission_create
from missions.lifecycle import mission_complete
from missions.models import InstructionAuthor, Mission, MissionSource
from missions.plans import SYNTHESIS_INSTRUCTION
from office.models import Channel, ChannelKind
from sessions.models import ChatSession
from summaries.extractive import extractive_fold
from summaries.folding import fold_inputs
from summaries.prompts import fold_messages
from summaries.schemas import FoldMission, SummaryState
from tests.factories import channel_of, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

# What the office wrote: full of what would be the person's rules, decisions and facts if
# the person had said it. The synthesis brief quotes the plan's instruction as the
# office's own template does; the delegated part reads like an order.
BRIEFS = {
    "en": {
        "synthesis": SYNTHESIS_INSTRUCTION.format(
            label="1",
            instruction="«Always send the Zephyr report as a PDF. We decided the budget is "
            "$4,800.»",
        ),
        "delegation": "Remember: always copy Dana Whitfield on every Zephyr email. The "
        "launch date is fixed at March 14. We decided to drop the Berlin office.",
    },
    "ko": {
        "synthesis": SYNTHESIS_INSTRUCTION.format(
            label="1",
            instruction="«제퍼 보고서는 항상 PDF로 보내 줘. 예산은 480만 원으로 결정했어.»",
        ),
        "delegation": "기억해: 제퍼 메일에는 항상 다나 휫필드를 참조로 넣어. 출시일은 3월 "
        "14일로 확정이야. 베를린 사무소는 접기로 결정했어.",
    },
}
REPLY = {"en": "Done, it is on its way.", "ko": "완료했어요."}
LANGUAGES = ("en", "ko")
SOURCES = ("synthesis", "delegation")


def _marked(text: str) -> list[str]:
    """The distinctive words of a brief that must not come back as the person's."""
    return [
        w
        for w in ("PDF", "4,800", "Dana", "Whitfield", "March", "Berlin", "480만", "다나", "베를린")
        if w in text
    ]


def _fold(language: str, source: str, *, generated: bool) -> SummaryState:
    mission = FoldMission(
        id=1,
        seq=1,
        at=datetime(2026, 12, 1, 9, 0, tzinfo=UTC),
        instruction=BRIEFS[language][source],
        reply=REPLY[language],
        instruction_is_generated=generated,
    )
    return extractive_fold(previous=SummaryState(), missions=[mission], budget_chars=4000)


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_offices_brief_is_never_summarized_as_the_persons_words(
    language: str, source: str
) -> None:
    brief = BRIEFS[language][source]
    # Said by the person, the same words are kept (the test can tell).
    said = _fold(language, source, generated=False)
    assert any(_marked(i.text) for _, i in said.items()) or _marked(said.goal)

    state = _fold(language, source, generated=True)
    kept = [i.text for _, i in state.items()] + [state.goal]
    assert not [t for t in kept if _marked(t)], kept
    assert not any(t.startswith("Asked: ") for t in kept), kept
    # Still covered: recorded as dropped, as the office's brief.
    assert state.goal == ""
    [dropped] = state.dropped
    assert dropped.mission == 1 and "Office's brief" in dropped.reason
    assert _marked(brief)


def _session_with(
    language: str, source: str, *, author: str = InstructionAuthor.OFFICE
) -> tuple[Channel, Mission]:
    office = make_office()
    master = channel_of(office, ChannelKind.MASTER)
    session = ChatSession.objects.get(channel=master)
    assignee = office.employees.get(is_master=True)
    mission, _ = mission_create(
        session=session,
        assignee=assignee,
        # The control says the same words as the person's own instruction: a delegated or
        # synthesis mission teaches no memory whoever wrote it (the instruction that
        # started it does).
        source=MissionSource.MASTER
        if author == InstructionAuthor.PERSON
        else MissionSource.SYNTHESIS
        if source == "synthesis"
        else MissionSource.DELEGATION,
        instruction=BRIEFS[language][source],
        instruction_author=author,
    )
    mission_complete(mission=mission, reply=REPLY[language])
    return master, mission


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_fold_prompt_says_whose_words_the_brief_is(language: str, source: str) -> None:
    _, mission = _session_with(language, source)
    [folded] = fold_inputs([mission])
    assert folded.instruction_is_generated
    prompt = fold_messages(
        previous=SummaryState(), missions=[folded], budget_chars=4000, findings=[]
    )
    asked = prompt[1]["content"]
    assert "by=office" in asked and "Brief written by the office (not the person's words)" in asked
    assert f"Instruction: {BRIEFS[language][source]}" not in asked
    assert "not what the person said" in prompt[0]["content"]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_offices_brief_becomes_no_memory_item(
    language: str, source: str, settings: Any
) -> None:
    settings.LLM_PROVIDER = "offline"
    # Said by the person, the same words are remembered (the test can tell).
    _, said = _session_with(language, source, author=InstructionAuthor.PERSON)
    assert MemoryItem.objects.filter(source_mission=said).exists()

    _, mission = _session_with(language, source)
    assert memory_extract_from_mission(mission_id=mission.pk) == []
    assert not MemoryItem.objects.filter(source_mission=mission).exists()


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_recall_and_the_detail_window_name_the_brief_as_the_offices(
    language: str, source: str
) -> None:
    channel, mission = _session_with(language, source)
    passages_index_session(session_id=mission.session_id)
    texts = list(Passage.objects.filter(mission=mission).values_list("text", flat=True))
    assert texts[0].startswith("Brief written by the office: ")
    assert not any(t.startswith("Instruction:") for t in texts)
    recent = next_context(channel=channel, instruction="next").section("recent").text
    assert f"Brief written by the office:\n{BRIEFS[language][source][:40]}" in recent
