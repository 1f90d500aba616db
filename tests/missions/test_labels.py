"""A person's mission numbers never jump: a synthesis the chief of staff writes after a
plan takes the next seq of the master session (the session's internal order), but the
person sees their own missions as #1, #2, #3 and the synthesis as its plan's number with
a letter (#1a). What the person sees, what the model reads and what the person names
("#2") are the same number."""

import importlib
import json
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from context.selectors import context_for_mission
from missions.intake import instruction_accept
from missions.labels import label_letters
from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
from missions.selectors import plan_data
from office.models import ChannelKind, Office
from sessions.models import ChatSession
from summaries.models import RollingSummary
from summaries.render import render_summary
from summaries.schemas import SummaryItem, SummaryState
from tests.factories import add_finished_missions, channel_of, long_text, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

# The backfill keeps its own copy of the numbering rule (a migration runs the code it was
# written with): it must give the labels missions.creation gives.
BACKFILL = importlib.import_module("missions.migrations.0016_backfill_labels")

PLAN = "@Iris draft the banner. @Theo wire the form."
TOKEN = "KESTREL-TWO"


@pytest.fixture(autouse=True)
def _offline(settings: Any) -> None:
    settings.LLM_PROVIDER = "offline"
    settings.DETAIL_MISSIONS = 8


def _boot(html: str) -> Any:
    return json.loads(html.split('id="boot" type="application/json">')[1].split("</script>")[0])


def _planned(office: Office) -> tuple[Mission, Mission]:
    """The person's first instruction in the master channel, delegated, and its synthesis."""
    master = channel_of(office, ChannelKind.MASTER)
    plan = instruction_accept(channel=master, text=PLAN).mission
    [synthesis] = Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS)
    return Mission.objects.get(pk=plan.pk), synthesis


def test_the_persons_next_mission_after_a_synthesis_is_numbered_without_a_gap() -> None:
    office = make_office()
    plan, synthesis = _planned(office)
    assert synthesis.status == MissionStatus.DONE
    after = instruction_accept(channel=plan.channel, text="Thanks. What comes next?").mission

    # Inside, every mission takes the session's next seq; the person sees 1, 1a, 2.
    assert (plan.seq, synthesis.seq, after.seq) == (1, 2, 3)
    assert (plan.label, synthesis.label, after.label) == ("1", "1a", "2")
    assert (plan.tag, synthesis.tag, after.tag) == ("#1", "#1a", "#2")
    assert str(after).startswith("#2 ")
    session = ChatSession.objects.get(pk=plan.session_id)
    assert (session.mission_count, session.synthesis_count) == (3, 1)
    # The synthesis brief names the plan by the number the person sees.
    assert "parts of mission #1 you delegated" in synthesis.instruction

    # Every timeline entry of a mission carries the number the person sees.
    shown = {
        (m.kind, m.mission_id): m.payload.get("label")
        for m in Message.objects.filter(channel=plan.channel, mission__isnull=False)
    }
    assert shown[(MessageKind.USER, plan.pk)] == "1"
    assert shown[(MessageKind.EVENT, synthesis.pk)] == "1a"
    assert shown[(MessageKind.EMPLOYEE, synthesis.pk)] == "1a"
    assert shown[(MessageKind.USER, after.pk)] == "2"
    assert shown[(MessageKind.EMPLOYEE, after.pk)] == "2"
    card = Message.objects.get(mission=plan, kind=MessageKind.EVENT, payload__event="plan")
    assert card.office_text["label"] == "1" and card.payload["label"] == "1"
    data = plan_data(plan_id=plan.pk)
    assert data is not None and data.label == "1"
    assert data.synthesis is not None and data.synthesis.label == "1a"

    # The page and the API show the labels: the script numbers and anchors by them.
    client = Client()
    client.force_login(office.owner)
    html = client.get(f"/c/{plan.channel_id}/").content.decode()
    mine = [m for m in _boot(html)["messages"] if m["kind"] == "user"]
    assert [m["payload"]["label"] for m in mine] == ["1", "2"]
    replies = [m["payload"]["label"] for m in _boot(html)["messages"] if m["kind"] == "employee"]
    assert replies == ["1", "1a", "2"]
    api = client.get(f"/api/missions/{after.pk}").json()
    assert (api["seq"], api["label"]) == (3, "2")
    # The plan's text, as a client without the card reads it.
    assert "Plan of mission #1:" in next(
        m["text"] for m in _boot(html)["messages"] if m["payload"].get("event") == "plan"
    )


