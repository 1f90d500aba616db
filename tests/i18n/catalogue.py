"""A reader (and writer) of gettext .po files: enough of the format for our catalogue
(contexts, multi-line strings, flags, obsolete entries), no dependency."""

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Entry:
    msgid: str = ""
    msgstr: str = ""
    msgctxt: str | None = None
    plural: str | None = None
    plural_strs: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False
    comments: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.msgctxt, self.msgid)

    @property
    def translated(self) -> bool:
        if "fuzzy" in self.flags:
            return False
        if self.plural is not None:
            return bool(self.plural_strs) and all(self.plural_strs.values())
        return bool(self.msgstr)


def _unquote(text: str) -> str:
    text = text.strip()
    assert text.startswith('"') and text.endswith('"'), text
    value = ast.literal_eval(text)
    assert isinstance(value, str)
    return value


def parse(path: Path) -> list[Entry]:
    """Every entry of the file, the header (msgid "") included."""
    entries: list[Entry] = []
    current: Entry | None = None
    target: str | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            current, target = None, None
            continue
        if current is None:
            current = Entry()
            entries.append(current)
        if line.startswith("#~"):
            current.obsolete = True
            continue
        if line.startswith("#,"):
            current.flags |= {f.strip() for f in line[2:].split(",")}
            continue
        if line.startswith("#"):
            current.comments.append(raw)
            continue
        keyword, _, rest = line.partition(" ")
        if keyword.startswith('"'):
            assert target is not None, f"a continuation line without a keyword: {raw!r}"
            _append(current, target, _unquote(line))
            continue
        target = keyword
        _set(current, keyword, _unquote(rest))
    return entries


def _set(entry: Entry, keyword: str, value: str) -> None:
    if keyword == "msgid":
        entry.msgid = value
    elif keyword == "msgstr":
        entry.msgstr = value
    elif keyword == "msgctxt":
        entry.msgctxt = value
    elif keyword == "msgid_plural":
        entry.plural = value
    elif keyword.startswith("msgstr["):
        entry.plural_strs[int(keyword[7:-1])] = value
    else:
        raise ValueError(f"unknown keyword {keyword!r}")


def _append(entry: Entry, keyword: str, value: str) -> None:
    if keyword.startswith("msgstr["):
        index = int(keyword[7:-1])
        entry.plural_strs[index] += value
        return
    attribute = {"msgid": "msgid", "msgstr": "msgstr", "msgctxt": "msgctxt"}.get(keyword)
    if attribute is None:
        assert keyword == "msgid_plural"
        entry.plural = (entry.plural or "") + value
        return
    setattr(entry, attribute, (getattr(entry, attribute) or "") + value)


def messages(path: Path) -> list[Entry]:
    """The live messages: no header, no obsolete entries."""
    return [e for e in parse(path) if e.msgid and not e.obsolete]
