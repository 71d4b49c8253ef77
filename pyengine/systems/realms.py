"""Enchanted Realms: d10 initiative with d20 roll-offs, pools of d20 against AC, crits (immediate
chains or next round), advantage that never stacks, damage types, saves, d12 competitions, the 14
restrictions, turn economy, and the variants (defense rolls, blind shot, impalement, chase mode).

Rules from seeds 000_a0b07f15bc4d7147.txt (Combat Essentials), 002_cc505cdd17009f72.txt (Advantage)
and 004_f8f8c3085bf2d4bf.txt (Combat Detailed) as fixed by shared/RULES.md section 1. Readings this
module adds where both are silent are marked **Reading**.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from operator import add
from typing import Any

from ..damage import harm, mend
from ..dice import Rng
from ..errors import RuleError
from ..model import Combatant, Condition, Encounter, Event, Outcome, StatField
from ..odds import Distribution
from ..rules import ActionRule, System, settle_ties
from ..turns import check_initiative, keep_groups_together

__all__ = [
    "DAMAGE_TYPES", "CRIT_SKILLS", "CONDITIONS", "Restriction", "Situation", "situation", "net_advantage",
    "Pool", "pool_size", "AttackRoll", "roll_attack", "attack_odds", "AttackOdds", "apply_damage_types",
    "SaveResult", "roll_save", "save_odds", "Competition", "competition_modifiers", "roll_competition",
    "competition_odds", "own_save_modifier", "defense_roll", "blind_shot", "impalement_pool", "CHASE_TABLE", "chase_penalty",
    "chase_second", "RealmsSystem",
]

DAMAGE_TYPES = ("alchemical", "blunt", "cold", "edged", "fire", "lightning", "necrotic", "piercing", "poison", "smite")
CRIT_SKILLS = ("bludgeoning", "cleaving", "polearms", "slashing")
SKILL_CAP = 5
D3 = Distribution.uniform(1, 3)
CHAIN_CUTOFF = 1e-12


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


def _has(conditions: Iterable[str], name: str) -> bool:
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
    if charmer_is_target and _has(attacker, "Charmed"):
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


# -- the attack pool ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Pool:
    """A configured attack on one target (split pools are separate Pools, seed 000).

    skills: dice from skills (capped at 5); net: 'adv', 'dis' or None; sneak: +1 die; award: dice
    from a next-round crit (seed 004); modifier: added to each die; penalty: subtracted from each
    die (invisible target, chase mode); ac: the target's AC for this damage type, cover included;
    bonus: Strength or Agility modifier + weapon weight, added once if any die hits."""

    skills: int = 1
    net: str | None = None
    sneak: bool = False
    award: int = 0
    modifier: int = 0
    penalty: int = 0
    ac: int = 10
    bonus: int = 0
    crit_skill: bool = False
    ranged: bool = False
    ranged_crits: bool = False
    timing: str = "immediate"
    hit_is_crit: bool = False
    only_crit_damage: bool = False
    resistant: bool = False
    vulnerable: bool = False
    immune: bool = False
    absorbing: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.skills <= 20 or not 0 <= self.award <= 5:
            raise RuleError("Skill dice 0 to 20, award dice 0 to 5.")
        if self.net not in (None, "adv", "dis"):
            raise RuleError("Advantage is adv, dis or none.")
        if self.sneak and self.net == "dis":
            raise RuleError("No sneak attack while at disadvantage.")
        if self.timing not in ("immediate", "next_round"):
            raise RuleError("Crit timing is immediate or next_round.")
        if abs(self.modifier) > 100 or abs(self.penalty) > 100 or abs(self.ac) > 200 or abs(self.bonus) > 1000:
            raise RuleError("A modifier, AC or bonus is out of range.")

    @property
    def dice(self) -> int:
        """d20s rolled (0 means: roll 2, keep the worse; seed 002)."""
        n = max(1, min(SKILL_CAP, self.skills))  # Reading: with no applicable skill, one d20 (unskilled)
        if self.net == "adv":
            n += 1
        elif self.net == "dis":
            n = max(0, n - 1)
        return n + (1 if self.sneak else 0) + self.award

    @property
    def keep_worse(self) -> bool:
        return self.dice == 0

    @property
    def can_crit(self) -> bool:
        """Seed 000 "Critical Damage": a crit skill, at least 2 d20 in the primary pool, not ranged
        (unless allowed), never at disadvantage."""
        if self.net == "dis":
            return False
        if self.ranged and not self.ranged_crits:
            return False
        return self.crit_skill and self.dice >= 2

    def hits(self, face: int) -> bool:
        """Natural 20 always hits, natural 1 always misses; else die + modifier - penalty >= AC."""
        if face == 20:
            return True
        if face == 1:
            return False
        return face + self.modifier - self.penalty >= self.ac


def pool_size(skills: int) -> int:
    return min(SKILL_CAP, max(0, skills))


@dataclass(frozen=True)
class AttackRoll:
    faces: tuple[int, ...]              # the primary pool (both dice when keeping the worse)
    kept: tuple[int, ...]               # the dice that count
    hits: int
    crit: bool
    awards: tuple[int, ...] = ()        # immediate award dice (a chain while they show 20)
    award_d3: tuple[int, ...] = ()      # d3 for each award die that hit
    adv_d3: int = 0
    dis_d3: int = 0
    raw: int = 0                        # damage before damage types
    damage: int = 0                     # after types; negative heals (absorbing)
    miss: bool = True
    next_round_award: bool = False      # a crit with next-round timing: +1d20 on the next attack

    def text(self, pool: Pool) -> str:
        def die(f: int) -> str:
            return f"{f}{'*' if f == 20 else ''}{'✓' if pool.hits(f) else '✗'}"

        parts = [f"{'2d20 keep worse' if pool.keep_worse else f'{len(self.faces)}d20'}: " + " ".join(die(f) for f in self.faces)]
        if pool.keep_worse:
            parts.append(f"kept {self.kept[0]}")
        parts.append(f"{self.hits} hit{'s' * (self.hits != 1)}")
        if self.crit:
            parts.append("CRIT")
        if self.awards:
            parts.append("award " + " ".join(die(f) for f in self.awards) + (f" → d3 {'+'.join(map(str, self.award_d3))}" if self.award_d3 else ""))
        if self.adv_d3:
            parts.append(f"advantage +d3 {self.adv_d3}")
        if self.dis_d3:
            parts.append(f"disadvantage -d3 {self.dis_d3}")
        if self.hits:
            parts.append(f"bonus {pool.bonus:+d}")
        parts.append(f"= {self.raw}")
        if self.damage != self.raw:
            parts.append(f"after damage type {self.damage}")
        if self.next_round_award:
            parts.append("+1d20 on the next attack next round")
        return "; ".join(parts) if not self.miss else "; ".join(parts) + " → miss"


def apply_damage_types(damage: int, resistant: bool = False, vulnerable: bool = False, immune: bool = False,
                       absorbing: bool = False) -> int:
    """Seed 000 "Types of Damage": resistant halves (round down), vulnerable doubles, both cancel,
    immune is 0, absorbing heals instead (a negative result). Reading: absorbing beats immune beats
    the rest; the same state from several sources counts once (they are flags)."""
    if damage <= 0:
        return 0
    if absorbing:
        return -damage
    if immune:
        return 0
    if resistant and vulnerable:
        return damage
    if resistant:
        return damage // 2
    if vulnerable:
        return damage * 2
    return damage


def _d3(rng: Rng) -> int:
    return rng.randint(1, 3)


def roll_attack(pool: Pool, rng: Rng) -> AttackRoll:
    """Roll the pool, then the immediate crit chain, then the advantage / disadvantage d3, in that
    order (so scripted dice read left to right)."""
    faces: tuple[int, ...]
    kept: tuple[int, ...]
    if pool.keep_worse:
        faces = (rng.randint(1, 20), rng.randint(1, 20))
        kept = (min(faces),)
    else:
        faces = tuple(rng.randint(1, 20) for _ in range(pool.dice))
        kept = faces
    hits = sum(1 for f in kept if pool.hits(f))
    crit = (pool.can_crit and 20 in kept) or (pool.hit_is_crit and hits > 0)
    awards: list[int] = []
    award_d3: list[int] = []
    if crit and pool.timing == "immediate":
        while True:
            face = rng.randint(1, 20)
            awards.append(face)
            if pool.hits(face):
                award_d3.append(_d3(rng))
            if face != 20:
                break
            if len(awards) >= 100:
                raise RuleError("A crit chain went past 100 dice.")
    adv = _d3(rng) if pool.net == "adv" and hits else 0
    dis = _d3(rng) if pool.net == "dis" and hits else 0
    if not hits:
        raw = 0
    elif pool.only_crit_damage:
        raw = sum(award_d3)
    else:
        raw = hits + sum(award_d3) + adv - dis + pool.bonus
    # Seed 002: at disadvantage a total of 0 or less is a miss (no riders); otherwise it is a hit for 0.
    miss = hits == 0 or (pool.net == "dis" and raw <= 0)
    raw = max(0, raw)
    damage = 0 if miss else apply_damage_types(raw, pool.resistant, pool.vulnerable, pool.immune, pool.absorbing)
    return AttackRoll(faces, kept, hits, crit, tuple(awards), tuple(award_d3), adv, dis, raw, damage, miss,
                      crit and pool.timing == "next_round")


# -- exact odds ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class AttackOdds:
    p_hit: float                # at least one die hits
    p_crit: float
    damage: Distribution        # after damage types (negative: healing), 0 on a miss
    residual: float = 0.0

    def p_drop(self, body: int | None) -> float:
        if body is None:
            return 0.0
        return 1.0 if body <= 0 else self.damage.at_least(body)


def _d3_sum(count: Distribution) -> Distribution:
    """Distribution of the sum of C d3s where C itself is random."""
    return Distribution.mix((pc, D3.times(c)) for c, pc in count.pmf.items())


def _award_chain(pool: Pool) -> Distribution:
    """Number of award dice that hit: one award die, another for every natural 20, cut where the
    chain's remaining probability falls below 1e-12 (reported as residual)."""
    p20 = 1 / 20
    p_other_hit = sum(1 for f in range(2, 20) if pool.hits(f)) / 20
    pairs: list[tuple[int, float]] = []
    reach = 1.0   # probability that the j-th award die is rolled
    j = 0
    while reach > CHAIN_CUTOFF:
        # this die is not a 20: the chain ends with j earlier twenties (each hit)
        pairs += [(j + 1, reach * p_other_hit), (j, reach * (1 - p20 - p_other_hit))]
        reach *= p20
        j += 1
    return Distribution.from_pairs(pairs, reach)


