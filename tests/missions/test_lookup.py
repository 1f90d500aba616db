"""The history tools (missions.lookup): a model that calls tools searches the office's
earlier missions and reads one in full, through the real openai SDK against the local
server; the answers it gets, what the chat shows and what the mission costs."""

import json
from typing import Any

import pytest
from django.utils import translation

from missions.intake import instruction_accept
from missions.models import Message, MessageKind, Mission, MissionStatus
from missions.selectors import office_cost
from missions.texts import message_text
from office.models import Channel, Office
from sessions.services import session_get_or_open_current
from tests.factories import add_finished_missions, dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, RecordedRequest, Reply, ToolCallStep

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.model(max_attempts=1, timeout=10.0),
]

PRINTER_EN = (
    "Ask the printer for a quote on 500 spring flyers",
    "Printer quote: 500 spring flyers, A5, 350 g matte, 412,000 KRW with delivery on 3/14.",
)
PRINTER_KO = (
    "인쇄소에 봄 전단 500장 견적 받아줘",
    "인쇄소 견적: 봄 전단 500장, A5 350g 무광, 배송 포함 41만 2천 원, 3월 14일 납품.",
)
OTHER = ("Draft the newsletter intro", "Here is a warm two-line intro for the newsletter.")


def _history(channel: Channel, *texts: tuple[str, str]) -> list[Mission]:
    session = session_get_or_open_current(channel=channel)
    base = session.mission_count
    return add_finished_missions(session, len(texts), text=lambda n: texts[n - 1 - base])


def _streams(model: FakeOpenAI) -> list[RecordedRequest]:
    return [r for r in model.requests if r.body.get("stream")]


def _tool_answers(request: RecordedRequest) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in request.messages if m.get("role") == "tool"]


def _tools(request: RecordedRequest) -> set[str]:
    return {t["function"]["name"] for t in request.body.get("tools", [])}


def _events(mission: Mission) -> list[Message]:
    return list(
        Message.objects.filter(mission=mission, kind=MessageKind.EVENT).order_by("created_at", "pk")
    )


def test_the_model_searches_reads_and_answers_with_what_it_found(model: FakeOpenAI) -> None:
    office = make_office()
    channel = dm_channel(office)
    printer, _ = _history(channel, PRINTER_EN, OTHER)
    model.enqueue(
        Reply(
            "",
            tool_calls=[
                ToolCallStep(
                    "search_history", {"query": "printer flyers quote", "scope": "channel"}
                )
            ],
            prompt_tokens=100,
            completion_tokens=10,
        ),
        Reply(
            "",
            tool_calls=[ToolCallStep("read_mission", {"id": printer.pk})],
            prompt_tokens=200,
            completion_tokens=20,
        ),
        Reply(
            "The printer quoted 412,000 KRW for 500 flyers.",
            prompt_tokens=300,
            completion_tokens=30,
        ),
    )
    mission = instruction_accept(channel=channel, text="What did the flyers cost again?").mission
    mission.refresh_from_db()
    assert mission.status == MissionStatus.DONE
    assert mission.reply == "The printer quoted 412,000 KRW for 500 flyers."

    first, second, third = _streams(model)
    assert {"search_history", "read_mission"} <= _tools(first)
    [found] = _tool_answers(second)
    assert found["results"][0]["id"] == printer.pk
    assert "412,000 KRW" in found["results"][0]["excerpt"]
    # The model's own call is in the history it is sent back, answered by its id.
    calls = [m for m in second.messages if m.get("tool_calls")]
    assert calls[0]["tool_calls"][0]["function"]["name"] == "search_history"
    answers = _tool_answers(third)
    assert answers[-1]["id"] == printer.pk and answers[-1]["reply"] == PRINTER_EN[1]
    # Every round is paid for: the mission's tokens are the three requests'.
    assert (mission.prompt_tokens, mission.completion_tokens) == (600, 60)

    searched, read = _events(mission)
    assert message_text(searched) == (
        f"Theo searched the history for “printer flyers quote”: #{printer.label or printer.seq}"
    )
    assert message_text(read) == f"Theo read mission #{printer.label or printer.seq} again"
    with translation.override("ko"):
        assert "printer flyers quote" in message_text(searched)
        assert "searched" not in message_text(searched)
    cost = office_cost(office_id=office.pk)
    [row] = [m for m in cost["missions"] if m["id"] == mission.pk]
    assert row["lookups"] == 2
    [theo] = [e for e in cost["employees"] if e["employee"] == "Theo"]
    assert theo["lookups"] == 2


