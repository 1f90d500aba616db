"""Loading what a prompt needs (docs/design.md §3), in a constant number of queries whatever
the session's length. Rendering it is context.rendering's job."""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import F, Q, QuerySet
from django.db.models.functions import Length, Substr

from config.prepared import PreparedSql, prepared
from context import dense
from context.budget import HISTORY_MIN_CHARS, PromptBudget, channel_budget
from context.detail import window_shares
from context.models import Passage
from context.passages import ATTACHMENT_LABEL
from context.search import Candidates, candidate_fragments, rank_memory_items, rank_passages
from context.superseded import Superseded, recorded, recorded_refs
from context.window import window_missions
from language import meaning
from language.analysis import asked_values, query_terms
from memory.models import MemoryItem
from memory.selectors import memory_in_scope, memory_rankable, memory_standing
from missions.models import ANSWERED, InstructionAuthor, Mission, MissionSource
from missions.selectors import delegate_url
from office.models import Channel, Employee, Office
from sessions.models import ChatSession
from summaries.render import Labels, Ref, render_summary, state_refs
from summaries.schemas import SummaryState
from summaries.selectors import ShownSummary, summary_labels, summary_shown

RECALL_PASSAGES = 64
# A hit shorter than this (a question turn, a one-line answer) brings the passage after it.
RECALL_SHORT_HIT = 200
EVIDENCE_PASSAGES = 6
# A question that asks for a value (a sum, a count, a date) or a person is answered by a
# line that states one, often with none of its words ("AV 장비 견적이 얼마였죠?": "업체가
# 이틀에 294만 원 달래요"): the other passages of the best-ranked missions are loaded too
# (of WHOLE_MISSIONS missions, at most WHOLE_MISSION_PASSAGES passages each), so that recall
# can choose that line (context.rendering weighs it by the kind of value asked for).
WHOLE_MISSIONS = 2
WHOLE_MISSION_PASSAGES = 8
MEMORY_CANDIDATES = 40
# The memory items of the whole office the meaning ranking brings, of which those in the
# mission's scope are kept.
MEMORY_MEANING_CANDIDATES = 200
# The passages ranked first by meaning whose lines the rendering takes even where they
# hold none of the instruction's words (context.rendering: a paraphrase).
MEANING_SHOWN = 4
# How much of a pending mission is loaded for its digest line (the newest gets more).
PENDING_HEAD_CHARS = 400
SIZE_STEP = 32
# A mission the person names by the number they see: "#2", "#1a" (a synthesis), also
# with a Korean particle written on ("#2에서").
_MISSION_REF = re.compile(r"(?<![\w#])#(\d{1,6}[a-z]{0,2})(?![0-9A-Za-z_])")


@dataclass
class PendingMission:
    """A finished mission out of the detail window whose fold has not landed."""

    id: int
    seq: int
    at: datetime
    instruction: str  # the first PENDING_HEAD_CHARS
    reply: str
    # The number the person sees (Mission.label); blank: its seq.
    label: str = ""

    @property
    def shown(self) -> str:
        return self.label or str(self.seq)


@dataclass
class RecalledPassage:
    id: int
    mission_id: int
    seq: int
    session_number: int
    at: datetime
    position: int
    text: str
    # Where the passage starts in its mission's text, and how long the person's
    # instruction is: whose words the passage holds (context.passages.mission_text).
    start: int = 0
    instruction_chars: int = 0
    # The number the person sees (Mission.label); blank: its seq.
    label: str = ""

    @property
    def shown(self) -> str:
        return self.label or str(self.seq)


@dataclass
class DelegateResult:
    """One delegated mission as a synthesis sees it: its reply, not its context."""

    mission_id: int
    employee: str
    role: str
    status: str
    seq: int
    url: str
    reply: str
    error: str
    label: str = ""


@dataclass
class Brief:
    """What a mission of a plan gets beside its own channel's context: a delegated
    mission, the master instruction it came from (as background) and what to hand back;
    a synthesis, the delegates' results."""

    kind: str  # delegation | synthesis
    planner: str = ""
    planner_role: str = ""
    background: str = ""
    expected_output: str = ""
    results: list[DelegateResult] = field(default_factory=list)


@dataclass(frozen=True)
class AttachedFile:
    """A file given with the current mission (missions.attachments): its extracted text,
    or why it has none; an image says whether the model is shown it."""

    name: str
    kind: str
    size: int
    text: str = ""
    error: str = ""
    image_shown: bool = False
    # Where in the text the passages closest in meaning to the instruction are, best
    # first (start, end): shown even when they hold none of its words.
    near: tuple[tuple[int, int], ...] = ()


