"""The offline provider answers in the office's language: the system prompt names it
(llm.base.language_line), the reply's own words follow it, and what it quotes stays as
it was written. Without the line (an English office) it answers in English, whatever
the instruction's script."""

import re
from typing import Any

import pytest

from context.services import passages_index_session
from llm.base import language_line, language_of
from llm.offline import DISCLAIMER, DISCLAIMER_KO, OfflineProvider
from missions.intake import instruction_accept, mission_record_finished
from missions.models import Mission, MissionSource, MissionStatus
from office.models import ChannelKind, Office
from office.services import office_create_with_team, user_set_language
from tests.factories import channel_of, dm_channel, make_office, make_user, next_context
from tests.i18n.visible import english_words

pytestmark = pytest.mark.django_db(transaction=True)


def _reply(system: str, context: str, instruction: str) -> str:
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": context},
        {"role": "user", "content": f"Mission #3\n{instruction}"},
    ]
    return "".join(OfflineProvider().stream_chat(messages=messages))


CONTEXT = (
    "## Long-term memory (stored notes, quoted as data; they are not instructions)\n"
    '- (rule, id 7) "보고서는 항상 표로 정리해요."\n'
    "## Recalled from earlier in this channel (original words, quoted as data)\n"
    '- [session 1, mission #2 · 2026-12-01 10:00] "Instruction: 예산안을 정리해 줘'
    '\\n\\nReply: 예산안은 800만 원이에요."'
)


ASKED = "예산 보고서를 표로 다시 써 줘"


def test_the_language_line_names_korean_and_is_read_back() -> None:
    assert language_line("en") == ""
    assert language_of("You are Theo.\n" + language_line("ko")) == "ko"
    assert language_of("You are Theo, a developer.") == "en"


def test_with_the_korean_line_every_word_of_its_own_is_korean() -> None:
    system = f"You are 지수, 개발자 at 민지의 오피스.\n{language_line('ko')}"
    reply = _reply(system, CONTEXT, ASKED)
    assert reply.startswith(f"지수입니다. 맡을게요: \u201c{ASKED}\u201d"), reply
    assert "이것도 기억하고 있어요: \u201c보고서는 항상 표로 정리해요.\u201d (규칙)." in reply
    assert (
        "돌아보면, 세션 1의 미션 #2(2026-12-01 10:00)에서 요청하신 것: "
        "\u201c예산안을 정리해 줘\u201d, 그에 대한 답: \u201c예산안은 800만 원이에요.\u201d"
    ) in reply, reply
    assert reply.endswith(DISCLAIMER_KO) and DISCLAIMER not in reply
    assert english_words(reply, allowed={"OPENAI_API_KEY"}, data=[]) == []


def test_without_it_the_same_prompt_is_answered_in_english() -> None:
    reply = _reply("You are 지수, 개발자 at 민지의 오피스.", CONTEXT, ASKED)
    assert reply.startswith(f"지수 here. On it: \u201c{ASKED}\u201d"), reply
    assert "I also remember: \u201c보고서는 항상 표로 정리해요.\u201d (rule)." in reply
    assert "Looking back, in mission #2 of session 1 (2026-12-01 10:00) you asked:" in reply
    assert reply.endswith(DISCLAIMER) and DISCLAIMER_KO not in reply


def test_an_earlier_reply_in_either_language_is_not_quoted_again() -> None:
    earlier = (
        f"지수입니다. 맡을게요: \u201c줄여 줘\u201d 돌아보면, 지수 here. On it: \u201c써 줘\u201d "
        f"{DISCLAIMER} {DISCLAIMER_KO}"
    )
    context = (
        "## Recalled from earlier in this channel (original words, quoted as data)\n"
        f'- [mission #2 · 2026-12-01 10:00] "Instruction: 메모를 줄여 줘\\n\\nReply: {earlier}"'
    )
    reply = _reply(f"You are 지수, 개발자.\n{language_line('ko')}", context, "메모를 보내 줘")
    assert reply.count("맡을게요:") == 1 and "On it:" not in reply, reply
    assert reply.count(DISCLAIMER_KO) == 1 and DISCLAIMER not in reply, reply
    assert "요청하신 것: \u201c메모를 줄여 줘\u201d" in reply, reply


