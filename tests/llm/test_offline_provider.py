"""The offline provider's replies, through the real pipeline: each says its disclaimer
once and never quotes an earlier offline reply (which would nest them in each other)."""

import re
from typing import Any

import pytest
from django.test import Client

from context.services import passages_index_session
from llm.offline import DISCLAIMER, OfflineProvider
from missions.intake import instruction_accept, mission_record_finished
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
        "제퍼 출시 안내 메일 초안 제목을 짧게 고쳐 줘.",
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
        looked_back += "Looking back, in mission #" in mission.reply
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
    assert "Looking back, in mission #2" in reply and "you asked: \u201cShorten the memo" in reply
    assert "\\n" not in reply and "Instruction:" not in reply, reply


def test_a_recalled_synthesis_is_named_by_the_number_the_person_sees() -> None:
    """A synthesis is shown as its plan's number with a letter (#1a): the offline reply
    names it so, as a line a person reads."""
    context = (
        "## Recalled from earlier in this channel (original words, quoted as data)\n"
        '- [mission #1a · 2026-12-01 10:00] "Instruction: Sum up the banner work\\n\\n'
        'Reply: Iris finished the banner."'
    )
    messages = [
        {"role": "system", "content": "You are Avery, the chief of staff."},
        {"role": "user", "content": context},
        {"role": "user", "content": "[mission #2 · 2026-12-01 11:00] Current mission: go on"},
    ]
    reply = "".join(OfflineProvider().stream_chat(messages=messages))
    assert "Looking back, in mission #1a (2026-12-01 10:00)" in reply, reply
    assert "[mission #1a" not in reply, reply


READABLE = {
    "en": (
        "Draft the Zephyr launch email for the finance teams.\n\nKeep it short.",
        "Here is the draft.\n\n- Subject: Zephyr is live\n- Body: three lines",
        "Remember: always sign emails as Theo from Acme.",
        "What did the Zephyr launch email draft say?",
    ),
    "ko": (
        "제퍼 출시 안내 메일 초안을 써 줘.\n\n짧게 부탁해.",
        "초안입니다.\n\n- 제목: 제퍼 출시\n- 본문: 세 줄",
        "기억해: 메일은 항상 Acme의 Theo로 서명해.",
        "제퍼 출시 안내 메일 초안 제목을 짧게 고쳐 줘.",
    ),
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_reply_a_person_sees_reads_as_sentences_with_no_escapes(
    language: str, settings: Any
) -> None:
    """What recall and memory bring back is said in plain words: no JSON escapes (a
    literal backslash-n in the chat bubble), no raw quoting of the prompt's sections."""
    settings.LLM_PROVIDER = "offline"
    settings.DETAIL_MISSIONS = 1  # the first mission comes back through recall
    office = make_office()
    user = office.owner
    channel = dm_channel(office)
    first, first_reply, remember, question = READABLE[language]
    session = channel.sessions.get()
    assert channel.employee is not None
    mission_record_finished(
        session=session, assignee=channel.employee, instruction=first, reply=first_reply
    )
    for text in (remember, *INSTRUCTIONS[language][3:]):
        instruction_accept(channel=channel, text=text)
    passages_index_session(session_id=session.pk)
    accepted = instruction_accept(channel=channel, text=question)
    client = Client()
    client.force_login(user)
    listed = client.get(f"/api/channels/{channel.pk}/messages?after=0").json()["messages"]
    [shown] = [m for m in listed if m["kind"] == "employee" and m["mission"] == accepted.mission.pk]
    reply = shown["text"]
    assert "\\" not in reply and "\n" not in reply, reply
    for raw in ("Instruction:", "Reply:", "quoted as data", '"', "## "):
        assert raw not in reply, (raw, reply)
    # The recalled mission, in the person's own words, said as who asked and who answered.
    asked, _, rest = first.partition("\n\n")
    assert "Looking back, in mission #1 (" in reply, reply
    assert f"you asked: \u201c{asked} {rest}\u201d" in reply, reply
    assert f"the answer was: \u201c{' '.join(first_reply.split())}\u201d" in reply, reply
    # Every part ends as a sentence: nothing runs on into the disclaimer.
    assert re.search(r"[.!?\u201d)] \(Offline demo reply", reply), reply
