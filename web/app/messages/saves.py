"""The save panel's messages (issue 52): a save effect on several targets, from a creature's save
action or typed by hand, its odds per target, one roll and one Apply (read by web/app/update/saves.py)."""

from __future__ import annotations

from typing import Any

from pyengine.dice import Rng
from pyengine.record import Record

__all__ = ["SavePanelOpened", "SaveConfigured", "SaveTargetsPicked", "SavesRolled", "SaveLegendaryToggled", "SavesApplied", "SavesAsked",
           "SaveSent", "SpellPicked", "SpellSent"]


class SavePanelOpened(Record):
    """The save panel opens: with `source`'s save action number `index` (None: one typed by hand), and
    `targets` already chosen (the rows selected together)."""

    source: str | None = None
    index: int | None = None
    targets: tuple[str, ...] = ()


class SaveConfigured(Record):
    """The save panel's inputs, read whole: the effect's fields, the targets ticked, each target's typed
    d20 and advantage; `typing`: from a text field (redrawn a moment later)."""

    config: dict[str, Any]
    typing: bool = False


class SaveTargetsPicked(Record):
    """A shortcut: every opponent, every party member, or none ("opponents", "party", "none")."""

    side: str


class SavesRolled(Record):
    """Roll: the effect's damage once, a d20 for each target whose die was not typed."""

    rng: Rng


class SaveLegendaryToggled(Record):
    """A target that failed spends (or no longer spends) a Legendary Resistance to succeed."""

    ident: str


class SavesApplied(Record):
    """Apply the rolled saves: one step for every target."""


class SavesAsked(Record):
    """Ask the players' phones: each chosen target a phone plays is asked to roll its own save."""


class SaveSent(Record):
    """A player's phone answers the save it was asked: rolled (the d20s from both phones), or the face of
    a real d20 typed (`typed`, marked typed)."""

    rng: Rng
    typed: str = ""


class SpellPicked(Record):
    """A player picks a spell in the phone's Spell panel (its levels and targets follow it)."""

    name: str


class SpellSent(Record):
    """A player casts the spell picked, at `slot` (a cantrip: the character's level), on `targets`
    (players' view ids): a save spell goes to the game master's save panel, an attack spell is the
    player's attack, a spell of damage alone a roll at its target (the dice from both phones)."""

    rng: Rng
    name: str
    slot: int | None
    targets: tuple[str, ...]