@dataclass
class ContextInputs:
    office: Office
    employee: Employee
    colleagues: list[Employee]
    pinned: list[MemoryItem]
    session_number: int
    summary_text: str
    # Every (session number or None for this one, seq) the shown summary cites or drops.
    summary_refs: list[Ref]
    # The earlier session whose summary is shown while a carry-over is being folded.
    carried_from: int | None
    pending: list[PendingMission]
    recent: list[Mission]
    # Older missions of this session in full, when the whole history fits the envelope
    # (then they stand in for the summary and the pending digests).
    history: list[Mission]
    budget: PromptBudget
    ranked_memory: list[MemoryItem]
    # Passages named by the instruction (#seq) or by summary items that match it, first;
    # then the best-ranked ones.
    pinned_passages: list[RecalledPassage]
    recalled: list[RecalledPassage]
    instruction: str
    seq: int
    at: datetime
    terms: list[str] = field(default_factory=list)
    # The number the person sees on the current mission; blank: its seq.
    label: str = ""
    history_chars: int | None = None
    history_count: int = 0
    brief: Brief | None = None
    # The summary's record of superseded statements, by the mission they came from: an
    # excerpt recalled from one of them is marked (context.superseded).
    superseded: dict[Ref, list[Superseded]] = field(default_factory=dict)
    # The numbers the person sees of the missions the summary cites (summary_refs).
    summary_labels: Labels = field(default_factory=dict)
    # Passages that ranked first by meaning (language.meaning), and how close each is to
    # the instruction: their lines are shown even without a word of it.
    meaning: dict[int, float] = field(default_factory=dict)
    # The current mission's files (docs/design.md §4a).
    attachments: list[AttachedFile] = field(default_factory=list)
    # The person's instructions (seq, number shown, text) between the oldest mission of this
    # session that recall quotes or the summary cites and the detail window: a value they
    # give there is later than what those show, folded or not (context.superseded).
    later_instructions: list[tuple[int, str, str]] = field(default_factory=list)
    # The seq of the mission of this session each ranked memory item was taken from: a
    # later value the person gave marks the item as it marks an excerpt.
    memory_sources: dict[int, int] = field(default_factory=dict)
    # Who asked, when it is not the office's owner (an office of several people): the
    # current mission says so. Blank for the owner's and for no one's (imports).
    asked_by: str = ""


def _pending_digests(missions: QuerySet[Mission]) -> QuerySet[Mission, Any]:
    return missions.order_by("seq").values(
        "id",
        "seq",
        "label",
        at=F("created_at"),
        head=Substr("instruction", 1, PENDING_HEAD_CHARS),
        tail=Substr("reply", 1, PENDING_HEAD_CHARS),
    )


# A finished mission of the session shown as pending: after the watermark and, unless a
# carry-over is being folded (then the previous session's whole tail), before the window.
_PENDING = prepared(
    lambda *, session_id, after_seq: _pending_digests(
        Mission.objects.filter(session_id=session_id, status__in=ANSWERED, seq__gt=after_seq)
    )
)
_PENDING_BEFORE = prepared(
    lambda *, session_id, after_seq, before_seq: _pending_digests(
        Mission.objects.filter(
            session_id=session_id,
            status__in=ANSWERED,
            seq__gt=after_seq,
            seq__lt=before_seq,
        )
    )
)
# The sizes of the session's newest finished missions before the window, newest first.
_OLDER_LENGTHS = prepared(
    lambda rows, *, session_id, before_seq: (
        Mission.objects.filter(session_id=session_id, status__in=ANSWERED, seq__lt=before_seq)
        .order_by("-seq")
        .values(chars=Length("instruction") + Length("reply"))[:rows]
    )
)
_STANDING = prepared(
    lambda *, office_id, employee_id, channel_id: memory_standing(
        memory_in_scope(office_id=office_id, employee_id=employee_id, channel_id=channel_id)
    )[:MEMORY_CANDIDATES]
)
_ACTIVE_EMPLOYEES = prepared(
    lambda *, office_id: Employee.objects.filter(office_id=office_id, is_active=True)
)


# A passage of a file given with a mission: neither the detail window nor the history
# shows files (they show the instruction and the reply), so recall may always bring it.
_FILE_PASSAGE = Q(text__startswith=ATTACHMENT_LABEL)


