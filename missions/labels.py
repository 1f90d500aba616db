"""The numbers a person sees on missions (`Mission.label`): their own missions count 1,
2, 3… in a session, without the gaps the office's syntheses would leave in `seq`; a
synthesis is its plan's number with a letter, "1a", then "1b" for a later one."""

import string
from collections.abc import Iterable, Iterator

from missions.models import Mission, MissionSource


def label_letters(index: int) -> str:
    """0 → "a", 25 → "z", 26 → "aa": the letter(s) of a plan's `index`-th synthesis."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = string.ascii_lowercase[rest] + letters
    return letters


def synthesis_label(*, session_id: int, plan: Mission) -> str:
    """The next synthesis of `plan`, in session `session_id`: the plan's number and the
    letter after its earlier syntheses'. A plan of an earlier session may share its
    number with a plan of this one: a letter taken here by the other is skipped."""
    earlier = Mission.objects.filter(parent_id=plan.pk, source=MissionSource.SYNTHESIS).count()
    taken = set(
        Mission.objects.filter(
            session_id=session_id, source=MissionSource.SYNTHESIS, label__startswith=plan.label
        ).values_list("label", flat=True)
    )
    index = earlier
    while (label := plan.label + label_letters(index)) in taken:
        index += 1
    return label


def labels_of(
    rows: Iterable[tuple[int, int, str, int | None]], *, plans: set[int]
) -> Iterator[tuple[int, str]]:
    """(mission id, label) for missions given as (id, session id, source, parent id),
    ordered by session id then seq (a plan's session is never newer than its
    synthesis's): the labels `missions.creation` gives, for missions from before labels
    existed. `plans`: the ids of missions that have a synthesis (their labels are kept
    until it comes)."""
    session_id: int | None = None
    own = 0
    taken: set[str] = set()
    plan_labels: dict[int, str] = {}
    syntheses: dict[int, int] = {}
    for pk, session, source, parent_id in rows:
        if session != session_id:
            session_id, own, taken = session, 0, set()
        if source == MissionSource.SYNTHESIS and parent_id is not None:
            index = syntheses.get(parent_id, 0)
            base = plan_labels.get(parent_id, "")
            while (label := base + label_letters(index)) in taken:
                index += 1
            syntheses[parent_id] = syntheses.get(parent_id, 0) + 1
        else:
            own += 1
            label = str(own)
        taken.add(label)
        if pk in plans:
            plan_labels[pk] = label
        yield pk, label
