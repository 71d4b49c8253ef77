"""What the tracker asks of a game system, and the registry that finds a system by name.

A system is a `System` subclass that overrides only the hooks its rules change: its stats (one
`StatField` each), who is down, initiative and tie-breaks, what starting and ending a fight, a turn
and a round do, its turn flow, and its own actions as a table of kind -> `ActionRule`. The tracker
asks the system of an encounter (`system_of`); it never names one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .core_args import typed
from .dice import Rng, roll
from .errors import RuleError
from .model import Combatant, Encounter, Event, StatField
from .record import Record
from .turns import INITIATIVE, TurnFlow

__all__ = [
    "AttackOutcome", "whole",
    "ActionRule", "typed_rule", "CORE_KINDS", "System", "register", "unregister", "get_system", "system_of", "systems", "roll_off", "settle_ties",
    "needs_initiative_entry",
]

T = TypeVar("T", bound=Record)
Apply = Callable[[Encounter, dict[str, Any]], tuple[Encounter, tuple[Event, ...]]]
Resolve = Callable[[Encounter, dict[str, Any], Rng], dict[str, Any]]


@dataclass(frozen=True)
class ActionRule:
    """One of a system's actions: `resolve` rolls what the request needs (refusing it, RuleError,
    before any die is rolled) and returns the action's full arguments; `apply` is pure and replays
    a saved action exactly. Without `resolve`, the request's arguments are the action's."""

    apply: Apply
    resolve: Resolve | None = None
    # The record a request of this kind is made of (pyengine/core_args.py, or the system's own):
    # tracker.request refuses another. None: the request's arguments are not typed (a saved one's).
    request: type[Record] | None = None


def typed_rule(cls: type[T], apply: Callable[[Encounter, T], Any], resolve: Resolve | None = None,
               request: type[Record] | None = None) -> ActionRule:
    """An action whose saved arguments are read as `cls` (core_args.typed) and whose request is the
    record `request` (`cls` when it is not said: a request without a resolve step is the action)."""
    return ActionRule(typed(cls, apply), resolve, request or cls)


# The tracker's own actions (tracker.CORE): a system's action of one of these names would silently
# replace the core one for its fights, so `register` refuses it.
CORE_KINDS = frozenset({
    "batch", "add_combatant", "update_combatant", "remove_combatant", "start_combat", "next_turn", "previous_turn", "end_combat",
    "delay", "damage", "heal", "temp_hp", "add_condition", "remove_condition", "set_flag", "set_option", "rename",
    "set_initiative", "act_now", "add_tool", "remove_tool", "use_tool", "recharge_tool", "tool_acts", "set_tool",
})


@dataclass(frozen=True)
class AttackOutcome:
    """What any system's attack comes to, read from its resolved action (System.attack_outcome):
    who attacked whom, whether it hit, the damage it deals (negative: it heals, an absorbed blow),
    whether it was a critical, and the roll as text. The page's history and the tests read this;
    the system's own details stay in the action's arguments."""

    attacker: str
    target: str
    hit: bool
    damage: int
    crit: bool
    text: str

    @classmethod
    def read(cls, args: dict[str, Any], hit: Any, damage: Any, crit: Any) -> AttackOutcome:
        """The outcome of an attack whose resolved arguments are `args` (attacker, target and text are
        named the same in every system's); `damage` is read as a whole number (0 when it is none)."""
        return cls(str(args.get("attacker", "")), str(args.get("target", "")), bool(hit), whole(damage), bool(crit),
                   str(args.get("text", "")))


def whole(value: Any) -> int:
    """`value` when it is a whole number (not a bool), else 0: a count read from saved arguments."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class System:
    name = "base"
    label = "Base"
    aliases: tuple[str, ...] = ()
    round_seconds = 6
    hp_floor: int | None = 0
    hp_label = "HP"                    # what the system calls hit points
    condition_names: tuple[str, ...] = ()
    free_conditions = True
    options: dict[str, tuple[Any, ...]] = {}
    # The options a new fight of this system starts with, where the default of one missing differs
    # (a rule added later: a fight saved before it has no such option and replays as it was played).
    new_options: dict[str, Any] = {}
    stat_fields: tuple[StatField, ...] = ()
    flow: TurnFlow = INITIATIVE
    rolls_initiative = True            # the players roll (and call out) their initiative; False: it is a stat
    actions: dict[str, ActionRule] = {}
    clear_flags_at_turn_start = True   # per-turn flags (parry ...) end when the combatant's turn starts
    no_delay = ""                      # why a turn cannot be delayed ("Delay until after"), when the rules say so
    turn_tools: tuple[str, ...] = ()   # the turn tools its rules have (model.TOOL_KINDS: recharge, legendary ...)

    def is_down(self, combatant: Combatant) -> bool:
        return combatant.hp is not None and combatant.hp <= 0

    def is_creature(self, combatant: Combatant) -> bool:
        """Whether an entry of the order is a creature, which attacks and is attacked (a lair is not)."""
        return True

    def check_turn_state(self, encounter: Encounter) -> None:
        """A saved fight's turn state as this system keeps it, else SchemaError (read from a link, a
        file or storage: refused then, never by the next turn). By default its turn flow's."""
        self.flow.check_state(encounter)

    def can_be_surprised(self, combatant: Combatant) -> bool:
        """Whether an ambush's surprise holds `combatant` back in the first round (side initiative)."""
        return True

    def side_initiative(self, round_number: int, face: int, ambush: str) -> Any:
        raise RuleError(f"{self.label} has no side initiative.")

    def initiative_expression(self, combatant: Combatant) -> str:
        mod = combatant.init_mod
        return f"1d20{'+' if mod >= 0 else '-'}{abs(mod)}" if mod else "1d20"

    def roll_initiative(self, combatant: Combatant, rng: Rng) -> tuple[int, int, str]:
        """(initiative, tiebreak, annotated roll)."""
        result = roll(self.initiative_expression(combatant), rng)
        return result.total, 0, result.text

    def order_key(self, combatant: Combatant) -> tuple[Any, ...]:
        init = combatant.initiative if combatant.initiative is not None else -10**9
        return (-init, -combatant.init_mod, -combatant.tiebreak)

    def break_ties(self, encounter: Encounter, results: dict[str, list[Any]], rng: Rng) -> None:
        """Give tied combatants distinct tiebreaks (results: id -> [initiative, tiebreak, text])."""

    def check_condition(self, name: str) -> None:
        if not self.free_conditions and name not in self.condition_names:
            raise RuleError(f"{name!r} is not a condition of {self.label}.")

    def check_option(self, key: str, value: Any) -> None:
        allowed = self.options.get(key)
        if key != "skip_down" and allowed is not None and value not in allowed:
            raise RuleError(f"{key} must be one of {', '.join(map(str, allowed))}.")

    def end_combat(self, encounter: Encounter) -> Encounter:
        return encounter

    def begin_combat(self, encounter: Encounter, args: dict[str, Any]) -> tuple[Encounter, list[Any]]:
        """What the rules do to the combatants as a fight starts (returns the events it logs)."""
        return encounter, []

    def on_turn_start(self, encounter: Encounter) -> Encounter:
        return encounter

    def on_new_round(self, encounter: Encounter, rolls: dict[str, Any] | None) -> tuple[Encounter, list[Event]]:
        """Called as a new round begins, before its first turn (may reorder the combatants);
        `rolls` are the initiatives rolled for it when `reroll_each_round` says so."""
        return encounter, []

    def reroll_each_round(self, encounter: Encounter) -> bool:
        return False

    attack_kind: str | None = None     # the system's attack action (rolled on the target, then applied)

    def attack_outcome(self, args: dict[str, Any]) -> AttackOutcome:
        """The outcome of an attack of `attack_kind`, from its resolved arguments (the generic d20
        attack's keys: hit, crit, damage, text); a system whose attack says it otherwise overrides this."""
        return AttackOutcome.read(args, args.get("hit"), args.get("damage"), args.get("crit"))

    def attack_words(self, args: dict[str, Any]) -> str:
        """An attack of `attack_kind` in words the players may know (a player's phone at the live table
        is told this), the same words in every system (issue 53): what it rolled, its result (hit,
        miss, critical, or the system's own: parried, on its shield), the damage; never the target's
        defences. Each part is the system's (`attack_roll_words`, `attack_result_words`,
        `attack_damage_words`)."""
        rolled, result, damage = self.attack_roll_words(args), self.attack_result_words(args), self.attack_damage_words(args)
        return (f"{rolled}: " if rolled else "") + result + (f", {damage}" if damage else "")

    def attack_result_words(self, args: dict[str, Any]) -> str:
        """Hit, miss or critical hit (a system with results of its own overrides this)."""
        outcome = self.attack_outcome(args)
        return "critical hit" if outcome.crit else "hit" if outcome.hit else "miss"

    def attack_damage_words(self, args: dict[str, Any]) -> str:
        """The damage the attack deals ("" when none)."""
        damage = self.attack_outcome(args).damage
        return f"{damage} damage" if damage > 0 else ""

    def attack_roll_words(self, args: dict[str, Any]) -> str:
        """What a player's phone may be told of its attack while the game master has not applied it:
        its own roll, never whether it hit (that would tell the target's defences before the game
        master decides). "" where the system's roll alone says too much."""
        return ""

    def players_health(self, combatant: Combatant) -> str:
        """A combatant's state in the players' words (pyengine.handoff.WORDS, parts joined by ", "):
        down as the system counts it, else bloodied at half its HP or less, hurt below full, unhurt;
        "" when it has no HP to tell. A system whose health is more than HP says it its own way."""
        if self.is_down(combatant):
            return "down"
        c = combatant
        if c.hp is None or not c.max_hp:
            return ""
        if c.hp >= c.max_hp:
            return "unhurt"
        return "bloodied" if 2 * c.hp <= c.max_hp else "hurt"

    def down_words(self, combatant: Combatant) -> str:
        """Why a combatant the system counts as down makes no attack, for its player ("" while it is not)."""
        return f"At 0 {self.hp_label}" if self.is_down(combatant) else ""

    def players_chip(self, combatant: Combatant) -> str:
        """What the players' view adds to a party member's row beyond its conditions (the generic
        system's "dying (1 ✓, 2 ✗)"); "" for nothing."""
        return ""

    def own_gauges(self, combatant: Combatant) -> list[list[Any]]:
        """What a player's phone shows of its own character beyond its HP, as the system keeps it:
        [label, value, maximum or None] (Laurels and Loot's Injuries, Realm of Strife's resources)."""
        return []

    def on_damage(self, encounter: Encounter, before: Combatant, amount: int) -> tuple[Encounter, list[Event]]:
        """After `before` took `amount` damage (the encounter already holds its new hit points):
        what the rules add (a reminder, a failed death save ...)."""
        return encounter, []

    def fresh_stats(self, stats: dict[str, Any]) -> dict[str, Any]:
        """A new combatant's stats as it joins a fight (from the add form or a player's character):
        what the rules set at the start (Realm of Strife's resources start full)."""
        return stats

    def named_attacks(self, attacks: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """A player's character's attacks ((name, the weapon's stats) each) as the fight's named attacks
        (NamedAttack's fields), where the system's attack is one bonus and typed damage; [] otherwise."""
        return []

    def elapsed_seconds(self, encounter: Encounter) -> int:
        return max(0, encounter.round - 1) * self.round_seconds


_REGISTRY: dict[str, System] = {}
_ALIASES: dict[str, str] = {}


def register(system: System) -> System:
    shadowed = sorted(CORE_KINDS & set(system.actions))
    if shadowed:
        raise RuleError(f"{system.label}: the action {', '.join(shadowed)} is the tracker's own; give the system's another name.")
    _REGISTRY[system.name] = system
    for alias in (system.name, *system.aliases):
        _ALIASES[alias.lower()] = system.name
    return system


def unregister(name: str) -> None:
    """Forget a system (tests register their own, then take it away)."""
    _REGISTRY.pop(name, None)
    for alias in [a for a, n in _ALIASES.items() if n == name]:
        del _ALIASES[alias]


def get_system(name: str) -> System:
    key = _ALIASES.get(str(name).lower())
    if key is None:
        raise RuleError(f"Unknown game system {name!r}.")
    return _REGISTRY[key]


def system_of(encounter: Encounter) -> System:
    return get_system(encounter.system)


def systems() -> list[System]:
    return list(_REGISTRY.values())


def roll_off(ids: list[str], rng: Rng, sides: int = 20) -> dict[str, list[int]]:
    """Roll off among tied ids: each rolls 1d`sides`; those still tied roll again, until all differ.

    Returns the sequence of faces each rolled; comparing the sequences orders them."""
    faces: dict[str, list[int]] = {i: [] for i in ids}
    pending = [list(ids)]
    while pending:
        group = pending.pop()
        rolled = {i: rng.randint(1, sides) for i in group}
        for i, face in rolled.items():
            faces[i].append(face)
        by_face: dict[int, list[str]] = {}
        for i, face in rolled.items():
            by_face.setdefault(face, []).append(i)
        pending.extend(g for g in by_face.values() if len(g) > 1)
    return faces


def _on_total(cid: str, entry: list[Any]) -> Any:
    return entry[0]


def settle_ties(results: dict[str, list[Any]], rng: Rng, sides: int, key: Callable[[str, list[Any]], Any] = _on_total) -> None:
    """Give combatants whose `key` ties distinct tiebreaks by a d`sides` roll-off (repeated among
    those still tied), noting the faces in their roll text. results: id -> [initiative, tiebreak,
    text]; group members share one entry and roll once."""
    tied_by: dict[str, Any] = {}
    seen: set[int] = set()
    for cid, entry in results.items():
        if id(entry) in seen:
            continue
        seen.add(id(entry))
        tied_by.setdefault(key(cid, entry), []).append(cid)
    for tied in tied_by.values():
        if len(tied) < 2:
            continue
        faces = roll_off(tied, rng, sides)
        ranking = sorted(tied, key=lambda i: faces[i], reverse=True)
        for place, cid in enumerate(ranking):
            results[cid][1] = len(ranking) - place
            note = f"tie roll-off d{sides}: {', '.join(map(str, faces[cid]))}"
            results[cid][2] = f"{results[cid][2]}; {note}" if results[cid][2] else note


def needs_initiative_entry(enc: Encounter) -> bool:
    """Before a fight whose players roll initiative: is a player character's number still missing?
    (Start then asks the players for their numbers first.)"""
    system = system_of(enc)
    return (not enc.started and system.rolls_initiative and system.flow.ordered_by_initiative
            and any(c.pc and c.initiative is None for c in enc.combatants))
