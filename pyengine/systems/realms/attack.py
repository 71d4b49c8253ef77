"""Enchanted Realms' attack: pools of d20 against AC, crits (immediate chains or next round),
damage types, and the exact odds of a pool."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
from operator import add

from ...dice import Rng
from ...errors import RuleError
from ...odds import Distribution

DAMAGE_TYPES = ("alchemical", "blunt", "cold", "edged", "fire", "lightning", "necrotic", "piercing", "poison", "smite")
CRIT_SKILLS = ("bludgeoning", "cleaving", "polearms", "slashing")
SKILL_CAP = 5
D3 = Distribution.uniform(1, 3)
CHAIN_CUTOFF = 1e-12


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


def d3(rng: Rng) -> int:
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
                award_d3.append(d3(rng))
            if face != 20:
                break
            if len(awards) >= 100:
                raise RuleError("A crit chain went past 100 dice.")
    adv = d3(rng) if pool.net == "adv" and hits else 0
    dis = d3(rng) if pool.net == "dis" and hits else 0
    if not hits:
        raw = 0
    elif pool.only_crit_damage:
        raw = sum(award_d3)
    else:
        raw = hits + sum(award_d3) + adv - dis + pool.bonus
    # Seed 002: at disadvantage a total of 0 or less is a miss (no riders); otherwise it is a hit for 0.
    # A miss is no crit either (no award next round): only a paralysed target's "a hit is a crit" could
    # meet disadvantage, and its advantage cancels any disadvantage, so this is for a pool made so.
    miss = hits == 0 or (pool.net == "dis" and raw <= 0)
    crit = crit and not miss
    raw = max(0, raw)
    damage = 0 if miss else apply_damage_types(raw, pool.resistant, pool.vulnerable, pool.immune, pool.absorbing)
    return AttackRoll(faces, kept, hits, crit, tuple(awards), tuple(award_d3), adv, dis, raw, damage, miss,
                      crit and pool.timing == "next_round")


# -- exact odds ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class AttackOdds:
    p_hit: float                # a hit as roll_attack says it: a die hits, and at disadvantage the total is above 0
    p_crit: float               # a crit that hits
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
    """Exact: P(hit), P(crit) and the damage distribution, crit chains, advantage d3, disadvantage d3
    and damage types included (never sampled). A hit is what `roll_attack` calls one: at disadvantage a
    die that hits is a miss still when its total (hits, awards, bonus, -d3) is 0 or less (seed 002)."""
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
        crit = (pool.can_crit and twenty) or pool.hit_is_crit
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
        landed = p * (totals.at_least(1) if pool.net == "dis" else 1.0)  # (a total of 0 or less: a miss)
        p_hit += landed
        if crit:
            p_crit += landed
        cases.append((p, totals.map(lambda raw: 0 if raw <= 0 else apply_damage_types(
            raw, pool.resistant, pool.vulnerable, pool.immune, pool.absorbing))))
    damage = Distribution.mix(cases)
    residual = chain.residual if p_crit > 0 else 0.0  # the award chain's cut matters only when a crit can happen
    damage = Distribution(damage.pmf, residual)
    return AttackOdds(p_hit, p_crit, damage, residual)
