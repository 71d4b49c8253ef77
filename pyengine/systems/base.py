"""What the tracker asks of a rule system. A system overrides only what its rules change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dice import Rng, roll
from ..errors import RuleError

if TYPE_CHECKING:  # pragma: no cover
    from ..tracker import Combatant, Encounter

__all__ = ["System", "roll_off", "settle_ties"]


class System:
    name = "base"
    label = "Base"
    aliases: tuple[str, ...] = ()
    round_seconds = 6
    hp_floor: int | None = 0
    condition_names: tuple[str, ...] = ()
    free_conditions = True
    options: dict[str, tuple[Any, ...]] = {}
    turn_mode = "initiative"   # or "sides": one side acts per round, in the order the table picks
    actions: dict = {}         # extra tracker actions: kind -> pure handler(encounter, args)
    clear_flags_at_turn_start = True   # per-turn flags (parry ...) end when the combatant's turn starts

    def is_down(self, combatant: "Combatant") -> bool:
        return combatant.hp is not None and combatant.hp <= 0

    def resolve(self, encounter: "Encounter", kind: str, args: dict, rng: Rng) -> dict:
        """Roll what one of this system's actions needs; returns the action's full arguments."""
        return dict(args)

    def side_initiative(self, round_number: int, face: int, ambush: str):
        raise RuleError(f"{self.label} has no side initiative.")

    def initiative_expression(self, combatant: "Combatant") -> str:
        mod = combatant.init_mod
        return f"1d20{'+' if mod >= 0 else '-'}{abs(mod)}" if mod else "1d20"

    def roll_initiative(self, combatant: "Combatant", rng: Rng) -> tuple[int, int, str]:
        """(initiative, tiebreak, annotated roll)."""
        result = roll(self.initiative_expression(combatant), rng)
        return result.total, 0, result.text

    def order_key(self, combatant: "Combatant") -> tuple:
        init = combatant.initiative if combatant.initiative is not None else -10**9
        return (-init, -combatant.init_mod, -combatant.tiebreak)

    def break_ties(self, encounter: "Encounter", results: dict[str, list], rng: Rng) -> None:
        """Give tied combatants distinct tiebreaks (results: id -> [initiative, tiebreak, text])."""

    def check_condition(self, name: str) -> None:
        if not self.free_conditions and name not in self.condition_names:
            raise RuleError(f"{name!r} is not a condition of {self.label}.")

    def check_option(self, key: str, value: Any) -> None:
        allowed = self.options.get(key)
        if key != "skip_down" and allowed is not None and value not in allowed:
            raise RuleError(f"{key} must be one of {', '.join(map(str, allowed))}.")

    def end_combat(self, encounter: "Encounter") -> "Encounter":
        return encounter

    def begin_combat(self, encounter: "Encounter", args: dict) -> tuple["Encounter", list]:
        """What the rules do to the combatants as a fight starts (returns the events it logs)."""
        return encounter, []

    def on_turn_start(self, encounter: "Encounter") -> "Encounter":
        return encounter

    def on_new_round(self, encounter: "Encounter", rolls: dict | None) -> tuple["Encounter", list]:
        """Called as a new round begins, before its first turn (may reorder the combatants);
        `rolls` are the initiatives rolled for it when `reroll_each_round` says so."""
        return encounter, []

    def reroll_each_round(self, encounter: "Encounter") -> bool:
        return False


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


def settle_ties(results: dict[str, list], rng: Rng, sides: int, key=lambda cid, entry: entry[0]) -> None:
    """Give combatants whose `key` ties distinct tiebreaks by a d`sides` roll-off (repeated among
    those still tied), noting the faces in their roll text. results: id -> [initiative, tiebreak,
    text]; group members share one entry and roll once."""
    tied_by: dict = {}
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
