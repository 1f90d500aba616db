"""Save first, push second (docs/design.md §7): every service of missions that writes a row a
person sees sends its frame only once the transaction that wrote it commits. Each case
runs the service inside a transaction twice: rolled back (no frame may ever leave, and
nothing is stored), then committed (no frame while the transaction is open; the frames
about what it wrote after it)."""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from missions import queueing
from missions.intake import Accepted, instruction_accept
from missions.lifecycle import mission_complete, mission_fail, mission_retry
from missions.models import Mission, MissionSource, MissionStatus
from missions.plans import plan_sweep_overdue
from office.models import ChannelKind, Office
from tests.factories import channel_of, dm_channel, make_office
from tests.realtime.capture import SentFrames, captured_frames  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


class Rollback(Exception):
    pass


def sent_only_after_commit(frames: SentFrames, act: Callable[[], Any]) -> tuple[Any, list[Any]]:
    """Run `act` in a transaction that rolls back, then in one that commits; returns
    what the committed run returned and the frames it sent."""
    frames.clear()
    rows = Mission.objects.count()
    with pytest.raises(Rollback), transaction.atomic():
        act()
        raise Rollback
    assert frames.sent == [], "a frame about a write that was rolled back was sent"
    assert Mission.objects.count() == rows
    with transaction.atomic():
        result = act()
        assert frames.sent == [], "a frame left before its transaction committed"
    assert frames.sent, "nothing was sent once the transaction committed"
    return result, [frame for _, frame in frames.sent]