@lru_cache(maxsize=64)  # the sheet redraws often; its inputs are frozen values
def attack_odds(pool: Pool) -> AttackOdds:
    """Exact: P(at least one hit), P(crit) and the damage distribution, crit chains, advantage d3,
    disadvantage d3 and damage types included (never sampled)."""
    # One die: P(natural 20), P(other hit), P(miss); keep-worse is one die with min-of-two faces.
    if pool.keep_worse:
        face_p = {f: ((21 - f) ** 2 - (20 - f) ** 2) / 400 for f in range(1, 21)}
        n = 1
    else:
        face_p = {f: 1 / 20 for f in range(1, 21)}
        n = pool.dice
    p20 = face_p[20]
    ph = sum(p for f, p in face_p.items() if f != 20 and pool.hits(f))
    pm = 1 - p20 - ph
    # (hits, any twenty) over the pool
    states: dict[tuple[int, bool], float] = {(0, False): 1.0}
    for _ in range(n):
        nxt: dict[tuple[int, bool], float] = {}
        for (k, t), p in states.items():
            for key, q in (((k + 1, True), p20), ((k + 1, t), ph), ((k, t), pm)):
                if q:
                    nxt[key] = nxt.get(key, 0.0) + p * q
        states = nxt
    chain = _award_chain(pool) if pool.timing == "immediate" else Distribution.constant(0)
    awards = _d3_sum(chain)
    no_extra = Distribution.constant(0)
    cases: list[tuple[float, Distribution]] = []
    p_hit = p_crit = 0.0
    for (k, twenty), p in states.items():
        if k == 0:
            cases.append((p, no_extra))
            continue
        p_hit += p
        crit = (pool.can_crit and twenty) or pool.hit_is_crit
        if crit:
            p_crit += p
        extra = awards if crit and pool.timing == "immediate" else no_extra
        if pool.only_crit_damage:
            totals = extra
        else:
            shift = k + pool.bonus
            totals = extra.map(partial(add, shift))
            if pool.net == "adv":
                totals = totals + D3
            elif pool.net == "dis":
                totals = totals + D3.map(lambda v: -v)
        cases.append((p, totals.map(lambda raw: 0 if raw <= 0 else apply_damage_types(
            raw, pool.resistant, pool.vulnerable, pool.immune, pool.absorbing))))
    damage = Distribution.mix(cases)
    residual = chain.residual if p_crit > 0 else 0.0  # the award chain's cut matters only when a crit can happen
    damage = Distribution(damage.pmf, residual)
    return AttackOdds(p_hit, p_crit, damage, residual)


