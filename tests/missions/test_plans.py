"""The chief of staff plans and delegates (issue 17): the model's `delegate` tool calls
(through the real openai SDK against the local fake server) or @mentions become delegated
missions in each colleague's 1:1 channel, they run at once, and one synthesis in the
master channel sums their results up. Failures are shown and can be retried."""

import json
from typing import Any

import pytest
from django.test import Client

from config import throttle
from config.celery import wait_for_background_tasks
from memory.services import memory_item_create, memory_target
from missions.intake import instruction_accept
from missions.lifecycle import mission_retry
from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
from missions.plans import plan_sweep_overdue
from missions.selectors import plan_data
from missions.texts import message_text
from office.models import ChannelKind, Employee, Office
from tests.caching import clear_cache
from tests.factories import channel_of, make_office, make_user
from tests.fake_openai import Fail, FakeOpenAI, RecordedRequest, Reply, ToolCallStep

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.model(max_attempts=1, timeout=10.0),
]

TASKS = {
    "Iris": ("Design the spring banner TASK-IRIS", "Two banner sizes"),
    "Theo": ("Build the spring landing page TASK-THEO", "A staging URL"),
    "Mara": ("Write the spring press release TASK-MARA", "A 300-word draft"),
}


def _calls(names: list[str]) -> list[ToolCallStep]:
    return [
        ToolCallStep(
            "delegate",
            {"employee": n, "task": TASKS[n][0], "expected_output": TASKS[n][1]},
        )
        for n in names
    ]


def _streams(model: FakeOpenAI) -> list[RecordedRequest]:
    return [r for r in model.requests if r.body.get("stream")]


def _with(requests: list[RecordedRequest], text: str) -> RecordedRequest:
    """The one request whose current mission (the last message) starts with `text`."""
    [found] = [
        r
        for r in requests
        if str(r.messages[-1].get("content")).split("answer this:\n", 1)[-1].startswith(text)
    ]
    return found


def _tool_names(request: RecordedRequest) -> set[str]:
    return {t["function"]["name"] for t in request.body.get("tools", [])}


def _prompt(request: RecordedRequest) -> str:
    return "\n".join(str(m.get("content")) for m in request.messages)


def _master(office: Office) -> Any:
    return channel_of(office, ChannelKind.MASTER)


@pytest.mark.postgres
def test_a_three_delegate_plan_runs_at_once_and_one_synthesis_cites_every_result(
    model: FakeOpenAI, settings: Any
) -> None:
    settings.TASK_RUNNER = "thread"
    model.default_delay = 2.0  # every unscripted answer takes two seconds
    model.enqueue(Reply("I'll split this up.", tool_calls=_calls(["Iris", "Theo", "Mara"])))
    office = make_office()
    accepted = instruction_accept(channel=_master(office), text="Launch the spring campaign")
    wait_for_background_tasks(timeout=60)

    plan = Mission.objects.get(pk=accepted.mission.pk)
    assert plan.status == MissionStatus.DONE and "Plan:" in plan.reply
    children = list(plan.children.filter(source=MissionSource.DELEGATION).order_by("id"))
    assert [(c.assignee.name, c.instruction, c.expected_output) for c in children] == [
        (n, *TASKS[n]) for n in ("Iris", "Theo", "Mara")
    ]
    for child in children:
        assert child.channel.kind == ChannelKind.DM and child.channel.employee == child.assignee
        assert child.status == MissionStatus.DONE
    # The parts the chief of staff wrote and the synthesis brief are the office's words.
    assert [c.instruction_is_generated for c in children] == [True, True, True]
    assert not plan.instruction_is_generated
    [synthesis] = plan.children.filter(source=MissionSource.SYNTHESIS)
    assert synthesis.status == MissionStatus.DONE and synthesis.channel_id == plan.channel_id

    streams = _streams(model)
    planning, *rest = streams
    tool = planning.body["tools"][0]["function"]
    assert tool["name"] == "delegate"
    assert set(tool["parameters"]["properties"]["employee"]["enum"]) == {"Iris", "Theo", "Mara"}
    child_requests = [_with(rest, TASKS[n][0]) for n in ("Iris", "Theo", "Mara")]
    # Depth 1: a delegate is not offered the tool (only the history's look-ups).
    assert all("delegate" not in _tool_names(r) for r in child_requests)
    # The three were being answered at one moment: each arrived before any was answered.
    assert max(r.received_at for r in child_requests) < min(
        r.answered_at or 0 for r in child_requests
    )
    # The synthesis came once all three had answered: children then synthesis, ~4 s, not
    # one after another (~8 s).
    [summing] = [r for r in rest if r not in child_requests]
    assert summing.received_at >= max(r.answered_at or 0 for r in child_requests)
    assert "tools" not in summing.body
    text = _prompt(summing)
    for child in children:
        # Each result is quoted (the reply, not the delegate's whole context), with its link.
        assert json.dumps(child.reply, ensure_ascii=False) in text
        assert f"/c/{child.channel_id}/#mission-{child.seq}" in text
    assert "Launch the spring campaign" in text
    # A delegate got its own task, the master instruction only as background.
    iris = _prompt(child_requests[0])
    assert child_requests[0].messages[-1]["content"].endswith(TASKS["Iris"][0])
    assert "Delegated to you by Avery" in iris and "Launch the spring campaign" in iris
    assert "Two banner sizes" in iris and TASKS["Theo"][0] not in iris

    data = plan_data(plan_id=plan.pk)
    assert data is not None and data.status == "done"
    assert [d.status for d in data.delegates] == ["done", "done", "done"]
    assert data.synthesis is not None and data.synthesis.mission == synthesis.pk
    assert (
        data.prompt_tokens == sum(m.prompt_tokens for m in [plan, *children, synthesis])
        and data.prompt_tokens > 0
    )


