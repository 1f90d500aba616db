"""The design contract (docs/design.md) is in the repository and stays true mechanically:
every reference to it names a file that exists and a section it has, its frame table is
the frames `push/frames.py` defines (read from the pydantic models the socket
validates with, field by field), the long-session notice it quotes is the one the office
sends in Korean and in English, and every setting it names is one the code reads."""

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

from django.conf import settings
from django.utils import translation
from pydantic import BaseModel

from missions.texts import office_text, office_text_render
from push.frames import ClientFrame, ServerFrame

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs/design.md"
README = ROOT / "README.md"

# Directories that are not the project's text: tools' caches, installs, build output.
SKIP_DIRS = {"node_modules", "__pycache__", "staticfiles", "venv", "htmlcov", "build", "dist"}
MAX_TEXT_BYTES = 2_000_000

# A file reference ending in the document's name ("docs/design.md", a relative link, or a
# root-level copy), then the sections it cites ("§3", "§3, §4").
_REFERENCE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*design\.md)", re.IGNORECASE)
_CITED = re.compile(r"\s*((?:§\s*\d+(?:\s*(?:,|and|&|or)\s*)?)+)")
_SECTION_NUMBER = re.compile(r"§\s*(\d+)")
# The contract named without a file ("see the design §4"): a reference a reader cannot
# follow. Upper case only: the word "design" is ordinary prose.
_BARE = re.compile(r"\bDESIGN\b(?!\.md)")
_HEADING = re.compile(r"^## (\d+)\. (.+)$", re.MULTILINE)
_FRAME_ROW = re.compile(
    r"^\s*\|\s*(client → server|server → client)\s*\|\s*`([^`]+)`\s*\|([^|]*)\|", re.MULTILINE
)
# A setting named in the document: `NAME`, `NAME_*` (a family), `NAME=value`.
_SETTING = re.compile(r"`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(\*|_\*|=[^`]*)?`")
_README_ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]+)` \|", re.MULTILINE)


def _text_files() -> Iterator[tuple[Path, str]]:
    for folder, dirs, files in os.walk(ROOT):
        # Pruned, not filtered: a checkout's virtualenv and git objects are not walked.
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIP_DIRS
            and not d.endswith("_cache")
            and (not d.startswith(".") or d == ".ci")
        )
        for name in sorted(files):
            path = Path(folder, name)
            if not path.is_file() or path.stat().st_size > MAX_TEXT_BYTES:
                continue
            try:
                yield path.relative_to(ROOT), path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # images, databases


def _sections() -> dict[int, str]:
    return {int(n): title for n, title in _HEADING.findall(DOC.read_text(encoding="utf-8"))}


def _section_text(number: int) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = re.search(rf"^## {number}\. .*$", text, re.MULTILINE)
    assert start is not None, f"docs/design.md has no section {number}"
    end = re.search(r"^## ", text[start.end() :], re.MULTILINE)
    return text[start.end() : start.end() + end.start()] if end else text[start.end() :]


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def test_the_document_is_in_the_repository_with_its_sections_in_order() -> None:
    sections = _sections()
    assert DOC.is_file()
    assert list(sections) == list(range(1, len(sections) + 1)), sections
    # What the contract covers, each in its section (code cites them by number).
    assert [sections[n] for n in (1, 3, 4, 6, 7, 8)] == [
        "Layout",
        "Context assembly (the heart)",
        "Rolling summary (folding)",
        "The long-session notice",
        "Real-time and HTTP",
        "Runtime",
    ]
    assert "kept true by whoever changes behaviour" in " ".join(
        DOC.read_text(encoding="utf-8").split()
    )


def test_every_reference_to_the_design_names_a_file_of_the_repository() -> None:
    broken = []
    for rel, text in _text_files():
        for match in _REFERENCE.finditer(text):
            target = match.group(1)
            if not ((ROOT / target).is_file() or (ROOT / rel).parent.joinpath(target).is_file()):
                broken.append(f"{rel}:{_line(text, match.start())}: {target}")
        for match in _BARE.finditer(text):
            broken.append(f"{rel}:{_line(text, match.start())}: {match.group(0)} (no file)")
    assert broken == [], "references to a design document that is not there:\n" + "\n".join(broken)


def test_every_cited_section_exists() -> None:
    sections = set(_sections())
    cited: dict[str, set[int]] = {}
    for rel, text in _text_files():
        for match in _REFERENCE.finditer(text):
            after = _CITED.match(text, match.end())
            if after:
                where = f"{rel}:{_line(text, match.start())}"
                cited[where] = {int(n) for n in _SECTION_NUMBER.findall(after.group(1))}
    doc = DOC.read_text(encoding="utf-8")
    for match in _SECTION_NUMBER.finditer(doc):
        cited.setdefault(f"docs/design.md:{_line(doc, match.start())}", set()).add(
            int(match.group(1))
        )
    # The code cites the contract: a search that found nothing would prove nothing.
    assert len(cited) > 30
    missing = {where: sorted(n - sections) for where, n in cited.items() if n - sections}
    assert missing == {}, f"sections cited that docs/design.md does not have: {missing}"


def _frames(union: Any) -> dict[str, set[str]]:
    """Frame type → its fields but `type`, from the discriminated union the code
    validates and serializes with."""
    members: tuple[type[BaseModel], ...] = get_args(get_args(union)[0])
    frames = {}
    for model in members:
        (frame_type,) = get_args(model.model_fields["type"].annotation)
        frames[frame_type] = set(model.model_fields) - {"type"}
    return frames


def _documented_frames() -> dict[str, dict[str, set[str]]]:
    table: dict[str, dict[str, set[str]]] = {"client → server": {}, "server → client": {}}
    for direction, frame_type, fields in _FRAME_ROW.findall(_section_text(7)):
        assert frame_type not in table[direction], f"{frame_type} is listed twice"
        table[direction][frame_type] = set(re.findall(r"`([^`]+)`", fields))
    return table


def test_the_frame_table_is_every_frame_of_the_code_with_its_fields() -> None:
    documented = _documented_frames()
    assert documented["client → server"] == _frames(ClientFrame)
    assert documented["server → client"] == _frames(ServerFrame)
    # The frames that came after the first contract are there.
    assert "mission.stop" in documented["client → server"]
    assert {"channel.unread", "plan"} <= set(documented["server → client"])


def test_the_readme_names_every_frame_of_the_code() -> None:
    readme = README.read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z]+(?:\.[a-z]+)?)(?: \{[^}]*\})?`", readme))
    frames = set(_frames(ClientFrame)) | set(_frames(ServerFrame))
    assert frames - named == set()


def _quoted(text: str, after: str) -> str:
    """The text between the first double quotes after `after`, on one line."""
    start = text.index(after) + len(after)
    match = re.search(r'"([^"\n]+)"', text[start:])
    assert match is not None
    return match.group(1)


def test_the_notice_it_quotes_is_the_one_the_office_sends_in_korean_and_english() -> None:
    section = _section_text(6)
    sent = office_text("long_session")
    with translation.override("ko"):
        korean = office_text_render(sent)
    with translation.override("en"):
        english = office_text_render(sent)
    assert korean.startswith("💡 이 대화가")
    assert _quoted(section, "in the channel:") == korean
    assert _quoted(section, "(English:") == english
    assert f"**{settings.LONG_SESSION_MISSIONS} or more missions**" in section


def test_every_setting_it_names_is_one_the_code_reads() -> None:
    doc = DOC.read_text(encoding="utf-8")
    # The README's table lists every environment variable the settings read (checked by
    # tests/config/test_settings_documented.py); Django settings cover the rest.
    variables = set(_README_ROW.findall(README.read_text(encoding="utf-8")))
    assert len(variables) > 50
    unknown = []
    for name, suffix in _SETTING.findall(doc):
        if suffix in ("*", "_*"):
            prefix = name + "_"
            known = any(v.startswith(prefix) for v in variables)
        else:
            known = name in variables or hasattr(settings, name)
        if not known:
            unknown.append(name + (suffix if suffix in ("*", "_*") else ""))
    assert unknown == [], f"docs/design.md names settings the code does not read: {unknown}"
