"""A mission whose reply the person stopped stays part of the conversation: what came is
its reply, and the next instruction is often about it ("go on", "shorter"). It is in the
next mission's detail window, marked as stopped, indexed for recall once it leaves the
window, and folded like a finished one (English and Korean)."""

import pytest
from django.test import override_settings

from context.models import Passage
from context.rendering import NOTHING_CAME, STOPPED_LABEL
from context.selectors import context_for_next
from missions.creation import mission_create
from missions.intake import mission_record_finished
from missions.lifecycle import mission_save_stopped
from missions.models import Mission, MissionSource, MissionStatus
from office.models import Employee
from sessions.models import ChatSession
from sessions.services import session_get_or_open_current
from summaries.models import RollingSummary
from summaries.schemas import SummaryState
from summaries.services import summary_fold
from tests.factories import dm_channel, make_office

pytestmark = pytest.mark.django_db(transaction=True)

TEXTS = {
    "en": (
        "Write the launch email for the clinics.",
        "Subject: Tidewell is live. Dear clinic owners, from Monday your front desk",
        "Go on from where you stopped.",
    ),
    "ko": (
        "매장 사장님들께 보낼 출시 안내 메일을 써 줘.",
        "제목: 단골노트가 출시됐습니다. 사장님, 다음 주 월요일부터 매장에서",
        "멈춘 데서부터 이어서 써 줘.",
    ),
}


def _stopped(session: ChatSession, assignee: Employee, instruction: str, partial: str) -> Mission:
    mission, _ = mission_create(
        session=session, assignee=assignee, source=MissionSource.DM, instruction=instruction
    )
    mission.status = MissionStatus.RUNNING
    mission.save(update_fields=["status"])
    assert mission_save_stopped(mission=mission, reply=partial) is not None
    mission.refresh_from_db()
    assert mission.status == MissionStatus.STOPPED
    return mission


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_next_mission_sees_the_stopped_one_and_what_came(language: str) -> None:
    instruction, partial, follow_up = TEXTS[language]
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    assert channel.employee is not None
    mission_record_finished(
        session=session, assignee=channel.employee, instruction="Hello", reply="Hi."
    )
    stopped = _stopped(session, channel.employee, instruction, partial)

    context = context_for_next(channel=channel, session=session, instruction=follow_up)
    recent = context.section("recent")
    assert stopped.seq in recent.mission_seqs
    asked = [m["content"] for m in context.messages if instruction in m["content"]]
    assert len(asked) == 1 and STOPPED_LABEL in asked[0]
    following = context.messages[context.messages.index({"role": "user", "content": asked[0]}) + 1]
    assert following == {"role": "assistant", "content": partial}
    # The finished mission before it carries no such mark.
    hello = next(m["content"] for m in context.messages if m["content"].endswith("\nHello"))
    assert STOPPED_LABEL not in hello


@pytest.mark.parametrize("language", ["en", "ko"])
@override_settings(DETAIL_MISSIONS=2, FOLD_BATCH=1)
def test_a_stopped_mission_is_indexed_and_folded_once_it_leaves_the_window(
    language: str,
) -> None:
    instruction, partial, _ = TEXTS[language]
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    assert channel.employee is not None
    stopped = _stopped(session, channel.employee, instruction, partial)
    for n in range(3):
        mission_record_finished(
            session=session,
            assignee=channel.employee,
            instruction=f"Note {n}: the weekly sync moves to room {n + 4}.",
            reply="Noted.",
        )
    # Indexed: recall can bring back what the stopped reply said.
    assert Passage.objects.filter(mission=stopped).exists()
    summary_fold(session_id=session.pk, force=True)
    summary = RollingSummary.objects.get(session=session)
    assert summary.folded_through_seq >= stopped.seq
    state = SummaryState.model_validate(summary.state)
    cited = {seq for _, item in state.items() for seq in item.missions}
    dropped = {d.mission for d in state.dropped}
    assert stopped.seq in cited | dropped


def test_a_mission_stopped_before_anything_came_is_shown_with_no_empty_reply() -> None:
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    assert channel.employee is not None
    _stopped(session, channel.employee, "Draft the spring newsletter.", "")
    context = context_for_next(channel=channel, session=session, instruction="Try again.")
    assert all(m["content"] for m in context.messages)
    assert {"role": "assistant", "content": NOTHING_CAME} in context.messages


def test_stopping_queues_the_index_as_finishing_does() -> None:
    channel = dm_channel(make_office())
    session = session_get_or_open_current(channel=channel)
    assert channel.employee is not None
    for n in range(3):
        mission_record_finished(
            session=session, assignee=channel.employee, instruction=f"Note {n}", reply="Noted."
        )
    assert not Passage.objects.filter(session=session).exists()  # a batch is four
    stopped = _stopped(session, channel.employee, *TEXTS["ko"][:2])
    assert stopped.seq == 4
    indexed = set(Passage.objects.filter(session=session).values_list("seq", flat=True))
    assert indexed == {1, 2, 3, 4}
