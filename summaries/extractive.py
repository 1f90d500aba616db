"""The deterministic, extractive fold: what the offline provider uses, and the fallback
when a model's fold fails verification twice.

It keeps sentences in their original words and decides by salience, not age, what stays
when the budget is tight: the person's words over the assistant's, never the provider's
boilerplate or its echoes of the instruction and the summary; decisions and rules over
facts; numbers with units, money, dates, names and words rare in the conversation over
plain prose. Near-duplicate sentences collapse into one item; a newer statement about the
same subject (Korean or English, language/statements.py) retires the older one. It never
loses a mission: a mission no item cites is listed as dropped, with a one-line digest."""

import re
from collections import Counter
from dataclasses import dataclass

from language.material import without_material
from language.rules import states_a_rule
from language.statements import (
    conflicts,
    content_words,
    is_question,
    names_in,
    normalize,
    numbers_in,
    rarity,
    split_sentences,
    subject_of,
)
from language.supersession import supersedes
from language.values import values_in
from summaries.render import DIGEST_PREFIX, MATERIAL_PREFIX, Ref, item_refs, render_summary
from summaries.schemas import Decision, DroppedMission, FoldMission, SummaryItem, SummaryState
from summaries.verifier import clashes

ITEM_CHARS = 220
# A mission that leaves nothing durable is still named, by a digest item in the facts:
# the least salient of all, the first to go (into its `dropped` reason) when room is short.
# How a digest names a mission the office briefed (a synthesis, a delegated part).
OFFICE_BRIEF = "Office's brief → "
GOAL_CHARS = 200
DIGEST_CHARS = 90
# Sentences kept per mission at most: the rest stays in the original, for recall.
KEEP_PER_MISSION = 4
# Missions one item cites at most; a template repeated more often names its latest ones.
MAX_CITES = 6
# What a line of pasted material weighs less than the person's own words, within its
# mission: the person's sentences are kept first.
MATERIAL_PENALTY = 10.0
# Where a pasted line ranks when the summary is over its budget: below every item of the
# person's (their rules and decisions first of all), above the superseded decisions and
# the digests, which go first.
MATERIAL_SCORE = -5.0

SECTIONS = ("decisions", "constraints", "facts", "open_questions", "next_actions")
SECTION_WEIGHT = {
    "decisions": 4.0,
    "constraints": 3.0,
    "facts": 1.5,
    "next_actions": 1.0,
    "open_questions": 0.5,
}

