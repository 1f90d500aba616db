"""Names as a reader sees them: two employee names that look alike on screen (a Cyrillic
'a' look-alike for a Latin 'a', fullwidth letters, a stray accent) are one name, so a second
'Theo' cannot be hired to catch @mentions and messages meant for the first.

The skeleton follows Unicode's confusable detection (UTS #39) in small: compatibility
normalisation (NFKC: fullwidth and other variants), case folding, marks dropped, and the
Cyrillic and Greek letters that render like Latin ones mapped to them. Hangul and other
scripts pass through as they are."""

import unicodedata

# Letters drawn like Latin ones in common fonts (after case folding).
_CONFUSABLE = str.maketrans(
    {
        # Cyrillic
        "а": "a",
        "в": "b",
        "с": "c",
        "д": "d",
        "е": "e",
        "ё": "e",
        "һ": "h",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "к": "k",
        "ӏ": "l",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "ԛ": "q",
        "г": "r",
        "ѕ": "s",
        "т": "t",
        "у": "y",
        "ԝ": "w",
        "х": "x",
        "ү": "y",
        "з": "3",
        # Greek
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ω": "w",
        # Latin look-alikes among themselves
        "ı": "i",
        "ſ": "s",
        "0": "o",
        "1": "l",
        "|": "l",
    }
)


def name_skeleton(name: str) -> str:
    """What a name looks like: equal skeletons are names a person cannot tell apart."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    bare = "".join(c for c in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(c))
    # "i" and "l" are told apart by most fonts, but "rn" and "m" often are not.
    return unicodedata.normalize("NFC", bare).translate(_CONFUSABLE).replace("rn", "m")