def recall_candidates(*, channel_id: int, session_id: int, window_start: int) -> QuerySet[Passage]:
    """The passages recall may bring back: every finished mission of the channel that is
    not in the detail window (missions of this session from `window_start` on) — folded,
    pending, and earlier sessions alike — and the files of every mission."""
    return Passage.objects.filter(channel_id=channel_id).exclude(
        Q(session_id=session_id, seq__gte=window_start) & ~_FILE_PASSAGE
    )


def _recall_passages(
    history: bool, *, channel_id: int, session_id: int, window_start: int
) -> QuerySet[Passage]:
    """The recall candidates of a mission; with `history`, this session's earlier missions
    are in the prompt in full, so only earlier sessions (and files) are recalled."""
    passages = recall_candidates(
        channel_id=channel_id, session_id=session_id, window_start=window_start
    )
    return passages.exclude(Q(session_id=session_id) & ~_FILE_PASSAGE) if history else passages


# Every mission ranks its channel's passages and its memory items: with
# settings.COMPILED_QUERIES the candidates' SQL is compiled once (per connection), only
# their values are bound.
_RECALL = PreparedSql(_recall_passages, candidate_fragments)
_RANKABLE_MEMORY = PreparedSql(
    lambda *, office_id, employee_id, channel_id: memory_rankable(
        memory_in_scope(office_id=office_id, employee_id=employee_id, channel_id=channel_id)
    ),
    candidate_fragments,
)
# This session's finished missions before the window, oldest first (when all of them fit).
_HISTORY = prepared(
    lambda *, session_id, before_seq: Mission.objects.filter(
        session_id=session_id, status__in=ANSWERED, seq__lt=before_seq
    ).order_by("seq")
)


def _passage_rows(passages: QuerySet[Passage]) -> list[RecalledPassage]:
    rows = passages.order_by().values(
        "id",
        "mission_id",
        "seq",
        "position",
        "text",
        "start",
        at=F("mission__created_at"),
        label=F("mission__label"),
        session_number=F("session__number"),
        instruction_chars=Length("mission__instruction"),
    )
    return [RecalledPassage(**r) for r in rows]


def _with_neighbours(ids: list[int], *, whole: Sequence[int] = ()) -> list[RecalledPassage]:
    """The passages `ids` in that order, then the passage after each one that is too short
    to stand alone (a question turn, a one-line answer: what answers it follows), then the
    other passages of the missions of the passages `whole` (at most WHOLE_MISSION_PASSAGES
    each, nearest to its hits first, in their order), read in one query whatever the hits
    (a constant number of queries); rendering merges neighbours into one excerpt. Each
    recalled excerpt carries its mission's header (seq, date and time) and says whose
    words it quotes, so a mission's opening is not loaded for that. A neighbour belongs to
    its hit's mission, so it is outside the window too."""
    if not ids:
        return []
    # A mission's passages are written in one statement, in order: the next one is, but
    # for a rare concurrent write, the next id (a passage is kept as a neighbour only if it
    # is its hit's next position; one that is not gives no neighbour, nothing wrong).
    wanted = Q(pk__in=sorted({*ids, *(i + 1 for i in ids)}))
    if whole:
        wanted |= Q(mission_id__in=Passage.objects.filter(pk__in=list(whole)).values("mission_id"))
    rows = _passage_rows(Passage.objects.filter(wanted))
    by_id = {p.id: p for p in rows}
    hits = [by_id[i] for i in ids if i in by_id]
    short = {(p.mission_id, p.position + 1) for p in hits if len(p.text) < RECALL_SHORT_HIT}
    have = {p.id for p in hits}
    near = hits + [p for p in rows if p.id not in have and (p.mission_id, p.position) in short]
    have |= {p.id for p in near}
    rest: list[RecalledPassage] = []
    for mission in dict.fromkeys(by_id[i].mission_id for i in whole if i in by_id):
        at = [p.position for p in near if p.mission_id == mission]
        others = [p for p in rows if p.mission_id == mission and p.id not in have]
        others.sort(key=lambda p: (min(abs(p.position - a) for a in at), p.position))
        rest += sorted(others[:WHOLE_MISSION_PASSAGES], key=lambda p: p.position)
    return near + rest


