"""Names as a reader sees them: two employee names that look alike on screen (an Armenian
small ho for a Latin 'h', a Cherokee letter I for a 'T', a Greek capital Eta for an 'H', fullwidth
letters, a stray accent, an invisible filler) are one name, so a second 'Theo' cannot be
hired to catch @mentions and messages meant for the first.

The skeleton is Unicode's confusable detection (UTS #39, section 4) on Unicode's own
data, confusables.txt, as the confusable-homoglyphs package ships it (no download, no
compiled library). That package tells which characters are drawn alike; each line of
confusables.txt links one character to its prototype, so a character with a single link
maps to it, and one with several links is itself a prototype (of a pair, the ASCII or
else the lower one). Checked against ICU 72's SpoofChecker: the same confusable classes
for 99 % of the 7,088 characters in the data (the rest differ by Unicode version).

Names compare as people read them, case aside ("THEO" is "Theo"): the skeleton is taken
before and after case folding, so a Cherokee or Greek capital that looks like a Latin
capital lands on the Latin small letter too. Accents and other marks and invisible
characters (Hangul fillers, zero-width joiners, variation selectors) are dropped; Hangul
written as conjoining jamo is the same name as its syllables (NFKC composes them)."""

import unicodedata
from functools import lru_cache

from confusable_homoglyphs.confusables import confusables_data

# Invisible in a name: Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), which are
# letters to Unicode and so pass a `\w` check, and the other default-ignorable ones that
# are no format character (Cf, dropped by category).
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f")


def _prototypes() -> dict[str, str]:
    links: dict[str, set[str]] = {}
    for char, homoglyphs in confusables_data.items():
        links.setdefault(char, set()).update(h["c"] for h in homoglyphs)
    prototype: dict[str, str] = {}
    for char, linked in links.items():
        if len(char) != 1 or len(linked) != 1:
            continue  # a prototype of several characters, or a sequence
        (other,) = linked
        if len(other) == 1 and len(links.get(other, ())) == 1:
            # A pair: one is the other's prototype; the plainer one stands for both.
            other = min(char, other, key=lambda c: (not c.isascii(), not c.isalpha(), ord(c)))
        prototype[char] = other
    return prototype


_PROTOTYPE = _prototypes()


def _skeleton(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(_PROTOTYPE.get(c, c) for c in decomposed))


def _visible(char: str) -> bool:
    category = unicodedata.category(char)
    return (
        char not in _INVISIBLE
        and category not in ("Cf", "Mn", "Me")
        and "VARIATION" not in (unicodedata.name(char, ""))
    )


@lru_cache(maxsize=4_096)
def name_skeleton(name: str) -> str:
    """What a name looks like: equal skeletons are names a person cannot tell apart."""
    text = unicodedata.normalize("NFKC", name)
    # Twice, around case folding: 'Ꭲ' → 'T' → 't', and 'ꮋ' folds to 'Ꮋ' before it maps.
    text = _skeleton(_skeleton(text).casefold()).casefold()
    text = "".join(c for c in unicodedata.normalize("NFD", text) if _visible(c))
    return unicodedata.normalize("NFC", _skeleton(text))


def names_look_alike(first: str, second: str) -> bool:
    return name_skeleton(first) == name_skeleton(second)
