"""Attachments (docs/design.md §4a): files a person gives with an instruction.

An upload is checked by its content, never by its name alone: a PDF starts with
"%PDF-", an image with its format's signature, a text file decodes as UTF-8 (or UTF-16
with its mark, or CP949, as Korean spreadsheets save CSV) without control characters. A
name whose extension says one kind over content of another is refused. The bytes are
kept as sent; the text is extracted in the background lane (and by the mission's run, if
it gets there first), cut to ATTACHMENT_TEXT_CHARS. Nothing external scans a file.

Until an instruction takes it, an upload belongs to its channel and the person who sent
it; an instruction takes at most ATTACHMENTS_PER_MISSION, each once."""

import base64
import hashlib
import io
import logging
import posixpath
import unicodedata
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from config.celery import queue_task_on_commit
from context.passages import split_passages
from language import meaning
from llm.base import ChatMessages
from missions.models import ANSWERED, Attachment, AttachmentKind, Mission
from missions.ratelimit import InstructionRejected
from office.models import Channel

logger = logging.getLogger(__name__)

# Pages of a PDF read for its text: a longer document's text is cut anyway.
PDF_PAGES_MAX = 300
# A file's name as it is kept and shown.
NAME_MAX = 255

_IMAGES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
# What an extension promises; a file without one (or with another) is taken for what its
# content is, if that is text.
_EXTENSIONS = {
    "txt": AttachmentKind.TEXT,
    "text": AttachmentKind.TEXT,
    "log": AttachmentKind.TEXT,
    "json": AttachmentKind.TEXT,
    "md": AttachmentKind.MARKDOWN,
    "markdown": AttachmentKind.MARKDOWN,
    "csv": AttachmentKind.CSV,
    "tsv": AttachmentKind.CSV,
    "pdf": AttachmentKind.PDF,
    "png": AttachmentKind.IMAGE,
    "jpg": AttachmentKind.IMAGE,
    "jpeg": AttachmentKind.IMAGE,
    "gif": AttachmentKind.IMAGE,
    "webp": AttachmentKind.IMAGE,
}
# Kept as text, refused by name: a page or a script is not a document to read here.
_REFUSED_EXTENSIONS = frozenset(
    {"html", "htm", "svg", "xhtml", "js", "mjs", "exe", "dll", "bat", "cmd", "sh", "ps1"}
)
_TEXT_KINDS = (AttachmentKind.TEXT, AttachmentKind.MARKDOWN, AttachmentKind.CSV)
_CONTENT_TYPES = {
    AttachmentKind.TEXT: "text/plain; charset=utf-8",
    AttachmentKind.MARKDOWN: "text/markdown; charset=utf-8",
    AttachmentKind.CSV: "text/csv; charset=utf-8",
    AttachmentKind.PDF: "application/pdf",
}


class AttachmentRejected(InstructionRejected):
    """A file that cannot be taken; `code` is stable, `message` is for a person."""


@dataclass(frozen=True)
class Sniffed:
    kind: str
    content_type: str


def _extension(name: str) -> str:
    base = posixpath.basename(name.replace("\\", "/"))
    return base.rsplit(".", 1)[1].lower() if "." in base.strip(".") else ""


