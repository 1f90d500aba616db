"""Text a database and a socket can carry: the one rule every edge that takes text
applies (the socket, the JSON API, the forms and sign-up, and the request itself:
config.textguard)."""

import re

from django.utils.translation import gettext

BAD_TEXT = "bad_text"

# PostgreSQL text cannot hold NUL, and a lone surrogate (JSON's "\ud800") has no UTF-8 form
# for the database or the socket: either fails only after the text was accepted, so every
# edge that takes text refuses it first. The other control characters (C0 but tab, line
# feed and carriage return; DEL; C1) are stored, but no person types them: they come from
# binary pasted as text or from a probe, and would reach prompts, logs and pages.
# Everything else a person types is theirs to send.
_UNSTORABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def text_problem(value: str, *, what: str = "The text") -> str | None:
    """Why `value` cannot be accepted, said for a person in the active language; None when
    it can. The one rule for every edge that takes text: the socket, the JSON API, the
    forms and sign-up, and the request's address, cookies and credentials."""
    found = _UNSTORABLE.search(value)
    if found is None:
        return None
    char = found.group()
    if char == "\x00":
        kind = gettext("a NUL character")
    elif "\ud800" <= char <= "\udfff":
        kind = gettext("an unpaired surrogate")
    else:
        kind = gettext("a control character (U+%(code)04X)") % {"code": ord(char)}
    return gettext(
        "%(what)s contains %(kind)s at position %(position)d; remove it and try again."
    ) % {"what": gettext(what), "kind": kind, "position": found.start() + 1}
