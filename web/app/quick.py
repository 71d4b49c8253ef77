"""The roller's quick buttons as pure text edits (no js): tap d6 twice to build `2d6`, and turn a
d20 roll into its advantage or disadvantage form while keeping the modifiers typed with it.

    >>> add_die("2d6", 6), add_die("2d6", 8), add_die("1d20+5", 6)
    ('3d6', '2d6+1d8', '1d20+5+1d6')
    >>> advantage("1d20+5", True), advantage("2d20kh1+5", False), advantage("+3", True)
    ('2d20kh1+5', '2d20kl1+5', '2d20kh1+3')
"""

from __future__ import annotations

import re

__all__ = ["add_die", "advantage"]

_LAST_TERM = re.compile(r"(^|[+\-*/(,{\s])(\d*)d(\d+|%)$")
_D20 = re.compile(r"(?<![\w!])(?:1?d20|2d20k[hl]1)(?![\w!<>=\[])")
_NUMBER = re.compile(r"^\s*[+-]?\s*\d+\s*$")


def add_die(text: str, sides: int | str) -> str:
    """One more die of `sides` at the end of the expression: `2d6` + d6 is `3d6`, else `+1dX`."""
    text = text.strip()
    found = _LAST_TERM.search(text)
    if found and found.group(3) == str(sides):
        count = int(found.group(2) or 1) + 1
        return f"{text[:found.start(2)]}{count}d{sides}"
    return f"{text}+1d{sides}" if text else f"1d{sides}"


def advantage(text: str, adv: bool) -> str:
    """The first single d20 (or 2d20 kept high/low) becomes 2d20kh1 (adv) or 2d20kl1 (dis); a
    bare modifier gets the d20 in front of it; anything without a d20 becomes the plain roll."""
    form = "2d20kh1" if adv else "2d20kl1"
    text = text.strip()
    if _D20.search(text):
        return _D20.sub(form, text, count=1)
    if _NUMBER.match(text):
        number = text.replace(" ", "")
        return f"{form}{number if number[0] in '+-' else '+' + number}"
    return form
