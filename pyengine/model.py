"""Encounter state as frozen data: combatants, conditions, the log's events, actions, and the
limits every value is checked against. No rules here: a system reads and changes these values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from .damage_types import MAX_PORTIONS, Defenses, split_typed
from .errors import RuleError
from .save_effects import MAX_SAVE_ACTIONS, SaveEffect
from .text import clean_text

__all__ = [
    "SIDES", "SKIP_DOWN", "ID_PATTERN", "LIMITS", "MAX_COMBATANTS", "NUMBER_FIELDS",
    "TOOL_KINDS", "MAX_ATTACKS", "Duration", "Condition", "TurnTool", "NamedAttack", "Defenses", "Combatant", "Event", "Action", "Encounter", "Outcome", "StatField",
    "too_many_combatants", "valid_stat", "validated_fields",
]

SIDES = ("party", "opponents")
ID_PATTERN = re.compile(r"^c[0-9]{1,9}$")
SKIP_DOWN = ("none", "npcs", "all")


@dataclass(frozen=True)
class Duration:
    """How a condition ends: after `remaining` starts or ends ('start' / 'end') of the anchor's
    turn, or 'never' (until removed)."""

    event: str = "never"
    anchor_id: str | None = None
    remaining: int = 0

    def describe(self, names: dict[str, str]) -> str:
        who = names.get(self.anchor_id or "", "?")
        if self.event == "never":
            return "until removed"
        if self.event == "start":
            return f"{self.remaining} rd (start of {who}'s turn)" if self.remaining > 1 else f"until start of {who}'s turn"
        return f"until end of {who}'s turn" + (f" (+{self.remaining - 1})" if self.remaining > 1 else "")


@dataclass(frozen=True)
class Condition:
    id: str
    name: str
    duration: Duration = Duration()
    source_id: str | None = None
    note: str = ""
    save: tuple[str, int] | None = None   # (ability, DC): the save that ends it at the end of each of its turns


# A combatant's turn tools (pyengine/tools.py): an ability that recharges on a d6, regeneration,
# ongoing damage, legendary actions, limited uses a day.
TOOL_KINDS = ("recharge", "regeneration", "ongoing", "legendary", "uses")


@dataclass(frozen=True)
class TurnTool:
    """One of a combatant's turn tools: what it is (`kind`, one of TOOL_KINDS), its name, and its
    state. `amount` is the hit points regeneration gives or ongoing damage deals (a number or
    dice), at the `when` ('start' / 'end') of its turn; `low` the lowest d6 face that recharges an
    ability (5 for "Recharge 5–6"); `most` the legendary actions a round or the uses a day (an
    ability that recharges: 1), and `left` how many are left (an ability that recharges: 1 ready, 0 spent); `paused`: regeneration
    does not work at its next turn (acid or fire); `stops`: the damage types that pause regeneration
    by themselves as it takes them ("acid, fire"; empty: paused by hand); `done`: the round its turn
    effect was applied."""

    id: str
    kind: str
    name: str
    amount: str = ""
    low: int = 6
    when: str = "start"
    most: int = 1
    left: int = 1
    paused: bool = False
    done: int = 0
    stops: str = ""
    actions: tuple[tuple[str, int], ...] = ()   # legendary: its named actions and their costs ("Wing Attack", 2)


MAX_ATTACKS = 12  # named attacks on one combatant


@dataclass(frozen=True)
class NamedAttack:
    """One of a combatant's attacks (a stat block's Bite, Claw ...): its attack bonus and its damage,
    dice with their types ("2d10+8 piercing + 2d6 fire"). The attack panel offers them by name."""

    name: str
    bonus: int = 0
    damage: str = "1d6"
    rider: SaveEffect | None = None   # the save a hit asks for (the Assassin's poison: DC 15 Con, 7d6, half)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "bonus": self.bonus, "damage": self.damage}
        if self.rider is not None:
            out["rider"] = self.rider.to_dict()
        return out

    @staticmethod
    def read(d: Any) -> NamedAttack:
        """A typed or saved attack, checked (RuleError with a plain message)."""
        if not isinstance(d, dict) or not set(d) <= {"name", "bonus", "damage", "rider"}:
            raise RuleError("A named attack is unreadable.")
        name = clean_text(str(d.get("name") or ""))
        if not name or len(name) > 60:
            raise RuleError("A named attack needs a name of at most 60 characters.")
        bonus = d.get("bonus", 0)
        if not isinstance(bonus, int) or isinstance(bonus, bool) or not -20 <= bonus <= 40:
            raise RuleError(f"{name}: the attack bonus must be a whole number from -20 to 40.")
        damage = " ".join(str(d.get("damage") or "").split())
        if not damage or len(damage) > 100:
            raise RuleError(f"{name}: the damage must be dice of at most 100 characters.")
        if len(split_typed(damage)) > MAX_PORTIONS:
            raise RuleError(f"{name}: at most {MAX_PORTIONS} typed parts of damage.")
        rider = SaveEffect.read(d["rider"], f"{name}'s save") if d.get("rider") is not None else None
        return NamedAttack(name, bonus, damage, rider)


# Flags that are no turn's: what the players may see of a combatant (pyengine/handoff.py), kept when
# a system clears its per-turn flags at the start of a turn.
HIDDEN_FLAG = "hidden"
UNKNOWN_FLAG = "unknown"
LASTING_FLAGS = frozenset({HIDDEN_FLAG, UNKNOWN_FLAG})


@dataclass(frozen=True)
class Combatant:
    id: str
    name: str
    side: str = "opponents"
    pc: bool = False
    init_mod: int = 0
    initiative: int | None = None
    tiebreak: int = 0
    hp: int | None = None
    max_hp: int | None = None
    temp_hp: int = 0
    conditions: tuple[Condition, ...] = ()
    notes: str = ""
    group: str | None = None
    flags: tuple[str, ...] = ()
    stats: tuple[tuple[str, Any], ...] = ()
    tools: tuple[TurnTool, ...] = ()
    attacks: tuple[NamedAttack, ...] = ()
    defenses: Defenses = Defenses()
    save_actions: tuple[SaveEffect, ...] = ()   # its actions that ask for a save (a dragon's breath)

    @property
    def down(self) -> bool:
        return self.hp is not None and self.hp <= 0

    def stat(self, key: str, default: Any = None) -> Any:
        return dict(self.stats).get(key, default)

    def stat_or(self, key: str, default: Any) -> Any:
        """A stat, with `default` when it is missing or empty (None)."""
        value = dict(self.stats).get(key)
        return default if value is None else value

    def tool(self, tid: str) -> TurnTool:
        """One of its turn tools by id (RuleError: it has no such tool any more)."""
        for t in self.tools:
            if t.id == tid:
                return t
        raise RuleError(f"{self.name} no longer has that turn tool.")

    def with_tool(self, tool: TurnTool) -> Combatant:
        """This combatant with `tool` in place of the one with its id."""
        return replace(self, tools=tuple(tool if t.id == tool.id else t for t in self.tools))

    def with_stats(self, **changes: Any) -> Combatant:
        """This combatant with some stats changed; a stat set to None is removed."""
        stats = {**dict(self.stats), **changes}
        return replace(self, stats=tuple(sorted((k, v) for k, v in stats.items() if v is not None)))


@dataclass(frozen=True)
class Event:
    """One line of the fight's log; `roll` is the annotated roll that produced it, if any."""

    kind: str
    round: int
    text: str
    roll: str | None = None
    who: str | None = None


