"""A save effect as a value: what a stat block's Fire Breath, a Ghoul's Claws' paralysis or a typed
spell asks of its targets (SRD 5.1, "Saving Throws"): the ability, the DC, the damage with its types,
what a success does (half the damage or none), the condition a failure gives with how long it lasts,
whether the target repeats the save at the end of each of its turns, and, for a legendary action,
its cost. Read and written like a named attack (pyengine/model.py's NamedAttack, which may carry
one as its rider: the save a hit asks for). The rules that roll it are the generic d20 system's
(pyengine/systems/saving_throws.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .damage_types import MAX_PORTIONS, split_typed
from .errors import EngineError, RuleError
from .text import clean_text

__all__ = ["ABILITIES", "ABILITY_NAMES", "SUCCESS", "CONDITIONS", "SaveEffect", "MAX_SAVE_ACTIONS", "MAX_DC", "MAX_ROUNDS",
           "NEXT_TURN_END", "SOURCE_TURN_END"]

ABILITIES = ("str", "dex", "con", "int", "wis", "cha")
ABILITY_NAMES = {"str": "Strength", "dex": "Dexterity", "con": "Constitution", "int": "Intelligence", "wis": "Wisdom",
                 "cha": "Charisma"}
SUCCESS = ("half", "none")   # what a successful save does to the damage
# The SRD 5.1 conditions a failed save can give (its 15 but exhaustion, which has levels).
CONDITIONS = ("Blinded", "Charmed", "Deafened", "Frightened", "Grappled", "Incapacitated", "Invisible", "Paralyzed",
              "Petrified", "Poisoned", "Prone", "Restrained", "Stunned", "Unconscious")
MAX_SAVE_ACTIONS = 12
MAX_DC = 40
MAX_ROUNDS = 1000
NEXT_TURN_END = -1   # `rounds`: until the end of the target's next turn
SOURCE_TURN_END = -2  # `rounds`: until the end of the source's next turn ("until the end of the mummy's next turn")


@dataclass(frozen=True)
class SaveEffect:
    """`rounds`: how long the condition lasts: 0 until removed, NEXT_TURN_END until the end of the
    target's next turn, SOURCE_TURN_END until the end of the source's next turn, N > 0 that many rounds
    (1 minute: 10). `cost`: legendary actions it spends. `magical`: Magic Resistance applies."""

    name: str
    ability: str
    dc: int
    success: str = "none"
    damage: str = ""
    condition: str = ""
    rounds: int = 0
    repeat: bool = False
    cost: int = 1
    magical: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "ability": self.ability, "dc": self.dc, "success": self.success}
        for key, default in (("damage", ""), ("condition", ""), ("rounds", 0), ("repeat", False), ("cost", 1), ("magical", False)):
            if getattr(self, key) != default:
                out[key] = getattr(self, key)
        return out

    @property
    def words(self) -> str:
        """"DC 17 Dexterity, 16d6 fire, half on a success"; "DC 10 Constitution or paralyzed (1 minute, repeats)"."""
        parts = [f"DC {self.dc} {ABILITY_NAMES[self.ability]}"]
        if self.damage:
            parts.append(f"{self.damage}" + (", half on a success" if self.success == "half" else ""))
        if self.condition:
            lasts = ("until the end of its next turn" if self.rounds == NEXT_TURN_END
                     else "until the end of the source's next turn" if self.rounds == SOURCE_TURN_END
                     else "until removed" if not self.rounds else "1 minute" if self.rounds == 10 else f"{self.rounds} rounds")
            parts.append(f"fail: {self.condition.lower()} ({lasts}{', save again each turn' if self.repeat else ''})")
        return ", ".join(parts)

    @staticmethod
    def read(d: Any, label: str = "A save") -> SaveEffect:
        """A typed or saved save effect, checked (RuleError with a plain message)."""
        keys = {"name", "ability", "dc", "success", "damage", "condition", "rounds", "repeat", "cost", "magical"}
        if not isinstance(d, dict) or not set(d) <= keys:
            raise RuleError(f"{label} is unreadable.")
        name = clean_text(" ".join(str(d.get("name") or "").split()))
        if not name or len(name) > 60:
            raise RuleError(f"{label} needs a name of at most 60 characters.")
        ability = str(d.get("ability") or "").lower()
        if ability not in ABILITIES:
            ability = next((k for k, v in ABILITY_NAMES.items() if v.lower() == ability), "")
        if not ability:
            raise RuleError(f"{name}: the save is Strength, Dexterity, Constitution, Intelligence, Wisdom or Charisma.")
        dc = d.get("dc")
        if not isinstance(dc, int) or isinstance(dc, bool) or not 1 <= dc <= MAX_DC:
            raise RuleError(f"{name}: the DC is a whole number from 1 to {MAX_DC}.")
        success = d.get("success", "none")
        if success not in SUCCESS:
            raise RuleError(f"{name}: a successful save takes half the damage or none.")
        damage = " ".join(str(d.get("damage") or "").split())
        if len(damage) > 100:
            raise RuleError(f"{name}: the damage is at most 100 characters.")
        if damage:
            try:
                if len(split_typed(damage)) > MAX_PORTIONS:
                    raise RuleError(f"{name}: at most {MAX_PORTIONS} typed parts of damage.")
            except EngineError as error:
                raise RuleError(f"{name}: {error}") from None
        condition = str(d.get("condition") or "")
        match = next((c for c in CONDITIONS if c.lower() == condition.lower()), None) if condition else ""
        if match is None:
            raise RuleError(f"{name}: the condition is one of the SRD's: {', '.join(CONDITIONS)}.")
        rounds, cost = d.get("rounds", 0), d.get("cost", 1)
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not SOURCE_TURN_END <= rounds <= MAX_ROUNDS:
            raise RuleError(f"{name}: a condition lasts until removed, until the end of its next turn, or 1 to {MAX_ROUNDS} rounds.")
        if not isinstance(cost, int) or isinstance(cost, bool) or not 1 <= cost <= 3:
            raise RuleError(f"{name}: a legendary action costs 1 to 3 actions.")
        if not damage and not match:
            raise RuleError(f"{name}: a save needs damage, a condition, or both.")
        return SaveEffect(name, ability, dc, str(success), damage, match, rounds if match else 0,
                          d.get("repeat") is True and bool(match), cost, d.get("magical") is True)