def test_a_later_synthesis_of_the_same_plan_takes_the_next_letter() -> None:
    office = make_office()
    plan, first = _planned(office)
    from missions.plans import _synthesize_if_ready

    # A delegate finishing again (a retry) brings a new synthesis.
    part = Mission.objects.filter(parent=plan, source=MissionSource.DELEGATION).first()
    assert part is not None
    Mission.objects.filter(pk=part.pk).update(finished_at=first.created_at.replace(year=2100))
    again = _synthesize_if_ready(Mission.objects.get(pk=plan.pk))
    assert again is not None
    assert again.label == "1b"
    nxt = instruction_accept(channel=plan.channel, text="And now?").mission
    assert (again.seq, nxt.seq, nxt.label) == (3, 4, "2")


def _history(office: Office) -> tuple[Mission, ChatSession]:
    """Plan (#1), synthesis (#1a), then 12 more of the person's missions (#2..#13, seqs
    3..14): long enough that #2 has left the detail window and the history no longer fits
    the prompt whole."""
    plan, synthesis = _planned(office)
    session = ChatSession.objects.get(pk=plan.session_id)

    def text(n: int) -> tuple[str, str]:
        instruction, reply = long_text(n)
        if n == 3:
            return f"{TOKEN}: the banner goes to the printer on Tuesday.", reply
        return instruction, reply

    add_finished_missions(session, 12, text=text)
    assert synthesis.seq == 2
    return plan, ChatSession.objects.get(pk=session.pk)


def test_the_prompt_names_missions_by_the_numbers_the_person_sees() -> None:
    office = make_office()
    plan, _ = _planned(office)
    after = instruction_accept(channel=plan.channel, text="Thanks. What comes next?").mission
    prompt = "\n".join(m["content"] for m in context_for_mission(mission=after).messages)
    assert "[mission #1 · " in prompt
    assert "[mission #1a · " in prompt
    assert "[mission #2 · " in prompt and "Current mission" in prompt
    # No header carries a seq the person never saw.
    assert "[mission #3 · " not in prompt
    assert context_for_mission(mission=after).label == "2"


def test_a_summary_citation_shows_the_label_not_the_seq() -> None:
    office = make_office()
    plan, session = _history(office)
    summary = RollingSummary.objects.get(session=session)
    state = SummaryState.model_validate(summary.state)
    delivered = "The team delivered the banner and the form."
    state.facts.append(SummaryItem(text=delivered, missions=[2]))
    state.facts.append(SummaryItem(text=f"{TOKEN} printing is on Tuesday.", missions=[3]))
    RollingSummary.objects.filter(pk=summary.pk).update(
        state=state.model_dump(mode="json"), text=render_summary(state)
    )
    context = next_context(channel=plan.channel, instruction="Where are we?")
    text = context.section("summary").text
    # Stored as seqs 2 and 3, shown as the numbers the person sees.
    assert f"{delivered} [#1a]" in text
    assert f"{TOKEN} printing is on Tuesday. [#2]" in text
    assert "[#3]" not in text
    assert RollingSummary.objects.get(pk=summary.pk).state == state.model_dump(mode="json")
    # The summary as the person reads it in the chat's panel: the same numbers.
    client = Client()
    client.force_login(office.owner)
    shown = client.get(f"/api/channels/{plan.channel_id}/summary").json()
    assert shown["labels"]["#2"] == "#1a" and shown["labels"]["#3"] == "#2"
    assert f"{delivered} [#1a]" in shown["text"]
    # And in the admin: the structured summary links it as #1a, the prompt text cites it
    # as the prompt does.
    from django.contrib.auth.models import User
    from django.urls import reverse

    staff = User.objects.create_superuser("operator", password="pw-for-tests-1")
    client.force_login(staff)
    page = client.get(
        reverse("admin:summaries_rollingsummary_change", args=[summary.pk])
    ).content.decode()
    assert ">#1a</a>" in page and f"{delivered} [#1a]" in page
    # The next mission is the person's 14th, whatever its seq (15).
    assert context.seq == 15 and context.label == "14"
    assert "[mission #14 · " in context.section("current").text