@dataclass(frozen=True)
class Action:
    kind: str
    args: dict[str, Any] = field(default_factory=dict[str, Any], hash=False, compare=True)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **({"args": self.args} if self.args else {})}


@dataclass(frozen=True)
class Encounter:
    id: str
    name: str
    system: str = "generic"
    options: tuple[tuple[str, Any], ...] = ()
    combatants: tuple[Combatant, ...] = ()
    round: int = 0
    active_id: str | None = None
    seq: int = 0
    turn: tuple[tuple[str, Any], ...] = ()  # the system's own turn state (side initiative ...)

    @property
    def started(self) -> bool:
        return self.round > 0

    def option(self, key: str, default: Any = None) -> Any:
        return dict(self.options).get(key, default)

    def get(self, cid: str) -> Combatant:
        for c in self.combatants:
            if c.id == cid:
                return c
        raise RuleError("That combatant is no longer in this encounter.")

    def names(self) -> dict[str, str]:
        return {c.id: c.name for c in self.combatants}

    def event(self, kind: str, text: str, roll: str | None = None, who: str | None = None) -> Event:
        """A log line of this round."""
        return Event(kind, self.round, text, roll, who)

    def with_combatant(self, combatant: Combatant) -> Encounter:
        """This encounter with `combatant` in place of the one with its id."""
        return replace(self, combatants=tuple(combatant if c.id == combatant.id else c for c in self.combatants))

Outcome = tuple[Encounter, tuple[Event, ...]]  # what applying an action gives: the new state and its log lines


@dataclass(frozen=True)
class StatField:
    """One of a system's own combatant stats, as the add / edit sheet shows it and as the rules
    read it: a whole number (`low`..`high`), a line of text, or a flag (a checkbox)."""

    key: str
    label: str
    kind: str = "number"   # "number", "text" or "flag"
    default: Any = 0
    low: int = 0
    high: int = 1_000_000
    placeholder: str = ""

    def read(self, combatant: Combatant) -> Any:
        """The combatant's value, or the default when it has none."""
        return combatant.stat_or(self.key, self.default)

    def number(self, combatant: Combatant) -> int:
        """The combatant's whole number, refused (RuleError) when it is not one or out of bounds."""
        try:
            value = int(self.read(combatant))
        except (TypeError, ValueError):
            raise RuleError(f"{combatant.name}'s {self.label} is not a whole number.") from None
        if not self.low <= value <= self.high:
            raise RuleError(f"{combatant.name}'s {self.label} must be {self.low} to {self.high}.")
        return value


