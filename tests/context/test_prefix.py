"""The prompt's cacheable prefix (docs/design.md §3, issue 36): the system message and the
summary come first, each a message of its own, byte-identical from one mission to the
next until a fold lands; the pending digests, the window, the memory ranked for the
instruction, recall and the instruction come after them. The context report says how
long that prefix is."""

from itertools import pairwise
from typing import Any

import pytest

from context.lines import PENDING_TITLE
from memory.services import memory_item_create, memory_target
from summaries.models import RollingSummary
from tests.factories import add_finished_missions, dm_channel, long_text, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _batches_of_eight(settings: Any) -> None:
    settings.FOLD_BATCH = 8
    settings.DETAIL_MISSIONS = 8


def _korean_text(n: int) -> tuple[str, str]:
    return (
        f"임무 {n}: 출시 계획의 {n}번째 절을 담당자와 날짜까지 넣어서 작성해 주세요.",
        f"{n}번째 절입니다. " + f"{n}단계와 그 위험 요소를 자세히 다룹니다. " * 60,
    )


def _sent(messages: list[dict[str, str]]) -> str:
    return "".join(f"<{m['role']}>\n{m['content']}\n" for m in messages)


def _common(a: str, b: str) -> int:
    same = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        same += 1
    return same


def _watermark(session: Any) -> int:
    summary = RollingSummary.objects.filter(session=session).first()
    return summary.folded_through_seq if summary else 0


@pytest.mark.parametrize(
    ("text", "instructions"),
    [
        (long_text, ["Draft the launch email", "Check the owners", "List the risks again"]),
        (
            _korean_text,
            ["출시 메일 초안을 써 줘", "담당자를 확인해 줘", "위험 요소를 다시 정리해 줘"],
        ),
    ],
)
def test_the_system_message_and_the_summary_are_a_prefix_that_holds_between_folds(
    text: Any, instructions: list[str]
) -> None:
    office = make_office()
    channel = dm_channel(office)
    session = channel.sessions.get()
    # Memory ranked for the instruction changes per mission: it is never in the prefix.
    ranked = memory_item_create(
        target=memory_target(office=office, scope="office"),
        kind="fact",
        text="The launch email goes out on Tuesday.",
        origin="user",
    )
    add_finished_missions(session, 17, text=text)  # the first batch (1..8) has folded
    assert _watermark(session) == 8
    prompts = []
    for instruction in instructions:
        context = next_context(channel=channel, instruction=instruction)
        messages = context.messages
        assert context.stable_messages == 2
        system, summary = messages[0]["content"], messages[1]["content"]
        assert system == context.section("system").text
        assert summary == context.section("summary").text
        # The pending digests (one more each mission) are a message after the summary.
        assert PENDING_TITLE not in summary
        assert messages[2] == {"role": "system", "content": context.section("pending").text}
        stable = _sent(messages[:2])
        for per_mission in (instruction, "The launch email goes out", "[mission #"):
            assert per_mission not in stable
        report = context.report()
        assert report["stable_prefix_chars"] == len(system) + len(summary)
        assert report["stable_messages"] == 2
        prompts.append((_sent(messages), stable, context.section("pending").text))
        add_finished_missions(session, 1, text=text)
    assert _watermark(session) == 8  # no fold landed meanwhile
    assert ranked.pk not in context.section("system").memory_ids
    for (before, stable, pending), (after, _, _) in pairwise(prompts):
        # The whole stable part is byte-identical, and the pending digests after it up to
        # the newest one (the next mission's digest is a line more).
        same = _common(before, after)
        assert same >= len(stable) + len(pending.rsplit("\n- [", 1)[0])
    # Once the next batch lands, the summary (and so the prefix) changes.
    add_finished_missions(session, 8 - len(instructions), text=text)
    assert _watermark(session) == 16
    context = next_context(channel=channel, instruction=instructions[0])
    assert _sent(context.messages[:2]) != prompts[-1][1]


def test_a_session_without_a_summary_has_only_the_system_message_as_its_stable_prefix() -> None:
    channel = dm_channel(make_office())
    add_finished_missions(channel.sessions.get(), 3)
    context = next_context(channel=channel, instruction="Next step")
    assert context.stable_messages == 1
    assert context.report()["stable_prefix_chars"] == len(context.section("system").text)
    assert context.messages[1]["role"] == "user"
