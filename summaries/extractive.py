"""The deterministic, extractive fold: what the offline provider uses, and the fallback
when a model's fold fails verification twice. It keeps the sentences that carry
decisions, constraints, numbers, names and dates, in the original words, and compresses
to the budget by evicting what matters least first. It never loses a mission: whatever
it does not keep is listed as dropped with the reason."""

import re

from language.statements import normalize, reverses, same_topic
from summaries.render import render_summary
from summaries.schemas import Decision, DroppedMission, FoldMission, SummaryItem, SummaryState

ITEM_CHARS = 220
KEEP_RECENT_QUESTIONS = 4
KEEP_RECENT_ACTIONS = 4

_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")
_DECISION = re.compile(
    r"\b(decid\w*|agreed|go(?:ing)? with|chose|chosen|approved?|let'?s|finali[sz]ed?|"
    r"settled on|confirmed|switch(?:ed)? to|we will use|we'll use)\b",
    re.IGNORECASE,
)
_CONSTRAINT = re.compile(
    r"\b(must|never|always|only|no more than|at most|at least|deadline|due (?:on|by)|budget|"
    r"prefer\w*|don'?t|do not|should not|shouldn'?t|required?|limit\w*|target customers?|"
    r"audience)\b",
    re.IGNORECASE,
)
_ACTION = re.compile(r"^(?:next(?: step)?s?|to-?do|action(?: item)?s?)\b|\bnext step", re.I)
_VALUE = re.compile(
    r"\d|[$€£₩¥%]|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
    r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|tomorrow|next week)\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*")


def _sentences(text: str) -> list[str]:
    return [s.strip(" -*•\t") for s in _SENTENCE.split(text) if len(s.strip()) >= 12]


def _clip(text: str, limit: int = ITEM_CHARS) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut + "…"


def _classify(sentence: str, *, from_reply: bool) -> str | None:
    if _DECISION.search(sentence):
        return "decisions"
    if _CONSTRAINT.search(sentence):
        return "constraints"
    if from_reply and sentence.endswith("?"):
        return "open_questions"
    if _ACTION.search(sentence):
        return "next_actions"
    if sentence.endswith("?"):
        return None
    if _VALUE.search(sentence) or len(_NAME.findall(sentence)) >= 1:
        return "facts"
    return None


def add_item(state: SummaryState, section: str, text: str, seq: int, session: int | None) -> None:
    items: list[SummaryItem] = getattr(state, section)
    key = normalize(text)
    for item in items:
        if normalize(item.text) == key and item.session == session:
            if seq not in item.missions:
                item.missions.append(seq)
            return
    if section == "decisions":
        for old in state.decisions:
            if not old.superseded and reverses(text) and same_topic(text, old.text):
                old.superseded = True
                old.superseded_by = [*old.superseded_by, seq]
        state.decisions.append(Decision(text=text, missions=[seq], session=session))
        return
    if section in ("facts", "constraints"):
        # A newer value for the same subject replaces the older statement; the older
        # mission stays listed as evidence of the subject's history.
        for existing in items:
            if existing.session == session and same_topic(text, existing.text) and reverses(text):
                existing.text = text
                existing.missions = [*existing.missions, seq]
                return
    items.append(SummaryItem(text=text, missions=[seq], session=session))


def extractive_fold(
    *,
    previous: SummaryState,
    missions: list[FoldMission],
    budget_chars: int,
    session: int | None = None,
) -> SummaryState:
    """Merge the missions into a copy of the previous state, within the budget.

    `session` is the number of the session the missions belong to when they come from an
    earlier one (carry-over), None for this session's own."""
    state = previous.model_copy(deep=True)
    for mission in missions:
        if not state.goal:
            first = _sentences(mission.instruction)[:1]
            if first:
                state.goal = _clip(first[0], 200)
                state.goal_missions = [mission.seq] if session is None else []
        kept = 0
        for text, from_reply in ((mission.instruction, False), (mission.reply, True)):
            for sentence in _sentences(text):
                section = _classify(sentence, from_reply=from_reply)
                if section is not None:
                    add_item(state, section, _clip(sentence), mission.seq, session)
                    kept += 1
        if not kept and not (session is None and mission.seq in state.goal_missions):
            state.dropped.append(
                DroppedMission(
                    mission=mission.seq,
                    session=session,
                    reason="no decision, constraint, number, name or date to keep; original kept",
                )
            )
    compress_to_budget(state, budget_chars)
    return state


def _evict(state: SummaryState, section: str, index: int) -> None:
    """Drop an item to make room, recording each of its missions in `dropped` (once), so
    the verifier and the replay check see it was let go on purpose, not lost."""
    items: list[SummaryItem] = getattr(state, section)
    item = items.pop(index)
    already = {(d.session, d.mission) for d in state.dropped}
    for seq in item.missions:
        if (item.session, seq) not in already:
            state.dropped.append(
                DroppedMission(
                    mission=seq,
                    session=item.session,
                    reason="compressed out of the summary budget; original kept for recall",
                )
            )


def compress_to_budget(state: SummaryState, budget_chars: int) -> None:
    """Evict, in this order, until the rendered summary fits: stale questions and
    actions, older facts, superseded decisions, older constraints, the oldest live
    decisions. Each eviction is recorded in `dropped`, so coverage holds."""

    def fits() -> bool:
        return len(render_summary(state)) <= budget_chars

    if fits():
        return
    while len(state.open_questions) > KEEP_RECENT_QUESTIONS and not fits():
        _evict(state, "open_questions", 0)
    while len(state.next_actions) > KEEP_RECENT_ACTIONS and not fits():
        _evict(state, "next_actions", 0)
    for section in ("facts", "open_questions", "next_actions"):
        while getattr(state, section) and not fits():
            _evict(state, section, 0)
    while not fits():
        superseded = [i for i, d in enumerate(state.decisions) if d.superseded]
        if not superseded:
            break
        _evict(state, "decisions", superseded[0])
    while state.constraints and not fits():
        _evict(state, "constraints", 0)
    while state.decisions and not fits():
        _evict(state, "decisions", 0)
    if not fits():
        state.goal = _clip(state.goal, max(20, budget_chars // 4))