_DECISION = re.compile(
    r"\b(?:decid\w*|agreed|go(?:ing)? with|chose|chosen|approved?|let'?s|finali[sz]ed?|"
    r"settled on|confirmed|switch(?:ed|ing)? to|instead of|we will use|we'll use|"
    r"drop(?:ped|ping)?)\b"
    r"|정했|정하자|정함|하기로|확정|대신|취소|합의|채택|승인|(?:으로|로) 가자|(?:으로|로) 갑시다"
    r"|변경(?!\s?(?:사항|내역|이력|요청|점))|결정(?!\s?(?:사항|내역|들))",
    re.IGNORECASE,
)
_CONSTRAINT = re.compile(
    r"\b(?:must|never|always|only|no more than|at most|at least|deadline|due (?:on|by)|"
    r"budget|prefer\w*|don'?t|do not|should not|shouldn'?t|required?|limit\w*|"
    r"target customers?|audience)\b"
    r"|항상|절대|반드시|무조건|금지|하지 ?마|말 것|까지|예산|마감|기한|최대|최소|이하|이내|"
    r"선호|필수|타깃|타겟|대상 고객|원칙|규칙",
    re.IGNORECASE,
)
_ACTION = re.compile(
    r"^(?:next(?: step)?s?|to-?do|action(?: item)?s?)\b|\bnext step|다음 단계|할 일|해야 할 일",
    re.IGNORECASE,
)
# A number is read from its first digit, and is at most 31 characters long: from each
# digit of a long run, the pattern would read the rest of the run each time (issue 42).
_MONEY = re.compile(
    r"[$€£₩¥]\s?\d|(?<!\d)(?<!\d[,.])\d[\d,.]{0,30}\s?(?:k|m|만|천|억)?\s?(?:달러|원|usd\b|eur\b|krw\b|gbp\b|"
    r"dollars?\b|euros?\b|won\b)",
    re.IGNORECASE,
)
_PERCENT = re.compile(
    r"(?<!\d)(?<!\d[,.])\d[\d.,]{0,30}\s?(?:%|percent\b|퍼센트|프로\b)", re.IGNORECASE
)
_DATE = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.? \d{1,2}\b"
    r"|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}\b|\b\d{1,2}:\d{2}\b"
    r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next week)\b"
    r"|\d{1,2}월\s?\d{1,2}일|\d{1,2}월|[월화수목금토일]요일|내일|모레|다음 주|오전 \d|오후 \d",
    re.IGNORECASE,
)
_QUANTITY = re.compile(
    r"(?<!\d)(?<!\d[,.])\d[\d,.]{0,30}\s?(?:명|개|건|회|일|주|개월|달|년|시간|분|대|층|장|쪽|페이지|곳|번|배)"
    r"|(?<!\d)(?<!\d[,.])\d[\d,.]{0,30}\s?(?:k|m|x)?\s+(?!(?:of|and|or|the|to|in|on|at|for|is|are|by)\b)[a-z][a-z-]{2,}",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"“[^”]{3,80}”|\"[^\"]{3,80}\"|‘[^’]{3,80}’|「[^」]{2,80}」")
_REQUEST_KO = re.compile(
    r"(?:줘|주세요|줄래|주실래요|해라|하세요|봐|봐요|부탁(?:해|해요|드려요|합니다)?|시오)[.!~]*$"
)
_REQUEST_EN = re.compile(
    r"^(?:please\s+|can you\s+|could you\s+)?(?:draft|write|prepare|send|check|summari[sz]e|"
    r"make|create|update|review|find|list|tell|give|show|add|remove|fix|plan|schedule|book|"
    r"call|email|ask|translate|compare|research|look|help|outline|collect|gather|read)\b",
    re.IGNORECASE,
)
_STATEMENT_KO = re.compile(r"(?:다|요|야|임|음|이고|이며|죠)[.!~]*$|[가-힣]$")
_COPULA = re.compile(r"\b(?:is|are|was|were|will be|remains|stays|has|have)\b", re.IGNORECASE)

# What a provider says around its answer, not in it. The offline provider composes its
# whole reply from echoes (of the instruction, the summary, memory and recall) and a
# disclaimer (llm/offline.py): none of it is something the person established.
_OFFLINE_REPLIES = ("(Offline demo reply", "(오프라인 데모 답변")
# An instruction that asks for copy to be written: the reply is the draft, not a statement
# of how things are, and none of it is kept (the person's own words are).
_DRAFT_REQUEST = re.compile(
    r"\b(?:draft|write|compose|rewrite|brainstorm|come up with|suggest)\b[^.?!\n]{0,60}?"
    r"\b(?:copy|caption|captions|tagline|taglines|headline|headlines|post|posts|slogan|"
    r"slogans|ad|ads|email|e-mail|newsletter|blurb|description|text|lines?|options?)\b"
    r"|초안|카피|문구|캡션|슬로건|헤드라인|광고\s?문|(?:글|게시물|포스트|메일)\s?(?:을|를)?\s?"
    r"(?:써|작성|만들어)",
    re.IGNORECASE,
)
# A stated goal ("Our goal is …", "목표는 …"): the summary's goal follows the latest one.
_GOAL = re.compile(
    r"\b(?:our|the|my)\s+(?:main\s+|overall\s+|big\s+|new\s+)?(?:goal|aim|objective)\b"
    r"|\bwe(?:'re| are)\s+aiming\s+(?:to|for)\b|목표는|목표가|목표를|목표:|목표로\s?(?:해|하|삼)",
    re.IGNORECASE,
)
_ECHO_LEADS = re.compile(
    r"^(?:on it:|from our earlier work|i also remember|looking back|here(?:'s| is| are)\b|"
    r"sure\b|certainly\b|of course\b|absolutely\b|got it\b|okay\b|ok\b|noted\b|understood\b|"
    r"will do\b|happy to help|great question|let me know|i hope|hope this helps|thanks\b|"
    r"thank you\b|알겠습니다|네[,. ]|좋아요|물론|감사합니다|확인했습니다)",
    re.IGNORECASE,
)
_SUMMARY_POINTER = re.compile(r"\[(?:s\d+)?#\d+|\bmission #\d+[a-z]{0,2}\b")


