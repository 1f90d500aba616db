"""Every budget rule of the prompt at its edge (docs/design.md §3): a section whose text is
exactly as long as its cap is kept whole; with a cap one char shorter it is cut or an
item left out, never over the cap, and the prompt stays within its envelope.

The exact size is not computed here from the layout (titles, headers, separators): each
case renders the prompt once with room to spare, takes the section's length as the cap,
and renders again. So the tests hold whatever the wording of a section, and a rule that
forgets a separator, or compares with < instead of <=, fails them."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.test import override_settings
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from context.budget import prompt_budget
from context.lines import pending_capacity
from context.loading import ContextInputs, PendingMission, RecalledPassage
from context.rendering import AssembledContext, Section, render_context
from memory.models import MemoryItem
from missions.models import Mission
from office.models import Employee, Office
from summaries.due import fold_due

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ROOMY = 10**6
WORDS = [
    "launch",
    "budget",
    "the",
    "$29.99",
    "March 14",
    "예산은",
    "담당자가",
    "팀장",
    "고객",
    "출시일은",
    '"quoted"',
    "\n",
]
EDGES = hypothesis_settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def text_of(min_chars: int, max_chars: int) -> st.SearchStrategy[str]:
    """Korean and English words (with a newline and quotes now and then), sized."""
    return st.builds(
        _sized,
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=12),
        st.integers(min_value=min_chars, max_value=max_chars),
    )


def _sized(words: list[str], size: int) -> str:
    unit = " ".join(words) + " 예산 end "
    body = (unit * (size // len(unit) + 1))[:size].strip()
    return body if len(body) >= size else (body + " " + "x" * size)[:size]


def _mission(seq: int, instruction: str, reply: str) -> Mission:
    return Mission(
        pk=seq,
        seq=seq,
        instruction=instruction,
        reply=reply,
        created_at=START + timedelta(hours=seq),
    )


def _inputs(
    *, envelope: int | None = None, detail_budget: int | None = None, **changes: Any
) -> ContextInputs:
    """A prompt with every section empty but the current mission; `changes` fill some
    (and `envelope`, `detail_budget` set those of its budget)."""
    base = ContextInputs(
        office=Office(name="Acme"),
        employee=Employee(pk=1, name="Mina", role="Lead", persona="Be brief."),
        colleagues=[],
        pinned=[],
        session_number=3,
        summary_text="",
        summary_refs=[],
        carried_from=None,
        pending=[],
        recent=[],
        history=[],
        budget=prompt_budget("dm"),
        ranked_memory=[],
        pinned_passages=[],
        recalled=[],
        instruction="What is next?",
        seq=60,
        at=START + timedelta(days=4),
    )
    return _within_budget(
        replace(base, **changes),
        **({"envelope": envelope} if envelope is not None else {}),
        **({"detail": detail_budget} if detail_budget is not None else {}),
    )


def _within_budget(inputs: ContextInputs, **fields: Any) -> ContextInputs:
    """The same prompt within other caps (fields of context.budget.PromptBudget)."""
    return replace(inputs, budget=replace(inputs.budget, **fields))


# The settings a test sets, as the fields of the budget the renderer reads.
_CAP_FIELDS = {
    "MEMORY_BUDGET_CHARS": "memory",
    "PENDING_BUDGET_CHARS": "pending",
    "SYSTEM_BUDGET_CHARS": "system",
    "SUMMARY_BUDGET_CHARS": "summary",
    "RECALL_BUDGET_CHARS": "recall",
}


@contextmanager
def caps(**values: int) -> Iterator[None]:
    with override_settings(**values):
        yield


def render(inputs: ContextInputs, **values: int) -> AssembledContext:
    """The prompt of `inputs` with the caps `values` (settings' names)."""
    context = render_context(
        _within_budget(inputs, **{_CAP_FIELDS[name]: v for name, v in values.items()})
    )
    assert context.total_chars <= context.envelope
    for section in context.sections:
        if section.budget is not None:
            assert section.chars <= section.budget, (section.name, section.chars, section.budget)
    return context


def _within(section: Section, cap: int) -> None:
    assert section.chars <= cap, (section.name, section.chars, cap)


# --- long-term memory (MEMORY_BUDGET_CHARS) ---------------------------------------------


@EDGES
@given(st.lists(text_of(1, 600), min_size=1, max_size=6))
def test_memory_at_its_cap_keeps_every_item_and_one_char_less_leaves_the_last_out(
    texts: list[str],
) -> None:
    items = [MemoryItem(pk=100 + n, kind="fact", text=t) for n, t in enumerate(texts)]
    inputs = _inputs(ranked_memory=items)
    whole = render(inputs, MEMORY_BUDGET_CHARS=ROOMY).section("memory")
    assert whole.memory_ids == [i.pk for i in items]
    cap = whole.chars

    exact = render(inputs, MEMORY_BUDGET_CHARS=cap).section("memory")
    assert exact.text == whole.text and exact.memory_ids == whole.memory_ids

    short = render(inputs, MEMORY_BUDGET_CHARS=cap - 1).section("memory")
    _within(short, cap - 1)
    assert short.memory_ids == whole.memory_ids[:-1]


# --- pending fold (PENDING_BUDGET_CHARS) -------------------------------------------------


def _pending(texts: list[tuple[str, str]]) -> list[PendingMission]:
    # Each digest starts with its own token, so a test can tell which lines are listed.
    return [
        PendingMission(
            id=seq,
            seq=seq,
            at=START + timedelta(hours=seq),
            instruction=f"task{seq}: {instruction}",
            reply=reply,
        )
        for seq, (instruction, reply) in enumerate(texts, start=1)
    ]


@EDGES
@given(
    # A digest line is then longer than the line naming the missions left out, as a
    # mission's words are.
    st.lists(st.tuples(text_of(100, 400), text_of(1, 400)), min_size=1, max_size=12),
    st.sampled_from([None, 2, 9_999]),
)
def test_pending_lines_at_the_cap_are_all_listed_and_one_char_less_names_the_oldest_in_a_range(
    texts: list[tuple[str, str]], carried_from: int | None
) -> None:
    pending = _pending(texts)
    inputs = _inputs(pending=pending, carried_from=carried_from)
    whole = render(inputs, PENDING_BUDGET_CHARS=ROOMY).section("pending")
    assert all(f"task{m.seq}:" in whole.text for m in pending)
    cap = whole.chars

    exact = render(inputs, PENDING_BUDGET_CHARS=cap).section("pending")
    assert exact.text == whole.text

    short = render(inputs, PENDING_BUDGET_CHARS=cap - 1).section("pending")
    _within(short, cap - 1)
    assert "task1:" not in short.text
    # Left out of the lines, never out of the prompt: still named, to be recalled.
    assert short.mission_seqs == [m.seq for m in pending]
    assert f"#{pending[0].seq}" in short.text


@EDGES
@given(
    st.lists(st.tuples(text_of(1, 400), text_of(1, 400)), min_size=1, max_size=40),
    st.integers(min_value=300, max_value=4_000),
)
def test_pending_keeps_its_cap_and_names_every_mission_at_any_cap(
    texts: list[tuple[str, str]], cap: int
) -> None:
    pending = _pending(texts)
    section = render(_inputs(pending=pending), PENDING_BUDGET_CHARS=cap).section("pending")
    _within(section, cap)
    assert section.mission_seqs == [m.seq for m in pending]
    # The newest has its line whenever the cap has room for more than the range line.
    listed = [m.seq for m in pending if f"task{m.seq}:" in section.text]
    assert listed == [] or listed[-1] == pending[-1].seq


@EDGES
@given(st.integers(min_value=300, max_value=20_000), st.sampled_from([None, 9_999]))
def test_a_fold_is_due_before_a_pending_mission_would_shrink_to_the_range_line(
    cap: int, carried_from: int | None
) -> None:
    """The fold trigger's count (fold_due) and the section's rendering agree: as many
    missions as may wait before a fold is due are each listed, even at the widest."""
    with caps(PENDING_BUDGET_CHARS=cap, FOLD_BATCH=10**6):
        due_at = next(n for n in range(1, 1_000) if fold_due(waiting=n))
        assert due_at == pending_capacity(cap)
    widest = [
        PendingMission(
            id=seq,
            seq=seq,
            at=START,
            instruction=f"task{seq}: " + "예산" * 400,
            reply="x" * 400,
        )
        for seq in range(9_999_999 - due_at + 1, 9_999_999 + 1)
    ]
    section = render(
        _inputs(pending=widest, carried_from=carried_from), PENDING_BUDGET_CHARS=cap
    ).section("pending")
    listed = [m.seq for m in widest if f"task{m.seq}:" in section.text]
    assert listed == [m.seq for m in widest] or (due_at == 1 and listed == [])


# --- system: persona, colleagues, pinned rules (SYSTEM_BUDGET_CHARS) --------------------


@EDGES
@given(st.lists(text_of(200, 700), min_size=1, max_size=5))
def test_pinned_rules_at_the_system_cap_are_all_kept_and_one_char_less_leaves_the_last_out(
    texts: list[str],
) -> None:
    pinned = [MemoryItem(pk=10 + n, kind="rule", text=t) for n, t in enumerate(texts)]
    inputs = _inputs(pinned=pinned)
    whole = render(inputs, SYSTEM_BUDGET_CHARS=ROOMY).section("system")
    assert whole.memory_ids == [p.pk for p in pinned]
    cap = whole.chars

    exact = render(inputs, SYSTEM_BUDGET_CHARS=cap).section("system")
    assert exact.text == whole.text and not exact.trimmed

    short = render(inputs, SYSTEM_BUDGET_CHARS=cap - 1).section("system")
    _within(short, cap - 1)
    assert short.memory_ids == whole.memory_ids[:-1] and short.trimmed


@EDGES
@given(text_of(400, 3_000))
def test_a_persona_of_half_the_system_cap_is_kept_whole_and_one_char_more_is_cut(
    persona: str,
) -> None:
    persona = persona.strip()
    inputs = _inputs(employee=Employee(pk=1, name="Mina", role="Lead", persona=persona))
    half = len(persona)

    exact = render(inputs, SYSTEM_BUDGET_CHARS=2 * half + 1).section("system")
    assert persona in exact.text and not exact.trimmed

    short = render(inputs, SYSTEM_BUDGET_CHARS=2 * half - 1).section("system")
    assert persona not in short.text and short.trimmed


@EDGES
@given(st.lists(text_of(30, 60), min_size=4, max_size=8))
def test_colleagues_of_a_quarter_of_the_system_cap_are_listed_whole_and_one_char_more_are_cut(
    roles: list[str],
) -> None:
    colleagues = [
        Employee(pk=2 + n, name=f"Colleague{n}", role=" ".join(role.split()))
        for n, role in enumerate(roles)
    ]
    inputs = _inputs(colleagues=colleagues)
    whole = render(inputs, SYSTEM_BUDGET_CHARS=ROOMY).section("system")
    [roster] = [line for line in whole.text.splitlines() if "Colleague0" in line]
    last = f"{colleagues[-1].name} ({colleagues[-1].role})"
    assert roster.endswith(last)

    exact = render(inputs, SYSTEM_BUDGET_CHARS=4 * len(roster) + 3).section("system")
    assert roster in exact.text.splitlines() and not exact.trimmed

    short = render(inputs, SYSTEM_BUDGET_CHARS=4 * len(roster) - 1).section("system")
    assert roster not in short.text and short.trimmed


# --- the rolling summary (SUMMARY_BUDGET_CHARS) -----------------------------------------


@EDGES
@given(text_of(300, 5_000), st.sampled_from([None, 1, 12]))
def test_a_summary_at_its_cap_is_kept_whole_and_one_char_less_is_cut_with_a_marker(
    summary: str, carried_from: int | None
) -> None:
    inputs = _inputs(summary_text=summary, carried_from=carried_from)
    whole = render(inputs, SUMMARY_BUDGET_CHARS=ROOMY).section("summary")
    assert summary in whole.text
    cap = whole.chars

    exact = render(inputs, SUMMARY_BUDGET_CHARS=cap).section("summary")
    assert exact.text == whole.text and not exact.trimmed

    short = render(inputs, SUMMARY_BUDGET_CHARS=cap - 1).section("summary")
    _within(short, cap - 1)
    assert short.trimmed and summary not in short.text and "omitted" in short.text


# --- the current mission (what the envelope leaves) -------------------------------------


def _before_current(context: AssembledContext) -> int:
    """What the sections of fixed caps before the current mission take (with joiners)."""
    return context.envelope - (context.section("current").budget or 0)


@EDGES
@given(text_of(400, 20_000), st.sampled_from(["dm", "master"]))
def test_an_instruction_is_whole_while_the_envelope_has_room_and_cut_with_a_marker_when_not(
    instruction: str, kind: str
) -> None:
    """The current instruction is budgeted first (issue 36): beside a full window it is
    never cut while the envelope has room for it, and an envelope one char too small
    cuts it with a marker."""
    inputs = _inputs(
        instruction=instruction,
        envelope=int(settings.CONTEXT_BUDGET_CHARS[kind]),
        summary_text="Decided: launch on March 14. " * 40,
        recent=[_mission(50 + n, "예산 " * 300, "budget " * 600) for n in range(8)],
    )
    whole = render(inputs)
    current = whole.section("current")
    assert current.text.endswith(instruction) and not current.trimmed
    # The window made room for it.
    recent = whole.section("recent")
    assert recent.budget == max(
        min(
            inputs.budget.detail,
            whole.envelope - _before_current(whole) - current.chars - settings.RECALL_BUDGET_CHARS,
        ),
        0,
    )
    envelope = _before_current(whole) + current.chars

    exact = render(_within_budget(inputs, envelope=envelope)).section("current")
    assert exact.text == current.text and not exact.trimmed

    short = render(_within_budget(inputs, envelope=envelope - 1)).section("current")
    _within(short, current.chars - 1)
    assert short.trimmed and instruction not in short.text and "omitted" in short.text


@EDGES
@given(
    # Long instructions beside full sections: the instruction takes the room first.
    text_of(15_000, 20_000),
    st.lists(text_of(500, 1_000), min_size=6, max_size=20),
    text_of(4_000, 6_000),
    st.sampled_from(["dm", "master", "all"]),
)
def test_recall_keeps_its_floor_unless_the_instruction_needs_the_room(
    instruction: str, memory: list[str], summary: str, kind: str
) -> None:
    """What the window takes never leaves recall less than its floor; only the current
    instruction may, and only the room it needs."""
    inputs = _inputs(
        instruction=instruction,
        summary_text=summary,
        envelope=int(settings.CONTEXT_BUDGET_CHARS[kind]),
        ranked_memory=[MemoryItem(pk=100 + n, kind="fact", text=t) for n, t in enumerate(memory)],
        recent=[_mission(50 + n, "예산 " * 300, "budget " * 600) for n in range(8)],
    )
    context = render(inputs)
    current = context.section("current")
    assert current.text.endswith(instruction) and not current.trimmed
    recall = context.section("recall")
    left = context.envelope - _before_current(context) - current.chars
    assert recall.budget is not None
    assert recall.budget >= min(settings.RECALL_BUDGET_CHARS, left)


# --- the detail window (the channel's detail cap) ---------------------------------------


@EDGES
@given(st.lists(st.tuples(text_of(200, 3_000), text_of(1, 3_000)), min_size=1, max_size=8))
def test_recent_missions_at_the_detail_cap_are_all_in_full_and_one_char_less_cuts_an_older_one(
    texts: list[tuple[str, str]],
) -> None:
    recent = [_mission(50 + n, i, r) for n, (i, r) in enumerate(texts)]
    inputs = _inputs(recent=recent, envelope=ROOMY)
    whole = render(_within_budget(inputs, detail=ROOMY)).section("recent")
    # The window counts each mission with the "\n\n" that would join it to the next, the
    # last one's included (never sent): its cap is two chars more than it shows.
    cap = whole.chars + 2

    exact = render(_within_budget(inputs, detail=cap)).section("recent")
    assert exact.text == whole.text and not exact.trimmed
    assert exact.mission_seqs == [m.seq for m in recent]

    short = render(_within_budget(inputs, detail=cap - 1)).section("recent")
    _within(short, cap - 1)
    assert short.trimmed and short.text != whole.text
    # Nothing leaves the section: an older mission gives way (cut to its relevant lines,
    # or a digest line), and the newest is still shown in detail.
    assert short.mission_seqs == [m.seq for m in recent]
    assert any(row["seq"] == recent[-1].seq and row["kept"] != "digest" for row in short.kept)


# --- recall (what the envelope leaves) --------------------------------------------------


def _passages(texts: list[str], session_number: int) -> list[RecalledPassage]:
    return [
        RecalledPassage(
            id=1_000 + n,
            mission_id=n,
            seq=n,
            session_number=session_number,
            at=START + timedelta(hours=n),
            position=0,
            text=text,
        )
        for n, text in enumerate(texts, start=1)
    ]


@EDGES
@given(
    st.lists(text_of(200, 900), min_size=1, max_size=6),
    st.sampled_from([2, 3]),
    st.booleans(),
)
# Many short lines: one at a time, each cost more than the room its marker left.
@example([_sized(["\n"], 200)], 2, False)
# Memory and recall share a message: one joiner between them, not two.
@example([_sized(["launch"], 200)], 2, True)
# Blank lines left out cost more as a marker than as themselves: filling that gap makes
# the room another gap needs, whichever comes first.
@example(
    [_sized(["launch", "the", "\n", "\n", "launch"], 276), _sized(["the", "\n"], 241)], 2, False
)
def test_recall_at_its_budget_keeps_every_excerpt_whole_and_one_char_less_cuts_the_last(
    texts: list[str], session_number: int, everything_else: bool
) -> None:
    """With every other section filled too, a recall that takes its budget exactly brings
    the prompt exactly to its envelope: what joins the sections is counted, no more."""
    passages = _passages(texts, session_number)
    inputs = _inputs(recalled=passages, envelope=ROOMY)
    if everything_else:
        inputs = replace(
            inputs,
            summary_text="Decided: launch on March 14. 예산은 3천만 원.",
            pending=_pending([("예산 검토 " * 30, "Reviewed the budget.")]),
            ranked_memory=[MemoryItem(pk=100, kind="fact", text="고객은 30대 직장인")],
        )
    inputs = _within_budget(inputs, recall=0)
    whole = render(inputs).section("recall")
    assert whole.mission_ids == [p.mission_id for p in passages]
    assert not whole.trimmed and all(
        p.text.replace("\n", "\\n").replace('"', '\\"') in whole.text for p in passages
    )
    # The envelope is what recall gets, after the sections before it.
    assert whole.budget is not None
    envelope = ROOMY - (whole.budget - whole.chars)

    at_envelope = render(_within_budget(inputs, envelope=envelope))
    exact = at_envelope.section("recall")
    assert exact.budget == whole.chars
    assert exact.text == whole.text and not exact.trimmed
    if everything_else:
        assert at_envelope.total_chars == envelope

    short = render(_within_budget(inputs, envelope=envelope - 1)).section("recall")
    _within(short, whole.chars - 1)
    assert short.trimmed and short.text != whole.text
    assert short.mission_ids[:-1] == whole.mission_ids[: len(short.mission_ids) - 1]


# --- the whole prompt ---------------------------------------------------------------------


@EDGES
@given(
    st.sampled_from(["dm", "project", "master", "all"]),
    text_of(1, 20_000),
    st.lists(text_of(1, 2_000), min_size=0, max_size=12),
)
def test_a_prompt_whose_recall_fills_what_is_left_is_exactly_at_its_envelope_at_most(
    kind: str, instruction: str, passages: list[str]
) -> None:
    """Every section full at once: the prompt reaches its envelope and never passes it."""
    pending = _pending([("예산 " * 200, "budget " * 100)] * 30)
    inputs = _inputs(
        envelope=int(settings.CONTEXT_BUDGET_CHARS[kind]),
        detail_budget=int(settings.DETAIL_BUDGET_CHARS[kind]),
        instruction=instruction,
        summary_text="Decided: launch on March 14. " * 300,
        pending=pending,
        recent=[_mission(50 + n, "예산 " * 900, "budget " * 900) for n in range(8)],
        pinned=[MemoryItem(pk=n, kind="rule", text="Answer in Korean. " * 50) for n in range(8)],
        ranked_memory=[
            MemoryItem(pk=100 + n, kind="fact", text="고객 30대 " * 60) for n in range(9)
        ],
        recalled=_passages([t or "x" for t in passages] + ["출시일은 3월 14일 " * 200] * 20, 2),
    )
    context = render(inputs)
    assert context.total_chars <= context.envelope
    # Nothing left unused that recall could have taken (a header and a short excerpt).
    assert context.envelope - context.total_chars < 400