@pytest.fixture
def queued_only(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Missions stay queued: their replies are not run (the runs send frames of their own)."""
    runs: list[int] = []
    monkeypatch.setattr(queueing, "queue_task", lambda name, mission_id: runs.append(mission_id))
    return runs


def _messages(sent: list[Any], **fields: Any) -> list[Any]:
    return [
        f
        for f in sent
        if f["type"] in ("message", "notice")
        and all(f["message"].get(k) == v for k, v in fields.items())
    ]


@pytest.mark.parametrize("text", ["Draft the launch email.", "출시 안내 메일 초안을 써 주세요."])
def test_an_instruction_is_pushed_only_once_committed(frames: SentFrames, text: str) -> None:
    channel = dm_channel(make_office())

    accepted, sent = sent_only_after_commit(
        frames, lambda: instruction_accept(channel=channel, text=text)
    )

    assert isinstance(accepted, Accepted)
    [posted] = _messages(sent, id=accepted.message.pk)
    assert posted["message"]["text"] == text and posted["message"]["channel"] == channel.pk
    # The reply was queued once committed, and its frames followed the instruction's and
    # the state that says it is under way.
    kinds = [f["type"] for f in sent]
    assert sent.index(posted) < kinds.index("mission.state") < kinds.index("reply.done")


def _queued_mission(office: Office, text: str = "Check the pricing page.") -> Mission:
    accepted = instruction_accept(channel=dm_channel(office), text=text)
    return accepted.mission


def _fresh(mission: Mission) -> Mission:
    return Mission.objects.select_related("assignee", "channel", "session").get(pk=mission.pk)


def test_a_reply_is_pushed_only_once_committed(frames: SentFrames, queued_only: list[int]) -> None:
    mission = _queued_mission(make_office())

    _, sent = sent_only_after_commit(
        frames, lambda: mission_complete(mission=_fresh(mission), reply="요금제 페이지 확인했어요.")
    )

    [done] = [f for f in sent if f["type"] == "reply.done"]
    assert done["mission"] == mission.pk and done["message"]["text"] == "요금제 페이지 확인했어요."


def test_a_failure_is_pushed_only_once_committed(
    frames: SentFrames, queued_only: list[int]
) -> None:
    mission = _queued_mission(make_office())

    _, sent = sent_only_after_commit(
        frames,
        lambda: mission_fail(mission=_fresh(mission), code="provider_error", message="timeout"),
    )

    [error] = _messages(sent, mission=mission.pk)
    assert error["message"]["kind"] == "error"
    assert _fresh(mission).status == MissionStatus.FAILED


def _plan(office: Office) -> Mission:
    master = channel_of(office, ChannelKind.MASTER)
    return instruction_accept(
        channel=master, text="@Iris 배너 시안을 만들어 주세요. @Theo build the landing page."
    ).mission


def _delegates(plan: Mission) -> list[Mission]:
    return list(
        Mission.objects.filter(parent=plan, source=MissionSource.DELEGATION)
        .select_related("assignee", "channel", "session")
        .order_by("pk")
    )


def test_a_plan_made_from_mentions_is_pushed_only_once_committed(
    frames: SentFrames,
    queued_only: list[int],
) -> None:
    office = make_office()

    plan, sent = sent_only_after_commit(frames, lambda: _plan(office))

    [card] = [f for f in sent if f["type"] == "plan"]
    assert card["plan"]["mission"] == plan.pk
    assert sorted(p["employee"] for p in card["plan"]["delegates"]) == ["Iris", "Theo"]
    assert _messages(sent, mission=plan.pk)


def test_a_delegate_finishing_pushes_its_reply_and_its_plan_only_once_committed(
    frames: SentFrames,
    queued_only: list[int],
) -> None:
    plan = _plan(make_office())
    first = _delegates(plan)[0]

    _, sent = sent_only_after_commit(
        frames, lambda: mission_complete(mission=_fresh(first), reply="Banner drafts attached.")
    )

    assert [f["mission"] for f in sent if f["type"] == "reply.done"] == [first.pk]
    [card] = [f for f in sent if f["type"] == "plan"]
    assert card["plan"]["mission"] == plan.pk
    assert {p["mission"]: p["status"] for p in card["plan"]["delegates"]}[first.pk] == "done"


def test_a_retried_delegate_pushes_its_plan_only_once_committed(
    frames: SentFrames,
    queued_only: list[int],
) -> None:
    plan = _plan(make_office())
    first = _delegates(plan)[0]
    mission_fail(mission=_fresh(first), code="provider_error", message="timeout")

    _, sent = sent_only_after_commit(frames, lambda: mission_retry(mission=_fresh(first)))

    [card] = [f for f in sent if f["type"] == "plan"]
    assert {p["mission"]: p["status"] for p in card["plan"]["delegates"]}[first.pk] == "queued"


def test_an_overdue_plan_is_summed_up_and_pushed_only_once_committed(
    frames: SentFrames,
    queued_only: list[int],
    settings: Any,
) -> None:
    plan = _plan(make_office())
    later = timezone.now() + timedelta(seconds=settings.PLAN_TIMEOUT + 60)

    summed, sent = sent_only_after_commit(frames, lambda: plan_sweep_overdue(now=later))

    assert summed == 1
    assert [f["plan"]["mission"] for f in sent if f["type"] == "plan"] == [plan.pk]
    synthesis = Mission.objects.get(parent=plan, source=MissionSource.SYNTHESIS)
    assert _messages(sent, mission=synthesis.pk)


def test_meeting_follow_ups_and_their_report_are_pushed_only_once_committed(
    frames: SentFrames,
    queued_only: list[int],
) -> None:
    office = make_office()
    project = channel_of(office, ChannelKind.PROJECT)

    accepted, sent = sent_only_after_commit(
        frames,
        lambda: instruction_accept(
            channel=project, text="회의록\n- @Theo: 랜딩 페이지 배포하기\n- @Iris: draft the banner"
        ),
    )

    followups = list(
        Mission.objects.filter(parent=accepted.mission, source=MissionSource.MEETING_FOLLOWUP)
    )
    assert len(followups) == 2
    to_project = [f for f in sent if f["type"] == "message"]
    assert {f["message"]["payload"].get("child_mission") for f in to_project} >= {
        m.pk for m in followups
    }

    # The follow-up's reply is reported back in the channel it came from, after commit.
    _, sent = sent_only_after_commit(
        frames, lambda: mission_complete(mission=_fresh(followups[0]), reply="배포 완료했어요.")
    )
    reports = _messages(sent, mission=accepted.mission.pk, channel=project.pk)
    assert [r["message"]["payload"]["child_mission"] for r in reports] == [followups[0].pk]


def test_an_unknown_mention_notice_is_pushed_only_once_committed(
    frames: SentFrames,
    queued_only: list[int],
) -> None:
    channel = dm_channel(make_office())

    accepted, sent = sent_only_after_commit(
        frames, lambda: instruction_accept(channel=channel, text="@Nobody 이거 확인해 주세요")
    )

    events = [
        f for f in _messages(sent) if f["message"]["payload"].get("event") == "unknown_mention"
    ]
    assert [e["message"]["mission"] for e in events] == [accepted.mission.pk]