@dataclass
class Candidate:
    section: str
    text: str
    score: float
    position: int
    from_reply: bool
    # A line of the material the person pasted (language.material): kept as evidence.
    from_material: bool = False


def _is_material(text: str) -> bool:
    return text.startswith(MATERIAL_PREFIX)


def _clip(text: str, limit: int = ITEM_CHARS) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut + "…"


def _sentences(text: str) -> list[str]:
    kept = []
    for sentence in split_sentences(text):
        sentence = sentence.strip(" -*•\t")
        hangul = bool(re.search(r"[가-힣]", sentence))
        if len(sentence) >= 12 or (hangul and len(sentence) >= 5):
            kept.append(sentence)
    return kept


def mission_digest(mission: FoldMission) -> str:
    """One line saying what a mission was: the person's words, clipped (the office's
    brief, said to be the office's)."""
    if mission.instruction_is_generated:
        answer = " ".join(reply_sentences(mission.instruction, mission.reply))
        brief = " ".join(mission.instruction.split())
        return _clip(f"{OFFICE_BRIEF}{answer or brief}", DIGEST_CHARS)
    text = " ".join(mission.instruction.split())
    if len(text) < 40:
        answer = " ".join(reply_sentences(mission.instruction, mission.reply))
        if answer:
            text = f"{text} → {answer}" if text else answer
    return _clip(text, DIGEST_CHARS) or f"mission #{mission.seq}"


def _values(sentence: str) -> set[str]:
    return numbers_in(sentence) | names_in(sentence)


def reply_sentences(instruction: str, reply: str) -> list[str]:
    """What the reply adds to the instruction: without the provider's boilerplate, its
    echoes of the instruction and of the summary, and restatements of the person's values."""
    if any(marker in reply for marker in _OFFLINE_REPLIES):
        return []
    if _DRAFT_REQUEST.search(instruction):
        return [s for s in _sentences(reply) if is_question(s)]
    asked = _values(instruction)
    asked_words = set(content_words(instruction))
    kept = []
    for sentence in _sentences(reply):
        values = _values(sentence)
        if _SUMMARY_POINTER.search(sentence) or (_ECHO_LEADS.match(sentence) and not values):
            continue
        words = content_words(sentence)
        if words and len([w for w in words if w in asked_words]) / len(words) >= 0.8:
            continue  # the instruction said back
        if not is_question(sentence) and values <= asked:
            continue  # nothing the person had not said
        kept.append(sentence)
    return kept


def _states_something(sentence: str) -> bool:
    """Whether a sentence states how things are ("X is Y", "X는 Y다") rather than asks
    for something."""
    if re.search(r"[가-힣]", sentence):
        return (
            bool(subject_of(sentence))
            and not _REQUEST_KO.search(sentence)
            and bool(_STATEMENT_KO.search(sentence))
        )
    return bool(_COPULA.search(sentence)) and bool(subject_of(sentence))


