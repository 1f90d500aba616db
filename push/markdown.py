"""What a model wrote (a reply, a plan's part, a summary's item) as HTML a page may insert
(docs/design.md §7): Markdown read by a CommonMark implementation (markdown-it-py, with
GitHub's tables and strikethrough, and bare http(s) addresses made links), code blocks
highlighted by Pygments into CSS classes (`tok-*`, static/office/markdown.css), and the
result sanitised by nh3 (Ammonia) whatever the text held.

Safe by construction, twice: raw HTML in the text is written out as text (markdown-it's
`html` off), images are not made (a model's text must not make the page fetch an address:
a way to carry data out), and links are kept only to http(s) and mailto addresses; the
sanitiser then keeps only the tags and attributes listed here, so a mistake in either
layer alone lets nothing through. Every link opens apart from the page (rel=noopener).

The work is linear in the text (markdown-it's rules, Ammonia's parser); Pygments' lexers
are regular expressions of their own, so a code block longer than HIGHLIGHT_MAX_CHARS is
shown plain."""

from functools import lru_cache
from html import escape

import nh3
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

# A code block longer than this is shown without colours.
HIGHLIGHT_MAX_CHARS = 20_000
# A text longer than this (no reply is; a runaway model's output might be) is shown as
# its plain text: Markdown costs ≈ 10 µs a character on the worst input (measured).
RENDER_MAX_CHARS = 100_000
# Texts up to this long are remembered once rendered (a timeline shows the same replies on
# every visit); longer ones are rendered each time, so the cache stays small.
CACHED_MAX_CHARS = 20_000
CACHED_TEXTS = 256

_FORMATTER = HtmlFormatter(nowrap=True, classprefix="tok-")
_LINK_SCHEMES = ("http:", "https:", "mailto:")

_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "del",
    "code", "pre", "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th",
    "td", "a", "span",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title"},
    "code": {"class"},
    "span": {"class"},
    "ol": {"start"},
    # A column's alignment (markdown-it writes it as style="text-align:…").
    "th": {"style"},
    "td": {"style"},
}


def _highlight(code: str, language: str, _attrs: str) -> str:
    """The code's tokens as spans of Pygments' classes; "" leaves markdown-it to escape it
    as plain text (no language named, one Pygments does not know, or too long)."""
    name = language.strip().split(maxsplit=1)[0] if language.strip() else ""
    if not name or len(code) > HIGHLIGHT_MAX_CHARS:
        return ""
    try:
        lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return ""
    return str(highlight(code, lexer, _FORMATTER))


def _is_web_link(url: str) -> bool:
    """Whether markdown-it may make a link of the address (after its own normalising):
    http(s) and mailto only, never javascript:, data:, a relative path into this site."""
    return url.strip().lower().startswith(_LINK_SCHEMES)


def _parser() -> MarkdownIt:
    parser = MarkdownIt(
        "commonmark",
        {
            "html": False,
            "linkify": True,
            # A line break in a chat message is one: models and people write lists of
            # lines without Markdown's two trailing spaces.
            "breaks": True,
            "highlight": _highlight,
        },
    )
    parser.enable(["table", "strikethrough", "linkify"]).disable("image")
    parser.validateLink = _is_web_link  # type: ignore[method-assign]
    # Only addresses written with their scheme become links ("example.com" stays text).
    assert parser.linkify is not None  # linkify-it-py, markdown-it-py's "linkify" extra
    parser.linkify.set({"fuzzy_link": False, "fuzzy_email": False})
    return parser


_PARSER = _parser()


def _clean(html: str) -> str:
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
        set_tag_attribute_values={"a": {"target": "_blank"}},
        filter_style_properties={"text-align"},
        strip_comments=True,
    )


def markdown_html(text: str) -> str:
    """The text's Markdown as sanitised HTML: paragraphs, headings, lists, quotes, tables,
    code (highlighted where its language is named), emphasis and links."""
    if len(text) <= CACHED_MAX_CHARS:
        return _cached_html(text)
    if len(text) > RENDER_MAX_CHARS:
        return "".join(f"<p>{escape(part)}</p>" for part in text.split("\n\n") if part.strip())
    return _clean(_PARSER.render(text))


@lru_cache(maxsize=CACHED_TEXTS)
def _cached_html(text: str) -> str:
    return _clean(_PARSER.render(text))


def markdown_inline_html(text: str) -> str:
    """One line of model text (a plan's part, a summary's item): its emphasis, code and
    links as sanitised HTML, no blocks."""
    return _clean(_PARSER.renderInline(text))
