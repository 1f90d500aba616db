"""Search across an office's missions, for the person (the search page): the same
normalised full-text search recall uses (Korean through the morphological analyser, so
particles and endings do not matter; English stemmed; amounts and dates as values), over
the missions' passages. Missions finished since the last index batch have no passages
yet: the newest of them are matched on their terms here, so a reply from a minute ago is
found too."""

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User

from context.models import Passage
from context.search import rank_passages
from language.analysis import query_terms, terms
from language.values import Value, closeness, value_terms, values_in
from missions.models import ANSWERED, Mission
from missions.texts import mission_title

# At most this many missions are listed; and of the missions not indexed yet, the newest
# this many are matched (the index batches leave only a few per session behind).
SEARCH_LIMIT = 30
UNINDEXED_SCAN = 200
# What a value the question names weighs against one word it shares: the most precise
# thing a question asks for ("80만원" names one sum; a word names a topic).
VALUE_WEIGHT = 2.0


@dataclass(frozen=True)
class Hit:
    mission: int
    channel: int
    session: int
    session_number: int
    seq: int
    instruction: str
    excerpt: str
    assignee: str
    created_at: datetime
    # The number the person sees on the mission ("2", a synthesis "1a").
    label: str = ""
    # What the mission is called in the reader's language: its instruction, or for a
    # synthesis what it is (its instruction is the office's brief to the model).
    title: str = ""


def _score(words: list[str], have: set[str], asked: set[Value], said: str) -> float:
    shared = sum(1 for term in words if term in have)
    return shared + VALUE_WEIGHT * _value_fit(asked, values_in(said) if asked else set())


def _excerpt(text: str, wanted: list[str], size: int = 240) -> str:
    """A window of the text around the first word whose terms the query shares."""
    lowered = text.lower()
    for word in lowered.split():
        if set(terms(word)) & set(wanted):
            at = lowered.find(word)
            start = max(0, at - size // 3)
            snippet = text[start : start + size]
            return ("…" if start else "") + snippet + ("…" if start + size < len(text) else "")
    return text[:size] + ("…" if len(text) > size else "")


def _value_fit(asked: set[Value], stated: set[Value]) -> float:
    """How near the values a text states are to those the question names: for each value
    asked, the closest one stated (language.values.closeness), summed."""
    return sum(max((closeness(a, s) for s in stated), default=0.0) for a in asked)


def mission_search(*, user: User, text: str, limit: int = SEARCH_LIMIT) -> list[Hit]:
    """The person's missions (of the offices they own, in any of their channels and
    sessions) that match the text, best first. A mission is found by the words and values
    it shares with the question (a unit alone is no match: language.analysis), and ranked
    by them: one point a word, VALUE_WEIGHT for a value, times how near the closest value
    it states is to the one asked (so "800,000원" and "80만원" are equal, "79만원" comes
    next, "8만원" below). Indexed missions are read from their passages (found by the
    full-text ranking, which also breaks ties); the newest not yet indexed ones from their
    text."""
    wanted = query_terms(text)
    if not wanted or not user.is_authenticated:
        return []
    asked = {v for v in values_in(text) if v.number}
    asked_terms = set(value_terms(text))
    words = [term for term in wanted if term not in asked_terms]
    owned = Mission.objects.filter(channel__office__memberships__user=user, status__in=ANSWERED)
    fresh = list(
        owned.filter(passages__isnull=True)
        .select_related("assignee", "session", "parent")
        .order_by("-id")[:UNINDEXED_SCAN]
    )
    scores: dict[int, float] = {}
    found: dict[int, Mission] = {}
    for mission in fresh:
        said = f"{mission.instruction}\n{mission.reply}"
        have = set(terms(said))
        if any(term in have for term in wanted):
            found[mission.pk] = mission
            scores[mission.pk] = _score(words, have, asked, said)
    passage_ids = rank_passages(
        candidates=Passage.objects.filter(channel__office__memberships__user=user),
        text=text,
        limit=limit * 4,
    )
    by_passage = dict(Passage.objects.filter(pk__in=passage_ids).values_list("pk", "mission_id"))
    ranked_missions: list[int] = []
    for pid in passage_ids:
        mid = by_passage.get(pid)
        if mid is not None and mid not in ranked_missions and mid not in found:
            ranked_missions.append(mid)
    # A mission's every passage: what it says, wherever the ranked excerpt was cut.
    indexed_terms: dict[int, set[str]] = {}
    indexed_text: dict[int, list[str]] = {}
    for mid, passage_terms, passage_text in Passage.objects.filter(
        mission_id__in=ranked_missions
    ).values_list("mission_id", "terms", "text"):
        indexed_terms.setdefault(mid, set()).update(passage_terms.split())
        indexed_text.setdefault(mid, []).append(passage_text)
    for mission in owned.filter(pk__in=ranked_missions).select_related(
        "assignee", "session", "parent"
    ):
        found[mission.pk] = mission
        scores[mission.pk] = _score(
            words,
            indexed_terms.get(mission.pk, set()),
            asked,
            "\n".join(indexed_text.get(mission.pk, [])),
        )
    position = {mid: index for index, mid in enumerate(ranked_missions)}
    ordered = sorted(
        found.values(),
        key=lambda m: (-scores[m.pk], position.get(m.pk, -1), -m.pk),
    )
    titled = [
        (
            m,
            mission_title(
                source=m.source,
                instruction=m.instruction,
                plan_label=m.parent.label if m.parent else None,
            ),
        )
        for m in ordered[:limit]
    ]
    return [
        Hit(
            mission=m.pk,
            channel=m.channel_id,
            session=m.session_id,
            session_number=m.session.number,
            seq=m.seq,
            instruction=m.instruction,
            excerpt=_excerpt(m.reply or title, wanted),
            assignee=m.assignee.name,
            created_at=m.created_at,
            label=m.label,
            title=title,
        )
        for m, title in titled
    ]