def classify(sentence: str, *, from_reply: bool) -> str | None:
    """Which section a sentence belongs to, or None when it is not worth keeping."""
    if is_question(sentence):
        return "open_questions" if from_reply else None
    if _DECISION.search(sentence):
        return "decisions"
    if _CONSTRAINT.search(sentence) or states_a_rule(sentence):
        return "constraints"
    if _ACTION.search(sentence):
        return "next_actions"
    # A request is a task, not a fact, unless it carries money, a date or a name.
    request = bool(_REQUEST_KO.search(sentence) or _REQUEST_EN.match(sentence))
    if value_weight(sentence) > (2.0 if request else 0.5):
        return "facts"
    if not from_reply and not request and _states_something(sentence):
        return "facts"
    return None


def value_weight(text: str) -> float:
    """How much a text carries that a summary must not lose: money, dates, quantities,
    names, quoted wording."""
    weight = 0.0
    if _MONEY.search(text):
        weight += 3.0
    if _PERCENT.search(text):
        weight += 2.0
    if _DATE.search(text):
        weight += 2.5
    if _QUANTITY.search(text):
        weight += 1.5
    if _QUOTED.search(text):
        weight += 1.5
    # A full date weighs as a month name and a day did when they were counted as names.
    dates = sum(1 for value in values_in(text) if value.kind == "date")
    weight += 1.5 * min(len(names_in(text)) + 2 * dates, 3)
    if weight == 0.0 and numbers_in(text):
        weight = 0.5
    return weight


class Salience:
    """Scores statements against a collection (the summary and the missions being
    folded), so that words rare in the conversation count."""

    def __init__(self, texts: list[str]) -> None:
        self.documents = len(texts)
        self.frequency: Counter[str] = Counter()
        for text in texts:
            self.frequency.update(set(content_words(text)))

    def score(self, text: str, section: str) -> float:
        words = [w for w in content_words(text) if not w.isdigit() and len(w) > 1]
        return (
            SECTION_WEIGHT[section]
            + value_weight(text)
            + 0.8 * rarity(words, self.frequency, max(self.documents, 1))
        )


def _shape(text: str) -> set[str]:
    """The words of a sentence with its numbers masked: template sentences share it."""
    return {"#" if any(c.isdigit() for c in w) else w for w in content_words(text)}


def _near_duplicate(a: str, b: str) -> bool:
    shape_a, shape_b = _shape(a), _shape(b)
    if len(shape_a) < 3 or len(shape_b) < 3:
        return False
    return len(shape_a & shape_b) / len(shape_a | shape_b) >= 0.8


def _cited(state: SummaryState, ref: Ref) -> bool:
    """Whether an item cites the mission. The goal does not count: a merge of block
    folds keeps one goal, and the missions of the others must stay covered."""
    return any(ref in item_refs(item) for _, item in state.items())


def _drop(state: SummaryState, ref: Ref, reason: str) -> None:
    if any((d.session, d.mission) == ref for d in state.dropped):
        return
    state.dropped.append(DroppedMission(mission=ref[1], session=ref[0], reason=reason))


def _is_digest(item: SummaryItem) -> bool:
    return item.text.startswith(DIGEST_PREFIX)


def _digest_of(text: str) -> str:
    return _clip(text.removeprefix(DIGEST_PREFIX), DIGEST_CHARS)


def _cite(state: SummaryState, item: SummaryItem, seq: int) -> None:
    if seq not in item.missions:
        item.missions.append(seq)
    while len(item.missions) > MAX_CITES:
        oldest = item.missions.pop(0)
        if not _cited(state, (item.session, oldest)):
            _drop(
                state,
                (item.session, oldest),
                f"near-duplicate of #{item.missions[-1]}; digest: {_digest_of(item.text)}",
            )


def _reword(state: SummaryState, item: SummaryItem, text: str, seq: int) -> None:
    """Give an item a newer mission's wording. The words being replaced are the newest
    cited mission's own: they stay in `dropped` as its digest (the mission stays cited)."""
    if item.missions and normalize(item.text) != normalize(text):
        _drop(
            state,
            (item.session, item.missions[-1]),
            f"reworded by #{seq}; digest: {_digest_of(item.text)}",
        )
    item.text = text
    _cite(state, item, seq)


