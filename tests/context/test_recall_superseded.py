"""Recall marks an excerpt whose decision was later reversed (issue 36): the original
words come back, labelled "(superseded by #N)" as the summary labels the decision, in
English and in Korean; whether the reversal has been folded into the summary (its
record) or is still in the detail window (found in the person's words)."""

import re
from typing import Any

import pytest

from context.superseded import Superseded, reversals, superseded_by
from memory.models import MemoryItem, MemoryKind, MemoryOrigin, MemoryScope
from memory.services import memory_item_create, memory_target
from office.models import Channel
from summaries.models import RollingSummary
from summaries.render import Ref
from tests.factories import (
    add_finished_missions,
    dm_channel,
    long_text,
    make_office,
    next_context,
)

pytestmark = pytest.mark.django_db(transaction=True)

CASES: dict[str, dict[str, Any]] = {
    "en": {
        "old": "We decided the launch city is Lisbon.",
        "old_reply": "Lisbon it is for the launch event.",
        "new": "Change of plan: we decided the launch city is Porto instead of Lisbon.",
        "new_reply": "Switched: the launch event moves to Porto.",
        "filler": (
            "Mission {n}: review the onboarding copy and tidy the buttons.",
            "Reviewed. The sentences are shorter and the button labels match. ",
        ),
        "question": "Which launch city did we pick, Lisbon?",
        "old_words": "launch city is Lisbon",
    },
    "ko": {
        "old": "출시 도시는 리스본으로 결정했어요.",
        "old_reply": "네, 출시 행사는 리스본에서 합니다.",
        "new": "계획 변경: 출시 도시는 리스본 대신 포르투로 결정했어요.",
        "new_reply": "알겠습니다, 출시 행사를 포르투로 옮깁니다.",
        "filler": (
            "작업 {n}: 온보딩 화면의 문구를 검토하고 버튼을 정리해 주세요.",
            "검토했습니다. 문장을 짧게 다듬고 버튼 문구를 통일했습니다. ",
        ),
        "question": "출시 도시가 리스본이었나?",
        "old_words": "출시 도시는 리스본으로",
    },
}


def _texts(case: dict[str, Any], new_at: int):
    def text(n: int) -> tuple[str, str]:
        if n == 1:
            return case["old"], case["old_reply"]
        if n == new_at:
            return case["new"], case["new_reply"]
        instruction, reply = case["filler"]
        return instruction.format(n=n), reply * 40

    return text


def _recall_line(context: Any, words: str) -> str:
    lines = [line for line in context.section("recall").text.splitlines() if words in line]
    assert lines, context.section("recall").text
    return lines[0]


def _changed_at_4(old: str, new: str, language: str) -> Channel:
    """A 1:1 channel of 14 finished missions: #1 says `old`, #4 says `new`, the others are
    filler in `language` (#4 has left the detail window)."""
    filler = CASES[language]["filler"]
    replies = {"en": ("Done.", "Updated."), "ko": ("반영했어요.", "고쳤어요.")}[language]

    def text(n: int) -> tuple[str, str]:
        if n == 1:
            return old, replies[0]
        if n == 4:
            return new, replies[1]
        return filler[0].format(n=n), filler[1] * 40

    channel = dm_channel(make_office())
    add_finished_missions(channel.sessions.get(), 14, text=text)
    return channel


@pytest.mark.parametrize("language", ["en", "ko"])
def test_an_excerpt_of_a_decision_the_summary_marks_superseded_says_so(language: str) -> None:
    case = CASES[language]
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    # Both missions have left the window and are folded: the summary records the reversal.
    add_finished_missions(session, 14, text=_texts(case, new_at=3))
    state = RollingSummary.objects.get(session=session).state
    assert any(d["superseded"] and d["superseded_by"] == [3] for d in state["decisions"])
    context = next_context(channel=channel, instruction=case["question"])
    line = _recall_line(context, case["old_words"])
    assert line.startswith("- [mission #1 · ")
    assert "(superseded by #3)" in line
    # The reversal itself is not marked.
    assert all(
        "(superseded" not in x
        for x in context.section("recall").text.splitlines()
        if x.startswith("- [mission #3 ")
    )