def _image_type(data: bytes) -> str | None:
    for signature, content_type in _IMAGES:
        if data.startswith(signature):
            return content_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def decode_text(data: bytes) -> str | None:
    """The file's text, if it is text: UTF-8 (with or without its mark), UTF-16 with its
    mark, or CP949; None for anything holding control characters other than tabs, line
    ends and form feeds once decoded."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encodings: tuple[str, ...] = ("utf-16",)
    else:
        encodings = ("utf-8-sig", "cp949")
    for encoding in encodings:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if any(unicodedata.category(c) == "Cc" and c not in "\t\n\r\f" for c in text) or any(
            unicodedata.category(c) == "Cs" for c in text
        ):
            return None
        return text
    return None


def attachment_sniff(data: bytes, name: str) -> Sniffed:
    """What the file is, by its content; AttachmentRejected when it is not a kind taken
    or its name says another kind."""
    extension = _extension(name)
    if extension in _REFUSED_EXTENSIONS:
        raise AttachmentRejected(
            "unsupported_file",
            gettext("Files of type .{extension} are not taken.").format(extension=extension),
        )
    promised = _EXTENSIONS.get(extension)
    image = _image_type(data)
    if data.startswith(b"%PDF-"):
        found = Sniffed(AttachmentKind.PDF, _CONTENT_TYPES[AttachmentKind.PDF])
    elif image is not None:
        found = Sniffed(AttachmentKind.IMAGE, image)
    elif decode_text(data) is not None:
        kind = promised if promised in _TEXT_KINDS else AttachmentKind.TEXT
        found = Sniffed(kind, _CONTENT_TYPES[kind])
    else:
        raise AttachmentRejected(
            "unsupported_file",
            gettext(
                "{name} is not a file that can be read here: text, Markdown, CSV, PDF and "
                "images (PNG, JPEG, GIF, WebP) are."
            ).format(name=name),
        )
    if promised is not None and (promised in _TEXT_KINDS) != (found.kind in _TEXT_KINDS):
        raise AttachmentRejected(
            "file_type_mismatch",
            gettext("{name} is named .{extension}, but its content is not.").format(
                name=name, extension=extension
            ),
        )
    if promised is not None and promised not in _TEXT_KINDS and promised != found.kind:
        raise AttachmentRejected(
            "file_type_mismatch",
            gettext("{name} is named .{extension}, but its content is not.").format(
                name=name, extension=extension
            ),
        )
    return found


def _clean_name(name: str) -> str:
    base = posixpath.basename((name or "").replace("\\", "/")).strip()
    base = "".join(c for c in base if unicodedata.category(c)[0] != "C")
    return base[-NAME_MAX:] or "file"


def attachment_upload(
    *, channel: Channel, user_id: int | None, name: str, data: bytes
) -> Attachment:
    """Keep a file for the person's next instruction in `channel`; its text is
    extracted in the background. Raises AttachmentRejected (too large, empty, a kind not
    taken)."""
    name = _clean_name(name)
    limit = settings.ATTACHMENT_MAX_BYTES
    if len(data) > limit:
        raise AttachmentRejected(
            "file_too_large",
            gettext("{name} has {size} bytes; the limit is {limit}.").format(
                name=name, size=len(data), limit=limit
            ),
        )
    if not data:
        raise AttachmentRejected("empty_file", gettext("{name} is empty.").format(name=name))
    sniffed = attachment_sniff(data, name)
    with transaction.atomic():
        attachment = Attachment.objects.create(
            channel=channel,
            uploaded_by_id=user_id,
            name=name,
            kind=sniffed.kind,
            content_type=sniffed.content_type,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            data=data,
        )
        queue_task_on_commit("missions.tasks.attachment_extract", attachment.pk)
    return attachment


def attachments_for_instruction(
    *, channel: Channel, user_id: int | None, ids: list[int]
) -> list[Attachment]:
    """The uploads an instruction names, checked: the person's own, in this channel, not
    taken by an earlier instruction. Raises AttachmentRejected otherwise."""
    if not ids:
        return []
    if len(set(ids)) > settings.ATTACHMENTS_PER_MISSION:
        raise AttachmentRejected(
            "too_many_files",
            gettext("An instruction takes at most {limit} files.").format(
                limit=settings.ATTACHMENTS_PER_MISSION
            ),
        )
    wanted = list(dict.fromkeys(ids))
    found = {
        a.pk: a
        for a in Attachment.objects.filter(
            pk__in=wanted, channel=channel, uploaded_by_id=user_id, mission__isnull=True
        ).defer("data")
    }
    if len(found) != len(wanted):
        raise AttachmentRejected(
            "bad_attachment",
            gettext("A file of this instruction was not uploaded here, or was sent already."),
        )
    return [found[i] for i in wanted]


def attachments_take(*, mission: Mission, attachments: list[Attachment]) -> None:
    """Inside the instruction's transaction: the files become the mission's. A file
    taken meanwhile by another instruction fails the whole instruction."""
    if not attachments:
        return
    taken = Attachment.objects.filter(
        pk__in=[a.pk for a in attachments], mission__isnull=True
    ).update(mission=mission)
    if taken != len(attachments):
        raise AttachmentRejected(
            "bad_attachment",
            gettext("A file of this instruction was not uploaded here, or was sent already."),
        )
    Mission.objects.filter(pk=mission.pk).update(attachment_count=taken)
    mission.attachment_count = taken


def attachment_payload(attachments: list[Attachment]) -> list[dict[str, object]]:
    """What the instruction's message shows of its files."""
    return [{"id": a.pk, "name": a.name, "kind": a.kind, "size": a.size} for a in attachments]


# Why a file has no text: said to the model in the prompt (in English, as the prompt is).
def _pdf_text(data: bytes) -> tuple[str, str]:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        return "", "The PDF is protected by a password."
    parts: list[str] = []
    total = 0
    pages = reader.pages
    for index, page in enumerate(pages):
        if index >= PDF_PAGES_MAX or total > settings.ATTACHMENT_TEXT_CHARS:
            parts.append(f"[… {len(pages) - index} more pages not read]")
            break
        text = (page.extract_text() or "").strip()
        parts.append(text)
        total += len(text)
    text = "\n\n".join(p for p in parts if p)
    if not text:
        return "", "The PDF has no text layer (scanned pages?)."
    return text, ""


