"""A database written before office texts were data: its English (and Korean) wordings
are read back into kinds and parameters, a wording that cannot be read exactly stays as
it was, and instructions the office wrote are marked."""

from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import translation

from missions.models import InstructionAuthor, Message, Mission
from missions.texts import message_text
from office.models import ChannelKind
from sessions.models import ChatSession
from tests.factories import make_office

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("missions", "0006_delegation_plans")]
KO_NOTICE = (
    "💡 이 대화가 꽤 길어졌어요. 주제가 바뀌었다면 새 세션 시작하기를 추천해요. 응답이 더 "
    "정확해지고 AI 사용료도 줄어듭니다. 이어서 진행해도 이전 흐름은 요약으로 유지돼요."
)


@pytest.mark.slow(30)
def test_wordings_written_before_become_kinds_and_parameters() -> None:
    office = make_office()
    master = office.channels.get(kind=ChannelKind.MASTER)
    theo = office.employees.get(name="Theo")
    avery = office.employees.get(is_master=True)
    master_session = ChatSession.objects.get(channel=master)

    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    old = executor.loader.project_state(BEFORE).apps
    OldMission = old.get_model("missions", "Mission")
    OldMessage = old.get_model("missions", "Message")

    def mission(seq: int, source: str, **fields: Any) -> Any:
        return OldMission.objects.create(
            session_id=master_session.pk,
            channel_id=master.pk,
            seq=seq,
            source=source,
            assignee_id=fields.pop("assignee", avery).pk,
            instruction=fields.pop("instruction", f"mission {seq}"),
            **fields,
        )

    planned = mission(1, "master", prompt_chars=900)  # the chief of staff's tool call
    mentioned = mission(2, "master")  # "@Theo …": no model call
    by_office = mission(3, "delegation", parent=planned, assignee=theo, instruction="Draft it")
    by_person = mission(4, "delegation", parent=mentioned, assignee=theo, instruction="wire")
    synthesis = mission(5, "synthesis", parent=planned, instruction="Your colleagues …")

    def message(kind: str, text: str, **payload: Any) -> int:
        row = OldMessage.objects.create(
            channel_id=master.pk,
            session_id=master_session.pk,
            kind=kind,
            text=text,
            payload=payload,
        )
        return int(row.pk)

    ids = {
        "error": message("error", "Theo could not answer: upstream: 502 Bad Gateway"),
        "report": message(
            "event", "Theo reported back: Done: the form posts.", event="report", employee="Theo"
        ),
        "followup": message(
            "event",
            "Follow-up for Theo: send the deck: v2",
            event="meeting_followup",
            employee="Theo",
        ),
        "unknown_ko": message(
            "event",
            "여기에는 @Nova(이)라는 직원이 없어요.",
            event="unknown_mention",
            names=["Nova"],
        ),
        "plan": message(
            "event", "Plan of mission #1: Theo: Draft it", event="plan", plan=planned.pk, seq=1
        ),
        "synthesis": message(
            "event", "Avery is putting the team's results together.", event="synthesis"
        ),
        "delayed": message(
            "event",
            "Delayed: Theo will answer as soon as the task queue is reachable again. Your "
            "instruction is saved.",
            event="delayed",
        ),
        "notice_ko": message(
            "notice",
            KO_NOTICE,
            notice="long_session",
            action={"type": "session.new", "label": "새 세션 시작하기"},
        ),
        # A wording changed by hand, and one no version wrote: kept as they are.
        "edited": message(
            "event", "Plan of mission #1: Theo: something else", event="plan", plan=planned.pk
        ),
        "unknown": message("event", "Something an older version said."),
        "reply": message("employee", "Theo could not answer: this is a reply, not the office"),
    }

    call_command("migrate", verbosity=0)

    rows = {name: Message.objects.get(pk=pk) for name, pk in ids.items()}
    assert rows["error"].office_text == {
        "kind": "could_not_answer",
        "employee": "Theo",
        "error": "upstream: 502 Bad Gateway",
    }
    assert rows["report"].office_text == {
        "kind": "reported_back",
        "employee": "Theo",
        "excerpt": "Done: the form posts.",
    }
    assert rows["followup"].office_text["task"] == "send the deck: v2"
    assert rows["unknown_ko"].office_text == {"kind": "unknown_mention", "names": ["Nova"]}
    assert rows["plan"].office_text == {
        "kind": "plan",
        "seq": 1,
        "parts": [{"employee": "Theo", "task": "Draft it"}],
    }
    assert rows["synthesis"].office_text == {"kind": "synthesis_started", "employee": "Avery"}
    assert rows["delayed"].office_text == {"kind": "delayed", "employee": "Theo"}
    assert rows["notice_ko"].office_text == {"kind": "long_session"}
    assert "label" not in rows["notice_ko"].payload["action"]
    for name in ("edited", "unknown"):
        assert rows[name].office_text == {"kind": "legacy"}
    assert rows["reply"].office_text == {}
    assert rows["reply"].text.startswith("Theo could not answer")

    # Read in either language now; what could not be read shows as it was written.
    with translation.override("ko"):
        assert (
            message_text(rows["error"]) == "Theo이(가) 답하지 못했어요: upstream: 502 Bad Gateway"
        )
        assert message_text(rows["edited"]) == "Plan of mission #1: Theo: something else"
    with translation.override("en"):
        assert message_text(rows["unknown_ko"]) == "No one called @Nova works here."
        assert message_text(rows["notice_ko"]).startswith("💡 This conversation has grown long.")
        assert message_text(rows["unknown"]) == "Something an older version said."

    authors = dict(Mission.objects.values_list("pk", "instruction_author"))
    assert authors[by_office.pk] == InstructionAuthor.OFFICE
    assert authors[synthesis.pk] == InstructionAuthor.OFFICE
    assert authors[by_person.pk] == InstructionAuthor.PERSON
    assert authors[planned.pk] == authors[mentioned.pk] == InstructionAuthor.PERSON