@pytest.mark.parametrize("language", ["en", "ko"])
def test_an_excerpt_reversed_by_a_mission_still_in_the_window_says_so(language: str) -> None:
    case = CASES[language]
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    # Mission 1 has left the window; the reversal (#12) is in it, not folded yet.
    add_finished_missions(session, 12, text=_texts(case, new_at=12))
    context = next_context(channel=channel, instruction=case["question"])
    assert 12 in context.section("recent").mission_seqs
    line = _recall_line(context, case["old_words"])
    assert line.startswith("- [mission #1 · ")
    assert "(superseded by #12)" in line


@pytest.mark.parametrize("language", ["en", "ko"])
def test_an_excerpt_of_a_decision_that_still_holds_is_not_marked(language: str) -> None:
    case = CASES[language]
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    add_finished_missions(session, 12, text=_texts(case, new_at=99))
    context = next_context(channel=channel, instruction=case["question"])
    line = _recall_line(context, case["old_words"])
    assert "(superseded" not in line


def test_only_a_later_reversal_on_the_same_subject_supersedes_an_excerpt() -> None:
    old = "We decided the launch city is Lisbon."
    reversal = reversals([(7, "Change of plan: the launch city is Porto instead of Lisbon.")])[0]
    assert superseded_by((None, 3), old, record={}, later=[reversal]) == ["#7"]
    # An earlier mission cannot supersede a later one; another subject is left alone.
    assert superseded_by((None, 9), old, record={}, later=[reversal]) == []
    other = "We decided the caterer is Bloom Kitchen."
    assert superseded_by((None, 3), other, record={}, later=[reversal]) == []
    # An excerpt of an earlier session is older than any reversal of this one.
    assert superseded_by((1, 30), old, record={}, later=[reversal]) == ["#7"]
    # The summary's record counts only for an excerpt that states the recorded decision.
    record: dict[Ref, list[Superseded]] = {
        (None, 3): [Superseded((None, 3), "The launch city is Lisbon.", "#7")]
    }
    assert superseded_by((None, 3), old, record=record, later=[]) == ["#7"]
    assert superseded_by((None, 3), other, record=record, later=[]) == []


