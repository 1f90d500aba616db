"""The mission path in a fixed number of queries (docs/design.md §3 "Bounded"): accepting is
pinned in tests/context/test_guards.py; running a reply and completing it are pinned
here, at 10 and at 60 missions in the session, on SQLite and PostgreSQL alike."""

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from missions import lifecycle
from missions.intake import mission_create
from missions.lifecycle import mission_complete
from missions.models import Mission, MissionSource, MissionStatus
from missions.run import mission_run
from sessions.services import session_get_or_open_current
from tests.factories import add_finished_missions, dm_channel, make_office

pytestmark = pytest.mark.django_db(transaction=True)

# Claim (1), read the mission with its session, channel, office and assignee (1), load its
# context (11: nothing to recall or rank here; the numbers the person sees of the missions
# its summary cites, one query; the person's instructions after the oldest mission it
# cites, one query), the vectors of the channel's passages and of the office's
# memory items that this process does not hold yet (2: the meaning layer, read once and
# then only the rows after the last one held), nothing to mark used, then complete (4:
# the reply's author is the assignee read with the mission), and once committed whether an
# index batch or a fold can be due (1).
RUN_QUERIES = 20
# In a channel's first session, while every finished mission is in the window: no older
# missions to size, none pending, nothing to recall (so no passage vectors to read), and
# no summary whose items' evidence to rank, nor whose citations to label, nor later
# instructions to read.
EARLY_RUN_QUERIES = RUN_QUERIES - 7
# Begin, save the mission, save the reply message, read its author for the frame, read
# whose channel it is for the sidebar's unread frame (a running reply has it at hand, read
# with the mission), commit; then whether an index batch or a fold can be due.
COMPLETE_QUERIES = 7


def _queued_mission(
    missions: int,
    monkeypatch: pytest.MonkeyPatch,
    instruction: str = "Draft the next part of the plan",
) -> tuple[Mission, list[Any]]:
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    add_finished_missions(session, missions)
    mission, _ = mission_create(
        session=session,
        assignee=session.channel.employee,  # type: ignore[arg-type]
        source=MissionSource.DM,
        instruction=instruction,
    )
    queued: list[Any] = []
    # The follow-up tasks (fold, memory extraction, recall index) are queued, not run, so
    # they are not counted here: they run in the background lane.
    monkeypatch.setattr(lifecycle, "queue_task_on_commit", lambda *args: queued.append(args))
    return Mission.objects.get(pk=mission.pk), queued


def _run_counted(missions: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[str]]:
    """Run a reply after `missions` finished ones: the tasks it queued, the SQL it ran."""
    mission, queued = _queued_mission(missions, monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        mission_run(mission_id=mission.pk)
    mission.refresh_from_db()
    assert mission.status == MissionStatus.DONE
    return queued, [q["sql"] for q in queries]


@pytest.mark.parametrize("missions", [10, 60])
def test_running_a_reply_takes_a_pinned_number_of_queries(
    missions: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    queued, queries = _run_counted(missions, monkeypatch)
    # The fold check is queued once the reply is committed; seq 11 and 61 end no index
    # batch (tests/context/test_index_batches.py).
    assert [task for task, *_ in queued] == ["summaries.tasks.summary_fold"]
    assert len(queries) == RUN_QUERIES, queries


@pytest.mark.parametrize("missions", [0, 3, 7])
def test_an_early_mission_of_a_first_session_reads_no_history(
    missions: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, queries = _run_counted(missions, monkeypatch)
    assert len(queries) == EARLY_RUN_QUERIES, queries


@pytest.mark.parametrize(
    ("instruction", "extracted_now"),
    [
        ("Draft the next part of the plan", False),
        ("Remember: our price is $29.99 a month. Draft the next part", True),
        ("We decided to launch in Lisbon; draft the invite", True),
        ("다음 계획 초안을 써 줘", False),
        ("앞으로 보고서는 항상 한국어로 써 줘", True),
        ("출시일은 3월 14일로 하기로 했어요. 공지 초안 부탁해요", True),
        ('Translate this: "Always remember the Alamo"', False),
    ],
)
def test_memory_is_extracted_at_once_only_from_what_the_person_says_to_keep(
    instruction: str, extracted_now: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    mission, queued = _queued_mission(3, monkeypatch, instruction)
    mission_run(mission_id=mission.pk)
    # The rest is extracted with its fold (tests/memory/test_folded_extraction.py). The
    # fourth mission pushes nothing out of the window: no fold check; it ends an index
    # batch.
    extraction = ["memory.tasks.memory_extract_from_mission"] if extracted_now else []
    assert [task for task, *_ in queued] == [*extraction, "context.tasks.passages_index_session"]


@pytest.mark.parametrize(("before", "checked"), [(0, False), (7, False), (8, True), (20, True)])
def test_the_fold_check_is_queued_once_a_mission_can_have_left_the_window(
    before: int, checked: bool, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.DETAIL_MISSIONS = 8
    mission, queued = _queued_mission(before, monkeypatch)
    mission_run(mission_id=mission.pk)
    folds = [args for args in queued if args[0] == "summaries.tasks.summary_fold"]
    assert folds == ([("summaries.tasks.summary_fold", mission.session_id)] if checked else [])


def test_an_early_mission_finishing_after_later_ones_still_checks_the_fold(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """Mission 1 finishes last, after eight later ones: it may be the ninth newest."""
    settings.DETAIL_MISSIONS = 8
    session = session_get_or_open_current(channel=dm_channel(make_office()))
    first, _ = mission_create(
        session=session,
        assignee=session.channel.employee,  # type: ignore[arg-type]
        source=MissionSource.DM,
        instruction="The first, slow one",
    )
    add_finished_missions(session, 8)
    queued: list[Any] = []
    monkeypatch.setattr(lifecycle, "queue_task_on_commit", lambda *args: queued.append(args))
    mission_run(mission_id=first.pk)
    assert ("summaries.tasks.summary_fold", session.pk) in queued


@pytest.mark.parametrize("missions", [10, 60])
def test_completing_a_mission_takes_a_pinned_number_of_queries(
    missions: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    mission, _ = _queued_mission(missions, monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        mission_complete(mission=mission, reply="Here it is.")
    assert len(queries) == COMPLETE_QUERIES, [q["sql"] for q in queries]