def _evidence_filter(refs: set[Ref], session: ChatSession) -> Q | None:
    """The missions summary items cite, as a filter on passages of this channel."""
    condition: Q | None = None
    for number, seq in refs:
        one = (
            Q(session_id=session.pk, seq=seq)
            if number is None
            else Q(session__number=number, seq=seq)
        )
        condition = one if condition is None else condition | one
    return condition


def _matching_item_refs(state: SummaryState, terms: set[str]) -> set[Ref]:
    """Evidence of the summary items that share at least two terms with the instruction
    (or one, when the instruction has only one)."""
    needed = 1 if len(terms) < 2 else 2
    refs: set[Ref] = set()
    for _, item in state.items():
        if len(terms & set(query_terms(item.text))) >= needed:
            refs |= {(item.session, seq) for seq in item.missions}
    return refs


def brief_load(*, mission: Mission) -> Brief | None:
    """The brief of a delegated mission or a synthesis (one or two queries); None for
    every other mission (no query)."""
    if mission.parent_id is None:
        return None
    if mission.source == MissionSource.DELEGATION:
        plan = Mission.objects.select_related("assignee").filter(pk=mission.parent_id).first()
        if plan is None:
            return None
        return Brief(
            kind="delegation",
            planner=plan.assignee.name,
            planner_role=plan.assignee.role,
            background=plan.instruction,
            expected_output=mission.expected_output,
        )
    if mission.source == MissionSource.SYNTHESIS:
        delegated = (
            Mission.objects.filter(parent_id=mission.parent_id, source=MissionSource.DELEGATION)
            .select_related("assignee")
            .order_by("id")
        )
        return Brief(
            kind="synthesis",
            results=[
                DelegateResult(
                    mission_id=m.pk,
                    employee=m.assignee.name,
                    role=m.assignee.role,
                    status=m.status,
                    seq=m.seq,
                    label=m.label,
                    url=delegate_url(m),
                    reply=m.reply,
                    error=m.error,
                )
                for m in delegated
            ],
        )
    return None


@dataclass
class _SummaryView:
    """The session's summary as the prompt reads it: the stored state (its list of
    dropped missions read as stored), the numbers the person sees on the missions it
    cites, and its record of superseded statements."""

    shown: ShownSummary
    stored: dict[str, Any]
    state: SummaryState
    dropped: set[Ref]
    labels: Labels
    superseded: dict[Ref, list[Superseded]]


def _summary_view(*, session: ChatSession, channel: Channel) -> _SummaryView:
    shown = summary_shown(session=session)
    stored = shown.shown.state if shown.shown else {}
    # The state names every folded mission it left out, with a digest each: a list that
    # grows with the session. The prompt needs only which missions those are, so they are
    # read as stored rather than validated one by one on every mission.
    state = SummaryState.model_validate({**stored, "dropped": []})
    dropped: set[Ref] = {(d.get("session"), d["mission"]) for d in stored.get("dropped", [])}
    # The summary keeps seqs as its sources; the prompt cites missions by the numbers the
    # person sees, so that "#2" in a reply means the mission the person sees as #2.
    labels = summary_labels(
        state_refs(state) | dropped | recorded_refs(state, stored.get("dropped", [])),
        channel_id=channel.pk,
        session_id=shown.shown.session_id if shown.shown else session.pk,
    )
    superseded = recorded(state, stored.get("dropped", []), labels)
    return _SummaryView(shown, stored, state, dropped, labels, superseded)


def _summary_for_prompt(view: _SummaryView, *, whole_history: bool) -> tuple[str, list[Ref]]:
    """The summary's text as the prompt shows it (the stored text is the state rendered
    with seqs: it is rendered again with the numbers the person sees), and every mission it
    cites or drops. With the session's `whole_history` in the prompt in full, the summary
    keeps only what was carried over from earlier sessions."""
    state, dropped = view.state, view.dropped
    if whole_history:
        state = SummaryState.model_validate(view.stored).carried_only()
        dropped = {(d.session, d.mission) for d in state.dropped}
    refs = sorted(state_refs(state) | dropped, key=lambda r: (r[0] or 0, r[1]))
    text = render_summary(state, view.labels) if whole_history or view.shown.text else ""
    return text, refs


def _recall_start(recent: list[Mission], window_start: int, room: int) -> int:
    """The first seq recall may not read: missions of the window that it does not show
    whole (a digest line each, or cut to fit in `room`) are recalled like missions outside
    it, for what the window leaves out (the rendering drops what it shows)."""
    return max(
        (s.seq + 1 for s in window_shares(recent, room) if s.allowed < s.full),
        default=window_start,
    )


