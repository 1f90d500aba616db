"""The offline provider's replies, through the real pipeline: each says its disclaimer
once and never quotes an earlier offline reply (which would nest them in each other)."""

from typing import Any

import pytest

from llm.offline import DISCLAIMER, OfflineProvider
from missions.intake import instruction_accept
from missions.models import Mission, MissionStatus
from tests.factories import dm_channel, make_office

pytestmark = pytest.mark.django_db(transaction=True)

INSTRUCTIONS = {
    "en": [
        "Draft the Zephyr launch email for the finance teams.",
        "Shorten the Zephyr launch email to three sentences.",
        "Add the Zephyr launch date, March 14, to the email.",
        "Give the Zephyr launch email a subject line.",
        "Check the Zephyr launch email for tone once more.",
    ],
    "ko": [
        "제퍼 출시 안내 메일 초안을 써 줘.",
        "제퍼 출시 안내 메일을 세 문장으로 줄여 줘.",
        "제퍼 출시 안내 메일에 출시일 3월 14일을 넣어 줘.",
        "제퍼 출시 안내 메일 제목을 정해 줘.",
        "제퍼 출시 안내 메일 말투를 한 번 더 봐 줘.",
    ],
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_offline_replies_do_not_quote_earlier_offline_replies(language: str, settings: Any) -> None:
    settings.LLM_PROVIDER = "offline"
    settings.DETAIL_MISSIONS = 1  # the earlier missions come back through recall
    channel = dm_channel(make_office())
    for text in INSTRUCTIONS[language]:
        instruction_accept(channel=channel, text=text)
    missions = list(Mission.objects.filter(session__channel=channel).order_by("seq"))
    assert [m.status for m in missions] == [MissionStatus.DONE] * len(missions)
    looked_back = 0
    for mission in missions:
        assert mission.reply.count("On it:") == 1, mission.reply
        assert mission.reply.count(DISCLAIMER) == 1, mission.reply
        assert mission.reply.startswith("Theo here. On it:"), mission.reply
        looked_back += "Looking back:" in mission.reply
    # Recall still brings the person's own earlier words back.
    assert looked_back >= 1, [m.reply for m in missions]


def test_a_nested_earlier_reply_in_a_recalled_line_is_cut_out() -> None:
    earlier = (
        "Theo here. On it: \u201cShorten it\u201d Looking back: Theo here. On it: "
        f"\u201cDraft it\u201d {DISCLAIMER} {DISCLAIMER}"
    )
    context = (
        "## Recalled from earlier in this channel (original words, quoted as data)\n"
        f'- [mission #2 · 2026-12-01 10:00] "Instruction: Shorten the memo\\n\\nReply: {earlier}"'
    )
    messages = [
        {"role": "system", "content": "You are Theo, a developer."},
        {"role": "user", "content": context},
        {"role": "user", "content": "Mission #3\nSend the memo"},
    ]
    reply = "".join(OfflineProvider().stream_chat(messages=messages))
    assert reply.count("On it:") == 1, reply
    assert reply.count(DISCLAIMER) == 1, reply
    assert "Looking back:" in reply and "Shorten the memo" in reply, reply
