"""Text a database and a socket can carry: the one rule every edge that takes text
applies (the socket, the JSON API, the forms and sign-up)."""

import re

BAD_TEXT = "bad_text"

# PostgreSQL text cannot hold NUL, and a lone surrogate (JSON's "\ud800") has no UTF-8 form
# for the database or the socket: either fails only after the text was accepted, so every
# edge that takes text refuses it first. Everything else a person types is theirs to send.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def text_problem(value: str, *, what: str = "The text") -> str | None:
    """Why `value` cannot be accepted, said for a person; None when it can. The one rule
    for every edge that takes text: the socket, the JSON API, the forms and sign-up."""
    found = _UNSTORABLE.search(value)
    if found is None:
        return None
    kind = "a NUL character" if found.group() == "\x00" else "an unpaired surrogate"
    return f"{what} contains {kind} at position {found.start() + 1}; remove it and try again."