def _retire(state: SummaryState, section: str, item: SummaryItem, seq: int) -> None:
    """Take out a fact or constraint that a newer statement replaces."""
    items: list[SummaryItem] = getattr(state, section)
    items[:] = [i for i in items if i is not item]
    for old in item.missions:
        if not _cited(state, (item.session, old)):
            _drop(
                state,
                (item.session, old),
                f"superseded by #{seq}; digest: {_digest_of(item.text)}",
            )


def _contradict(new: str, old: str) -> bool:
    return supersedes(new, old) or conflicts(old, new)


def _same_mission(item: SummaryItem, seq: int, session: int | None) -> bool:
    """Whether an item stands only on the mission being merged: a mission never
    supersedes its own words (two sentences of one mission are two things it says)."""
    return item.session == session and set(item.missions) == {seq}


def add_item(
    state: SummaryState, section: str, text: str, seq: int, session: int | None
) -> SummaryItem:
    """Merge one statement into the state: a repeat cites its mission again, a near-
    duplicate replaces the older wording, a decision supersedes the live decisions (and
    retires the facts) it contradicts, a fact replaces the fact it updates."""
    items: list[SummaryItem] = getattr(state, section)
    key = normalize(text)
    for item in items:
        if isinstance(item, Decision) and item.superseded:
            continue
        if item.session == session and normalize(item.text) == key:
            _cite(state, item, seq)
            return item
    digest = text.startswith(DIGEST_PREFIX)
    if _is_material(text):
        # Someone else's words: they change nothing the person said; a repeat collapses.
        for item in items:
            if item.session == session and _near_duplicate(text, item.text):
                _reword(state, item, text, seq)
                return item
        new_item = SummaryItem(text=text, missions=[seq], session=session)
        items.append(new_item)
        return new_item
    if section == "decisions":
        for old in state.decisions:
            if _same_mission(old, seq, session):
                continue
            if not old.superseded and (_contradict(text, old.text) or normalize(old.text) == key):
                old.superseded = True
                old.superseded_by = [*old.superseded_by, seq]
        for other in ("facts", "constraints"):
            for item in list(getattr(state, other)):
                if _same_mission(item, seq, session):
                    continue
                if not _is_digest(item) and _contradict(text, item.text):
                    _retire(state, other, item, seq)
        decision = Decision(text=text, missions=[seq], session=session)
        state.decisions.append(decision)
        return decision
    if section in ("facts", "constraints") and not digest:
        # A reversal retires the old value whatever section holds it: a constraint can
        # change a fact or a decision ("예산은 이제 100만원", after "예산은 80만원으로 결정").
        other = "constraints" if section == "facts" else "facts"
        for existing in list(getattr(state, other)):
            if _same_mission(existing, seq, session):
                continue
            if not _is_digest(existing) and _contradict(text, existing.text):
                _retire(state, other, existing, seq)
        for old in state.decisions:
            if _same_mission(old, seq, session):
                continue
            if not old.superseded and _contradict(text, old.text):
                old.superseded = True
                old.superseded_by = [*old.superseded_by, seq]
        # A digest says that something was asked, not how things are: it neither
        # replaces nor is replaced by a statement, it only collapses with its kind.
        for existing in list(items):
            if _same_mission(existing, seq, session):
                continue
            if not _is_digest(existing) and supersedes(text, existing.text):
                if existing.session == session:
                    # The older mission stays cited: evidence of the subject's history.
                    _reword(state, existing, text, seq)
                    return existing
                _retire(state, section, existing, seq)
    for item in items:
        if (
            item.session == session
            and _is_digest(item) == digest
            and _near_duplicate(text, item.text)
        ):
            _reword(state, item, text, seq)
            return item
    new = SummaryItem(text=text, missions=[seq], session=session)
    items.append(new)
    return new


