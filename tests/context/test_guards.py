"""Guards for the context contract (docs/design.md §3, §4): each test here fails when one
specific, plausible one-line bug is planted, where the broader tests elsewhere did not
notice it. The query counts pinned at the end are the "constant number of queries"
invariant made exact, so that an N+1 (or a new query nobody meant) shows up as a diff."""

from collections import Counter
from typing import Any

import pytest
from django.conf import settings
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext

from context.rendering import AssembledContext
from context.selectors import context_for_mission
from context.window import window_left_through
from llm.gateway import get_provider
from memory.models import MemoryItem
from memory.services import memory_item_create, memory_target
from missions import creation, intake
from missions.intake import instruction_accept, mission_create
from missions.models import Mission, MissionStatus
from office.models import Office
from sessions.models import ChatSession
from sessions.services import session_get_or_open_current, session_start_new
from summaries import tasks
from summaries.folding import fold_commit, fold_inputs, fold_propose
from summaries.models import RevisionKind, RollingSummary, SummaryRevision
from summaries.schemas import SummaryItem, SummaryState
from summaries.services import summary_get_or_create
from summaries.verifier import summary_verify
from tests.factories import add_finished_missions, dm_channel, long_text, make_office, next_context

pytestmark = pytest.mark.django_db(transaction=True)

DESIGN_ORDER = ["system", "summary", "pending", "recent", "memory", "recall", "current"]


def _session(office: Office | None = None) -> ChatSession:
    return session_get_or_open_current(channel=dm_channel(office or make_office()))


def _memory(office: Office, text: str, *, pinned: bool = False) -> MemoryItem:
    return memory_item_create(
        target=memory_target(office=office, scope="office"),
        kind="fact",
        text=text,
        origin="user",
        pinned=pinned,
    )