# -- saves and competitions ------------------------------------------------------------------------

@dataclass(frozen=True)
class SaveResult:
    faces: tuple[int, ...]
    kept: int
    total: int
    success: bool
    auto_fail: str | None = None

    def text(self, dc: int) -> str:
        if self.auto_fail:
            return f"fails automatically ({self.auto_fail})"
        dice = f"2d20 {'/'.join(map(str, self.faces))} kept {self.kept}" if len(self.faces) == 2 else f"d20 {self.kept}"
        return f"{dice} = {self.total} vs DC {dc}: {'success' if self.success else 'failure'}"


def save_situation(kind: str, conditions: Iterable[str], defending: bool = False, adv: bool = False,
                   dis: bool = False) -> tuple[str | None, str | None, list[str]]:
    """(net advantage, auto-fail reason, causes) of a save of this kind (body / preservation /
    sight / hearing / social / other) under the restrictions and the Defend stance."""
    if kind not in SAVE_KINDS:
        raise RuleError(f"A save is one of {', '.join(SAVE_KINDS)}.")
    conditions = [c.title() for c in conditions]
    causes = []
    for name in conditions:
        r = CONDITIONS.get(name)
        if r and kind in r.fails_saves:
            return None, f"{r.name.lower()}: fails {kind} saves", [f"{r.name.lower()}"]
    has_adv, has_dis = adv, dis
    if adv:
        causes.append("advantage")
    if dis:
        causes.append("disadvantage")
    if defending:
        has_adv = True
        causes.append("defending: advantage")
    for name in conditions:
        r = CONDITIONS.get(name)
        if r and kind in r.save_dis:
            has_dis = True
            causes.append(f"{r.name.lower()}: disadvantage")
    return net_advantage(has_adv, has_dis), None, causes


def cover_save_bonus(cover: str, area: bool) -> int:
    """Seed 004 "Cover": against an area effect, half cover gives +2 and three-quarters or complete
    cover +5 to body preservation saves."""
    if cover not in COVER:
        raise RuleError("Cover is none, half, three-quarters or complete.")
    if not area:
        return 0
    return {"none": 0, "half": 2}.get(cover, 5)


def movement(conditions: Iterable[str]) -> str | None:
    """'none' (seed 004: grappled, restrained, paralyzed, petrified, unconscious), 'half' (a
    restriction puts its rolls at disadvantage, seed 002) or None."""
    names = [c.title() for c in conditions]
    if any(CONDITIONS[n].movement_zero for n in names if n in CONDITIONS):
        return "none"
    if situation(names, []).disadvantage:
        return "half"
    return None


def own_save_modifier(c: Combatant, kind: str) -> int:
    """The combatant's own modifier for a save of this kind: its Body modifier for body saves
    (the sheet's "Body modifier (saves, competitions)"); the panel's modifier comes on top."""
    return _num(c, "body_mod") if kind == "body" else 0


def roll_save(modifier: int, dc: int, net: str | None, rng: Rng, auto_fail: str | None = None) -> SaveResult:
    """Seed 002: a save is d20 (2d20 keep better / worse at advantage / disadvantage) + modifier.
    Reading: it succeeds when it meets or beats the DC; natural 20 and 1 have no special effect."""
    if auto_fail:
        return SaveResult((), 0, 0, False, auto_fail)
    faces = (rng.randint(1, 20),) if net is None else (rng.randint(1, 20), rng.randint(1, 20))
    kept = max(faces) if net == "adv" else min(faces) if net == "dis" else faces[0]
    total = kept + modifier
    return SaveResult(faces, kept, total, total >= dc)


def _die_pmf(sides: int, net: str | None) -> dict[int, float]:
    if net == "adv":
        return {f: (f * f - (f - 1) ** 2) / sides ** 2 for f in range(1, sides + 1)}
    if net == "dis":
        return {f: ((sides + 1 - f) ** 2 - (sides - f) ** 2) / sides ** 2 for f in range(1, sides + 1)}
    return {f: 1 / sides for f in range(1, sides + 1)}


def save_odds(modifier: int, dc: int, net: str | None, auto_fail: str | None = None) -> float:
    if auto_fail:
        return 0.0
    return sum(p for f, p in _die_pmf(20, net).items() if f + modifier >= dc)


COMPETITIONS = ("grapple", "escape", "shove", "trip", "passage")


@dataclass(frozen=True)
class Competition:
    """Body against body on d12 + modifiers (seed 004, "Grappling", "Pushing", "Flee Attack")."""

    kind: str
    aggressor_body: int = 0
    victim_body: int = 0
    aggressor_size: int = 3       # 1 tiny ... 6 gargantuan
    victim_size: int = 3
    aggressor_speed: int = 30
    victim_speed: int = 30
    slick: bool = False
    aggressor_prone: bool = False
    victim_prone: bool = False
    aggressor_net: str | None = None
    victim_net: str | None = None