# Chat lines that change nothing, seen in team transcripts: a question, a "no change", a
# colleague covering ("태오가 대신 봐줄 거예요": Teo covers, nothing is replaced), the words
# "apart from what was said" ("말한 것 말고는"). None of them marks an earlier excerpt.
NOT_REVERSALS = {
    "en": (
        "Jun: can we push the venue deposit to Tuesday instead?",
        "Theo: same as last year for the venue deposit, no change",
    ),
    "ko": (
        "지민: 저 금요일에 자리 비워요, 태오가 대신 봐줄 거예요",
        "Iris: 연사 명단은 아직 초안이에요, 말한 것 말고는 확정된 게 없어요",
    ),
}
EARLIER_LINES = {
    "en": "Jun: the venue deposit is due on Monday",
    "ko": "준호: 아니면 태오\n태오한테 연사 항공과 숙박 물어봤는데 아직 답이 없어요",
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_chat_lines_that_change_nothing_mark_no_excerpt(language: str) -> None:
    later = reversals([(9, line) for line in NOT_REVERSALS[language]])
    assert superseded_by((None, 3), EARLIER_LINES[language], record={}, later=later) == []


def test_a_decision_is_not_marked_superseded_by_its_own_mission() -> None:
    from context.superseded import recorded
    from summaries.schemas import Decision, SummaryState

    state = SummaryState(
        decisions=[
            Decision(
                text="The keynote speaker is Ana.",
                missions=[4, 7],
                superseded=True,
                superseded_by=[7],
            )
        ]
    )
    record = recorded(state, [])
    text = "We decided the keynote speaker is Ana."
    assert superseded_by((None, 4), text, record=record, later=[]) == ["#7"]
    assert superseded_by((None, 7), text, record=record, later=[]) == []


# A value given as one item of a list, changed many missions later in everyday words: by
# the time it is asked about, both missions have left the window and the summary may hold
# neither (evicted for its budget, or not folded yet); recall still quotes the old list.
LATER_VALUE = {
    "en": (
        "New menu board: espresso is $3, the flat white $4.50, and cold brew $5.",
        "Since the dairy supplier raised its prices again, the flat white is $4.80 now.",
        "What do we charge for a flat white?",
        "the flat white $4.50",
        "4.8",
    ),
    "ko": (
        "메뉴판 새로 만들어요. 아이스티는 4,500원, 레모네이드는 5,000원, "
        "자몽에이드는 5,500원이에요.",
        "레몬값이 많이 올라서 레모네이드 가격 올렸어요, 이제 5,300원이에요.",
        "레모네이드 얼마 받아요?",
        "레모네이드는 5,000원",
        "5300",
    ),
}


@pytest.mark.parametrize("folded", [True, False], ids=["folded", "no-summary"])
@pytest.mark.parametrize("language", ["en", "ko"])
def test_an_excerpt_whose_value_a_later_mission_outside_the_window_replaced_says_so(
    language: str, folded: bool
) -> None:
    old, new, question, old_words, value = LATER_VALUE[language]
    channel = _changed_at_4(old, new, language)
    session = channel.sessions.get()
    if folded:
        # Folded into a summary that keeps no record of the change (the old list left it
        # for its budget): recall quotes the list, the later mission's own words decide.
        summary = RollingSummary.objects.get(session=session)
        summary.state = {**summary.state, "decisions": [], "facts": [], "constraints": []}
        summary.state["dropped"] = []
        summary.save(update_fields=["state"])
    else:
        # No summary at all: the history is shown whole, and marked the same way.
        RollingSummary.objects.filter(session=session).delete()
    context = next_context(channel=channel, instruction=question)
    assert 4 not in context.section("recent").mission_seqs
    line = _recall_line(context, old_words)
    assert line.startswith("- [mission #1 · ")
    assert "(superseded by #4: " in line and value in line


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_later_value_of_another_item_of_the_list_marks_nothing(language: str) -> None:
    old, _, question, old_words, _ = LATER_VALUE[language]
    other = {
        "en": "The cold brew bottles for the market cost $4.80 each.",
        "ko": "자몽청 1kg 납품가는 5,300원이에요.",
    }[language]
    channel = _changed_at_4(old, other, language)
    RollingSummary.objects.filter(session=channel.sessions.get()).delete()
    line = _recall_line(next_context(channel=channel, instruction=question), old_words)
    assert "(superseded" not in line


def _summary_keeping_the_list(language: str, others: tuple[int, ...]) -> Channel:
    """A channel of 14 missions whose summary kept the list of #1 (and the fillers
    `others`) and not #4, the mission that changed one of its items."""
    old, new, _, _, _ = LATER_VALUE[language]
    filler = CASES[language]["filler"]

    def text(n: int) -> tuple[str, str]:
        if n == 1:
            return old, "Done."
        if n == 4:
            return new, "Updated."
        # Long enough that the whole history does not fit: the summary is shown.
        return filler[0].format(n=n), filler[1] * 80

    channel = dm_channel(make_office())
    session = channel.sessions.get()
    add_finished_missions(session, 14, text=text)
    summary = RollingSummary.objects.get(session=session)
    list_item = {"text": old.split(": ", 1)[-1].split(". ", 1)[-1], "missions": [1]}
    summary.state = {
        **summary.state,
        "decisions": [],
        "constraints": [],
        "facts": [list_item, *({"text": filler[0].format(n=n), "missions": [n]} for n in others)],
        "dropped": [],
    }
    summary.save(update_fields=["state"])
    return channel


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_summary_line_whose_value_a_later_mission_replaced_says_so(language: str) -> None:
    _, _, question, old_words, value = LATER_VALUE[language]
    channel = _summary_keeping_the_list(language, (2,))
    context = next_context(channel=channel, instruction=question)
    lines = context.section("summary").text.splitlines()
    marked = [line for line in lines if old_words in line]
    assert marked and "(superseded by #4: " in marked[0] and value in marked[0], lines
    assert marked[0].endswith("[#1]")
    # A line no later value replaced stays as it was.
    assert any(line.endswith("[#2]") and "(superseded" not in line for line in lines), lines


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_summary_that_fills_its_budget_still_has_room_for_its_marks(
    language: str, settings: Any
) -> None:
    # The fold fills the summary to its budget: the mark takes the room set aside beside
    # it, and no line of the summary makes way for it.
    _, _, question, old_words, value = LATER_VALUE[language]
    channel = _summary_keeping_the_list(language, (2, 3))
    shown = next_context(channel=channel, instruction=question).section("summary").text
    mark = re.search(r" \(superseded by #4: [^)]*\)", shown)
    assert mark is not None, shown
    # Now the summary alone fills its cap to the last char.
    settings.SUMMARY_BUDGET_CHARS = len(shown) - len(mark.group())
    section = next_context(channel=channel, instruction=question).section("summary")
    lines = section.text.splitlines()
    marked = [line for line in lines if old_words in line]
    assert marked and "(superseded by #4: " in marked[0] and value in marked[0], lines
    assert [line for line in lines if line.endswith(("[#2]", "[#3]"))], lines
    assert not section.trimmed and section.text == shown


# One thing said in one language and changed, many missions later, in the other: the two
# sentences share no word, so only their subjects' meaning ties them (an office whose
# people write Korean and English as it comes).
ACROSS_LANGUAGES = {
    "en-then-ko": (
        "The shipping fee is $5 per order for the web shop.",
        "배송비는 다음 주부터 7달러로 올려요.",
        "What shipping fee do we charge?",
        "The shipping fee is $5",
        "7 USD",
    ),
    "ko-then-en": (
        "최소 주문 수량은 50개로 할게요.",
        "Minimum order is 80 units from now on.",
        "최소 주문 수량 몇 개예요?",
        "최소 주문 수량은 50개로",
        "80",
    ),
}


@pytest.mark.parametrize("case", list(ACROSS_LANGUAGES))
def test_an_excerpt_whose_value_was_changed_in_the_other_language_says_so(case: str) -> None:
    old, new, question, old_words, value = ACROSS_LANGUAGES[case]
    channel = _changed_at_4(old, new, "en")
    RollingSummary.objects.filter(session=channel.sessions.get()).delete()
    context = next_context(channel=channel, instruction=question)
    assert 4 not in context.section("recent").mission_seqs
    line = _recall_line(context, old_words)
    assert "(superseded by #4: " in line and value in line
    # Another thing of the same kind in the other language marks nothing.
    assert (
        superseded_by(
            (None, 1), "The packing fee is $2 per order.", record={}, later=reversals([(4, new)])
        )
        == []
    )


# A memory item taken from an early mission whose value the person changed later, in other
# words (no "decided", no "instead"): the memory line says what replaced it, as an excerpt
# would; an item of another thing, or one the change came before, is not marked.
MEMORY_CHANGED = {
    "en": (
        "The hire deposit is £150 per bike.",
        "After two helmets went missing, the hire deposit is £200 now.",
        "How much is the hire deposit?",
        "200",
    ),
    "ko": (
        "대여 보증금은 자전거 한 대에 15만 원이에요.",
        "헬멧 분실이 잦아서 대여 보증금 올렸어요, 이제 20만 원이에요.",
        "대여 보증금 얼마예요?",
        "200000",
    ),
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_memory_item_whose_value_a_later_mission_replaced_says_so(language: str) -> None:
    old, new, question, value = MEMORY_CHANGED[language]
    channel = _changed_at_4(old, new, language)
    session = channel.sessions.get()
    first, changed = (session.missions.get(seq=n) for n in (1, 4))
    MemoryItem.objects.filter(office=channel.office).delete()
    target = memory_target(office=channel.office, scope=MemoryScope.CHANNEL, channel=channel)
    kept, current = (
        memory_item_create(
            target=target,
            kind=MemoryKind.FACT,
            text=said,
            origin=MemoryOrigin.EXTRACTED,
            source_mission=mission,
            source_span=said,
        )
        for said, mission in ((old, first), (new, changed))
    )  # the same fact taken from the changing mission itself is current
    context = next_context(channel=channel, instruction=question)
    memory = context.section("memory").text
    lines = {
        item.pk: [x for x in memory.splitlines() if f"id {item.pk})" in x]
        for item in (kept, current)
    }
    assert lines[kept.pk] and lines[current.pk], memory
    assert "(superseded by #4: " in lines[kept.pk][0] and value in lines[kept.pk][0]
    assert "(superseded" not in lines[current.pk][0]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_pending_mission_whose_value_a_later_one_replaced_says_so(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from summaries import tasks

    old, new, _question, value = MEMORY_CHANGED[language]

    def text(n: int) -> tuple[str, str]:
        if n == 1:
            return old, "Noted."
        if n == 3:
            return new, "Updated."
        return long_text(n)

    monkeypatch.setattr(tasks.summary_fold, "delay_on_commit", lambda *a, **k: None)
    channel = dm_channel(make_office())
    add_finished_missions(channel.sessions.get(), 12, text=text)  # no fold lands
    context = next_context(channel=channel, instruction="next")
    pending = context.section("pending")
    assert {1, 3} <= set(pending.mission_seqs)
    lines = {n: [x for x in pending.text.splitlines() if f"mission #{n} " in x] for n in (1, 3)}
    assert "(superseded by #3: " in lines[1][0] and value in lines[1][0], pending.text
    assert "(superseded" not in lines[3][0]