def test_a_failed_delegate_is_named_in_the_synthesis_and_its_retry_sums_up_again(
    model: FakeOpenAI,
) -> None:
    model.enqueue(Reply("", tool_calls=_calls(["Iris", "Theo"])))
    model.enqueue_for("answer this:\n" + TASKS["Theo"][0], Fail(500))
    office = make_office()
    plan = instruction_accept(channel=_master(office), text="Launch the spring campaign").mission

    theo = Mission.objects.get(parent=plan, assignee__name="Theo")
    assert theo.status == MissionStatus.FAILED and theo.error.startswith("server_error")
    [first] = Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS)
    assert first.status == MissionStatus.DONE
    summing = _with(_streams(model), "Your colleagues have worked")
    assert f"— FAILED: {theo.error} — retry:" in _prompt(summing)
    assert f"retry: /c/{theo.channel_id}/#mission-{theo.seq}" in _prompt(summing)
    # Whatever the model says, the person reads who failed, why, and where to retry.
    assert f"Not done yet: Theo — {theo.error}. Retry: /c/{theo.channel_id}/" in first.reply
    data = plan_data(plan_id=plan.pk)
    assert data is not None
    assert {d.employee: d.status for d in data.delegates} == {"Iris": "done", "Theo": "failed"}

    model.reset()
    assert mission_retry(mission=theo)
    theo.refresh_from_db()
    assert theo.status == MissionStatus.DONE
    first_again, second = Mission.objects.filter(
        parent=plan, source=MissionSource.SYNTHESIS
    ).order_by("id")
    assert first_again == first and second.status == MissionStatus.DONE
    summing = _with(_streams(model), "Your colleagues have worked")
    assert json.dumps(theo.reply, ensure_ascii=False) in _prompt(summing)
    assert "Not done yet" not in second.reply
    data = plan_data(plan_id=plan.pk)
    assert data is not None and data.status == "done" and data.synthesis is not None
    assert data.synthesis.mission == second.pk


@pytest.mark.parametrize(
    ("calls", "error"),
    [
        (
            [ToolCallStep("delegate", '{"employee": "Iris", "task": "Design')],
            "Delegation 1 of the plan is not valid JSON.",
        ),
        (
            [ToolCallStep("delegate", {"employee": "Nova", "task": "X", "expected_output": ""})],
            "Delegation 1 of the plan names 'Nova', who is not an active colleague.",
        ),
        (
            [ToolCallStep("delegate", {"employee": "Iris", "expected_output": ""})],
            "Delegation 1 of the plan lacks an employee or a task.",
        ),
        (
            [*_calls(["Iris"]), ToolCallStep("launch_rockets", {})],
            "Delegation 2 of the plan calls an unknown tool ('launch_rockets').",
        ),
    ],
)
def test_a_malformed_tool_call_fails_the_plan_clearly_and_a_retry_plans_again(
    model: FakeOpenAI, calls: list[ToolCallStep], error: str
) -> None:
    model.enqueue(Reply("", tool_calls=calls))
    master = _master(make_office())
    plan = instruction_accept(channel=master, text="Launch the spring campaign").mission
    plan.refresh_from_db()
    assert plan.status == MissionStatus.FAILED
    assert plan.error == f"bad_plan: No plan was started: {error}"
    assert not plan.children.exists()
    shown = Message.objects.get(mission=plan, kind=MessageKind.ERROR)
    assert error in message_text(shown) and shown.payload["retry"] is True

    model.enqueue(Reply("", tool_calls=_calls(["Iris"])))
    assert mission_retry(mission=plan)
    plan.refresh_from_db()
    assert plan.status == MissionStatus.DONE
    [child] = plan.children.filter(source=MissionSource.DELEGATION)
    assert child.instruction == TASKS["Iris"][0] and child.status == MissionStatus.DONE
    assert plan.children.filter(source=MissionSource.SYNTHESIS, status="done").count() == 1