LIMITS = {"name": 200, "notes": 5000, "hp": 1_000_000, "init": 1000}
MAX_COMBATANTS = 500  # in one encounter: where the user adds and where a file is read
NUMBER_FIELDS = {  # a combatant's numbers as the user types them: (label, lowest, highest)
    "hp": ("HP", -LIMITS["hp"], LIMITS["hp"]), "max_hp": ("Max HP", 1, LIMITS["hp"]),
    "temp_hp": ("Temporary HP", 0, LIMITS["hp"]), "init_mod": ("Initiative modifier", -LIMITS["init"], LIMITS["init"]),
    "initiative": ("Initiative", -LIMITS["init"], LIMITS["init"]),
}


def too_many_combatants(count: int) -> str:
    """The one message for the combatant limit, whether typed in or read from a file."""
    return f"An encounter holds at most {MAX_COMBATANTS} combatants ({count:,} would be too many)."


def valid_stat(value: Any) -> bool:
    """A stat or option value: a flag, a whole number within the HP bound, or short text."""
    return (isinstance(value, bool) or value is None or (isinstance(value, int) and abs(value) <= LIMITS["hp"])
            or (isinstance(value, str) and len(value) <= 100))


def _named_costs(value: Any) -> bool:
    """A legendary tool's named actions as typed: [["Wing Attack", 2], ...] (pyengine/tools.py checks them)."""
    return isinstance(value, list) and len(value) <= 20 and all(
        isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and len(x[0]) <= 100 and type(x[1]) is int for x in value)


def _extra(key: str, value: Any) -> Any:
    """A combatant's turn tools, named attacks, save actions or defenses, as typed or saved with an opponent."""
    if key == "tools":
        # A saved opponent's or party member's turn tools, as typed (pyengine/tools.py checks each
        # one as it joins a fight): a short list of small objects.
        if not isinstance(value, list) or len(value) > 20 or not all(
                isinstance(t, dict) and len(t) <= 10 and all(isinstance(k, str) and (valid_stat(v) or (k == "actions" and _named_costs(v)))
                                                             for k, v in t.items()) for t in value):
            raise RuleError("A combatant's turn tools are unreadable.")
        return [dict(t) for t in value]
    if key == "attacks":
        if not isinstance(value, list) or len(value) > MAX_ATTACKS:
            raise RuleError(f"A combatant has at most {MAX_ATTACKS} named attacks.")
        return [NamedAttack.read(a).to_dict() for a in value]
    if key == "save_actions":
        if not isinstance(value, list) or len(value) > MAX_SAVE_ACTIONS:
            raise RuleError(f"A combatant has at most {MAX_SAVE_ACTIONS} save actions.")
        return [SaveEffect.read(a).to_dict() for a in value]
    return Defenses.read(value).to_dict()


def validated_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Check what a user typed for a combatant; raise RuleError with a plain message."""
    if not isinstance(fields, dict):
        raise RuleError("A combatant's fields are unreadable.")
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key in ("name", "notes"):
            text = clean_text(str(value)) if value is not None else ""
            if key == "name" and not text:
                raise RuleError("A combatant needs a name.")
            if len(text) > LIMITS[key]:
                raise RuleError(f"The {key} is too long (at most {LIMITS[key]} characters).")
            out[key] = text
        elif key == "side":
            if value not in SIDES:
                raise RuleError("Side must be party or opponents.")
            out[key] = value
        elif key == "pc":
            out[key] = bool(value)
        elif key in NUMBER_FIELDS:
            if value is None or value == "":
                out[key] = None if key in ("hp", "max_hp", "initiative") else 0
                continue
            label, low, high = NUMBER_FIELDS[key]
            try:
                number = int(value)
            except (TypeError, ValueError):
                raise RuleError(f"{label} must be a whole number.") from None
            if not low <= number <= high:
                raise RuleError(f"{label} must be from {low:,} to {high:,}.")
            out[key] = number
        elif key in ("tools", "attacks", "defenses", "save_actions"):
            out[key] = _extra(key, value)
        elif key == "stats":
            if not isinstance(value, dict) or len(value) > 200:
                raise RuleError("A combatant's stats are unreadable.")
            stats = {}
            for k, v in value.items():
                if valid_stat(v):
                    stats[str(k)[:40]] = v
                else:
                    raise RuleError(f"{str(k)[:40]} must be a whole number up to {LIMITS['hp']:,}.")
            out[key] = stats
        else:
            raise RuleError(f"Unknown combatant field {key!r}.")
    return out