def _extract(attachment: Attachment) -> tuple[str, str]:
    data = bytes(attachment.data)
    if attachment.kind in _TEXT_KINDS:
        text = decode_text(data)
        return (text, "") if text is not None else ("", "The file is not text.")
    if attachment.kind == AttachmentKind.PDF:
        try:
            return _pdf_text(data)
        except Exception:
            logger.warning("could not read the PDF of attachment %s", attachment.pk, exc_info=True)
            return "", "The PDF could not be read."
    return "", ""  # an image: shown to models that take images, by name to others


def _cut(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\x00", "").strip()
    limit = settings.ATTACHMENT_TEXT_CHARS
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[… {len(text) - limit} more characters not kept]"


def _passage_vectors(text: str) -> tuple[bytes, str]:
    """The meaning of each of the text's passages, as stored (float16 rows), and the
    model's name; nothing without the meaning layer or a text."""
    if not text or not meaning.enabled():
        return b"", ""
    pieces = split_passages(text)
    return meaning.to_bytes(meaning.embed([p.text for p in pieces])), meaning.model_name()


def passages_near(attachment: Attachment, question: str, *, limit: int) -> list[tuple[int, int]]:
    """The (start, end) of the file's passages closest in meaning to `question`, best
    first, above the model's floor: what the question asks about in other words."""
    if not attachment.vectors or attachment.vector_model != meaning.model_name():
        return []
    pieces = split_passages(attachment.text)
    matrix = meaning.from_bytes(attachment.vectors).reshape(-1, meaning.dimensions())
    if len(matrix) != len(pieces) or not question.strip():
        return []
    scores = matrix @ meaning.embed_query(question)
    floor = meaning.relevance_floor()
    best = [int(i) for i in scores.argsort()[::-1][:limit] if scores[i] >= floor]
    return [(pieces[i].start, pieces[i].start + len(pieces[i].text)) for i in best]


def _answered(mission_id: int) -> bool:
    return Mission.objects.filter(pk=mission_id, status__in=ANSWERED).exists()


def attachment_extract(*, attachment_id: int) -> Attachment | None:
    """The file's text, extracted once (kept with it); an answered mission's passages
    are written again to hold it. None if the file no longer exists."""
    attachment = Attachment.objects.filter(pk=attachment_id).first()
    if attachment is None or attachment.extracted_at is not None:
        return attachment
    text, error = _extract(attachment)
    attachment.text, attachment.extract_error = _cut(text), error[:300]
    attachment.vectors, attachment.vector_model = _passage_vectors(attachment.text)
    attachment.extracted_at = timezone.now()
    written = Attachment.objects.filter(pk=attachment_id, extracted_at__isnull=True).update(
        text=attachment.text,
        extract_error=attachment.extract_error,
        vectors=attachment.vectors,
        vector_model=attachment.vector_model,
        extracted_at=attachment.extracted_at,
    )
    mission_id = attachment.mission_id
    if written and mission_id is not None and attachment.text and _answered(mission_id):
        queue_task_on_commit("context.tasks.passages_index", mission_id)
    return attachment


def mission_attachments(*, mission: Mission) -> list[Attachment]:
    """A mission's files with their text, extracted now for any the background lane has
    not reached yet (the mission's run needs them). No query for a mission without any."""
    if not mission.attachment_count:
        return []
    attachments = list(Attachment.objects.filter(mission_id=mission.pk).order_by("id"))
    for index, attachment in enumerate(attachments):
        if attachment.extracted_at is None:
            attachments[index] = attachment_extract(attachment_id=attachment.pk) or attachment
    return attachments


def with_images(messages: ChatMessages, *, mission: Mission) -> ChatMessages:
    """The prompt with the mission's images beside its last message (the current
    mission), as data URLs, for a model that takes images."""
    images = list(
        Attachment.objects.filter(mission_id=mission.pk, kind=AttachmentKind.IMAGE).order_by("id")
    )
    if not images:
        return messages
    last = messages[-1]
    parts: list[dict[str, Any]] = [{"type": "text", "text": last["content"]}]
    for image in images:
        encoded = base64.b64encode(bytes(image.data)).decode("ascii")
        url = f"data:{image.content_type};base64,{encoded}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return [*messages[:-1], {**last, "content": parts}]


def model_takes_images(model: str) -> bool:
    """Whether `model` is given a mission's images (IMAGE_MODELS, glob patterns)."""
    return any(fnmatchcase(model, pattern) for pattern in settings.IMAGE_MODELS)