def _replaces_a_live_item(text: str, state: SummaryState) -> bool:
    for _, item in state.items():
        if isinstance(item, Decision) and item.superseded:
            continue
        if supersedes(text, item.text.removeprefix(DIGEST_PREFIX)):
            return True
    return bool(state.goal) and supersedes(text, state.goal)


def _candidates(mission: FoldMission, state: SummaryState, salience: Salience) -> list[Candidate]:
    """The sentences of a mission worth keeping, best first: the person's over the reply's."""
    found: list[Candidate] = []
    # The office's own brief is not the person's words: only its reply can be kept.
    own, material = ("", "") if mission.instruction_is_generated else _voices(mission)
    sources = [(own, False)] if own else []
    sources.append(("\n".join(reply_sentences(mission.instruction, mission.reply)), True))
    position = 0
    for text, from_reply in sources:
        for sentence in _sentences(text):
            position += 1
            section = classify(sentence, from_reply=from_reply)
            clipped = _clip(sentence)
            if section is None and not from_reply and _replaces_a_live_item(clipped, state):
                # "런칭 5/9로 밀렸대요": no marker of deciding, but it changes a value the
                # summary holds; kept, it retires the old one.
                section = "facts"
            if section is None:
                continue
            if section in ("facts", "constraints") and any(
                not d.superseded and supersedes(clipped, d.text) for d in state.decisions
            ):
                section = "decisions"  # it changes something decided: it is a decision
            score = salience.score(clipped, section) - (1.5 if from_reply else 0.0)
            found.append(Candidate(section, clipped, score, position, from_reply))
    for sentence in _sentences(material):
        # Evidence of what someone else wrote: a fact at most, and after the person's.
        position += 1
        if is_question(sentence) or classify(sentence, from_reply=False) is None:
            continue
        clipped = MATERIAL_PREFIX + _clip(sentence, ITEM_CHARS - len(MATERIAL_PREFIX))
        score = salience.score(clipped, "facts") - MATERIAL_PENALTY
        found.append(Candidate("facts", clipped, score, position, False, from_material=True))
    found.sort(key=lambda c: -c.score)
    return sorted(found[:KEEP_PER_MISSION], key=lambda c: c.position)


def _voices(mission: FoldMission) -> tuple[str, str]:
    """The person's own words of a mission's instruction and the material in it."""
    return without_material(mission.instruction)


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
    salience = Salience(
        [item.text for _, item in state.items()]
        + [s for m in missions for s in _sentences(f"{m.instruction}\n{m.reply}")]
    )
    digests: dict[Ref, str] = {}
    for mission in missions:
        digests[(session, mission.seq)] = mission_digest(mission)
        # The person's words only: an office brief or a paste states no goal of theirs.
        own = "" if mission.instruction_is_generated else _voices(mission)[0]
        stated = [s for s in _sentences(own) if _GOAL.search(s) and not is_question(s)]
        if stated and (session is None or not state.goal):
            # The goal follows the latest one the person stated.
            state.goal = _clip(stated[-1], GOAL_CHARS)
            state.goal_missions = [mission.seq] if session is None else []
        elif not state.goal and not mission.instruction_is_generated:
            first = [s for s in _sentences(own) if not is_question(s)][:1]
            if first:
                state.goal = _clip(first[0], GOAL_CHARS)
                state.goal_missions = [mission.seq] if session is None else []
        asked = False
        for candidate in _candidates(mission, state, salience):
            add_item(state, candidate.section, candidate.text, mission.seq, session)
            asked = asked or not (candidate.from_reply or candidate.from_material)
            # A paste with no words of the person's around it: its lines say what it was.
            asked = asked or (candidate.from_material and not own)
        if not asked and not mission.instruction_is_generated:
            # Nothing the person said was kept (at most what the reply added): name what
            # they asked. (The office's brief is no one's request: uncited, it is recorded
            # as dropped with its digest.)
            add_item(
                state,
                "facts",
                DIGEST_PREFIX + digests[(session, mission.seq)],
                mission.seq,
                session,
            )
    settle_clashes(state, previous)
    compress_to_budget(state, budget_chars, digests=digests)
    for mission in missions:
        ref = (session, mission.seq)
        if not _cited(state, ref):
            _drop(state, ref, f"nothing durable to keep; digest: {digests[ref]}")
    return state


