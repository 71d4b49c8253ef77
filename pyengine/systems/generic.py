"""The generic system: d20 + modifier initiative, plain hit points, free-text conditions, and the
two reminders d20 tables expect (the SRD's death saves and concentration checks; docs/rules.md)."""

from __future__ import annotations

from dataclasses import replace

from ..dice import Rng
from ..errors import RuleError
from ..model import Combatant, Encounter, Event, Outcome, StatField
from ..rules import ActionRule, System, settle_ties

__all__ = ["GenericSystem", "concentration_dc", "death_save_outcome", "DEATH_SAVES"]

DEATH_SAVES = 3  # three successes: stable; three failures: dead
STATS = (StatField("ac", "AC", default=None, low=0, high=60),)


def concentration_dc(damage: int) -> int:
    """SRD: the Constitution save to keep concentrating is DC 10 or half the damage, whichever is higher."""
    return max(10, damage // 2)


def death_save_outcome(face: int) -> tuple[int, int, bool]:
    """(successes, failures, back up with 1 HP) of one death save's d20 (SRD): 10 or more succeeds,
    a 1 counts two failures, a 20 brings the character back with 1 hit point."""
    if face == 20:
        return 0, 0, True
    if face == 1:
        return 0, 2, False
    return (1, 0, False) if face >= 10 else (0, 1, False)


def dying(c: Combatant) -> bool:
    """A player character at 0 hit points, neither stable nor dead: it rolls death saves."""
    return c.pc and c.hp is not None and c.hp <= 0 and not c.stat("stable") and not c.stat("dead")


def _resolve_death_save(enc: Encounter, args: dict, rng: Rng) -> dict:
    c = enc.get(args["id"])
    if not dying(c):
        raise RuleError(f"{c.name} is not dying: death saves are for a player character at 0 HP.")
    result = args.get("result")
    if result in ("success", "failure"):  # rolled at the table, only the outcome is told
        return {"id": c.id, "result": result}
    return {"id": c.id, "face": rng.randint(1, 20)}


def _apply_death_save(enc: Encounter, args: dict) -> Outcome:
    c = enc.get(args["id"])
    if not dying(c):
        raise RuleError(f"{c.name} is not dying: death saves are for a player character at 0 HP.")
    face = args.get("face")
    if face is not None:
        if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= 20:
            raise RuleError("A death save is one d20.")
        gained, lost, revived = death_save_outcome(face)
        roll = f"1d20 ({face}) = {face}"
    else:
        gained, lost, revived = (1, 0, False) if args.get("result") == "success" else (0, 1, False)
        roll = None
    if revived:
        back = replace(c, hp=1).with_stats(death_successes=None, death_failures=None)
        return enc.with_combatant(back), (enc.event("death_save", f"{c.name} rolls a 20 on a death save and is back with 1 HP", roll, c.id),)
    return _count(enc, c, gained, lost, roll)


def _count(enc: Encounter, c: Combatant, gained: int, lost: int, roll: str | None) -> Outcome:
    successes = min(DEATH_SAVES, int(c.stat_or("death_successes", 0)) + gained)
    failures = min(DEATH_SAVES, int(c.stat_or("death_failures", 0)) + lost)
    updated = c.with_stats(death_successes=successes, death_failures=failures,
                           stable=True if successes >= DEATH_SAVES else None, dead=True if failures >= DEATH_SAVES else None)
    what = "succeeds on a death save" if gained else "rolls a 1 on a death save: two failures" if lost == 2 else "fails a death save"
    text = f"{c.name} {what} ({successes} ✓, {failures} ✗)"
    if failures >= DEATH_SAVES:
        text += f": {c.name} dies"
    elif successes >= DEATH_SAVES:
        text += f": {c.name} is stable"
    return enc.with_combatant(updated), (enc.event("death_save", text, roll, c.id),)


class GenericSystem(System):
    name = "generic"
    label = "Generic d20"
    aliases = ("d20", "dnd", "5e")
    round_seconds = 6
    condition_names = (
        "Blinded", "Charmed", "Concentrating", "Deafened", "Frightened", "Grappled", "Incapacitated",
        "Invisible", "Paralyzed", "Petrified", "Poisoned", "Prone", "Restrained", "Stunned", "Unconscious",
    )
    stat_fields = STATS
    actions = {"death_save": ActionRule(_apply_death_save, _resolve_death_save)}

    def break_ties(self, encounter: Encounter, results: dict[str, list], rng: Rng) -> None:
        """Ties on the total go to the higher modifier, then to a d20 roll-off (repeated while tied)."""
        mods = {c.id: c.init_mod for c in encounter.combatants}
        settle_ties(results, rng, 20, key=lambda cid, entry: (entry[0], mods[cid]))

    def on_damage(self, encounter: Encounter, before: Combatant, amount: int) -> tuple[Encounter, list[Event]]:
        """A concentrating creature is reminded of its save; a player character's death saves start
        afresh as it drops to 0 HP, and damage while dying is a failed death save (SRD)."""
        events: list[Event] = []
        c = encounter.get(before.id)
        if amount > 0 and any(k.name.lower() == "concentrating" for k in c.conditions):
            events.append(encounter.event("concentration", f"{c.name} is concentrating: Constitution save DC {concentration_dc(amount)} "
                                                           "to keep it", who=c.id))
        if not c.pc or c.hp is None or c.hp > 0 or amount <= 0:
            return encounter, events
        if before.hp is not None and before.hp > 0:  # just dropped: a fresh count
            fresh = c.with_stats(death_successes=0, death_failures=0, stable=None, dead=None)
            return encounter.with_combatant(fresh), events
        if c.stat("dead"):
            return encounter, events
        if c.stat("stable"):  # damage wakes the dying again
            c = c.with_stats(stable=None, death_successes=0)
        encounter, counted = _count(encounter.with_combatant(c), c, 0, 1, None)
        return encounter, events + list(counted)