@pytest.mark.parametrize(
    "instruction",
    ["What did we decide in #2?", "#2에서 뭐라고 했지?", "#2 미션 다시 보여 줘"],
    ids=["en", "ko-particle", "ko"],
)
def test_a_number_the_person_names_recalls_the_mission_they_see_under_it(
    instruction: str,
) -> None:
    office = make_office()
    plan, _ = _history(office)
    context = next_context(channel=plan.channel, instruction=instruction)
    recall = context.section("recall")
    # "#2" is the mission labelled 2 (seq 3), not the synthesis (seq 2).
    assert 3 in recall.mission_seqs
    assert TOKEN in recall.text
    assert "[mission #2 · " in recall.text
    assert recall.mission_labels[recall.mission_seqs.index(3)] == "2"


def test_a_number_no_mission_has_recalls_nothing_by_name() -> None:
    office = make_office()
    plan, _ = _history(office)
    context = next_context(channel=plan.channel, instruction="#77")
    assert context.section("recall").text == ""


def test_labels_for_rows_from_before_labels_follow_the_same_rule() -> None:
    rows: list[tuple[int, int, str, int | None]] = [
        (1, 10, MissionSource.MASTER, None),
        (2, 10, MissionSource.MASTER, None),
        (3, 10, MissionSource.SYNTHESIS, 2),
        (4, 10, MissionSource.MASTER, None),
        (5, 10, MissionSource.SYNTHESIS, 2),
        # The next session: its own numbers start at 1; a plan of the session before
        # keeps its number, and skips a letter this session already gave.
        (6, 11, MissionSource.MASTER, None),
        (7, 11, MissionSource.MASTER, None),
        (8, 11, MissionSource.SYNTHESIS, 7),
        (9, 11, MissionSource.SYNTHESIS, 1),
    ]
    labels = dict(BACKFILL.labels_of(iter(rows), plans={1, 2, 7}))
    assert labels == {
        1: "1",
        2: "2",
        3: "2a",
        4: "3",
        5: "2b",
        6: "1",
        7: "2",
        8: "2a",
        9: "1a",
    }
    assert [label_letters(i) for i in (0, 1, 25, 26, 27)] == ["a", "b", "z", "aa", "ab"]


def test_the_migration_gives_existing_missions_and_messages_their_labels() -> None:
    office = make_office()
    plan, _ = _planned(office)
    after = instruction_accept(channel=plan.channel, text="Thanks. What comes next?").mission
    given = dict(Mission.objects.values_list("pk", "label"))
    # Messages as they were saved before labels.
    before = {}
    for message in Message.objects.all():
        payload = {k: v for k, v in message.payload.items() if k not in ("label",)}
        office_text = {k: v for k, v in message.office_text.items() if k != "label"}
        Message.objects.filter(pk=message.pk).update(payload=payload, office_text=office_text)
        before[message.pk] = message.payload, message.office_text
    ChatSession.objects.update(synthesis_count=0)

    executor = MigrationExecutor(connection)
    executor.migrate([("missions", "0014_translated_labels_of_new_fields")])
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert dict(Mission.objects.values_list("pk", "label")) == given
    assert ChatSession.objects.get(pk=plan.session_id).synthesis_count == 1
    for message in Message.objects.all():
        assert (message.payload, message.office_text) == before[message.pk]
    assert after.label == "2"
