"""Every section within its cap and the prompt within the channel's envelope, for any
sizes and languages (docs/design.md §3). Rendering is pure, so this runs without a database
over many generated prompts."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from context.budget import SUMMARY_MARK_CHARS, prompt_budget
from context.loading import ContextInputs, PendingMission, RecalledPassage
from context.rendering import render_context, trim_middle
from memory.models import MemoryItem
from missions.models import Mission
from office.models import Employee, Office
from summaries.render import summary_text_budget

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
WORDS = ["launch", "예산은", "담당자가", "the", "$29.99", "팀장", "deadline", "고객", "\n", "\n\n"]

texts = st.builds(
    lambda words, repeat: " ".join(words) * repeat,
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=30),
    st.integers(min_value=1, max_value=400),
)


def _mission(seq: int, instruction: str, reply: str) -> Mission:
    return Mission(
        pk=seq,
        seq=seq,
        instruction=instruction,
        reply=reply,
        created_at=START + timedelta(hours=seq),
    )


@st.composite
def prompts(draw: st.DrawFn) -> ContextInputs:
    kind = draw(st.sampled_from(["dm", "project", "master", "all"]))
    recent_count = draw(st.integers(min_value=0, max_value=8))
    older = draw(st.integers(min_value=0, max_value=40))
    seq = older + recent_count + 1
    pending = [
        PendingMission(
            id=n, seq=n, at=START, instruction=draw(texts)[:400], reply=draw(texts)[:400]
        )
        for n in range(1, draw(st.integers(min_value=0, max_value=older)) + 1)
    ]
    recalled = [
        RecalledPassage(
            id=1000 + n,
            mission_id=n,
            seq=n,
            session_number=draw(st.sampled_from([1, 2])),
            at=START,
            position=draw(st.integers(min_value=0, max_value=3)),
            text=draw(texts)[:800],
        )
        for n in range(1, draw(st.integers(min_value=0, max_value=24)) + 1)
    ]
    history = draw(st.booleans())
    return ContextInputs(
        office=Office(name=draw(texts)[:120]),
        employee=Employee(pk=1, name="Mina", role="Lead", persona=draw(texts)),
        colleagues=[Employee(pk=n, name=f"C{n}", role=draw(texts)[:120]) for n in range(2, 6)],
        pinned=[
            MemoryItem(pk=n, kind="rule", text=draw(texts)[:1000])
            for n in range(draw(st.integers(min_value=0, max_value=10)))
        ],
        session_number=2,
        summary_text=draw(texts)[: draw(st.integers(min_value=0, max_value=6000))],
        summary_refs=[(None, n) for n in range(1, older + 1)],
        carried_from=None,
        pending=[] if history else pending,
        recent=[_mission(n, draw(texts), draw(texts)) for n in range(older + 1, seq)],
        history=[_mission(n, draw(texts)[:300], draw(texts)[:300]) for n in range(1, older + 1)]
        if history
        else [],
        budget=prompt_budget(kind),
        ranked_memory=[
            MemoryItem(pk=100 + n, kind="fact", text=draw(texts)[:1000])
            for n in range(draw(st.integers(min_value=0, max_value=20)))
        ],
        pinned_passages=[],
        recalled=recalled,
        instruction=draw(texts)[: settings.MAX_INSTRUCTION_CHARS],
        seq=seq,
        at=START + timedelta(days=3),
    )


@pytest.mark.slow(30)
@hypothesis_settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prompts())
def test_every_section_keeps_its_cap_and_the_prompt_its_envelope(inputs: ContextInputs) -> None:
    context = render_context(inputs)
    for section in context.sections:
        if section.budget is not None:
            assert section.chars <= section.budget, (section.name, section.chars, section.budget)
    assert context.total_chars <= inputs.budget.envelope
    # The summary's cap and the room beside it for the marks of its lines.
    assert context.section("summary").budget == settings.SUMMARY_BUDGET_CHARS + SUMMARY_MARK_CHARS
    # What is cut says so, in the report and with a marker in the text.
    current = context.section("current")
    if current.trimmed:
        assert "chars omitted" in current.text
    assert context.messages[-1]["content"] == current.text


@hypothesis_settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prompts(), st.sampled_from([None, 1, 99999]))
def test_a_summary_a_fold_wrote_fits_its_section_whole(
    inputs: ContextInputs, carried_from: int | None
) -> None:
    full = ("예산은 3천만 원. Launch on March 14. " * 400)[: summary_text_budget()]
    section = render_context(replace(inputs, summary_text=full, carried_from=carried_from)).section(
        "summary"
    )
    assert not section.trimmed and full in section.text
    assert section.budget == settings.SUMMARY_BUDGET_CHARS + SUMMARY_MARK_CHARS
    # Nothing later to mark: the summary alone, within its own cap.
    assert section.chars <= settings.SUMMARY_BUDGET_CHARS


@given(st.text(min_size=0, max_size=3000), st.integers(min_value=0, max_value=3000))
def test_trimming_never_passes_its_limit(text: str, limit: int) -> None:
    assert len(trim_middle(text, limit, label="mission #1 reply")) <= max(limit, 0)
