"""What `update` asks the runtime to do, as data: save, draw, say, open or close a sheet. The
runtime (web/runtime.py's `perform`) is the only place that carries them out in the browser."""

from __future__ import annotations

from dataclasses import dataclass

from pyengine.dice import RollResult
from pyengine.tracker import Timeline

__all__ = [
    "SaveFight", "Render", "RenderSheet", "RenderNotices", "RenderRolls", "Toast", "HideToast", "Refuse", "ShowSheet",
    "ScheduleSheet", "CloseSheet", "StoreCollection", "SayOnLine", "SetField", "ShowRoll", "RefreshOdds", "ScheduleOdds",
    "ClearLink", "SwitchTo", "ForgetStored", "KeepAwake", "AskToKeepStorage", "LoadEncounter", "TrimStored",
    "AddEncounters", "SetTheme", "Download", "ShowShareLink", "CopyLink", "Reload", "FillForm", "Effect"
]


@dataclass(frozen=True)
class SaveFight:
    """The fight on screen changed: store it (and its line in the list of encounters)."""


@dataclass(frozen=True)
class Render:
    """Draw the turn order, the round, Undo / Redo and the open sheet again."""


@dataclass(frozen=True)
class RenderSheet:
    pass


@dataclass(frozen=True)
class RenderNotices:
    pass


@dataclass(frozen=True)
class RenderRolls:
    """Draw the saved rolls and the dice history again."""


@dataclass(frozen=True)
class Toast:
    """A short message where the thumb is; with `undo`, an Undo button in it."""

    text: str
    level: str = "info"
    undo: bool = False


@dataclass(frozen=True)
class HideToast:
    pass


@dataclass(frozen=True)
class Refuse:
    """A refusal, said where the tap was (the open sheet's error line, else a notice)."""

    text: str


@dataclass(frozen=True)
class ShowSheet:
    """Draw the open sheet anew (the UI state says which) and show it; `focus`: its first field takes the focus."""

    focus: bool = False


@dataclass(frozen=True)
class ScheduleSheet:
    """Draw the open sheet a moment from now (typing, then tapping a button: the tap lands first)."""


@dataclass(frozen=True)
class CloseSheet:
    pass


@dataclass(frozen=True)
class StoreCollection:
    """Store one collection of the model (persist.COLLECTIONS' key: rolls, saved rolls ...)."""

    key: str


@dataclass(frozen=True)
class SayOnLine:
    """A line of text in an element that stays on screen (the roller's error line)."""

    line: str
    text: str


@dataclass(frozen=True)
class SetField:
    """An input's value (the dice box, the saved roll's name)."""

    field: str
    value: str


@dataclass(frozen=True)
class ShowRoll:
    """A roll's result where the Roll button is (the dice and the total)."""

    result: RollResult


@dataclass(frozen=True)
class RefreshOdds:
    """The roller's odds for the expression in the box, now."""


@dataclass(frozen=True)
class ScheduleOdds:
    """The roller's odds a moment after typing stops."""


@dataclass(frozen=True)
class ClearLink:
    """Take the link's part after # off the address bar (a reload does not offer it again)."""


@dataclass(frozen=True)
class SwitchTo:
    """Show this fight (saving the one left, listing the new one with `origin`); with `replacing`,
    it is stored over the encounter of that id (its stored revision forgotten first)."""

    timeline: Timeline
    origin: tuple[tuple[str, str], ...] = ()
    replacing: str | None = None


@dataclass(frozen=True)
class ForgetStored:
    """Take an encounter out of storage and out of the list; then show the first one left (read
    from storage), or, when there is none or it cannot be read, `fresh`."""

    ident: str
    fresh: Timeline


@dataclass(frozen=True)
class KeepAwake:
    """Hold the screen awake while a fight runs (and let it sleep when none does)."""


@dataclass(frozen=True)
class AskToKeepStorage:
    """Once a fight has started, ask the browser to keep our storage."""



@dataclass(frozen=True)
class LoadEncounter:
    """Show the stored encounter of this id (the one on screen stays stored); one that cannot be read is said."""

    ident: str


@dataclass(frozen=True)
class TrimStored:
    """Every stored fight but the one on screen keeps its last `keep` undo steps."""

    keep: int


@dataclass(frozen=True)
class AddEncounters:
    """Imported fights: each stored and listed (from a file); the last one is shown."""

    timelines: tuple[Timeline, ...]


@dataclass(frozen=True)
class SetTheme:
    """Dark or light, on the page and remembered."""

    theme: str


@dataclass(frozen=True)
class Download:
    """The open fight ("current") or everything ("all") as a file."""

    what: str


@dataclass(frozen=True)
class ShowShareLink:
    """The share screen's link for `kind` ("view": the players' view, "fight": a co-GM's copy) in its
    field, copied, and drawn as a QR code."""

    kind: str


@dataclass(frozen=True)
class CopyLink:
    """The link in the field `field`, selected and copied; how it went said on `line`."""

    field: str
    line: str


@dataclass(frozen=True)
class Reload:
    """Load the page again."""


@dataclass(frozen=True)
class FillForm:
    """Inputs' values (text, or a box's tick), then the focus on `focus`."""

    fields: tuple[tuple[str, str | bool], ...]
    focus: str | None = None


Effect = (SaveFight | Render | RenderSheet | RenderNotices | RenderRolls | Toast | HideToast | Refuse | ShowSheet |
          ScheduleSheet | CloseSheet | StoreCollection | SayOnLine | SetField | ShowRoll | RefreshOdds | ScheduleOdds |
          ClearLink | SwitchTo | ForgetStored | KeepAwake | AskToKeepStorage | LoadEncounter | TrimStored |
          AddEncounters | SetTheme | Download | ShowShareLink | CopyLink | Reload | FillForm)
