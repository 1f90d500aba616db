"""The numbers a person sees on missions (`Mission.label`): their own missions count 1,
2, 3… in a session, without the gaps the office's syntheses would leave in `seq`; a
synthesis is its plan's number with a letter, "1a", then "1b" for a later one."""

import string

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
