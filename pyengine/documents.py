"""The shapes of what the app stores beside its fights: the list of encounters, the dice history and
the saved rolls. The page (web/app/storage/records.py) checks each when it reads it back; these say what a
checked one holds, for the screens, the messages and the update that pass them on.
"""

from __future__ import annotations

from typing import Required, TypedDict

__all__ = ["Rolled", "SavedRoll", "Origin", "Listed"]


class Rolled(TypedDict, total=False):
    """One line of the dice history (the page's ROLLS)."""

    expr: Required[str]
    total: Required[int]
    text: Required[str]
    at: Required[int]  # when, ms since 1970
    label: str  # a character's attack: who, with what, at what
    crits: int  # how many kept dice counted as critical (cs, or a d20's 20)
    fumbles: int


class SavedRoll(TypedDict):
    """A named roll (the page's SAVED_ROLLS)."""

    name: str
    expr: str


# Where a listed encounter came from (a shared link or a file) and the shared fight's own id.
Origin = TypedDict("Origin", {"from": str, "source": str}, total=False)


class Listed(Origin, total=False):
    """One entry of the list of encounters (the page's INDEX): the fight's id and name, and what
    the list shows beside them."""

    id: Required[str]
    name: Required[str]
    system: str
    round: int
    at: int  # last played, ms since 1970, to the minute