def test_a_plan_with_more_delegates_than_allowed_starts_nothing(
    model: FakeOpenAI, settings: Any
) -> None:
    settings.MAX_DELEGATES = 2
    model.enqueue(Reply("", tool_calls=_calls(["Iris", "Theo", "Mara"])))
    plan = instruction_accept(channel=_master(make_office()), text="Launch it").mission
    plan.refresh_from_db()
    assert plan.status == MissionStatus.FAILED and plan.error.startswith("too_many_delegates")
    assert "3 parts; at most 2" in plan.error
    assert Mission.objects.count() == 1


def test_every_delegation_of_a_model_plan_counts_against_the_rate_limit(
    model: FakeOpenAI, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:

    clear_cache()
    settings.INSTRUCTION_RATE_LIMIT = 3
    settings.INSTRUCTION_RATE_WINDOW = 60
    monkeypatch.setattr(throttle, "clock", lambda: 60 * 16_666 + 20.0)
    user = make_user()
    office = make_office(user)
    model.enqueue(Reply("", tool_calls=_calls(["Iris", "Theo", "Mara"])))
    plan = instruction_accept(channel=_master(office), text="Launch it", user_id=user.pk).mission
    plan.refresh_from_db()
    # The instruction used one of three; three delegations do not fit in the other two.
    assert plan.status == MissionStatus.FAILED and plan.error.startswith("rate_limited")
    assert "would start 3 missions" in plan.error
    assert Mission.objects.count() == 1
    model.enqueue(Reply("", tool_calls=_calls(["Iris", "Theo"])))
    # The refused plan gave its charge back: its retry with two delegations fits.
    assert mission_retry(mission=plan)
    assert Mission.objects.filter(source=MissionSource.DELEGATION).count() == 2


def test_a_direct_answer_delegates_nothing(model: FakeOpenAI) -> None:
    model.enqueue(Reply("Our spring campaign starts May 3."))
    plan = instruction_accept(channel=_master(make_office()), text="When do we start?").mission
    plan.refresh_from_db()
    assert plan.status == MissionStatus.DONE and plan.reply == "Our spring campaign starts May 3."
    assert not plan.children.exists() and plan_data(plan_id=plan.pk) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Launch the spring campaign. @Iris please design the banner and @Theo build "
            "the landing page. We launch May 3.",
            {"Iris": "please design the banner", "Theo": "build the landing page."},
        ),
        (
            "Spring launch plan:\n- @Iris: design the banner\n- @Theo: build the page by Friday",
            {"Iris": "design the banner", "Theo": "build the page by Friday"},
        ),
        (
            "봄 캠페인을 시작해요. @Iris에게 배너 시안을 부탁해요. "
            "@Theo 랜딩 페이지를 만들어 주세요.",
            {"Iris": "배너 시안을 부탁해요.", "Theo": "랜딩 페이지를 만들어 주세요."},
        ),
    ],
)
def test_mentions_plan_without_a_model_call_each_delegate_getting_their_part(
    model: FakeOpenAI, text: str, expected: dict[str, str]
) -> None:
    office = make_office()
    master = _master(office)
    plan = instruction_accept(channel=master, text=text).mission
    children = Mission.objects.filter(parent=plan, source=MissionSource.DELEGATION)
    assert {c.assignee.name: c.instruction for c in children} == expected
    streams = _streams(model)
    # Two delegates and one synthesis; the plan itself needed no model call.
    assert len(streams) == 3 and all("delegate" not in _tool_names(r) for r in streams)
    for child in children:
        # In the delegate's 1:1 it reads as from the chief of staff, with a way back.
        shown = Message.objects.get(mission=child, kind=MessageKind.USER)
        assert shown.text == expected[child.assignee.name]
        assert shown.payload["delegated_by"] == "Avery"
        assert shown.payload["from_channel"] == master.pk
        assert shown.payload["from_url"] == f"/c/{master.pk}/#mission-{plan.seq}"
        # Their prompt quotes the whole instruction as background.
        assert json.dumps(text, ensure_ascii=False)[1:-1] in _prompt(
            _with(streams, child.instruction)
        )
    [synthesis] = Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS)
    assert synthesis.status == MissionStatus.DONE
    assert Message.objects.filter(
        channel=master, kind=MessageKind.EVENT, payload__event="plan", payload__plan=plan.pk
    ).exists()


