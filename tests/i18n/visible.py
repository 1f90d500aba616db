"""The words a page shows a person, and the English among them.

What a person reads: text outside scripts and styles, and the attributes shown or read
aloud (placeholder, aria-label, title, alt, a button's value). Skipped: a region marked
`translate="no"` (HTML's own attribute for "not to be translated"; the admin uses it only
for text the model reads or wrote: the prompt, the verifier's findings), and what a form
field holds (a textarea's content, as an input's value): data, not interface."""

import html
import re
from html.parser import HTMLParser

# The English a Korean chat or office page may show, each for a reason: product and
# setting names as they are typed (the offline notice), keys on a keyboard, English named
# in its own language in the language menu, file formats named as their files are (the
# chat's export links).
INTERFACE_ENGLISH = frozenset(
    {
        "AI",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OpenAI",
        "Enter",
        "Shift",
        "Esc",
        "Alt",
        "English",
        "Markdown",
        "JSON",
        # File formats, named so in Korean too (the attach button's hint).
        "CSV",
        "PDF",
        "PNG",
        "JPEG",
        "GIF",
        "WebP",
    }
)

# Elements without an end tag: they never open a region.
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
_SHOWN_ATTRIBUTES = ("placeholder", "aria-label", "title", "alt")


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden: list[str] = []  # the open tags of the skipped region, outermost first

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.hidden:
            if tag not in _VOID:
                self.hidden.append(tag)
            return
        values = dict(attrs)
        if tag in ("script", "style", "textarea") or values.get("translate") == "no":
            if tag not in _VOID:
                self.hidden.append(tag)
            return
        for name in _SHOWN_ATTRIBUTES:
            if values.get(name):
                self.parts.append(str(values[name]))
        if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
            self.parts.append(str(values["value"]))

    def handle_endtag(self, tag: str) -> None:
        if not self.hidden:
            return
        # Close up to the matching tag (HTML lets some end tags be left out).
        while self.hidden:
            if self.hidden.pop() == tag:
                break

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def visible_text(page: str) -> str:
    parser = _Visible()
    parser.feed(page)
    parser.close()
    return html.unescape(" ".join(parser.parts))


def english_words(text: str, *, allowed: set[str], data: list[str]) -> list[str]:
    """The words of two or more Latin letters in `text` once the values in `data` (what
    people wrote: names, roles…) are taken out, less the `allowed` ones."""
    for value in sorted(data, key=len, reverse=True):
        if value:
            text = text.replace(value, " ")
    words = re.findall(r"[A-Za-z][A-Za-z_']+", text)
    return sorted({w for w in words if w not in allowed})
