"""Realm of Strife's rules of an attack, pure: the hit roll with its portions, parries, blocks and
ward-off, the exact odds of each outcome, and the modifiers (split bonus, penalties, the 4-3-2 rule)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache

from ...dice import Rng, roll
from ...errors import RuleError
from ...odds import Distribution, distribution

__all__ = ["MAX_RIDERS", "Odds", "Portion", "PortionResult", "Result", "SIZES", "Spec", "attack_odds", "check_432", "penalties", "resolve_attack", "split_bonus", "untrained_block", "ward_off_odds"]

SIZES = {"S": 1, "M": 2, "L": 3, "XL": 4}
MAX_RIDERS = 6


# -- the hit roll --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Portion:
    """One part of an attack on the shared d100: physical (vs AC) or non-physical (vs a Resistance).

    `modifier` is every to-hit modifier and penalty summed; `defence` the AC or Resistance it must
    beat (Dodge already added for missile-type powers); `damage` dice notation with its bonus."""

    kind: str = "physical"
    modifier: int = 0
    crit_chance: int = 0
    defence: int = 0
    damage: str = "1d6"
    parryable: bool = True
    blockable: bool = True
    can_crit: bool = True

    def __post_init__(self) -> None:
        if self.kind not in ("physical", "spirit"):
            raise RuleError("A portion of an attack is physical or spirit.")
        if not 0 <= self.crit_chance <= 100:
            raise RuleError("A crit chance is 0 to 100%.")
        if abs(self.modifier) > 1000 or abs(self.defence) > 1000:
            raise RuleError("To-hit modifiers and defences are -1,000 to 1,000.")

    def outcome(self, natural: int, crit_miss: int) -> str:
        """Seed 001, "Combat Rolls for Typical Physical Attack", step 2. Reading (RULES.md): a natural
        roll in the crit range crits whatever the AC; the critical miss is checked first."""
        if natural <= crit_miss:
            return "critical miss"
        if self.can_crit and self.crit_chance > 0 and natural >= 101 - self.crit_chance:
            return "crit"
        total = natural + self.modifier
        if total <= 0:
            return "automatic miss"
        return "miss" if total <= self.defence else "hit"


@dataclass(frozen=True)
class Spec:
    """A configured attack: its portions (one, or physical + spirit for a combined attack), the
    critical miss width (encounter option), the defender's parry and block chances (%), the
    Initiatives for a ward-off roll-off (attacker, defender) when the defender's weapon wards off,
    and the percentage riders (name, %)."""

    portions: tuple[Portion, ...]
    crit_miss: int = 5
    parry: int = 0
    block: int = 0
    ward_off: tuple[int, int] | None = None
    riders: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= len(self.portions) <= 2:
            raise RuleError("An attack has one portion, or a physical and a spirit portion.")
        if len(self.portions) == 2 and [p.kind for p in self.portions] != ["physical", "spirit"]:
            raise RuleError("A combined attack is a physical portion and a spirit portion.")
        if not 0 <= self.crit_miss <= 50:
            raise RuleError("The critical miss width is 0 to 50%.")
        if not (0 <= self.parry <= 100 and 0 <= self.block <= 100):
            raise RuleError("Parry and block chances are 0 to 100%.")
        if len(self.riders) > MAX_RIDERS or any(not 0 <= p <= 100 for _, p in self.riders):
            raise RuleError(f"At most {MAX_RIDERS} riders, each 0 to 100%.")


@dataclass(frozen=True)
class PortionResult:
    kind: str
    total: int
    outcome: str            # critical miss / automatic miss / miss / hit / crit
    stopped: str | None     # "parry" / "block" when a (non-crit) hit was stopped
    dice: str = ""          # the damage roll, annotated
    damage: int = 0         # after doubling

    @property
    def landed(self) -> bool:
        return self.outcome in ("hit", "crit") and self.stopped is None


@dataclass(frozen=True)
class Result:
    ward: tuple[tuple[int, int], ...]   # ward-off roll-off pairs (attacker d100, defender d100)
    warded: bool
    natural: int | None
    parry_die: int | None
    block_die: int | None
    portions: tuple[PortionResult, ...]
    riders: tuple[tuple[str, int, int, bool], ...] = ()   # (name, chance, d100, applies)

    @property
    def outcome(self) -> str:
        if self.warded:
            return "warded off"
        first = self.portions[0]
        if first.outcome == "critical miss" or any(p.outcome == "critical miss" for p in self.portions):
            return "critical miss"
        if first.outcome in ("miss", "automatic miss"):
            return first.outcome
        if not any(p.landed for p in self.portions):
            return "parried" if any(p.stopped == "parry" for p in self.portions) else "blocked"
        return "crit" if any(p.landed and p.outcome == "crit" for p in self.portions) else "hit"

    @property
    def damage(self) -> int:
        return sum(p.damage for p in self.portions if p.landed)

    def text(self) -> str:
        parts = []
        if self.ward:
            pairs = ", ".join(f"{a} vs {d}" for a, d in self.ward)
            parts.append(f"ward-off roll-off {pairs}: " + ("warded off" if self.warded else "fails"))
        if self.natural is not None:
            parts.append(f"d100 {self.natural}")
            for p in self.portions:
                label = "" if len(self.portions) == 1 else f"{p.kind} "
                parts.append(f"{label}{p.total} → {p.outcome}" + (", parried" if p.stopped == "parry" else ", blocked" if p.stopped else ""))
            if self.parry_die is not None:
                parts.append(f"parry d100 {self.parry_die}")
            if self.block_die is not None:
                parts.append(f"block d100 {self.block_die}")
            for p in self.portions:
                if p.landed:
                    parts.append(f"{p.kind} damage {p.dice}" + (" ×2 crit" if p.outcome == "crit" else "") + f" = {p.damage}")
            for name, chance, face, applies in self.riders:
                parts.append(f"{name} {chance}%: d100 {face} {'applies' if applies else 'no'}")
        return "; ".join(parts)


def _ward_dice(spec: Spec, rng: Rng) -> tuple[tuple[tuple[int, int], ...], bool]:
    """Reading (seed 001 says only "an Initiative stat roll-off"): attacker and defender each roll
    d100 + Initiative, ties roll again; the defender wards off the blow when its total is higher."""
    if spec.ward_off is None:
        return (), False
    a_init, d_init = spec.ward_off
    pairs = []
    while True:
        a, d = rng.randint(1, 100), rng.randint(1, 100)
        pairs.append((a, d))
        if a + a_init != d + d_init:
            return tuple(pairs), d + d_init > a + a_init
        if len(pairs) >= 50:
            raise RuleError("The ward-off roll-off tied 50 times.")


def _stops(portion: Portion, outcome: str, parried: bool, blocked: bool) -> str | None:
    """Seed 001, step 3: crits are never parried or blocked; parries stop physical portions only;
    a block stops what may be blocked (physical, or a power that says so)."""
    if outcome != "hit":
        return None
    if parried and portion.kind == "physical" and portion.parryable:
        return "parry"
    if blocked and portion.blockable:
        return "block"
    return None


def _fails_all(outcomes: list[str]) -> bool:
    """Seed 001, combined attacks: a critical miss on either portion, or a physical miss, fails all."""
    return any(o == "critical miss" for o in outcomes) or outcomes[0] in ("miss", "automatic miss")


def resolve_attack(spec: Spec, rng: Rng) -> Result:
    """Roll one attack in the seed's order: ward-off, then the d100 with the parry and block dice
    rolled at the same time, then damage for what landed (doubled on a crit), then the riders."""
    ward, warded = _ward_dice(spec, rng)
    if warded:
        return Result(ward, True, None, None, None, ())
    natural = rng.randint(1, 100)
    parry_die = rng.randint(1, 100) if spec.parry > 0 else None
    block_die = rng.randint(1, 100) if spec.block > 0 else None
    parried = parry_die is not None and parry_die <= spec.parry
    blocked = block_die is not None and block_die <= spec.block
    outcomes = [p.outcome(natural, spec.crit_miss) for p in spec.portions]
    fails = _fails_all(outcomes)
    results = []
    for portion, outcome in zip(spec.portions, outcomes):
        total = natural + portion.modifier
        if fails and outcome in ("hit", "crit"):
            outcome = "miss"  # a combined attack whose physical portion misses fails as a whole
        stopped = _stops(portion, outcome, parried, blocked)
        pr = PortionResult(portion.kind, total, outcome, stopped)
        if pr.landed:
            dmg = roll(portion.damage, rng)
            value = max(0, dmg.total) * (2 if outcome == "crit" else 1)
            pr = replace(pr, dice=dmg.text, damage=value)
        results.append(pr)
    result = Result(ward, False, natural, parry_die, block_die, tuple(results))
    if any(p.landed for p in results):
        riders = []
        for name, chance in spec.riders:
            face = rng.randint(1, 100)
            riders.append((name, chance, face, face <= chance))
        result = replace(result, riders=tuple(riders))
    return result


# -- exact odds ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Odds:
    p_warded: float
    p_crit_miss: float
    p_miss: float
    p_stopped: float
    p_hit: float
    p_crit: float
    damage: Distribution           # damage dealt, 0 when nothing lands
    riders: tuple[tuple[str, float], ...] = ()

    def p_drop(self, hp: int | None) -> float:
        """P(the target's HP reaches 0 or below)."""
        if hp is None:
            return 0.0
        return self.damage.at_least(max(0, hp)) if hp > 0 else 1.0


def ward_off_odds(a_init: int, d_init: int) -> float:
    """P(the defender wards off): ties roll again, so it is P(win) / (P(win) + P(lose))."""
    win = lose = 0
    for a in range(1, 101):
        for d in range(1, 101):
            if d + d_init > a + a_init:
                win += 1
            elif d + d_init < a + a_init:
                lose += 1
    return win / (win + lose)


@lru_cache(maxsize=64)  # the sheet redraws often; its inputs are frozen values
def attack_odds(spec: Spec) -> Odds:
    """Exact outcome probabilities and damage distribution of `resolve_attack`: the 100 naturals are
    grouped by what they do to each portion, and the parry and block dice are independent of them."""
    p_ward = ward_off_odds(*spec.ward_off) if spec.ward_off is not None else 0.0
    go = 1.0 - p_ward
    groups: Counter[tuple[str, ...]] = Counter()
    for natural in range(1, 101):
        seen = [p.outcome(natural, spec.crit_miss) for p in spec.portions]
        if _fails_all(seen):
            seen = [o if o not in ("hit", "crit") else "miss" for o in seen]
        key = tuple(seen)
        groups[key] += 1
    pp, pb = spec.parry / 100, spec.block / 100
    dists = {}
    residual = 0.0
    for portion in spec.portions:
        d = distribution(portion.damage).map(lambda v: max(0, v))  # a penalty larger than the roll deals nothing
        residual = max(residual, d.residual)
        dists[id(portion)] = (d, d.map(lambda v: 2 * v))
    totals = {"crit miss": 0.0, "miss": 0.0, "stopped": 0.0, "hit": 0.0, "crit": 0.0}
    nothing = Distribution.constant(0)
    cases: list[tuple[float, Distribution]] = [(p_ward, nothing)]
    for outcomes, count in groups.items():
        w = go * count / 100
        if "critical miss" in outcomes:
            totals["crit miss"] += w
            cases.append((w, nothing))
            continue
        if outcomes[0] in ("miss", "automatic miss"):
            totals["miss"] += w
            cases.append((w, nothing))
            continue
        for parried, p1 in ((True, pp), (False, 1 - pp)):
            for blocked, p2 in ((True, pb), (False, 1 - pb)):
                weight = w * p1 * p2
                if weight == 0:
                    continue
                landed = [(portion, o) for portion, o in zip(spec.portions, outcomes)
                          if o in ("hit", "crit") and _stops(portion, o, parried, blocked) is None]
                if not landed:
                    totals["stopped"] += weight
                    cases.append((weight, nothing))
                    continue
                totals["crit" if any(o == "crit" for _, o in landed) else "hit"] += weight
                dealt = nothing
                for portion, o in landed:
                    plain, double = dists[id(portion)]
                    dealt = dealt + (double if o == "crit" else plain)
                cases.append((weight, dealt))
    p_land = totals["hit"] + totals["crit"]
    riders = tuple((name, p_land * chance / 100) for name, chance in spec.riders)
    damage = Distribution.mix(cases)
    damage = Distribution(damage.pmf, residual)
    return Odds(p_ward, totals["crit miss"], totals["miss"], totals["stopped"], totals["hit"], totals["crit"], damage, riders)


# -- modifiers ------------------------------------------------------------------------------------

def split_bonus(bonus: int, targets: int) -> int:
    """Seed 001, "Damage and/or Healing Bonuses": one hit roll's bonus is divided evenly among the
    targets it hit; standard rounding (half up), and anything below 1 becomes 1. A negative bonus
    (a penalty) is split the same way, with its sign."""
    if targets < 1:
        raise RuleError("A bonus is split over at least one target.")
    if bonus == 0:
        return 0
    share = math.floor(abs(bonus) / targets + 0.5)
    return int(math.copysign(max(1, share), bonus))


def penalties(*, ranged: bool = False, inches_moved: int = 0, flying: bool = False, dual_wielding: bool = False,
              dual_wield_skill: bool = True, weapon_size: int = 2, trained: bool = True) -> list[tuple[str, int]]:
    """Seed 001, "Combat Penalties": the to-hit penalties of the attacker's situation, each with its
    reason. (Dual wielding untrained also stops crits; an untrained weapon loses its effects.)"""
    if not 1 <= weapon_size <= 4:
        raise RuleError("A weapon size is S, M, L or XL.")
    if not 0 <= inches_moved <= 1000:
        raise RuleError("Inches moved is 0 to 1,000.")
    out = []
    if ranged and (inches_moved or flying):
        if inches_moved:
            out.append((f"moved {inches_moved} in and shooting", -5 * inches_moved))
        if flying:
            out.append(("flying and shooting", -5))
    size = "SMLX"[weapon_size - 1].replace("X", "XL")
    if dual_wielding and not dual_wield_skill:
        out.append((f"dual wielding without the skill ({size})", -10 * weapon_size))
    if not trained:
        out.append((f"untrained weapon ({size})", -5 * weapon_size))
    return out


def untrained_block(block: int) -> int:
    """Seed 001: an untrained shield's block is divided by 4 (rounded down), at least 5%."""
    return max(5, block // 4) if block > 0 else 0


def check_432(made: list[tuple[str, str]], target: str, weapon: str, pc: bool) -> None:
    """Seed 001, "Multiple Attack Actions": a PC's action holds at most 4 attacks, 3 on one target,
    2 with the same weapon on one target. `made` lists (target, weapon) of the action's attacks so far.
    NPCs are exempt; direct-damage instants are never passed here."""
    if not pc:
        return
    if len(made) >= 4:
        raise RuleError("4-3-2 rule: an action holds at most 4 attacks.")
    if sum(1 for t, _ in made if t == target) >= 3:
        raise RuleError("4-3-2 rule: at most 3 attacks on the same target in one action.")
    if sum(1 for t, w in made if t == target and w == weapon) >= 2:
        raise RuleError("4-3-2 rule: at most 2 attacks with the same weapon on the same target in one action.")