def test_the_offline_provider_sums_up_a_mention_plan(settings: Any) -> None:
    settings.LLM_PROVIDER = "offline"
    office = make_office()
    plan = instruction_accept(
        channel=_master(office), text="@Iris draft the banner. @Theo wire the form."
    ).mission
    [synthesis] = Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS)
    assert synthesis.status == MissionStatus.DONE
    # "@Iris draft the banner": the parts are the person's own words; the synthesis brief
    # is the office's.
    parts = Mission.objects.filter(parent=plan, source=MissionSource.DELEGATION)
    assert [p.instruction_is_generated for p in parts] == [False, False]
    assert synthesis.instruction_is_generated
    assert "Iris (done)" in synthesis.reply and "Theo (done)" in synthesis.reply
    assert "draft the banner" in synthesis.reply


def test_a_decision_stated_in_the_master_channel_reaches_the_delegates_memory(
    model: FakeOpenAI,
) -> None:
    office = make_office()
    master = _master(office)
    # Planted as the memory extraction leaves a master-channel decision: office scope,
    # standing on the person's own sentence.
    decided = "We decided the spring campaign budget is 5 million won, no more."
    memory_item_create(
        target=memory_target(office=office, scope="office"),
        kind="decision",
        text=decided,
        origin="extracted",
        source_span=decided,
    )
    instruction_accept(channel=master, text="@Iris split the spring campaign budget by channel")
    iris = _with(_streams(model), "split the spring campaign budget")
    memory = next(m["content"] for m in iris.messages if "## Long-term memory" in str(m["content"]))
    assert "spring campaign budget is 5 million won" in memory


def _plan_with_theo_still_running(model: FakeOpenAI) -> tuple[Mission, Mission]:
    """A plan of Iris's and Theo's parts, everything run, then Theo's mission stuck
    running (a dead worker, say): the plan and Theo's mission."""
    model.default_delay = 0.0
    office = make_office()
    plan = instruction_accept(channel=_master(office), text="@Iris a. @Theo b.").mission
    wait_for_background_tasks(timeout=30)
    theo = Mission.objects.get(parent=plan, assignee__name="Theo")
    Mission.objects.filter(pk=theo.pk).update(status=MissionStatus.RUNNING, finished_at=None)
    return plan, theo


def test_a_plan_overdue_is_summed_up_with_what_came_back(model: FakeOpenAI, settings: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    settings.TASK_RUNNER = "thread"  # nothing runs until the lanes get to it
    plan, _ = _plan_with_theo_still_running(model)
    Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS).delete()
    later = timezone.now() + timedelta(seconds=settings.PLAN_TIMEOUT + 1)
    assert plan_sweep_overdue(now=timezone.now()) == 0
    assert plan_sweep_overdue(now=later) == 1
    assert plan_sweep_overdue(now=later) == 0  # once
    wait_for_background_tasks(timeout=30)
    [synthesis] = Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS)
    assert "Not done yet: Theo — still working" in synthesis.reply


