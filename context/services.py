"""Writes of context: the recall index (passages of finished missions)."""

from django.db import transaction

from config.celery import queue_task_on_commit
from config.prepared import prepared
from context.models import Passage
from context.passages import Piece, attachment_passage, mission_text, split_passages
from context.search import channel_stats_grew
from language import meaning
from language.analysis import normalised
from missions.models import ANSWERED, Attachment, Mission

SWEEP_LIMIT = 500


def _files(mission_ids: list[int]) -> dict[int, list[tuple[str, str]]]:
    """The extracted text of the missions' attachments, by mission: (name, text)."""
    files: dict[int, list[tuple[str, str]]] = {}
    rows = (
        Attachment.objects.filter(mission_id__in=mission_ids)
        .exclude(text="")
        .order_by("id")
        .values_list("mission_id", "name", "text")
    )
    for mission_id, name, text in rows:
        files.setdefault(mission_id, []).append((name, text))
    return files


def _passages(mission: Mission, files: list[tuple[str, str]]) -> list[Passage]:
    text = mission_text(
        mission.instruction, mission.reply, generated=mission.instruction_is_generated
    )
    pieces = split_passages(text)
    # A file's passages come after the mission's own, each naming the file; they start
    # past the mission's text (they are not the person's typed words, nor the reply's).
    offset = len(text) + 1
    for name, content in files:
        pieces += [
            Piece(offset + p.start, attachment_passage(name, p.text))
            for p in split_passages(content)
        ]
        offset += len(content) + 1
    return [
        Passage(
            mission=mission,
            channel_id=mission.channel_id,
            session_id=mission.session_id,
            seq=mission.seq,
            position=position,
            start=piece.start,
            text=piece.text,
            terms=normalised(piece.text),
        )
        for position, piece in enumerate(pieces)
    ]


_DONE = prepared(lambda *, mission_id: Mission.objects.filter(pk=mission_id, status__in=ANSWERED))


def passages_index(*, mission_id: int) -> int:
    """(Re)index a finished mission's passages; returns how many. A mission that is not
    finished (or no longer exists) has none."""
    mission = _DONE.first(mission_id=mission_id)
    with transaction.atomic():
        Passage.objects.filter(mission_id=mission_id).delete()
        if mission is None:
            return 0
        files = _files([mission.pk]).get(mission.pk, [])
        written = len(Passage.objects.bulk_create(_passages(mission, files)))
        _queue_vectors(mission.session_id)
    channel_stats_grew(channel_id=mission.channel_id, passages=written)
    return written


def _queue_vectors(session_id: int) -> None:
    """The new passages' meaning, embedded in the background lane once they are written."""
    if meaning.enabled():
        queue_task_on_commit("context.tasks.vectors_embed_session", session_id)


_UNINDEXED = prepared(
    lambda size, *, session_id: Mission.objects.filter(
        session_id=session_id, status__in=ANSWERED, passages__isnull=True
    ).order_by("seq")[:size]
)


def passages_index_session(*, session_id: int) -> int:
    """Index the session's finished missions that have no passages yet; returns how
    many missions. The text is analysed before the write begins (Korean takes a few ms a
    passage), so the write is short. Two runs at once for one session write each
    passage once."""
    indexed = 0
    while True:
        missions = _UNINDEXED(SWEEP_LIMIT, session_id=session_id)
        if not missions:
            return indexed
        files = _files([mission.pk for mission in missions])
        rows = [
            passage
            for mission in missions
            for passage in _passages(mission, files.get(mission.pk, []))
        ]
        with transaction.atomic():
            Passage.objects.bulk_create(rows, ignore_conflicts=True)
            _queue_vectors(session_id)
        for channel_id in {mission.channel_id for mission in missions}:
            channel_stats_grew(
                channel_id=channel_id,
                passages=sum(1 for row in rows if row.channel_id == channel_id),
            )
        indexed += len(missions)
        if len(missions) < SWEEP_LIMIT:
            return indexed


def passages_sweep(*, limit: int = SWEEP_LIMIT) -> int:
    """Index finished missions that have no passages yet (a lost task, or missions from
    before the index existed), newest first. Returns how many missions were indexed."""
    missing = list(
        Mission.objects.filter(status__in=ANSWERED, passages__isnull=True)
        .order_by("-id")
        .values_list("id", flat=True)[:limit]
    )
    for mission_id in missing:
        passages_index(mission_id=mission_id)
    return len(missing)