def _hold_folds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Folds queued from now on never land, as with a slow background queue: each test
    folds when it says so (`_fold_what_left_the_window`), whatever the batching policy."""
    monkeypatch.setattr(tasks.summary_fold, "delay_on_commit", lambda *a, **k: None)


def _fold_what_left_the_window(session: ChatSession) -> RollingSummary:
    """Fold every finished mission that has left the detail window, in batches of 8, with
    the same propose/commit steps a fold task takes."""
    through = window_left_through(session_id=session.pk)
    while True:
        summary = summary_get_or_create(session=session)
        batch = list(
            Mission.objects.filter(
                session=session,
                status=MissionStatus.DONE,
                seq__gt=summary.folded_through_seq,
                seq__lte=through,
            ).order_by("seq")[:8]
        )
        if not batch:
            return summary
        state, report, producer, attempts = fold_propose(
            provider=get_provider(),
            previous=SummaryState.model_validate(summary.state or {}),
            missions=fold_inputs(batch),
            budget=settings.SUMMARY_BUDGET_CHARS,
            session_number=None,
        )
        assert fold_commit(
            summary=summary,
            state=state,
            through=batch[-1].seq,
            kind=RevisionKind.FOLD,
            folded_ids=[m.pk for m in batch],
            report=report,
            producer=producer,
            attempts=attempts,
        )


def _where(context: AssembledContext, text: str) -> tuple[int, int]:
    """(message index, offset in it) of the first message holding `text`."""
    assert text, "an empty section cannot be located"
    for index, message in enumerate(context.messages):
        offset = message["content"].find(text)
        if offset >= 0:
            return index, offset
    raise AssertionError(f"not in any message sent: {text[:80]!r}")


# --- 1. the order of what is actually sent ------------------------------------------------


def test_it_sends_the_sections_to_the_model_in_design_order_with_the_current_mission_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _hold_folds(monkeypatch)
    session = _session()

    def text(n: int) -> tuple[str, str]:
        if n == 2:
            return (
                "Book the offsite at the Hotel Arcadia, room Sirius, for 40 people.",
                "Booked the Hotel Arcadia; confirmation AR-2291.",
            )
        return long_text(n)

    add_finished_missions(session, 20, text=text)
    _fold_what_left_the_window(session)  # 1..12 folded, 13..20 in detail
    add_finished_missions(session, 3, text=text)  # 13..15 leave the window, unfolded
    _memory(session.channel.office, "The Arcadia offsite budget is 9,000 euros.")

    context = next_context(
        channel=session.channel, instruction="What did we book at the Arcadia for the offsite?"
    )

    sections = {s.name: s for s in context.sections}
    for name in DESIGN_ORDER:
        assert sections[name].text, f"the {name} section is empty: the order proves nothing"
    assert 2 in sections["recall"].mission_seqs
    assert sections["pending"].mission_seqs == [13, 14, 15]
    assert sections["recent"].mission_seqs == list(range(16, 24))
    # Recent missions go out as user/assistant turns, not as the section's joined text:
    # locate each mission's header and reply in the messages.
    recent = list(Mission.objects.filter(session=session, seq__gte=16).order_by("seq"))
    recent_places = []
    for mission in recent:
        recent_places.append(_where(context, f"[mission #{mission.seq} ·"))
        # Older ones may be cut to fit the budget; the person's request is always kept.
        recent_places.append(_where(context, mission.instruction[:60]))
    assert recent_places == sorted(recent_places)
    places = {
        name: _where(context, sections[name].text)
        for name in ("system", "summary", "pending", "memory", "recall", "current")
    }
    sent_order = [
        places["system"],
        places["summary"],
        places["pending"],
        recent_places[0],
        recent_places[-1],
        places["memory"],
        places["recall"],
        places["current"],
    ]
    assert sent_order == sorted(sent_order), sent_order
    assert len(set(sent_order)) == len(sent_order)
    assert context.messages[0] == {"role": "system", "content": sections["system"].text}
    assert context.messages[-1] == {"role": "user", "content": sections["current"].text}


# --- 2. isolation of ranked memory --------------------------------------------------------


def test_it_keeps_another_offices_unpinned_memory_out_of_the_ranked_memory() -> None:
    mine, theirs = make_office(), make_office()
    own = _memory(mine, "The quokka mascot is approved for the launch poster.")
    foreign = _memory(
        theirs,
        "CANARY-THEIRS the quokka mascot launch poster uses the quokka mascot colours.",
    )
    assert not foreign.pinned and foreign.kind == "fact" and foreign.scope == "office"

    context = next_context(
        channel=dm_channel(mine), instruction="Which quokka mascot for the launch poster?"
    )

    # The ranking ran and found this office's item, so the other one was a candidate to lose.
    assert own.pk in context.section("memory").memory_ids
    for section in context.sections:
        assert foreign.pk not in section.memory_ids, section.name
        assert "CANARY-THEIRS" not in section.text, section.name
    for message in context.messages:
        assert "CANARY-THEIRS" not in message["content"]


# --- 3. recall never repeats the detail window --------------------------------------------


def test_it_never_recalls_a_mission_that_is_still_in_the_detail_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _hold_folds(monkeypatch)
    session = _session()

    def text(n: int) -> tuple[str, str]:
        # The newest missions match the instruction best: a recall that forgot the window
        # would rank them first.
        if n > 12:
            return (
                f"Lighthouse keeper rota {n}: lighthouse lamp check.",
                f"Lighthouse lamp checked ({n}).",
            )
        return (f"Lighthouse note {n}.", f"Noted {n}.")

    add_finished_missions(session, 20, text=text)
    _fold_what_left_the_window(session)  # 1..12 folded: recall has something to find

    context = next_context(
        channel=session.channel, instruction="Who is on the lighthouse keeper rota for the lamp?"
    )

    recent, recall = context.section("recent"), context.section("recall")
    assert recent.mission_seqs == list(range(13, 21))
    assert recall.mission_ids, "recall found nothing: the guard proves nothing"
    assert not set(recall.mission_ids) & set(recent.mission_ids)
    assert not set(recall.mission_seqs) & set(recent.mission_seqs)
    assert set(recall.mission_seqs) <= set(range(1, 13))


# --- 4. a stale fold loses, without threads -----------------------------------------------


def test_it_refuses_a_fold_commit_from_a_summary_read_before_another_fold_landed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _hold_folds(monkeypatch)
    session = _session()
    add_finished_missions(session, 12)  # 1..4 have left the window, none folded
    stale = summary_get_or_create(session=session)
    assert (stale.version, stale.folded_through_seq) == (0, 0)

    _fold_what_left_the_window(session)  # another fold commits in between
    landed = RollingSummary.objects.get(session=session)
    assert (landed.version, landed.folded_through_seq) == (1, 4)

    late_state = SummaryState(
        goal="STALE-FOLD", facts=[SummaryItem(text="STALE-FOLD step 1", missions=[1])]
    )

    stale_ids = list(
        Mission.objects.filter(session=session, seq__lte=3).values_list("id", flat=True)
    )
    report = summary_verify(
        state=late_state,
        previous=SummaryState(),
        folded=[(None, 1), (None, 2), (None, 3)],
        budget_chars=settings.SUMMARY_BUDGET_CHARS,
    )
    try:
        won = fold_commit(
            summary=stale,
            state=late_state,
            through=3,
            kind=RevisionKind.FOLD,
            folded_ids=stale_ids,
            report=report,
            producer="stale",
            attempts=[],
        )
    except IntegrityError as exc:
        # The revision insert ran: the conditional update let a stale read through, and
        # only the (summary, version) constraint stopped it.
        pytest.fail(f"a stale fold got past the conditional update: {exc}")

    assert won is False
    stored = RollingSummary.objects.get(session=session)
    assert (stored.version, stored.folded_through_seq) == (1, 4)
    assert (stored.state, stored.text) == (landed.state, landed.text)
    assert "STALE-FOLD" not in stored.text
    per_version = Counter(
        SummaryRevision.objects.filter(summary=stored).values_list("version", flat=True)
    )
    assert per_version == {1: 1}
    assert not SummaryRevision.objects.filter(summary=stored, provider="stale").exists()


# --- query-count pins ---------------------------------------------------------------------

# What assembling one prompt costs, whatever the session's length (docs/design.md §3,
# "Bounded"), the same on SQLite and PostgreSQL. Counted with the summary, memory and
# recall all finding something, so every branch of context.loading.context_load runs.
# 13 for `next_context`: the session lookup of the test helper; the summary, the numbers
# the person sees of the missions it cites, the detail window, the size of the older
# missions, the pending digests; recall: the ranking of passages cited by matching
# summary items, the ranking of all, their rows with their neighbours; memory: the pinned
# items, the ranking and its rows; the colleagues; the person's instructions after the
# oldest mission the prompt cites (the values that replaced what it shows). With the
# meaning layer (on by default), two more: the vectors written since the last read of the
# channel's passages and of the office's memory items (context.dense).
NEXT_CONTEXT_QUERIES = 14 + 2
# 17 for `context_for_mission` on a mission freshly read from the database: its session,
# channel, assignee and the channel's office, then the same thirteen loading queries.
MISSION_CONTEXT_QUERIES = 17 + 2
# For `instruction_accept` of a 1:1 instruction, the accept call alone: the reply run
# and the long-session check it queues on commit are replaced by recorders (they are
# tasks with costs of their own, off the request path), so this is what the person waits
# for. It counts BEGIN and COMMIT (Django logs them), the current session's row locked,
# read and counted in one statement, and the mission and message inserts (the message is
# not read back); a 1:1 instruction naming nobody with @ needs no list of the office's
# employees. With a client_id (the page always sends one), one lookup before the write.
ACCEPT_QUERIES = 5
ACCEPT_WRITE_STATEMENTS = 5


def _session_of(count: int) -> ChatSession:
    """A session of `count` finished missions, all that left the window folded, with one
    memory item: recall and memory both have something to find."""
    session = _session()

    def text(n: int) -> tuple[str, str]:
        # Long enough that the session does not fit the envelope whole: the summary,
        # pending digests and ranked recall are what carry the older missions.
        return (
            f"Plan item {n} for the harbour launch.",
            f"Harbour launch item {n} done. " + "Checked the pier schedule and the crew. " * 70,
        )

    add_finished_missions(session, count, text=text)
    _fold_what_left_the_window(session)
    _memory(session.channel.office, "The harbour launch is on a Friday.")
    return session


def _next_context_queries(session: ChatSession) -> tuple[int, AssembledContext]:
    with CaptureQueriesContext(connection) as queries:
        context = next_context(channel=session.channel, instruction="When is the harbour launch?")
    return len(queries), context


def _mission_context_queries(session: ChatSession) -> int:
    mission, _ = mission_create(
        session=session,
        assignee=session.channel.employee,  # type: ignore[arg-type]
        source="dm",
        instruction="When is the harbour launch?",
    )
    fresh = Mission.objects.get(pk=mission.pk)
    with CaptureQueriesContext(connection) as queries:
        context = context_for_mission(mission=fresh)
    assert context.section("recall").mission_ids and context.section("memory").memory_ids
    return len(queries)


@pytest.mark.parametrize("count", [10, 60])
def test_it_assembles_the_next_context_in_a_pinned_number_of_queries(
    count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _hold_folds(monkeypatch)
    used, context = _next_context_queries(_session_of(count))
    assert context.section("recall").mission_ids and context.section("memory").memory_ids
    assert used == NEXT_CONTEXT_QUERIES


def test_it_assembles_the_next_context_in_as_many_queries_at_60_missions_as_at_10(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _hold_folds(monkeypatch)
    short, _ = _next_context_queries(_session_of(10))
    long, _ = _next_context_queries(_session_of(60))
    assert short == long == NEXT_CONTEXT_QUERIES


def test_it_assembles_a_missions_context_in_as_many_queries_at_60_missions_as_at_10(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _hold_folds(monkeypatch)
    short = _mission_context_queries(_session_of(10))
    long = _mission_context_queries(_session_of(60))
    assert short == long == MISSION_CONTEXT_QUERIES


@pytest.mark.parametrize("with_client_id", [False, True])
@pytest.mark.parametrize("before", [3, 19])
def test_it_accepts_a_1_to_1_instruction_in_a_pinned_number_of_queries(
    before: int, with_client_id: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _session()
    add_finished_missions(session, before)
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(creation, "queue_task_on_commit", lambda *args: queued.append(args))
    monkeypatch.setattr(creation, "mission_queue_run", lambda mission: queued.append((mission.pk,)))

    client_id = "page-1" if with_client_id else ""
    with CaptureQueriesContext(connection) as queries:
        accepted = instruction_accept(
            channel=session.channel, text="Draft the launch email", client_id=client_id
        )

    assert accepted.created and accepted.mission.seq == before + 1
    assert accepted.mission.client_id == client_id
    assert ChatSession.objects.get(pk=session.pk).mission_count == before + 1
    # The long-session check is queued by the mission that can cross the threshold (the
    # 20th), not by every one below it.
    check = [(intake.NOTICE_CHECK_TASK, accepted.mission.pk)] if before + 1 >= 20 else []
    assert queued == [*check, (accepted.mission.pk,)]
    sql = [q["sql"] for q in queries]
    assert len(sql) == ACCEPT_QUERIES + with_client_id, sql
    # The write itself, from BEGIN to COMMIT: the lookup happens before it.
    begin = next(i for i, q in enumerate(sql) if q.startswith("BEGIN"))
    assert len(sql) - begin == ACCEPT_WRITE_STATEMENTS, sql


def test_a_resent_client_id_writes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    session = _session()
    first = instruction_accept(channel=session.channel, text="Draft it", client_id="page-7")
    with CaptureQueriesContext(connection) as queries:
        again = instruction_accept(channel=session.channel, text="Draft it", client_id="page-7")
    assert not again.created and again.mission.pk == first.mission.pk
    assert again.message.pk == first.message.pk
    # The mission and the message it was posted with, nothing else.
    assert len(queries) == 2, [q["sql"] for q in queries]
    assert ChatSession.objects.get(pk=session.pk).mission_count == 1
    # In a new session the same client_id is a new instruction.
    session_start_new(channel=session.channel)
    later = instruction_accept(channel=session.channel, text="Draft it", client_id="page-7")
    assert later.created and later.mission.session_id != session.pk and later.mission.seq == 1
