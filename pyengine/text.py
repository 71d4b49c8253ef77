"""User text as the engine keeps it: without the invisible characters that make two names look the
same or turn the text around it right to left.

    >>> clean_text("Go\\u200bblin \\u202eevil")
    'Goblin evil'
    >>> clean_text("👩\\u200d🚀 Ada")  # a zero-width joiner inside an emoji stays
    '👩\\u200d🚀 Ada'
"""

from __future__ import annotations

import unicodedata

__all__ = ["clean_text", "quoted"]

_ZWJ = "\u200d"


def clean_text(text: str) -> str:
    """Drop format characters (Unicode category Cf: bidi overrides and isolates, zero-width spaces,
    soft hyphens, byte-order marks ...) except a zero-width joiner between two emoji; drop control
    characters other than tab and newline; trim the ends."""
    out = []
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if ch == _ZWJ:
            before = text[i - 1] if i else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if before and after and unicodedata.category(before) == "So" and unicodedata.category(after) == "So":
                out.append(ch)
            continue
        if category == "Cf" or (category == "Cc" and ch not in "\t\n"):
            continue
        out.append(ch)
    return "".join(out).strip()


def quoted(text: str) -> str:
    """User text quoted inside the app's own words, bidi-isolated (FSI ... PDI): a right-to-left
    name cannot turn the sentence around it."""
    return f"“\u2068{text}\u2069”"
