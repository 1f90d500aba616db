"""The prompt's budget has one home (context/budget.py): the loader, the renderer, the
recall index and the context report read the same numbers, and settings no prompt can
keep stop the start-up. In English and Korean."""

from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from context.budget import budget_problems, prompt_budget
from office.models import ChannelKind
from tests.factories import add_finished_missions, channel_of, dm_channel, make_office, next_context

TEXTS = {
    "en": lambda n: (f"Draft part {n} of the launch plan. " * 20, f"Part {n} drafted. " * 120),
    "ko": lambda n: (f"출시 계획 {n}부를 작성해 줘. " * 20, f"{n}부 작성했습니다. " * 120),
}


def test_the_default_budgets_pass_the_start_up_check() -> None:
    assert budget_problems() == []
    call_command("check")


def test_caps_that_leave_the_instruction_no_room_stop_the_start_up(settings: Any) -> None:
    settings.CONTEXT_BUDGET_CHARS = {**settings.CONTEXT_BUDGET_CHARS, "all": 12_000}
    settings.MEMORY_BUDGET_CHARS = 3_000
    with pytest.raises(SystemCheckError) as refused:
        call_command("check")
    assert "CONTEXT_BUDGET_CHARS_ALL=12000" in str(refused.value)
    # The other kinds keep room: only the impossible one is named.
    assert "CONTEXT_BUDGET_CHARS_DM" not in str(refused.value)


def test_a_settings_change_is_read_by_the_next_prompt(settings: Any) -> None:
    before = prompt_budget("dm")
    settings.RECALL_BUDGET_CHARS = before.recall + 1
    assert prompt_budget("dm").recall == before.recall + 1


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_report_shows_the_budget_the_prompt_was_built_within(lang: str) -> None:
    channel = channel_of(make_office(), ChannelKind.MASTER)
    add_finished_missions(channel.sessions.get(), 8, text=TEXTS[lang])
    context = next_context(channel=channel, instruction=TEXTS[lang](9)[0])
    report = context.report()
    assert report["budget"] == prompt_budget("master").overview()
    caps = {s["name"]: s["budget"] for s in report["sections"]}
    assert caps["system"] == report["budget"]["system"]
    assert caps["pending"] == report["budget"]["pending"]
    assert caps["memory"] == report["budget"]["memory"]
    assert caps["recent"] <= report["budget"]["detail"]
    assert context.total_chars <= report["budget"]["envelope"]


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_channel_with_its_own_detail_cap_is_built_within_it(lang: str) -> None:
    channel = dm_channel(make_office())
    channel.detail_budget_chars = 3_000
    channel.save(update_fields=["detail_budget_chars"])
    add_finished_missions(channel.sessions.get(), 8, text=TEXTS[lang])
    context = next_context(channel=channel, instruction=TEXTS[lang](9)[0])
    recent = context.section("recent")
    assert context.report()["budget"]["detail"] == 3_000
    assert recent.budget == 3_000 and recent.chars <= 3_000
    assert recent.mission_seqs == list(range(1, 9))


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("instruction_chars", [50, 6_000, 14_000])
def test_what_the_loader_expects_of_the_window_is_never_more_than_the_renderer_gives(
    lang: str, instruction_chars: int
) -> None:
    """The loader reads recall up to the last mission the window cannot show whole, judged
    by the room it expects the window to get: were it more than the renderer gives, a
    mission cut by the window would be recalled by no one."""
    channel = dm_channel(make_office())
    add_finished_missions(channel.sessions.get(), 8, text=TEXTS[lang])
    instruction = (TEXTS[lang](9)[0] * 400)[:instruction_chars]
    context = next_context(channel=channel, instruction=instruction)
    budget = prompt_budget("dm")
    expected = budget.window_expected(
        instruction_chars=len(instruction), summary_chars=len(context.section("summary").text)
    )
    recent = context.section("recent")
    assert recent.budget is not None
    assert expected <= recent.budget