def settle_clashes(state: SummaryState, previous: SummaryState) -> None:
    """Leave live no pair the verifier's contradiction check refuses (verifier.clashes:
    two live values of one kind for one subject, items that disagree, a decision listed
    twice), whichever way the merge order left them: of each pair the older is marked
    superseded (a decision) or taken out (a fact or constraint). A fold its own verifier
    refuses would stop every later fold of the channel. Each round retires one item, so
    this ends."""
    while found := clashes(state, previous):
        old, new = found[0].older, found[0].newer
        seq = max(new.missions, default=0)
        if isinstance(old, Decision):
            old.superseded, old.superseded_by = True, [*old.superseded_by, seq]
        else:
            section = "constraints" if any(i is old for i in state.constraints) else "facts"
            _retire(state, section, old, seq)


def _item_score(
    item: SummaryItem, section: str, salience: Salience, newest: dict[int | None, int]
) -> float:
    if _is_digest(item):
        return -20.0 + salience.score(item.text, section) / 100
    if _is_material(item.text):
        return MATERIAL_SCORE + salience.score(item.text, section) / 100
    if isinstance(item, Decision) and item.superseded:
        return -10.0 + salience.score(item.text, section) / 100
    score = salience.score(item.text, section)
    if section in ("open_questions", "next_actions"):
        # Questions and to-dos go stale as the work moves on.
        age = newest.get(item.session, 0) - max(item.missions, default=0)
        score -= min(3.0, 0.1 * max(age, 0))
    if len(item.missions) > 2:
        score -= 0.5  # a template that keeps coming back says less each time
    return score


def compress_to_budget(
    state: SummaryState, budget_chars: int, *, digests: dict[Ref, str] | None = None
) -> None:
    """Evict the least salient items until the rendered summary fits: digests of missions
    that left nothing durable first, then superseded decisions, then by salience (ties:
    the older first). A mission that no item
    cites any more is recorded in `dropped` with a digest, so coverage holds."""

    def fits() -> bool:
        return len(render_summary(state)) <= budget_chars

    if fits():
        return
    salience = Salience([item.text for _, item in state.items()])
    newest: dict[int | None, int] = {}
    for _, item in state.items():
        newest[item.session] = max([newest.get(item.session, 0), *item.missions])
    ranked = sorted(
        (
            (_item_score(item, section, salience, newest), max(item.missions, default=0), n)
            for n, (section, item) in enumerate(state.items())
        ),
    )
    order = [(section, item) for section, item in state.items()]
    for _, _, n in ranked:
        if fits():
            break
        section, item = order[n]
        _evict(state, section, item, digests or {})
    if not fits():
        state.goal = _clip(state.goal, max(20, budget_chars // 4))


def _evict(state: SummaryState, section: str, item: SummaryItem, digests: dict[Ref, str]) -> None:
    """Drop an item to make room, recording its missions in `dropped` (once) where nothing
    else cites them, and always for a decision (so the verifier sees it was let go on
    purpose), each with a one-line digest."""
    items: list[SummaryItem] = getattr(state, section)
    items[:] = [i for i in items if i is not item]
    for seq in item.missions:
        ref = (item.session, seq)
        if section == "decisions" or not _cited(state, ref):
            digest = digests.get(ref) or _digest_of(item.text)
            _drop(state, ref, f"over the summary budget; digest: {digest}")
