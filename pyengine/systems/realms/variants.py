"""Enchanted Realms' variants and special cases: defense rolls, the blind shot, impalement, chase mode."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ...dice import Rng
from ...errors import RuleError
from .attack import AttackRoll, Pool, apply_damage_types, d3, roll_attack

# -- variants and special cases ----------------------------------------------------------------

def defense_roll(ac: int, monster_modifiers: int, dice: int, rng: Rng) -> dict[str, Any]:
    """Seed 004 "Defense Rolls (Variant)": one d20 per attacking die + the PC's AC against DC 21 +
    the monster's modifiers; meeting it avoids the die, failing costs 1 Body; natural 20 avoids,
    natural 1 is a hit."""
    if not 1 <= dice <= 20:
        raise RuleError("A defense roll is 1 to 20 dice.")
    dc = 21 + monster_modifiers
    faces = [rng.randint(1, 20) for _ in range(dice)]
    avoided = [f == 20 or (f != 1 and f + ac >= dc) for f in faces]
    return {"dc": dc, "faces": faces, "avoided": avoided, "body": avoided.count(False)}


def blind_shot(faces: Iterable[int], candidates: list[tuple[str, int]], rng: Rng, modifier: int = 0) -> dict[str, Any]:
    """Seed 004 "Blind Shot": after every die missed an unseen target, number the other possible
    targets plus 3 empty slots and pick one at random (d(n+3)); against a creature, the same dice
    rolled forward by 2 (18 and 19 become natural 20) are checked against its AC."""
    n = len(candidates)
    slot = rng.randint(1, n + 3)
    if slot > n:
        return {"slot": slot, "target": None, "faces": [], "hits": 0}
    name, ac = candidates[slot - 1]
    forward = [min(20, f + 2) for f in faces]
    hits = sum(1 for f in forward if f == 20 or (f != 1 and f + modifier >= ac))
    return {"slot": slot, "target": name, "faces": forward, "hits": hits}


def impalement_pool(forte: bool = False) -> int:
    """Seed 004 "Impalement Maneuver": 1d20 polearm + 2d20 impalement (4d20 with weapon forte)."""
    return 4 if forte else 3


def impalement(pool: Pool, glaive: bool, rng: Rng) -> AttackRoll:
    """Resolved before the charger's attack. Reading of "a glaive's heavy property gives disadvantage
    on a 20": if a glaive's impalement shows a natural 20, the reaction is resolved at disadvantage
    with the same dice: one natural 20 is removed from the pool, no crit, -d3 if any die still hits."""
    first = roll_attack(pool, rng)
    if not glaive or 20 not in first.faces:
        return first
    kept = list(first.faces)
    kept.remove(20)
    dis_pool = replace(pool, net="dis")
    hits = sum(1 for f in kept if dis_pool.hits(f))
    dis = d3(rng) if hits else 0
    raw = hits - dis + pool.bonus if hits else 0
    miss = hits == 0 or raw <= 0
    damage = 0 if miss else apply_damage_types(raw, pool.resistant, pool.vulnerable, pool.immune, pool.absorbing)
    return AttackRoll(first.faces, tuple(kept), hits, False, (), (), 0, dis, max(0, raw), damage, miss)


CHASE_SPEEDS = (100, 90, 80, 70, 60, 55, 50, 45, 40, 35, 30, 25)
CHASE_TABLE = {  # speed -> hexes at seconds 10, 9, ..., 1 (seed 000, "Swing on the Run")
    100: (2, 2, 2, 2, 2, 2, 2, 2, 2, 2), 90: (2, 2, 1, 2, 2, 2, 2, 1, 2, 2), 80: (2, 2, 1, 2, 1, 2, 2, 1, 1, 2),
    70: (2, 1, 1, 2, 1, 2, 1, 1, 1, 2), 60: (2, 1, 1, 1, 1, 2, 1, 1, 1, 1), 55: (1, 1, 1, 1, 1, 2, 1, 1, 1, 1),
    50: (1, 1, 1, 1, 1, 1, 1, 1, 1, 1), 45: (1, 1, 1, 1, 1, 1, 1, 1, 1, 0), 40: (1, 1, 1, 1, 1, 0, 1, 1, 1, 0),
    35: (1, 0, 1, 1, 1, 0, 1, 1, 1, 0), 30: (1, 0, 1, 0, 1, 0, 1, 1, 1, 0), 25: (1, 0, 1, 0, 1, 0, 1, 0, 1, 0),
}
CHASE_REDUCE_1 = ("charging", "martial arts", "spinning moves", "weapon forte")
CHASE_REDUCE_2 = ("ambidexterity", "drive", "footwork", "grappler's shield")
CHASE_PUSH_BACK = ("dodge", "treachery", "takedown")


def chase_hexes(speed: int, second: int, abandonment: bool = False) -> int:
    """Hexes a runner may gain at `second` (10 down to 1). Reading: a speed between rows uses the
    row at or below it; above 100 uses 100; below 25 gains nothing. Abandonment: +5 ft speed."""
    if not 1 <= second <= 10:
        raise RuleError("A chase second is 10 down to 1.")
    speed = speed + (5 if abandonment else 0)
    row = next((s for s in CHASE_SPEEDS if s <= speed), None)
    return 0 if row is None else CHASE_TABLE[row][10 - second]


def chase_penalty(skills: Iterable[str], foe_skills: Iterable[str] = (), foe_mounted: bool = False) -> tuple[int, list[str]]:
    """Melee while running: -3 on every d20; -2 with any of charging, martial arts, spinning moves,
    weapon forte; -1 if also any of ambidexterity, drive, footwork, grappler's shield; a foe with
    dodge, treachery or takedown pushes it back by 1 (to at most -4); a mounted or aerial foe: -2."""
    skills = {s.strip().lower() for s in skills}
    foe = {s.strip().lower() for s in foe_skills}
    penalty, why = -3, ["running: -3"]
    if skills & set(CHASE_REDUCE_1):
        penalty += 1
        why.append("charging / martial arts / spinning moves / weapon forte: +1")
        if skills & set(CHASE_REDUCE_2):
            penalty += 1
            why.append("ambidexterity / drive / footwork / grappler's shield: +1")
    if foe & set(CHASE_PUSH_BACK):
        penalty = max(-4, penalty - 1)
        why.append("foe's dodge / treachery / takedown: -1")
    if foe_mounted:
        penalty -= 2   # Reading: on top of the rest, not capped
        why.append("foe mounted or aerial: -2")
    return penalty, why


def chase_second(speed: int, second: int, agility: int, rng: Rng, abandonment: bool = False) -> tuple[int, int | None]:
    """One second of a chase: if the runner may move, d20 + Agility vs DC 5 gains the hexes
    (natural 1 fails, natural 20 one hex more). Returns (hexes gained, the d20 or None)."""
    hexes = chase_hexes(speed, second, abandonment)
    if hexes == 0:
        return 0, None
    face = rng.randint(1, 20)
    if face == 1 or face + agility < 5:
        return 0, face
    return hexes + (1 if face == 20 else 0), face


def chase_over(gap_ft: int, leader_speed: int) -> bool:
    """The chase ends when the gap reaches half the leader's speed."""
    return gap_ft * 2 >= leader_speed