def test_a_plan_frame_read_before_a_newer_one_was_sent_is_not_sent_after_it(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two threads push the same plan: one reads it, is held up, and sends only after a
    thread that read it later (and saw more) has sent. The page draws the last frame it
    gets, so the held-up, older frame must not go out after the newer one."""
    import threading

    from django.db import connection

    from missions import plans

    plan, theo = _plan_with_theo_still_running(model)

    sent: list[str] = []
    monkeypatch.setattr(
        plans,
        "send_frame",
        lambda channel, frame: sent.append(",".join(d.status for d in frame.plan.delegates)),
    )
    read, go = threading.Event(), threading.Event()
    real_plan_data = plans.plan_data

    def slow_read(**kwargs: Any) -> Any:
        data = real_plan_data(**kwargs)
        if threading.current_thread().name == "held-up":
            read.set()
            assert go.wait(10)
        return data

    monkeypatch.setattr(plans, "plan_data", slow_read)

    def held_up() -> None:
        try:
            plans.plan_send(plan.pk)
        finally:
            connection.close()

    thread = threading.Thread(target=held_up, name="held-up")
    thread.start()
    assert read.wait(10)
    # Theo finishes after the held-up thread read the plan; this thread reads and sends.
    Mission.objects.filter(pk=theo.pk).update(status=MissionStatus.DONE)
    plans.plan_send(plan.pk)
    go.set()
    thread.join(10)
    assert sent == ["done,done"]
    # A later read is sent as usual.
    plans.plan_send(plan.pk)
    assert sent == ["done,done", "done,done"]


def _client(owner: Any) -> Client:
    client = Client()
    client.force_login(owner)
    return client


def test_the_plan_api_shows_who_does_what_and_hides_other_offices(model: FakeOpenAI) -> None:
    owner = make_user()
    office = make_office(owner)
    plan = instruction_accept(channel=_master(office), text="@Iris a banner. @Theo a page.").mission
    body = _client(owner).get(f"/api/missions/{plan.pk}/plan").json()
    assert body["mission"] == plan.pk and body["status"] == "done"
    children = {
        c.assignee.name: c for c in Mission.objects.filter(parent=plan, source="delegation")
    }
    assert [(d["employee"], d["task"], d["status"]) for d in body["delegates"]] == [
        ("Iris", "a banner.", "done"),
        ("Theo", "a page.", "done"),
    ]
    iris = children["Iris"]
    assert body["delegates"][0]["url"] == f"/c/{iris.channel_id}/#mission-{iris.seq}"
    assert body["synthesis"]["status"] == "done"
    stranger = _client(make_user())
    assert stranger.get(f"/api/missions/{plan.pk}/plan").status_code == 404
    assert _client(owner).get(f"/api/missions/{iris.pk}/plan").json()["code"] == "no_plan"


def test_delegates_are_only_the_active_colleagues(model: FakeOpenAI) -> None:
    office = make_office()
    Employee.objects.filter(office=office, name="Mara").update(is_active=False)
    model.enqueue(Reply("", tool_calls=_calls(["Iris"])))
    instruction_accept(channel=_master(office), text="Launch the spring campaign")
    planning = _streams(model)[0]
    enum = planning.body["tools"][0]["function"]["parameters"]["properties"]["employee"]["enum"]
    assert sorted(enum) == ["Iris", "Theo"]


def test_the_cost_view_totals_each_plan_with_its_delegates_and_synthesis(
    model: FakeOpenAI,
) -> None:
    from django.contrib.auth.models import User

    from missions.selectors import plan_cost_report

    office = make_office()
    plan = instruction_accept(channel=_master(office), text="@Iris a banner. @Theo a page.").mission
    instruction_accept(channel=_master(office), text="No plan here")
    parts = list(Mission.objects.filter(parent=plan))
    assert len(parts) == 3  # two delegates, one synthesis
    [row] = plan_cost_report(office_id=office.pk)
    assert (row["plan"], row["delegates"], row["syntheses"]) == (plan.pk, 2, 1)
    expected = sum(m.prompt_tokens for m in parts) + plan.prompt_tokens
    assert row["prompt_tokens"] == expected > 0
    assert row["completion_tokens"] == sum(m.completion_tokens for m in parts)
    assert row["prompt_chars"] == sum(m.prompt_chars for m in parts)
    staff = User.objects.create_superuser("operator", password="pw-for-tests-1")
    client = _client(staff)
    page = client.get(f"/admin/office/office/cost/?office={office.pk}").content.decode()
    assert "#1 @Iris a banner. @Theo a page." in page
    assert f"<td>{expected}</td>" in page


def test_parts_not_done_are_listed_in_the_offices_language(model: FakeOpenAI) -> None:
    from missions.plans import synthesis_footer
    from office.services import office_edit

    office = make_office()
    office_edit(office=office, name=office.name, language="ko")
    model.enqueue_for("answer this:\n배너", Fail(500))
    plan = instruction_accept(
        channel=_master(office), text="@Iris 배너 시안을 만들어 주세요. @Theo 랜딩 페이지."
    ).mission
    iris = Mission.objects.get(parent=plan, assignee__name="Iris")
    assert iris.status == MissionStatus.FAILED
    [synthesis] = Mission.objects.filter(parent=plan, source=MissionSource.SYNTHESIS)
    footer = synthesis_footer(synthesis=synthesis)
    assert footer == (
        f"- 아직 끝나지 않은 일: Iris — {iris.error}. "
        f"재시도: /c/{iris.channel_id}/#mission-{iris.seq}"
    )
    assert footer in synthesis.reply
