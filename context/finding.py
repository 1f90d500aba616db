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
from missions.models import ANSWERED, Mission
from missions.texts import mission_title

# At most this many missions are listed; and of the missions not indexed yet, the newest
# this many are matched (the index batches leave only a few per session behind).
SEARCH_LIMIT = 30
UNINDEXED_SCAN = 200


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


def mission_search(*, user: User, text: str, limit: int = SEARCH_LIMIT) -> list[Hit]:
    """The person's missions (of the offices they own, in any of their channels and
    sessions) that match the text, best first: the not yet indexed newest ones that share
    the most terms, then the indexed ones by rank."""
    wanted = query_terms(text)
    if not wanted or not user.is_authenticated:
        return []
    owned = Mission.objects.filter(channel__office__owner=user, status__in=ANSWERED)
    fresh = list(
        owned.filter(passages__isnull=True)
        .select_related("assignee", "session", "parent")
        .order_by("-id")[:UNINDEXED_SCAN]
    )
    scored = []
    for mission in fresh:
        have = set(terms(f"{mission.instruction}\n{mission.reply}"))
        shared = sum(1 for term in wanted if term in have)
        if shared:
            scored.append((shared, mission))
    scored.sort(key=lambda pair: (-pair[0], -pair[1].pk))
    ordered = [mission for _, mission in scored]
    passage_ids = rank_passages(
        candidates=Passage.objects.filter(channel__office__owner=user),
        text=text,
        limit=limit * 4,
    )
    by_passage = dict(Passage.objects.filter(pk__in=passage_ids).values_list("pk", "mission_id"))
    ranked_missions: list[int] = []
    for pid in passage_ids:
        mid = by_passage.get(pid)
        if mid is not None and mid not in ranked_missions:
            ranked_missions.append(mid)
    indexed = owned.filter(pk__in=ranked_missions).select_related("assignee", "session", "parent")
    by_id = {m.pk: m for m in indexed}
    seen = {m.pk for m in ordered}
    ordered += [by_id[m] for m in ranked_missions if m in by_id and m not in seen]
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
