"""Enchanted Realms' 14 restrictions in combat (seed 004): what conditions do to an attack, a
target and a save, and advantage that never stacks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...errors import RuleError

# -- the 14 restrictions (seed 004, "Restrictions in Combat") -----------------------------------

@dataclass(frozen=True)
class Restriction:
    """What a condition does when an attack or a save is built. `by` / `against`: 'adv', 'dis' or
    None for attacks made by / against the creature; melee and ranged may differ for `against`."""

    name: str
    by: str | None = None
    against_melee: str | None = None
    against_ranged: str | None = None
    no_actions: bool = False
    die_penalty_against: int = 0          # on each die left in the pool (invisible: 3)
    hit_is_crit: bool = False             # paralyzed
    only_crit_damage: bool = False        # petrified
    fails_saves: tuple[str, ...] = ()
    save_dis: tuple[str, ...] = ()
    movement_zero: bool = False
    note: str = ""


CONDITIONS: dict[str, Restriction] = {r.name: r for r in (
    Restriction("Blind", by="dis", against_melee="adv", against_ranged="adv", fails_saves=("sight",), note="fails sight saves"),
    Restriction("Charmed", note="cannot target the charmer; the charmer has advantage on social saves"),
    Restriction("Deaf", fails_saves=("hearing",), note="fails hearing saves"),
    Restriction("Frightened", by="dis", save_dis=("body", "preservation", "sight", "hearing", "social", "other"),
                note="disadvantage on all rolls while the source is known; cannot approach it"),
    Restriction("Grappled", movement_zero=True, note="movement 0"),
    Restriction("Incapacitated", no_actions=True, note="no actions or reactions"),
    Restriction("Invisible", against_melee="dis", against_ranged="dis", die_penalty_against=3,
                note="attacks against it at disadvantage and -3 on each die left"),
    Restriction("Paralyzed", no_actions=True, against_melee="adv", against_ranged="adv", hit_is_crit=True, fails_saves=("body",),
                movement_zero=True, note="no actions, reactions, move or speech; fails body saves"),
    Restriction("Petrified", no_actions=True, against_melee="adv", against_ranged="adv", only_crit_damage=True, fails_saves=("body",),
                movement_zero=True, note="as paralyzed, unaware; only crit damage counts; immune to poison and disease"),
    Restriction("Poisoned", by="dis", save_dis=("preservation",), note="disadvantage on attacks, preservation saves, feats"),
    Restriction("Prone", by="dis", against_melee="adv", against_ranged="dis", note="crawl only; standing costs half movement"),
    Restriction("Restrained", by="dis", against_melee="adv", against_ranged="adv", save_dis=("body",), movement_zero=True,
                note="movement 0; body saves at disadvantage; no dodge"),
    Restriction("Stunned", no_actions=True, against_melee="adv", against_ranged="adv", fails_saves=("body",),
                note="no actions or reactions; fails body saves"),
    # Seed 004 lists no failed saves for Unconscious (Paralyzed, Petrified and Stunned have them).
    Restriction("Unconscious", no_actions=True, against_melee="adv", against_ranged="dis", movement_zero=True,
                note="no actions or reactions; cannot move, speak or gesture; drops what it holds; prone; unaware"),
)}
SAVE_KINDS = ("body", "preservation", "sight", "hearing", "social", "other")


def has_condition(conditions: Iterable[str], name: str) -> bool:
    return any(c.lower() == name.lower() for c in conditions)


@dataclass(frozen=True)
class Situation:
    """What the restrictions, cover and stances make of one attack, each effect with its cause."""

    advantage: tuple[str, ...] = ()
    disadvantage: tuple[str, ...] = ()
    cover_ac: int = 0
    die_penalty: int = 0
    hit_is_crit: bool = False
    only_crit_damage: bool = False
    refused: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def net(self) -> str | None:
        return net_advantage(bool(self.advantage), bool(self.disadvantage))


def net_advantage(advantage: bool, disadvantage: bool) -> str | None:
    """Seed 002: any number of advantages is one; advantage and disadvantage together cancel."""
    if advantage and disadvantage:
        return None
    return "adv" if advantage else "dis" if disadvantage else None


COVER = {"none": 0, "half": 2, "three-quarters": 5, "complete": None}


def situation(attacker: Iterable[str], target: Iterable[str], ranged: bool = False, cover: str = "none",
              defending: bool = False, charmer_is_target: bool = False, extra_adv: Iterable[str] = (),
              extra_dis: Iterable[str] = ()) -> Situation:
    """Derive advantage, disadvantage, penalties and refusals for one attack (RULES.md section 1,
    the restrictions table; seed 004 "Cover", "Defending"). Several restrictions do not add up."""
    attacker, target = list(attacker), list(target)
    adv, dis, notes = list(extra_adv), list(extra_dis), []
    refused = None
    for name in attacker:
        r = CONDITIONS.get(name.title())
        if r is None:
            continue
        if r.no_actions:
            refused = f"the attacker is {r.name.lower()}: no actions"
        if r.by == "dis":
            dis.append(f"attacker {r.name.lower()}")
    if charmer_is_target and has_condition(attacker, "Charmed"):
        refused = "a charmed creature cannot attack its charmer"
    penalty, crit, only_crit = 0, False, False
    for name in target:
        r = CONDITIONS.get(name.title())
        if r is None:
            continue
        effect = r.against_ranged if ranged else r.against_melee
        if effect == "adv":
            adv.append(f"target {r.name.lower()}" + ("" if r.against_melee == r.against_ranged else " (melee)"))
        elif effect == "dis":
            dis.append(f"target {r.name.lower()}" + ("" if r.against_melee == r.against_ranged else " (ranged)"))
        penalty = max(penalty, r.die_penalty_against)
        crit = crit or r.hit_is_crit
        only_crit = only_crit or r.only_crit_damage
    if penalty:
        notes.append(f"-{penalty} on each die (target invisible)")
    if defending:
        dis.append("target defending")
    cover_ac = COVER.get(cover)
    if cover not in COVER:
        raise RuleError("Cover is none, half, three-quarters or complete.")
    if cover_ac is None:
        if ranged:
            refused = refused or "a target in complete cover cannot be targeted at range"
        cover_ac = 0
    elif cover_ac:
        notes.append(f"{cover} cover +{cover_ac} AC")
    return Situation(tuple(adv), tuple(dis), cover_ac, penalty, crit, only_crit, refused, tuple(notes))