@dataclass
class _Older:
    """This session's missions before the window, as the prompt shows them: all of them
    in full (`history`) when they fit the envelope beside the window, else the pending
    ones as digests."""

    history: list[Mission]
    pending: list[PendingMission]
    # The chars of the session's whole history when it is small enough to matter (a
    # prompt is never dearer than the history it stands for); None when it is larger
    # than any prompt.
    history_chars: int | None
    count: int


def _older_missions(
    *,
    session: ChatSession,
    shown: ShownSummary,
    recent: list[Mission],
    window_start: int,
    room: int,
) -> _Older:
    """The session's missions before the window, sized over at most as many missions as
    could fit in `room`: more than that never fits, so the cost does not grow with the
    session."""
    most = max(room // HISTORY_MIN_CHARS, 0) + 1
    # Seqs start at 1: while the window starts there, nothing of this session is older
    # than it (no history to size, nothing pending).
    all_in_window = window_start <= 1
    # Read in steps of SIZE_STEP rows, so that few statements serve every `most`.
    lengths = (
        []
        if all_in_window
        else _OLDER_LENGTHS(
            -(-most // SIZE_STEP) * SIZE_STEP, session_id=session.pk, before_seq=window_start
        )[:most]
    )
    count, chars = len(lengths), sum(row["chars"] or 0 for row in lengths)
    history_chars: int | None = None
    if count < most:
        history_chars = chars + sum(len(m.instruction) + len(m.reply) for m in recent)
    fits = 0 < count < most and chars + HISTORY_MIN_CHARS * count <= room
    if fits and shown.carried_from_number is None:
        history = _HISTORY(session_id=session.pk, before_seq=window_start)
        return _Older(history=history, pending=[], history_chars=history_chars, count=count)
    if shown.carried_from_number is not None:
        rows = _PENDING(session_id=shown.pending_session_id, after_seq=shown.pending_after_seq)
    elif all_in_window:
        rows = []
    else:
        rows = _PENDING_BEFORE(
            session_id=shown.pending_session_id,
            after_seq=shown.pending_after_seq,
            before_seq=window_start,
        )
    pending = [
        PendingMission(
            id=row["id"],
            seq=row["seq"],
            label=row["label"],
            at=row["at"],
            instruction=row["head"],
            reply=row["tail"],
        )
        for row in rows
    ]
    return _Older(history=[], pending=pending, history_chars=history_chars, count=count)


def _recall_load(
    *,
    instruction: str,
    terms: list[str],
    state: SummaryState,
    session: ChatSession,
    channel: Channel,
    history: bool,
    recall_start: int,
    files: bool = False,
) -> tuple[list[RecalledPassage], list[RecalledPassage], dict[int, float]]:
    """The passages recall may show, as (pinned, ranked, the best by meaning): first those
    of missions the instruction names (#2) and those the summary items matching it cite,
    then the best-ranked ones (by terms and, with the meaning layer, by meaning: the two
    rankings fused), each with its neighbours (one query for all)."""
    # In a channel's first session nothing at all is outside a window that starts at the
    # session's start: nothing to recall, unless a mission in view was given `files`.
    if recall_start <= 1 and session.number <= 1 and not files:
        return [], [], {}

    def candidates() -> QuerySet[Passage]:
        return _recall_passages(
            history, channel_id=channel.pk, session_id=session.pk, window_start=recall_start
        )

    pinned_ids: list[int] = []
    # "#2" is the mission the person sees as #2 (its label), not the session's seq 2.
    named = set(_MISSION_REF.findall(instruction))
    if named and not history:
        pinned_ids += list(
            candidates()
            .filter(session_id=session.pk, mission__label__in=sorted(named))
            .order_by("seq", "position")
            .values_list("id", flat=True)[:EVIDENCE_PASSAGES]
        )
    ranked_ids: list[int] = []
    if terms:
        evidence = _evidence_filter(_matching_item_refs(state, set(terms)), session)
        if evidence is not None:
            pinned_ids += rank_passages(
                candidates=candidates().filter(evidence),
                text=instruction,
                limit=EVIDENCE_PASSAGES,
            )
        recall = _RECALL(
            history, channel_id=channel.pk, session_id=session.pk, window_start=recall_start
        )
        ranked_ids = rank_passages(
            candidates=Candidates.of(recall),
            text=instruction,
            limit=RECALL_PASSAGES,
            channel_id=channel.pk,
        )
    by_meaning: dict[int, float] = {}
    if meaning.enabled() and instruction.strip():
        hits = dense.rank_passages(
            channel_id=channel.pk,
            question=meaning.embed_query(instruction),
            limit=RECALL_PASSAGES,
            window_session=session.pk,
            window_start=recall_start,
            other_sessions_only=history,
        )
        ranked_ids = dense.fuse(ranked_ids, [i for i, _ in hits], limit=RECALL_PASSAGES)
        by_meaning = dict(hits[:MEANING_SHOWN])
    pinned_ids = list(dict.fromkeys(pinned_ids))
    loaded = _with_neighbours(
        list(dict.fromkeys(pinned_ids + ranked_ids)),
        whole=ranked_ids[:WHOLE_MISSIONS] if asked_values(instruction) else [],
    )
    pinned_set = set(pinned_ids)
    return (
        [p for p in loaded if p.id in pinned_set],
        [p for p in loaded if p.id not in pinned_set],
        by_meaning,
    )


def _memory_load(
    *, office: Office, employee: Employee, channel: Channel, instruction: str, terms: list[str]
) -> tuple[list[MemoryItem], list[MemoryItem]]:
    """Long-term memory in the mission's scope, as (standing, ranked for the instruction)."""
    pinned = _STANDING(office_id=office.pk, employee_id=employee.pk, channel_id=channel.pk)
    if meaning.enabled() and instruction.strip():
        return pinned, _memory_by_meaning(
            office=office, employee=employee, channel=channel, instruction=instruction, terms=terms
        )
    if not terms:
        # Nothing to rank by (an empty or stop-word instruction): the freshest items.
        in_scope = memory_in_scope(
            office_id=office.pk, employee_id=employee.pk, channel_id=channel.pk
        )
        fresh = memory_rankable(in_scope).order_by("-updated_at", "-id")[:MEMORY_CANDIDATES]
        return pinned, list(_with_source(fresh))
    rankable = _RANKABLE_MEMORY(office_id=office.pk, employee_id=employee.pk, channel_id=channel.pk)
    ids = rank_memory_items(
        candidates=Candidates.of(rankable), text=instruction, limit=MEMORY_CANDIDATES
    )
    if not ids:
        return pinned, []
    items = {i.pk: i for i in _with_source(MemoryItem.objects.filter(pk__in=ids))}
    return pinned, [items[i] for i in ids if i in items]


def _memory_by_meaning(
    *, office: Office, employee: Employee, channel: Channel, instruction: str, terms: list[str]
) -> list[MemoryItem]:
    """The items in the mission's scope ranked for the instruction by its terms and by
    meaning, the two rankings fused; those no ranking holds are not shown."""
    by_terms: list[int] = []
    if terms:
        rankable = _RANKABLE_MEMORY(
            office_id=office.pk, employee_id=employee.pk, channel_id=channel.pk
        )
        by_terms = rank_memory_items(
            candidates=Candidates.of(rankable), text=instruction, limit=MEMORY_CANDIDATES
        )
    hits = dense.rank_memory(
        office_id=office.pk,
        question=meaning.embed_query(instruction),
        limit=MEMORY_MEANING_CANDIDATES,
    )
    ids = dense.fuse(by_terms, [i for i, _ in hits], limit=MEMORY_MEANING_CANDIDATES)
    if not ids:
        return []
    # Of the office's items the meaning ranking brings, those of the mission's scope that
    # are not standing (the system section shows those).
    in_scope = memory_rankable(
        memory_in_scope(office_id=office.pk, employee_id=employee.pk, channel_id=channel.pk)
    )
    items = {i.pk: i for i in _with_source(in_scope.filter(pk__in=ids))}
    return [items[i] for i in ids if i in items][:MEMORY_CANDIDATES]


def _with_source(items: QuerySet[MemoryItem]) -> QuerySet[MemoryItem]:
    """Items with the session and seq of the mission each was taken from (one join, no
    query more): `source_session_id`, `source_seq`, None for an item no mission gave."""
    return items.annotate(
        source_session_id=F("source_mission__session_id"), source_seq=F("source_mission__seq")
    )


def _memory_sources(items: list[MemoryItem], session: ChatSession) -> dict[int, int]:
    """ContextInputs.memory_sources: the items taken from a mission of `session`."""
    return {
        item.pk: getattr(item, "source_seq", None) or 0
        for item in items
        if getattr(item, "source_session_id", None) == session.pk
    }


# The person's instructions read for later values (`_later_instructions`): the newest this
# many missions before the window, each from its first chars (their own words come first;
# a long paste after them states nothing they decided).
LATER_MISSIONS = 120
LATER_CHARS = 2_000


def _later_instructions(
    *, session: ChatSession, cited: list[int], before_seq: int, skip: set[int]
) -> list[tuple[int, str, str]]:
    """The person's instructions of this session after the oldest mission the prompt cites
    (`cited`: the seqs recall quotes and the summary points to) and before `before_seq`
    (the window), but those in `skip` (read already): one query whenever the session is
    longer than the window, so that a prompt costs as many queries at 10 missions as at
    500 (it reads nothing when the prompt cites nothing older than the window)."""
    if before_seq <= 1:
        return []
    first = min((seq for seq in cited if seq < before_seq), default=before_seq - 1)
    rows = (
        Mission.objects.filter(session_id=session.pk, seq__gt=first, seq__lt=before_seq)
        .exclude(instruction_author=InstructionAuthor.OFFICE)
        .annotate(head=Substr("instruction", 1, LATER_CHARS))
        .order_by("-seq")
        .values_list("seq", "label", "head")[:LATER_MISSIONS]
    )
    return [(seq, label or str(seq), head) for seq, label, head in rows if seq not in skip]


def context_load(
    *,
    session: ChatSession,
    channel: Channel,
    employee: Employee,
    instruction: str,
    seq: int,
    at: datetime,
    label: str = "",
) -> ContextInputs:
    """What the prompt of mission `seq` (shown to the person as `label`; blank: its seq)
    needs."""
    office = channel.office
    budget = channel_budget(channel)
    view = _summary_view(session=session, channel=channel)
    recent = window_missions(session_id=session.pk, before_seq=seq)
    window_start = min((m.seq for m in recent), default=seq)
    # The window's room as the renderer will give it (the summary as it is): recall reads
    # up to the last mission of the window it does not show whole.
    expected = budget.window_expected(
        instruction_chars=len(instruction), summary_chars=len(view.shown.text)
    )
    recall_start = _recall_start(recent, window_start, expected)
    window_chars = min(sum(len(m.instruction) + len(m.reply) for m in recent), budget.detail)
    older = _older_missions(
        session=session,
        shown=view.shown,
        recent=recent,
        window_start=window_start,
        room=budget.history_room(window_chars=window_chars, instruction_chars=len(instruction)),
    )
    terms = query_terms(instruction)
    pinned_passages, recalled, by_meaning = _recall_load(
        instruction=instruction,
        terms=terms,
        state=view.state,
        session=session,
        channel=channel,
        history=bool(older.history),
        recall_start=recall_start,
        files=any(m.attachment_count for m in [*recent, *older.history]),
    )
    pinned, ranked = _memory_load(
        office=office, employee=employee, channel=channel, instruction=instruction, terms=terms
    )
    colleagues = [e for e in _ACTIVE_EMPLOYEES(office_id=office.pk) if e.pk != employee.pk]
    summary_text, refs = _summary_for_prompt(view, whole_history=bool(older.history))
    memory_sources = _memory_sources(ranked, session)
    return ContextInputs(
        office=office,
        employee=employee,
        colleagues=colleagues,
        pinned=pinned,
        session_number=session.number,
        summary_text=summary_text,
        summary_labels=view.labels,
        summary_refs=refs,
        carried_from=view.shown.carried_from_number,
        pending=older.pending,
        recent=recent,
        history=older.history,
        budget=budget,
        ranked_memory=ranked,
        pinned_passages=pinned_passages,
        recalled=recalled,
        instruction=instruction,
        seq=seq,
        label=label,
        at=at,
        terms=terms,
        history_chars=older.history_chars,
        history_count=older.count + len(recent),
        superseded=view.superseded,
        meaning=by_meaning,
        later_instructions=_later_instructions(
            session=session,
            cited=[
                p.seq for p in [*pinned_passages, *recalled] if p.session_number == session.number
            ]
            + [seq for ref_session, seq in refs if ref_session is None]
            + list(memory_sources.values()),
            before_seq=window_start,
            skip={m.seq for m in older.pending} | {m.seq for m in older.history},
        ),
        memory_sources=memory_sources,
    )
