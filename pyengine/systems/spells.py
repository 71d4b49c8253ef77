"""The SRD's spells a player casts from the phone (issue 52, section 4; generic d20): those the engine
resolves, from 5e-database's spells table (tools/srd_convert.py writes them into the creature
library's file, format 3). Three kinds:

- "save": a saving throw (Fireball: Dexterity, half on a success, 8d6 fire at level 3 and 1d6 more a
  level above); it becomes the game master's save action on its targets, the caster's spell save DC;
- "attack": a spell attack (Fire Bolt: 1d10 fire, 2d10 from character level 5); the player's attack,
  with the caster's spell attack bonus;
- "damage": damage with neither (Magic Missile's 3d4+3 force): a roll at a target.

A spell's damage grows with the slot it is cast with (`damage_at_slot_level`: the entry for the
highest slot level not above the slot), or a cantrip's with the caster's level (character levels 1,
5, 11, 17).

>>> fireball = Spell("Fireball", 3, "save", "dex", "half", "fire", ((3, "8d6"), (4, "9d6"), (5, "10d6")))
>>> fireball.damage_at(4), fireball.slots()
('9d6 fire', (3, 4, 5, 6, 7, 8, 9))
>>> bolt = Spell("Fire Bolt", 0, "attack", None, "none", "fire", ((1, "1d10"), (5, "2d10"), (11, "3d10"), (17, "4d10")))
>>> bolt.damage_at(7), bolt.slots()
('2d10 fire', (1, 5, 11, 17))
>>> fireball.effect(4, 15).words
'DC 15 Dexterity, 9d6 fire, half on a success'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..damage_types import DAMAGE_TYPES, split_typed
from ..errors import EngineError, RuleError
from ..model import Combatant
from ..save_effects import ABILITIES, CONDITIONS, MAX_ROUNDS, SaveEffect

__all__ = ["Spell", "KINDS", "MAX_SPELLS", "read_spell", "find_spell", "CANTRIP_LEVELS", "spell_save_dc"]

KINDS = ("save", "attack", "damage")
MAX_SPELLS = 400
CANTRIP_LEVELS = (1, 5, 11, 17)   # a cantrip's damage grows at these character levels
_DICE = re.compile(r"^\d{1,2}d\d{1,3}(?:[+-]\d{1,2}(?:d\d{1,3})?){0,3}$")


@dataclass(frozen=True)
class Spell:
    name: str
    level: int                                   # 0: a cantrip
    kind: str                                    # one of KINDS
    ability: str | None                          # the save's ability ("save" spells)
    success: str                                 # what a successful save takes: "half" or "none"
    dtype: str                                   # the damage's type ("" none)
    damage: tuple[tuple[int, str], ...] = ()     # (slot level, or a cantrip's character level; dice), rising
    condition: str = ""                          # what a failed save gives (one of CONDITIONS)
    rounds: int = 0                              # how long (SaveEffect's rounds)
    repeat: bool = False                         # the save repeated at the end of each of the target's turns

    def slots(self) -> tuple[int, ...]:
        """The levels it may be cast at: its own to 9 (a cantrip: the character levels its damage grows at)."""
        return CANTRIP_LEVELS if self.level == 0 else tuple(range(self.level, 10))

    def damage_at(self, slot: int) -> str:
        """Its typed damage cast at `slot` (a cantrip: by a character of level `slot`); "" none."""
        dice = ""
        for at, text in self.damage:
            if at <= slot:
                dice = text
        return f"{dice} {self.dtype}".strip() if dice else ""

    def check_slot(self, slot: Any) -> int:
        if not isinstance(slot, int) or isinstance(slot, bool) or not (slot in self.slots() if self.level else 1 <= slot <= 20):
            what = "a character level from 1 to 20" if not self.level else f"a slot from level {self.level} to 9"
            raise RuleError(f"{self.name} is cast with {what}.")
        return slot

    def effect(self, slot: int, dc: int) -> SaveEffect:
        """The game master's save action for it, cast at `slot` with the caster's spell save DC."""
        if self.kind != "save" or self.ability is None:
            raise RuleError(f"{self.name} asks for no saving throw.")
        return SaveEffect.read({"name": self.name, "ability": self.ability, "dc": dc, "success": self.success,
                                "damage": self.damage_at(self.check_slot(slot)), "condition": self.condition,
                                "rounds": self.rounds, "repeat": self.repeat, "magical": True}, self.name)

    def to_list(self) -> list[Any]:
        return [self.name, self.level, self.kind, self.ability or "", self.success, self.dtype, [list(d) for d in self.damage],
                self.condition, self.rounds, self.repeat]


def read_spell(raw: Any) -> Spell:
    """One spell of the library file, checked (ValueError when it is not ours)."""
    if not isinstance(raw, list) or len(raw) != 10:
        raise ValueError("a spell is a list of 10")
    name, level, kind, ability, success, dtype, damage, condition, rounds, repeat = raw
    if not isinstance(name, str) or not 0 < len(name) <= 60 or type(level) is not int or not 0 <= level <= 9 or kind not in KINDS:
        raise ValueError("a spell's name, level or kind")
    if (kind == "save") != (ability in ABILITIES) or (ability and ability not in ABILITIES) or success not in ("half", "none"):
        raise ValueError("a spell's save")
    if dtype and dtype not in DAMAGE_TYPES or condition and condition not in CONDITIONS:
        raise ValueError("a spell's damage type or condition")
    if not isinstance(damage, list) or len(damage) > 20 or (kind != "save" and not damage):
        raise ValueError("a spell's damage")
    steps: list[tuple[int, str]] = []
    for step in damage:
        if not isinstance(step, list) or len(step) != 2 or type(step[0]) is not int or not 0 <= step[0] <= 20 \
                or not isinstance(step[1], str) or not _DICE.match(step[1]):
            raise ValueError("a spell's damage")
        steps.append((step[0], step[1]))
    if steps != sorted(steps, key=lambda s: s[0]) or type(rounds) is not int or not -2 <= rounds <= MAX_ROUNDS or not isinstance(repeat, bool):
        raise ValueError("a spell's damage or duration")
    spell = Spell(name, level, kind, ability or None, success, dtype, tuple(steps), condition, rounds, repeat)
    try:
        for slot in spell.slots():
            text = spell.damage_at(slot)
            if text:
                split_typed(text)
    except EngineError:
        raise ValueError("a spell's damage") from None
    return spell


def find_spell(spells: tuple[Spell, ...], name: str) -> Spell:
    """The spell of that name (RuleError when the library has none)."""
    found = next((s for s in spells if s.name.lower() == str(name).strip().lower()), None)
    if found is None:
        raise RuleError(f"No SRD spell is called {str(name)[:60]!r}.")
    return found


def spell_save_dc(c: Combatant) -> int | None:
    """The caster's spell save DC (the generic system's stat `spell_dc`), None when not set."""
    dc = c.stat("spell_dc")
    return int(dc) if dc is not None else None