def competition_modifiers(c: Competition) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The modifier tables of RULES.md section 1, each with its reason: (aggressor's, victim's).
    For an escape the aggressor is the one escaping; the grappler is the 'victim' of the roll."""
    if c.kind not in COMPETITIONS:
        raise RuleError(f"A competition is one of {', '.join(COMPETITIONS)}.")
    a: list[tuple[str, int]] = []
    v: list[tuple[str, int]] = []
    if c.kind in ("grapple", "escape"):
        # Seed 004: the grappler's size advantage (+2 per category); a larger victim gets nothing
        # when grabbed. Escaping, the bonus goes to the larger side, the one escaping included.
        diff = c.aggressor_size - c.victim_size
        if diff > 0:
            a.append((f"larger by {diff} size{'s' * (diff > 1)}", 2 * diff))
        elif diff < 0 and c.kind == "escape":
            v.append((f"larger by {-diff} size{'s' * (-diff > 1)}", -2 * diff))
        held, holder = (v, a) if c.kind == "grapple" else (a, v)
        held_speed = c.victim_speed if c.kind == "grapple" else c.aggressor_speed
        holder_speed = c.aggressor_speed if c.kind == "grapple" else c.victim_speed
        if held_speed > holder_speed:
            held.append((f"faster by {held_speed - holder_speed} ft", (held_speed - holder_speed) // 10))
        if c.slick:
            held.append(("rain, ice or slick", 3))
    else:
        if c.kind in ("shove", "trip") and c.victim_size > c.aggressor_size + 1:
            raise RuleError("A push targets a creature at most one size larger.")
        if c.aggressor_size > c.victim_size:
            a.append(("larger competitor", 2))
        elif c.victim_size > c.aggressor_size:
            v.append(("larger competitor", 2))
        if c.slick:
            v.append(("rain, ice or slick", -3))
    if c.aggressor_prone:
        a.append(("prone", -5))
    if c.victim_prone:
        v.append(("prone", -5))
    return [x for x in a if x[1]], [x for x in v if x[1]]


def roll_competition(c: Competition, rng: Rng) -> dict[str, Any]:
    """Both roll d12 (2d12 keep better / worse with advantage / disadvantage) + body + modifiers;
    highest wins. Reading: a tie keeps things as they were, so the aggressor fails."""
    am, vm = competition_modifiers(c)
    out: dict[str, Any] = {}
    for who, body, mods, net in (("aggressor", c.aggressor_body, am, c.aggressor_net), ("victim", c.victim_body, vm, c.victim_net)):
        faces = (rng.randint(1, 12),) if net is None else (rng.randint(1, 12), rng.randint(1, 12))
        kept = max(faces) if net == "adv" else min(faces) if net == "dis" else faces[0]
        out[who] = {"faces": list(faces), "kept": kept, "total": kept + body + sum(m for _, m in mods), "mods": [list(m) for m in mods]}
    out["success"] = out["aggressor"]["total"] > out["victim"]["total"]
    return out


def competition_odds(c: Competition) -> float:
    am, vm = competition_modifiers(c)
    a_pmf = _die_pmf(12, c.aggressor_net)
    v_pmf = _die_pmf(12, c.victim_net)
    a_bonus = c.aggressor_body + sum(m for _, m in am)
    v_bonus = c.victim_body + sum(m for _, m in vm)
    return sum(pa * pv for fa, pa in a_pmf.items() for fv, pv in v_pmf.items() if fa + a_bonus > fv + v_bonus)


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
    dis = _d3(rng) if hits else 0
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


# -- the tracker's side ---------------------------------------------------------------------------

STATS = (  # the combatant sheet's fields, and the bounds the rules check
    StatField("skills", "Attack skills (each adds a d20)", "text", "melee fighting", placeholder="melee fighting, slashing"),
    StatField("damage_type", "Weapon damage type", "text", "edged", placeholder="edged"),
    StatField("ac_types", "AC by damage type", "text", "", placeholder="blunt 13"),
    StatField("resistant", "Resistant to", "text", "", placeholder="fire, cold"), StatField("vulnerable", "Vulnerable to", "text", ""),
    StatField("immune", "Immune to", "text", ""), StatField("absorbing", "Absorbs", "text", ""),
    StatField("ac", "AC", default=10, low=-20, high=60), StatField("str", "Strength modifier", low=-10, high=20),
    StatField("agi", "Agility modifier", low=-10, high=20), StatField("body_mod", "Body modifier (saves, competitions)", low=-10, high=30),
    StatField("die_mod", "Modifier on each attack die", low=-20, high=30), StatField("weight", "Weapon weight", high=20),
    StatField("speed", "Speed (ft)", default=30, high=300), StatField("size", "Size (1 tiny … 6 gargantuan)", default=3, low=1, high=6),
    StatField("ranged", "Ranged weapon", "flag", False), StatField("light", "Light or reach weapon (sneak attacks)", "flag", False),
    StatField("ranged_crits", "Ranged crits allowed", "flag", False),
    StatField("polearm", "Polearm and the polearms skill (impalement)", "flag", False),
    StatField("forte", "Weapon forte (impalement)", "flag", False), StatField("glaive", "The polearm is a glaive", "flag", False),
    StatField("mounted", "Mounted or aerial (chase mode: -2 to its foes)", "flag", False),
)
STAT = {f.key: f for f in STATS}
RESISTANCES = ("resistant", "vulnerable", "immune", "absorbing")
OPTIONS = {"crit_timing": ("immediate", "next_round"), "initiative": ("once", "every_round")}


def _num(c: Combatant, key: str) -> int:
    return STAT[key].number(c)


def listed(text: Any) -> list[str]:
    """A comma-separated list as typed ("melee fighting, slashing"), lower-cased."""
    return [t.strip().lower() for t in str(text or "").split(",") if t.strip()]


def damage_types_of(c: Combatant, key: str) -> set[str]:
    types = set(listed(c.stat_or(key, "")))
    unknown = types - set(DAMAGE_TYPES)
    if unknown:
        raise RuleError(f"{c.name}: {', '.join(sorted(unknown))} is not a damage type ({', '.join(DAMAGE_TYPES)}).")
    return types


def ac_for(c: Combatant, damage_type: str) -> int:
    """Per-type armour (seed 000: studded leather AC 12, 13 vs blunt): 'blunt 13, fire 10'."""
    ac = _num(c, "ac")
    for entry in listed(c.stat_or("ac_types", "")):
        name, _, value = entry.rpartition(" ")
        if name.strip() not in DAMAGE_TYPES:
            raise RuleError(f"{c.name}'s AC by damage type: write it like “blunt 13”.")
        try:
            number = int(value)
        except ValueError:
            raise RuleError(f"{c.name}'s AC by damage type: write it like “blunt 13”.") from None
        if name.strip() == damage_type:
            ac = number
    return ac


def _condition_names(c: Combatant) -> list[str]:
    return [k.name for k in c.conditions]


@dataclass(frozen=True)
class Built:
    pool: Pool
    text: str                         # "3d20: melee fighting, slashing, advantage from target prone"
    advantage: tuple[str, ...]
    disadvantage: tuple[str, ...]
    notes: tuple[str, ...]
    damage_type: str
    award_used: bool = False


def _skills_and_damage_type(attacker: Combatant, config: dict[str, Any]) -> tuple[list[str], list[str], str]:
    """The attacker's skills, those chosen on the panel (default: all of them) and the damage type;
    choices made for another attacker are dropped."""
    known = listed(attacker.stat_or("skills", "melee fighting"))
    if config.get("skills_of") not in (None, attacker.id):
        config = {k: v for k, v in config.items() if k not in ("skills", "damage_type")}
    chosen = config.get("skills")
    chosen = known if chosen is None else list(listed(", ".join(chosen) if isinstance(chosen, list) else chosen))
    unknown = [s for s in chosen if s not in known]
    if unknown:
        raise RuleError(f"{attacker.name} does not have {', '.join(unknown)}.")
    damage_type = str(config.get("damage_type") or attacker.stat_or("damage_type", "edged")).strip().lower()
    if damage_type not in DAMAGE_TYPES:
        raise RuleError(f"“{damage_type[:20]}” is not a damage type ({', '.join(DAMAGE_TYPES)}).")
    return known, chosen, damage_type


def build_attack(enc: Encounter, config: dict[str, Any]) -> Built:
    """The pool this attack rolls and why, derived from attacker, target and the panel's choices.

    config: attacker, target, skills (names chosen; default all the attacker's), damage_type,
    ranged, cover, sneak, adv / dis (other sources, as text or True), modifier (extra per die),
    chase (melee while running: the attacker's chase penalty), same_weapon (keeps a next-round award)."""
    attacker, target = enc.get(config["attacker"]), enc.get(config["target"])
    if attacker.id == target.id:
        raise RuleError("A combatant cannot attack itself.")
    known, chosen, damage_type = _skills_and_damage_type(attacker, config)
    ranged = bool(config.get("ranged", attacker.stat_or("ranged", False)))
    charmer = any(k.name.lower() == "charmed" and k.source_id == target.id for k in attacker.conditions)
    extra_adv = [str(config["adv"]) if isinstance(config.get("adv"), str) and config["adv"].strip() else "other advantage"] if config.get("adv") else []
    extra_dis = [str(config["dis"]) if isinstance(config.get("dis"), str) and config["dis"].strip() else "other disadvantage"] if config.get("dis") else []
    sees = not config.get("hidden_attack")  # Defend gives disadvantage only against attacks the defender can see
    sit = situation(_condition_names(attacker), _condition_names(target), ranged, str(config.get("cover") or "none"),
                    "defending" in target.flags and bool(sees), charmer, extra_adv, extra_dis)
    if sit.refused:
        raise RuleError(f"{attacker.name} cannot make this attack: {sit.refused}.")
    net = sit.net
    sneak = bool(config.get("sneak"))
    if sneak:
        if net == "dis" or sit.disadvantage:
            raise RuleError("No sneak attack while the attacker is at disadvantage.")
        if not (ranged or attacker.stat_or("light", False)):
            raise RuleError("A sneak attack needs a ranged attack or a light or reach weapon.")
    try:
        extra = int(config.get("modifier") or 0)
    except (TypeError, ValueError):
        raise RuleError("The extra modifier is a whole number.") from None
    if abs(extra) > 20:
        raise RuleError("The extra modifier is -20 to 20.")
    notes = list(sit.notes)
    penalty = sit.die_penalty
    if config.get("chase"):
        chase, why = chase_penalty(known, listed(target.stat_or("skills", "")), bool(target.stat_or("mounted", False)))
        penalty -= chase
        notes.append("chase mode " + ", ".join(why))
    award = 0
    award_round = attacker.stat_or("award_round", None)
    if award_round == enc.round and enc.started:
        if config.get("same_weapon", True):
            award = 1
            notes.append("+1d20 crit award from last round")
        else:
            notes.append("crit award forfeited (other weapon or circumstances)")
    resist = {key: damage_type in damage_types_of(target, key) for key in RESISTANCES}
    if damage_type == "poison" and _has(_condition_names(target), "Petrified"):
        resist["immune"] = True
        notes.append("petrified: immune to poison")
    crit_skill = any(s in CRIT_SKILLS for s in chosen)
    bonus = (_num(attacker, "agi") if ranged else _num(attacker, "str")) + _num(attacker, "weight")
    pool = Pool(
        skills=len(chosen), net=net, sneak=sneak, award=award, modifier=_num(attacker, "die_mod") + extra, penalty=penalty,
        ac=ac_for(target, damage_type) + sit.cover_ac, bonus=bonus, crit_skill=crit_skill, ranged=ranged,
        ranged_crits=bool(attacker.stat_or("ranged_crits", False)), timing=str(enc.option("crit_timing", "immediate")),
        hit_is_crit=sit.hit_is_crit, only_crit_damage=sit.only_crit_damage, **resist,
    )
    reasons = list(chosen[:SKILL_CAP]) or ["no skill"]
    if len(chosen) > SKILL_CAP:
        notes.append(f"skills capped at {SKILL_CAP} dice")
    if net == "adv":
        reasons.append("advantage from " + " and ".join(sit.advantage))
    elif net == "dis":
        reasons.append("disadvantage from " + " and ".join(sit.disadvantage) + " (half movement)")
    elif sit.advantage and sit.disadvantage:
        notes.append("advantage (" + ", ".join(sit.advantage) + ") and disadvantage (" + ", ".join(sit.disadvantage) + ") cancel")
    if sneak:
        reasons.append("sneak attack")
    if award:
        reasons.append("crit award")
    count = "2d20 keep worse" if pool.keep_worse else f"{pool.dice}d20"
    text = f"{count}: {', '.join(reasons)} · {damage_type}"
    return Built(pool, text, sit.advantage, sit.disadvantage, tuple(notes), damage_type, award > 0)


def _bounded(value: Any, lo: int = -1_000_000, hi: int = 1_000_000) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise RuleError("A rolled result is out of range.")
    return value


def _attack_economy(enc: Encounter, attacker: Combatant, as_reaction: bool) -> set[str]:
    """The attacker's flags after this attack: on its own turn the attack is its action (not after
    Defend or At the ready, which were the action); off its turn, as a reaction it uses the reaction."""
    flags = set(attacker.flags)
    if as_reaction:
        _reaction_check(attacker)
        flags.add("reaction_used")
        flags.discard("at_ready")  # a readied action, once triggered, is spent
    elif enc.started and enc.active_id == attacker.id:
        if "defending" in flags or "at_ready" in flags:
            raise RuleError(f"{attacker.name} used the action to {'defend' if 'defending' in flags else 'be at the ready'} this turn.")
        flags.add("acted")
    return flags


def _apply_attack(enc: Encounter, args: dict[str, Any]) -> Outcome:
    attacker, target = enc.get(args["attacker"]), enc.get(args["target"])
    flags = _attack_economy(enc, attacker, bool(args.get("reaction")))
    enc = enc.with_combatant(replace(attacker, flags=tuple(sorted(flags))))
    attacker = enc.get(attacker.id)
    damage = _bounded(args.get("damage", 0))
    events: list[Event] = []
    outcome = "miss" if args.get("miss") else (f"{damage} Body" if damage >= 0 else f"absorbs, heals {-damage}")
    crit = " (crit)" if args.get("crit") else ""
    enc, note, more = _hurt(enc, enc.get(target.id), damage)
    outcome += f" ({note})" if note else ""
    events.append(enc.event("attack", f"{attacker.name} attacks {target.name}{crit}: {outcome}", args.get("text"), target.id))
    events.extend(more)
    attacker = enc.get(attacker.id)
    award = attacker.stat_or("award_round", None)
    if args.get("award_used") or (award is not None and award <= enc.round):
        attacker = attacker.with_stats(award_round=None)
    if args.get("next_round_award"):
        attacker = attacker.with_stats(award_round=enc.round + 1)
        events.append(enc.event("crit", f"{attacker.name} gains +1d20 on the next attack next round (same weapon)", who=attacker.id))
    return enc.with_combatant(attacker), tuple(events)


def _apply_stance(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """Seed 004: Defend (from the action until the start of its next turn; no reactions for both
    rounds; not after a reaction this round), At the ready (a trigger held until the start of its
    next turn), and the one reaction per round."""
    c = enc.get(args["id"])
    stance = args.get("stance")
    flags = set(c.flags)
    blocked = next((r.name.lower() for r in (CONDITIONS.get(n.title()) for n in _condition_names(c)) if r and r.no_actions), None)
    if stance in ("defend", "ready"):
        if not enc.started or enc.active_id != c.id:
            raise RuleError(f"{stance.title()} is {c.name}'s action: only on {c.name}'s turn.")
        if blocked:
            raise RuleError(f"{c.name} is {blocked}: no actions.")
        if "acted" in flags:
            raise RuleError(f"{c.name} already took the action this turn.")
    if stance == "defend":
        if "reaction_used" in flags:
            raise RuleError(f"{c.name} already used the reaction this round, so cannot defend.")
        flags |= {"defending", "acted"}
        text = f"{c.name} defends: attacks against at disadvantage, saves at advantage, no reactions until the next turn"
        c = replace(c, flags=tuple(sorted(flags)))
    elif stance == "ready":
        trigger = str(args.get("trigger", "")).strip()
        if not trigger:
            raise RuleError("At the ready needs a trigger (“if …”).")
        if len(trigger) > 100:
            raise RuleError("A trigger is at most 100 characters.")
        flags |= {"at_ready", "acted"}
        c = replace(c, flags=tuple(sorted(flags))).with_stats(ready_trigger=trigger)
        text = f"{c.name} is at the ready: {trigger}"
    elif stance == "reaction":
        if blocked:
            raise RuleError(f"{c.name} is {blocked}: no reactions.")
        if "defending" in flags:
            raise RuleError(f"{c.name} is defending: no reactions.")
        if "reaction_used" in flags:
            raise RuleError(f"{c.name} already used the reaction this round.")
        kind = str(args.get("kind") or "reaction")[:40]
        flags.add("reaction_used")
        if "at_ready" in flags and args.get("from_ready"):
            flags.discard("at_ready")
        c = replace(c, flags=tuple(sorted(flags)))
        text = f"{c.name} uses the reaction ({kind})"
    else:
        raise RuleError("A stance is defend, ready or reaction.")
    return enc.with_combatant(c), (enc.event("stance", text, who=c.id),)


def _apply_save(enc: Encounter, args: dict[str, Any]) -> Outcome:
    c = enc.get(args["id"])
    r = args["result"]
    text = f"{c.name}'s {args['kind']} save vs DC {args['dc']}: {'success' if r['success'] else 'failure'}"
    return enc, (enc.event("save", text, args.get("text"), c.id),)


def _apply_competition(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """Results on the tracker: a grapple holds (Grappled), an escape frees, a trip drops (Prone),
    a shove pushes 5 ft, forced passage lets the mover through."""
    a, v = enc.get(args["aggressor"]), enc.get(args["victim"])
    kind, success = args["kind"], bool(args["result"]["success"])
    events = [enc.event("competition", f"{a.name} vs {v.name}, {kind}: {a.name} {'wins' if success else 'fails'}", args.get("text"), a.id)]
    if success:
        seq = enc.seq
        if kind == "grapple":
            seq += 1
            v = replace(v, conditions=v.conditions + (Condition(id=f"k{seq}", name="Grappled", source_id=a.id),))
            enc = replace(enc.with_combatant(v), seq=seq)
            events.append(enc.event("condition", f"{v.name} is Grappled by {a.name} (movement 0)", who=v.id))
        elif kind == "trip":
            seq += 1
            v = replace(v, conditions=v.conditions + (Condition(id=f"k{seq}", name="Prone", source_id=a.id),))
            enc = replace(enc.with_combatant(v), seq=seq)
            events.append(enc.event("condition", f"{v.name} falls Prone", who=v.id))
        elif kind == "escape":
            kept = tuple(k for k in a.conditions if not (k.name == "Grappled" and k.source_id in (v.id, None)))
            enc = enc.with_combatant(replace(a, conditions=kept))
            events.append(enc.event("condition_removed", f"{a.name} escapes {v.name}'s grapple", who=a.id))
        elif kind == "shove":
            events.append(enc.event("moved", f"{v.name} is shoved 5 ft", who=v.id))
        else:
            events.append(enc.event("moved", f"{a.name} forces a way past {v.name}", who=a.id))
    return enc, tuple(events)


def _apply_chase(enc: Encounter, args: dict[str, Any]) -> Outcome:
    c = enc.get(args["id"])
    total = _bounded(args["total"], 0, 100)
    return enc, (enc.event("chase", f"{c.name} gains {total} hex{'es' * (total != 1)} this chase round", args.get("text"), c.id),)


def _apply_defense(enc: Encounter, args: dict[str, Any]) -> Outcome:
    monster, pc = enc.get(args["monster"]), enc.get(args["pc"])
    body = _bounded(args["result"]["body"], 0, 100)
    enc, note, more = _hurt(enc, pc, body)
    text = f"{pc.name} defends against {monster.name}: {body} Body" + (f" ({note})" if note else "")
    return enc, (enc.event("attack", text, args.get("text"), pc.id), *more)


def _reaction_check(c: Combatant) -> None:
    blocked = next((r.name.lower() for r in (CONDITIONS.get(n.title()) for n in _condition_names(c)) if r and r.no_actions), None)
    if blocked:
        raise RuleError(f"{c.name} is {blocked}: no reactions.")
    if "defending" in c.flags:
        raise RuleError(f"{c.name} is defending: no reactions.")
    if "reaction_used" in c.flags:
        raise RuleError(f"{c.name} already used the reaction this round.")


def _hurt(enc: Encounter, target: Combatant, damage: int) -> tuple[Encounter, str, tuple[Event, ...]]:
    """Body damage through the one damage path (a negative amount: an attack the target absorbs,
    which heals it). Returns the encounter, a note when temporary HP took part, and the events."""
    if damage < 0:
        enc, _, events = mend(enc, target, -damage)
        return enc, "", events
    enc, hurt, events = harm(enc, target, damage)
    return enc, hurt.note, events


def _apply_impale(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """Seed 004 "Impalement Maneuver": the polearm's reaction against a charger, resolved before
    the charger's attack; it uses the holder's reaction for the round."""
    holder, charger = enc.get(args["holder"]), enc.get(args["charger"])
    _reaction_check(holder)
    damage = _bounded(args.get("damage", 0))
    enc, note, more = _hurt(enc, charger, damage)
    events = [enc.event("attack", f"{holder.name} impales the charging {charger.name}: "
                     + ("miss" if args.get("miss") else f"{damage} Body") + (f" ({note})" if note else ""), args.get("text"), charger.id),
              *more]
    h = enc.get(holder.id)
    enc = enc.with_combatant(replace(h, flags=tuple(sorted(set(h.flags) | {"reaction_used"}))))
    return enc, tuple(events)


def _apply_blind_shot(enc: Encounter, args: dict[str, Any]) -> Outcome:
    attacker = enc.get(args["attacker"])
    r = args["result"]
    if r.get("target") is None:
        return enc, (enc.event("attack", f"{attacker.name}'s blind shot hits nobody else (slot {r['slot']})", args.get("text"), attacker.id),)
    target = enc.get(r["target"])
    damage = _bounded(args.get("damage", 0))
    enc, note, more = _hurt(enc, target, damage)
    events = [enc.event("attack", f"{attacker.name}'s blind shot strikes {target.name}: " + (f"{damage} Body" if damage else "miss")
                     + (f" ({note})" if note else ""), args.get("text"), target.id), *more]
    return enc, tuple(events)


def _resolve_attack(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    built = build_attack(encounter, args)
    _attack_economy(encounter, encounter.get(args["attacker"]), bool(args.get("reaction")))  # refused before rolling
    result = roll_attack(built.pool, rng)
    return {"attacker": args["attacker"], "target": args["target"], "damage": result.damage, "miss": result.miss,
            "reaction": bool(args.get("reaction")),
            "crit": result.crit, "next_round_award": result.next_round_award, "award_used": built.award_used,
            "text": f"{built.text}; " + result.text(built.pool), "pool": built.text,
            "faces": list(result.faces), "kept": list(result.kept), "awards": list(result.awards),
            "award_d3": list(result.award_d3), "adv_d3": result.adv_d3, "dis_d3": result.dis_d3,
            "raw": result.raw, "hits": result.hits, "damage_type": built.damage_type,
            "face_hits": [built.pool.hits(f) for f in result.kept] if not built.pool.keep_worse else [built.pool.hits(result.kept[0])],
            "award_hits": [built.pool.hits(f) for f in result.awards],
            "unseen": _has(_condition_names(encounter.get(args["attacker"])), "Blind")
            or _has(_condition_names(encounter.get(args["target"])), "Invisible") or bool(args.get("unseen"))}


def _resolve_save(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    c = encounter.get(args["id"])
    try:
        modifier, dc = int(args.get("modifier") or 0), int(args.get("dc") or 10)
    except (TypeError, ValueError):
        raise RuleError("Save modifier and DC are whole numbers.") from None
    if abs(modifier) > 50 or not -50 <= dc <= 100:
        raise RuleError("A save modifier is -50 to 50 and a DC -50 to 100.")
    modifier += own_save_modifier(c, str(args.get("kind", "body")))
    if args.get("kind") == "preservation" or args.get("kind") == "body":
        modifier += cover_save_bonus(str(args.get("cover") or "none"), bool(args.get("area")))
    net, auto, causes = save_situation(str(args.get("kind", "body")), _condition_names(c), "defending" in c.flags,
                                       bool(args.get("adv")), bool(args.get("dis")))
    save = roll_save(modifier, dc, net, rng, auto)
    return {"id": c.id, "kind": args.get("kind", "body"), "dc": dc, "modifier": modifier,
            "result": {"faces": list(save.faces), "kept": save.kept, "total": save.total, "success": save.success},
            "text": save.text(dc) + (f" ({', '.join(causes)})" if causes and not auto else "")}


def _resolve_competition(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    comp = competition_of(encounter, args)
    contest = roll_competition(comp, rng)
    a, v = contest["aggressor"], contest["victim"]
    text = (f"d12 {a['kept']} → {a['total']} vs d12 {v['kept']} → {v['total']}"
            + (" (tie: the aggressor fails)" if a["total"] == v["total"] else ""))
    return {"aggressor": args["aggressor"], "victim": args["victim"], "kind": comp.kind, "result": contest, "text": text}


def _resolve_chase(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    c = encounter.get(args["id"])
    if movement(_condition_names(c)) == "none":
        raise RuleError(f"{c.name} cannot move ({', '.join(_condition_names(c))}): no hexes this chase round.")
    abandonment = "abandonment" in listed(c.stat_or("skills", ""))
    seconds = []
    total = 0
    for second in range(10, 0, -1):
        gained, face = chase_second(_num(c, "speed"), second, _num(c, "agi"), rng, abandonment)
        total += gained
        seconds.append(f"s{second}: " + ("—" if face is None else f"d20 {face} → {gained}"))
    return {"id": c.id, "total": total, "text": "; ".join(seconds)}


def _resolve_impale(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    holder, charger = encounter.get(args["holder"]), encounter.get(args["charger"])
    if holder.id == charger.id:
        raise RuleError("Impalement is against another combatant.")
    if not holder.stat_or("polearm", False):
        raise RuleError(f"{holder.name} needs a polearm and the polearms skill to impale.")
    _reaction_check(holder)
    damage_type = str(holder.stat_or("damage_type", "piercing") or "piercing")
    sit = situation(_condition_names(holder), _condition_names(charger), False)
    resist = {key: damage_type in damage_types_of(charger, key) for key in RESISTANCES}
    pool = Pool(skills=impalement_pool(bool(holder.stat_or("forte", False))), net=sit.net, modifier=_num(holder, "die_mod"),
                penalty=sit.die_penalty, ac=ac_for(charger, damage_type), bonus=_num(holder, "str") + _num(holder, "weight"),
                crit_skill=True, timing=str(encounter.option("crit_timing", "immediate")), **resist)
    result = impalement(pool, bool(holder.stat_or("glaive", False)), rng)
    return {"holder": holder.id, "charger": charger.id, "damage": result.damage, "miss": result.miss,
            "text": f"impalement {pool.dice}d20" + (" (glaive)" if holder.stat_or("glaive", False) else "") + "; " + result.text(pool)}


def _resolve_blind_shot(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    attacker, missed = encounter.get(args["attacker"]), encounter.get(args["target"])
    faces = args.get("faces")
    if not isinstance(faces, list) or not 1 <= len(faces) <= 8 or not all(isinstance(f, int) and 1 <= f <= 20 for f in faces):
        raise RuleError("A blind shot re-uses the missed attack's dice (1 to 8 d20).")
    others = [c for c in encounter.combatants if c.id not in (attacker.id, missed.id)]
    damage_type = str(args.get("damage_type") or attacker.stat_or("damage_type", "piercing"))
    candidates = [(c.id, ac_for(c, damage_type)) for c in others]
    shot = blind_shot(faces, candidates, rng, _num(attacker, "die_mod"))
    damage = 0
    text = f"blind shot: d{len(candidates) + 3} = {shot['slot']}"
    if shot["target"] is not None:
        target = encounter.get(shot["target"])
        raw = shot["hits"] + (_num(attacker, "agi") if attacker.stat_or("ranged", False) else _num(attacker, "str")) + _num(attacker, "weight") if shot["hits"] else 0
        resist = {key: damage_type in damage_types_of(target, key) for key in RESISTANCES}
        damage = apply_damage_types(raw, **resist)
        text += f" → {target.name}; dice rolled forward {' '.join(map(str, shot['faces']))}: {shot['hits']} hit(s), {damage} Body"
    else:
        text += " → an empty slot"
    return {"attacker": attacker.id, "target": missed.id, "result": {"slot": shot["slot"], "target": shot["target"]},
            "damage": damage, "text": text}


def _resolve_defense(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    monster, pc = encounter.get(args["monster"]), encounter.get(args["pc"])
    dice = max(1, pool_size(len(listed(monster.stat_or("skills", "melee fighting")))))
    defended = defense_roll(ac_for(pc, str(monster.stat_or("damage_type", "edged"))), _num(monster, "die_mod"), dice, rng)
    text = f"DC {defended['dc']}: " + " ".join(f"{f}{'✓' if ok else '✗'}" for f, ok in zip(defended["faces"], defended["avoided"]))
    return {"monster": monster.id, "pc": pc.id, "result": defended, "text": text}


class RealmsSystem(System):
    """Enchanted Realms in the tracker (seeds 000, 002, 004)."""

    name = "realms"
    label = "Enchanted Realms"
    aliases = ("er", "enchanted realms")
    round_seconds = 10
    hp_floor = 0
    condition_names = tuple(CONDITIONS)
    options = OPTIONS
    clear_flags_at_turn_start = False
    hp_label = "Body"
    stat_fields = STATS
    actions = {
        "er_attack": ActionRule(_apply_attack, _resolve_attack), "er_stance": ActionRule(_apply_stance),
        "er_save": ActionRule(_apply_save, _resolve_save), "er_competition": ActionRule(_apply_competition, _resolve_competition),
        "er_chase": ActionRule(_apply_chase, _resolve_chase), "er_defense": ActionRule(_apply_defense, _resolve_defense),
        "er_impale": ActionRule(_apply_impale, _resolve_impale), "er_blind_shot": ActionRule(_apply_blind_shot, _resolve_blind_shot),
    }

    def initiative_expression(self, combatant: Combatant) -> str:
        mod = combatant.init_mod
        return f"1d10{'+' if mod >= 0 else '-'}{abs(mod)}" if mod else "1d10"

    def order_key(self, combatant: Combatant) -> tuple[Any, ...]:
        init = combatant.initiative if combatant.initiative is not None else -10**9
        return (-init, -combatant.tiebreak)

    def break_ties(self, encounter: Encounter, results: dict[str, list[Any]], rng: Rng) -> None:
        """RULES.md section 1: tied participants roll off on d20, highest first; those still tied
        roll again, until every tie is broken (a 3-way tie is one roll-off among the three)."""
        settle_ties(results, rng, 20)

    def reroll_each_round(self, encounter: Encounter) -> bool:
        return bool(encounter.option("initiative", "once") == "every_round")

    def on_turn_start(self, enc: Encounter) -> Encounter:
        """Defend and At the ready end as the combatant's next turn starts; after defending it has
        no reaction for the rest of this round either."""
        c = enc.get(enc.active_id) if enc.active_id else None
        if c is None:
            return enc
        flags = set(c.flags)
        changed = False
        if "defending" in flags:
            flags.discard("defending")
            flags.add("reaction_used")
            changed = True
        if "at_ready" in flags:
            flags.discard("at_ready")
            changed = True
        if "acted" in flags:
            flags.discard("acted")
            changed = True
        if not changed:
            return enc
        c = replace(c, flags=tuple(sorted(flags)))
        if c.stat("ready_trigger") is not None:
            c = c.with_stats(ready_trigger=None)
        return enc.with_combatant(c)

    def on_new_round(self, enc: Encounter, rolls: dict[str, Any] | None = None) -> tuple[Encounter, list[Event]]:
        """Reactions come back each round (not to a defender: no reactions while defending); next-
        round crit awards not used in their round are forfeited; with the every-round option,
        everyone's new initiative reorders the fight."""
        events = []
        combatants = []
        for c in enc.combatants:
            if "reaction_used" in c.flags:
                c = replace(c, flags=tuple(f for f in c.flags if f != "reaction_used"))
            award = c.stat("award_round")
            if award is not None and award < enc.round:
                c = c.with_stats(award_round=None)
            combatants.append(c)
        if rolls:
            updated = []
            for c in combatants:
                value, tiebreak, text = rolls.get(c.id, [c.initiative, c.tiebreak, None])
                check_initiative(value, tiebreak)
                updated.append(replace(c, initiative=value, tiebreak=tiebreak))
                if text:
                    events.append(Event("initiative", enc.round, f"{c.name} rolled {value} for initiative", text, c.id))
            combatants = list(keep_groups_together(tuple(sorted(updated, key=self.order_key))))
        return replace(enc, combatants=tuple(combatants)), events


def competition_of(enc: Encounter, args: dict[str, Any]) -> Competition:
    a, v = enc.get(args["aggressor"]), enc.get(args["victim"])
    if a.id == v.id:
        raise RuleError("A competition needs two different combatants.")
    kind = args.get("kind", "grapple")
    if kind not in COMPETITIONS:
        raise RuleError(f"A competition is one of {', '.join(COMPETITIONS)}.")
    if kind == "escape" and not any(k.name == "Grappled" for k in a.conditions):
        raise RuleError(f"{a.name} is not grappled.")

    def net(c: Combatant) -> str | None:
        conditions = [n.title() for n in _condition_names(c)]
        dis = any(CONDITIONS[n].by == "dis" for n in conditions if n in CONDITIONS and n in ("Frightened", "Restrained"))
        return net_advantage(False, dis)

    return Competition(kind, _num(a, "body_mod"), _num(v, "body_mod"), _num(a, "size"), _num(v, "size"), _num(a, "speed"),
                       _num(v, "speed"), bool(args.get("slick")), _has(_condition_names(a), "Prone"), _has(_condition_names(v), "Prone"),
                       net(a), net(v))