def test_a_korean_question_in_other_words_finds_the_korean_mission(model: FakeOpenAI) -> None:
    office = make_office()
    channel = dm_channel(office)
    _, printer = _history(channel, OTHER, PRINTER_KO)
    model.enqueue(
        Reply(
            "",
            tool_calls=[
                ToolCallStep("search_history", {"query": "전단 인쇄 견적", "scope": "office"})
            ],
        ),
        Reply("41만 2천 원이었어요."),
    )
    mission = instruction_accept(channel=channel, text="그 전단 얼마 들었더라?").mission
    _, second = _streams(model)
    [found] = _tool_answers(second)
    assert [r["id"] for r in found["results"]] == [printer.pk]
    mission.refresh_from_db()
    assert mission.reply == "41만 2천 원이었어요."


def test_search_keeps_to_its_scope_and_never_reaches_another_office(
    model: FakeOpenAI, settings: Any
) -> None:
    settings.HISTORY_TOOL_ROUNDS = 3
    owner = make_user()
    office = make_office(owner)
    here, elsewhere = dm_channel(office, "Theo"), dm_channel(office, "Iris")
    [there] = _history(elsewhere, PRINTER_EN)
    [other_office] = _history(dm_channel(make_office(make_user()), "Theo"), PRINTER_EN)
    [own_second] = _history(dm_channel(make_office(owner, name="Second office")), PRINTER_EN)
    query = {"query": "printer flyers quote"}
    model.enqueue(
        Reply("", tool_calls=[ToolCallStep("search_history", {**query, "scope": "channel"})]),
        Reply("", tool_calls=[ToolCallStep("search_history", {**query, "scope": "office"})]),
        Reply("", tool_calls=[ToolCallStep("read_mission", {"id": other_office.pk})]),
        Reply("Done."),
    )
    instruction_accept(channel=here, text="What did the flyers cost?")
    _, second, third, fourth = _streams(model)
    assert _tool_answers(second)[-1]["results"] == []
    assert [r["id"] for r in _tool_answers(third)[-1]["results"]] == [there.pk]
    assert _tool_answers(fourth)[-1] == {
        "error": f"No finished mission {other_office.pk} in this office."
    }
    assert own_second.pk not in [r["id"] for r in _tool_answers(third)[-1]["results"]]


@pytest.fixture(autouse=True)
def _rounds(settings: Any) -> None:
    settings.HISTORY_TOOL_ROUNDS = 2


def test_the_last_round_is_offered_no_look_ups_so_the_model_answers(model: FakeOpenAI) -> None:
    office = make_office()
    channel = dm_channel(office)
    _history(channel, PRINTER_EN)
    search = ToolCallStep("search_history", {"query": "flyers", "scope": "channel"})
    model.enqueue(
        Reply("Let me check.", tool_calls=[search]),
        Reply("", tool_calls=[search]),
        Reply("412,000 KRW."),
    )
    mission = instruction_accept(channel=channel, text="Flyer price?").mission
    _, second, third = _streams(model)
    assert "search_history" in _tools(second)
    assert "search_history" not in _tools(third)
    mission.refresh_from_db()
    assert mission.status == MissionStatus.DONE
    assert mission.reply == "Let me check.\n\n412,000 KRW."


def test_bad_calls_are_answered_with_an_error_and_the_reply_goes_on(model: FakeOpenAI) -> None:
    office = make_office()
    channel = dm_channel(office)
    model.enqueue(
        Reply(
            "",
            tool_calls=[
                ToolCallStep("search_history", '{"query": "fly'),
                ToolCallStep("read_mission", {"id": "banana"}),
            ],
        ),
        Reply("I could not find it."),
    )
    mission = instruction_accept(channel=channel, text="Flyer price?").mission
    _, second = _streams(model)
    assert _tool_answers(second) == [
        {"error": "The arguments are not a JSON object."},
        {"error": "id must be a mission id from search_history."},
    ]
    mission.refresh_from_db()
    assert mission.status == MissionStatus.DONE and not _events(mission)


def test_with_no_rounds_allowed_no_tools_are_offered(model: FakeOpenAI, settings: Any) -> None:
    settings.HISTORY_TOOL_ROUNDS = 0
    office: Office = make_office()
    instruction_accept(channel=dm_channel(office), text="Flyer price?")
    [request] = _streams(model)
    assert "tools" not in request.body
