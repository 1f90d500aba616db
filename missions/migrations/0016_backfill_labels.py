"""Missions from before labels get the numbers a person sees (as missions.creation gives
them when this was written: the person's missions 1, 2, 3… per session, a synthesis its
plan's number with a letter),
each session its count of syntheses, and the timeline's stored numbers (a message's
mission, the mission an edit came from, a follow-up's source, a plan's card and links to
a mission) the label beside or instead of the seq."""

import string
from collections.abc import Iterable, Iterator
from typing import Any

from django.db import migrations
from django.db.models import Count, Q

BATCH = 500


# The numbering as it was when this migration was written, kept here: a migration runs
# the code it was written with, whatever the app's code becomes.
def _letters(index: int) -> str:
    """0 → "a", 25 → "z", 26 → "aa": the letter(s) of a plan's `index`-th synthesis."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = string.ascii_lowercase[rest] + letters
    return letters


def labels_of(
    rows: Iterable[tuple[int, int, str, int | None]], *, plans: set[int]
) -> Iterator[tuple[int, str]]:
    """(mission id, label) for missions given as (id, session id, source, parent id),
    ordered by session id then seq (a plan's session is never newer than its
    synthesis's). `plans`: the ids of missions that have a synthesis (their labels are
    kept until it comes)."""
    session_id: int | None = None
    own = 0
    taken: set[str] = set()
    plan_labels: dict[int, str] = {}
    syntheses: dict[int, int] = {}
    for pk, session, source, parent_id in rows:
        if session != session_id:
            session_id, own, taken = session, 0, set()
        if source == "synthesis" and parent_id is not None:
            index = syntheses.get(parent_id, 0)
            base = plan_labels.get(parent_id, "")
            while (label := base + _letters(index)) in taken:
                index += 1
            syntheses[parent_id] = syntheses.get(parent_id, 0) + 1
        else:
            own += 1
            label = str(own)
        taken.add(label)
        if pk in plans:
            plan_labels[pk] = label
        yield pk, label


def _missions(apps: Any) -> None:
    Mission = apps.get_model("missions", "Mission")
    ChatSession = apps.get_model("chat_sessions", "ChatSession")
    plans = set(
        Mission.objects.filter(source="synthesis", parent__isnull=False).values_list(
            "parent_id", flat=True
        )
    )
    rows = (
        Mission.objects.order_by("session_id", "seq")
        .values_list("id", "session_id", "source", "parent_id")
        .iterator(chunk_size=BATCH)
    )
    changed = []
    for pk, label in labels_of(rows, plans=plans):
        changed.append(Mission(pk=pk, label=label))
        if len(changed) >= BATCH:
            Mission.objects.bulk_update(changed, ["label"])
            changed = []
    if changed:
        Mission.objects.bulk_update(changed, ["label"])
    counted = ChatSession.objects.annotate(
        n=Count("missions", filter=Q(missions__source="synthesis", missions__parent__isnull=False))
    ).filter(n__gt=0)
    for session in counted.iterator(chunk_size=BATCH):
        ChatSession.objects.filter(pk=session.pk).update(synthesis_count=session.n)


def _anchor(url: str, seq: int, label: str) -> str:
    suffix = f"#mission-{seq}"
    return url[: -len(suffix)] + f"#mission-{label}" if url.endswith(suffix) else url


def _messages(apps: Any) -> None:
    Message = apps.get_model("missions", "Message")
    Mission = apps.get_model("missions", "Mission")
    rows = (
        Message.objects.filter(mission__isnull=False)
        .select_related("mission__parent")
        .order_by("pk")
    )
    changed = []
    for message in rows.iterator(chunk_size=BATCH):
        mission = message.mission
        payload = dict(message.payload or {})
        office_text = dict(message.office_text or {})
        if "seq" in payload:
            payload["label"] = mission.label
        edited = payload.get("edited_from")
        if isinstance(edited, dict) and "mission" in edited:
            source = Mission.objects.filter(pk=edited["mission"]).first()
            if source is not None:
                payload["edited_from"] = {**edited, "label": source.label}
        parent = mission.parent
        if parent is not None:
            if "follow_up_of" in payload:
                payload["follow_up_label"] = parent.label
            if isinstance(payload.get("from_url"), str):
                payload["from_url"] = _anchor(payload["from_url"], parent.seq, parent.label)
        if office_text.get("kind") == "plan":
            office_text["label"] = mission.label
        if payload != message.payload or office_text != message.office_text:
            message.payload = payload
            message.office_text = office_text
            changed.append(message)
        if len(changed) >= BATCH:
            Message.objects.bulk_update(changed, ["payload", "office_text"])
            changed = []
    if changed:
        Message.objects.bulk_update(changed, ["payload", "office_text"])


def forwards(apps: Any, schema_editor: Any) -> None:
    _missions(apps)
    _messages(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("missions", "0015_mission_label"),
        ("chat_sessions", "0003_chatsession_synthesis_count"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