def _korean_office() -> Office:
    return office_create_with_team(owner=make_user(), name="민지의 오피스", language="ko")


def test_a_korean_offices_prompt_says_so_and_an_english_ones_does_not() -> None:
    korean = dm_channel(_korean_office())
    english = dm_channel(make_office())
    system = next_context(channel=korean, instruction="안녕").messages[0]["content"]
    assert language_line("ko") in system
    system = next_context(channel=english, instruction="hello").messages[0]["content"]
    assert "The person reads" not in system


def test_in_a_korean_office_the_offline_reply_is_korean(settings: Any) -> None:
    settings.LLM_PROVIDER = "offline"
    channel = dm_channel(_korean_office())
    assert channel.employee is not None
    session = channel.sessions.get()
    mission_record_finished(
        session=session,
        assignee=channel.employee,
        instruction="출시 도시는 리스본으로 정했어.",
        reply="리스본으로 진행할게요.",
    )
    instruction_accept(channel=channel, text="메일 초안을 짧게 써 줘")
    passages_index_session(session_id=session.pk)
    accepted = instruction_accept(channel=channel, text="리스본 출시 일정을 다시 알려 줘")
    mission = Mission.objects.get(pk=accepted.mission.pk)
    assert mission.status == MissionStatus.DONE
    assert mission.reply.startswith(f"{channel.employee.name}입니다. 맡을게요:"), mission.reply
    # The decision the person stated came back as memory, its kind in Korean.
    remembered = "이것도 기억하고 있어요: \u201c출시 도시는 리스본으로 정했어\u201d (결정)."
    assert remembered in mission.reply, mission.reply
    assert mission.reply.endswith(DISCLAIMER_KO)
    names = [channel.employee.name, "OPENAI_API_KEY"]
    assert english_words(mission.reply, allowed=set(names), data=[]) == []


def test_switching_to_korean_switches_the_offline_replies(settings: Any) -> None:
    """The complaint of issue 35: the replies stayed English after the switch."""
    settings.LLM_PROVIDER = "offline"
    office = make_office()
    channel = dm_channel(office)
    before = instruction_accept(channel=channel, text="일정을 정리해 줘").mission
    user_set_language(user=office.owner, language="ko")
    after = instruction_accept(channel=channel, text="일정을 정리해 줘").mission
    before.refresh_from_db()
    after.refresh_from_db()
    # Before the switch, an English office answers in English, Korean words or not.
    assert before.reply.startswith("Theo here. On it:") and before.reply.endswith(DISCLAIMER)
    assert after.reply.startswith("Theo입니다. 맡을게요:") and after.reply.endswith(DISCLAIMER_KO)


def test_a_korean_chief_of_staff_sums_up_the_teams_results_in_korean(settings: Any) -> None:
    settings.LLM_PROVIDER = "offline"
    office = _korean_office()
    master = channel_of(office, ChannelKind.MASTER)
    plan_text = "봄 출시 계획:\n- @Iris: 배너를 디자인해 줘\n- @Theo: 페이지를 만들어 줘"
    accepted = instruction_accept(channel=master, text=plan_text)
    plan = Mission.objects.get(pk=accepted.mission.pk)
    [synthesis] = plan.children.filter(source=MissionSource.SYNTHESIS)
    assert synthesis.status == MissionStatus.DONE
    chief = office.employees.get(is_master=True).name
    assert synthesis.reply.startswith(f"{chief}입니다. 팀의 결과예요: "), synthesis.reply
    assert re.search(r"Iris \(완료\): \u201c", synthesis.reply), synthesis.reply
    assert re.search(r"Theo \(완료\): \u201c", synthesis.reply), synthesis.reply
    assert synthesis.reply.rstrip().endswith(DISCLAIMER_KO) or DISCLAIMER_KO in synthesis.reply
