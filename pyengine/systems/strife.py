"""Realm of Strife: d100 attacks against AC or Resistance, parries and blocks, crit ranges, combined
attacks, the turn's components, the 4-3-2 rule and class resources between battles.

Rules from seed 001_ac0439225e17923b.txt as fixed by shared/RULES.md section 2. Readings this module
adds where both are silent are marked **Reading** in the docstrings.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ..damage import harm, mend
from ..dice import Rng, roll
from ..errors import EngineError, RuleError, SchemaError
from ..model import Combatant, Condition, Encounter, Event, Outcome, StatField
from ..odds import Distribution, distribution
from ..record import Record, field
from ..rules import ActionRule, AttackOutcome, System, settle_ties, system_of, whole
from ..turns import active_unit, advance, turn_starts

__all__ = [
    "Part", "Bottom", "Resource",
    "SIZES", "Portion", "Spec", "PortionResult", "Result", "Odds", "split_bonus", "penalties", "untrained_block",
    "resolve_attack", "attack_odds", "ward_off_odds", "check_432", "TURN_PARTS", "RESOURCES", "STATS", "STAT", "acting", "end_battle",
    "begin_battle", "StrifeSystem", "PowerRequest", "power_odds", "resolve_power", "apply_power", "MAX_POWER_TARGETS",
]

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


# -- the tracker's side ---------------------------------------------------------------------------

TURN_PARTS = ("rest", "sprint", "instant", "move", "action")
MOVES = ("move", "charge", "disengage", "forced")
RESOURCES = {  # key -> (label, has a maximum)
    "vigor": ("Vigor", True), "fury": ("Fury", False), "honor": ("Code points", True), "stacks": ("Code stacks", False),
    "spirit": ("Spirit", True), "faith": ("Faith", True), "focus": ("Focus", True), "stealth": ("Stealth", False),
}
STATS = (  # the combatant sheet's fields, and the bounds the rules check
    StatField("ac", "AC", low=-100, high=200), StatField("resist", "Resistance", low=-100, high=200),
    StatField("dodge", "Dodge", low=-100, high=200), StatField("hit", "To-hit modifier", low=-200, high=200),
    StatField("crit", "Crit chance %", default=5, high=100), StatField("parry", "Parry %", high=100), StatField("block", "Block %", high=100),
    StatField("spirit_hit", "Spirit to-hit modifier", low=-200, high=200), StatField("spirit_crit", "Spirit crit chance %", default=5, high=100),
    StatField("size", "Weapon size (1 S … 4 XL)", default=2, low=1, high=4), StatField("armour_untrained", "Untrained armour pieces", high=20),
    *(StatField(f"{k}_max", f"{label} max", high=10_000) for k, (label, has_max) in RESOURCES.items() if has_max),
    *(StatField(k, label, high=10_000) for k, (label, has_max) in RESOURCES.items() if not has_max),
    StatField("weapon", "Weapon damage", "text", "1d6"), StatField("offhand", "Off-hand damage (if dual wielding)", "text", ""),
    StatField("power", "Power damage", "text", "2d6"),
    StatField("ward_off", "Weapon with Ward-off", "flag", False), StatField("dual_skill", "Dual Wield skill", "flag", False),
    StatField("untrained", "Weapon untrained", "flag", False), StatField("shield_untrained", "Shield untrained", "flag", False),
    StatField("hiding", "Hiding announced before battle", "flag", False),
)
STAT = {f.key: f for f in STATS}


def _num(c: Combatant, key: str) -> int:
    return STAT[key].number(c)


def _notation(c: Combatant, key: str) -> str:
    field = STAT[key]
    text = str(field.read(c) or "").strip()
    if not text:
        raise RuleError(f"{c.name} has no {field.label.lower()}.")
    try:
        distribution(text)
    except EngineError as error:
        raise RuleError(f"{c.name}'s {field.label.lower()}: {error}") from None
    return text


ATTACK_KINDS = ("physical", "spirit", "combined", "mixed")  # mixed: combined damage, no distinction


def build_spec(encounter: Encounter, config: dict[str, Any]) -> tuple[Spec, list[tuple[str, int]], dict[str, Any]]:
    """Build the attack the panel describes: the portions with every modifier and its reason.

    config: attacker, target, kind (ATTACK_KINDS), weapon ("main" / "off"), ranged, inches, flying,
    missile (a spirit power that adds Dodge), blockable (power says it can be blocked), melee
    (close combat: ward-off applies), modifier (situational), bonus (damage bonus of the hit roll),
    targets (targets the hit roll hit, for the bonus split), riders [[name, %], ...]."""
    attacker, target = encounter.get(config["attacker"]), encounter.get(config["target"])
    if attacker.id == target.id:
        raise RuleError("A combatant cannot attack itself.")
    kind = config.get("kind", "physical")
    if kind not in ATTACK_KINDS:
        raise RuleError("An attack is physical, spirit, combined or combined damage.")
    weapon = config.get("weapon", "main")
    if weapon not in ("main", "off"):
        raise RuleError("Attack with the main-hand or the off-hand weapon.")
    dual = bool(str(attacker.stat_or("offhand", "") or "").strip())
    if weapon == "off" and not dual:
        raise RuleError(f"{attacker.name} has no off-hand weapon.")
    try:
        inches = int(config.get("inches") or 0)
        situational = int(config.get("modifier") or 0)
        bonus = int(config.get("bonus") or 0)
        targets = int(config.get("targets") or 1)
    except (TypeError, ValueError):
        raise RuleError("Moves, modifiers and bonuses are whole numbers.") from None
    if abs(situational) > 500 or abs(bonus) > 10_000 or not 1 <= targets <= 100:
        raise RuleError("Modifier -500 to 500, bonus up to 10,000, 1 to 100 targets.")
    reasons: list[tuple[str, int]] = []
    untrained = bool(attacker.stat_or("untrained", False))
    physical = kind in ("physical", "combined", "mixed")
    if physical:
        reasons += penalties(ranged=bool(config.get("ranged")), inches_moved=inches, flying=bool(config.get("flying")),
                             dual_wielding=dual, dual_wield_skill=bool(attacker.stat_or("dual_skill", False)),
                             weapon_size=_num(attacker, "size"), trained=not untrained)
    if situational:
        reasons.append(("situational", situational))
    penalty = sum(v for _, v in reasons)
    ac = _num(target, "ac") - _num(target, "armour_untrained")
    resist = _num(target, "resist")
    dodge = _num(target, "dodge")
    res_total = resist + (dodge if config.get("missile") else 0)
    share = split_bonus(bonus, targets)
    crit_ok = not (dual and not attacker.stat_or("dual_skill", False))
    hand = "offhand" if weapon == "off" else "weapon"

    def with_bonus(notation: str) -> str:
        return notation if not share else f"({notation}){'+' if share > 0 else '-'}{abs(share)}"

    portions = []
    if kind in ("physical", "combined"):
        portions.append(Portion("physical", _num(attacker, "hit") + penalty, _num(attacker, "crit"), ac,
                                with_bonus(_notation(attacker, hand)), can_crit=crit_ok))
    if kind == "mixed":
        portions.append(Portion("physical", _num(attacker, "hit") + penalty, _num(attacker, "crit"), min(ac, res_total),
                                with_bonus(_notation(attacker, hand)), can_crit=crit_ok))
    if kind in ("spirit", "combined"):
        spirit_penalty = situational if kind == "spirit" else 0
        portions.append(Portion("spirit", _num(attacker, "spirit_hit") + spirit_penalty, _num(attacker, "spirit_crit"), res_total,
                                with_bonus(_notation(attacker, "power")), parryable=False, blockable=bool(config.get("blockable"))))
    block = _num(target, "block")
    if target.stat_or("shield_untrained", False):
        block = untrained_block(block)
    parry = _num(target, "parry")
    ward = None
    target_untrained = bool(target.stat_or("untrained", False))
    if target_untrained:
        # Seed 001: an untrained weapon "cannot use any of the weapon effects (Parry, Cleaving, Ward-off ...)".
        parry = 0
    elif physical and not config.get("ranged") and target.stat_or("ward_off", False):
        ward = (attacker.init_mod, target.init_mod)
    riders = []
    given = config.get("riders") or []
    for entry in parse_riders(given) if isinstance(given, str) else given:
        try:
            name, chance = str(entry[0]).strip()[:30], int(entry[1])
        except (TypeError, ValueError, IndexError):
            raise RuleError("A rider is a name and a percentage, e.g. Stun 20.") from None
        if not name:
            raise RuleError("A rider needs a name.")
        riders.append((name, chance))
    spec = Spec(tuple(portions), int(encounter.option("crit_miss", 5)), parry if physical else 0,
                block if (physical or config.get("blockable")) else 0, ward, tuple(riders))
    notes = {"ac": ac, "resistance": res_total, "share": share, "can_crit": crit_ok, "untrained": untrained,
             "target_untrained": target_untrained,
             "range_halved": untrained and bool(config.get("ranged"))}  # seed 001: untrained thrown range halved
    return spec, reasons, notes


def parse_riders(text: str) -> list[list[Any]]:
    """'Stun 20, Disarm 10%' -> [['Stun', 20], ['Disarm', 10]]."""
    out = []
    for part in (text or "").split(","):
        part = part.strip().rstrip("%").strip()
        if not part:
            continue
        name, _, number = part.rpartition(" ")
        try:
            chance = int(number)
        except ValueError:
            raise RuleError(f"“{part[:30]}”: a rider is a name and a percentage, e.g. Stun 20.") from None
        if not name.strip() or not 0 <= chance <= 100:
            raise RuleError(f"“{part[:30]}”: a rider is a name and a percentage 0 to 100.")
        out.append([name.strip(), chance])
    if len(out) > MAX_RIDERS:
        raise RuleError(f"At most {MAX_RIDERS} riders.")
    return out


TURN_STATE = ("acting", "acted", "parts", "free", "bottom", "returns", "action_kinds", "attacks")  # what _turn holds


def _turn(enc: Encounter) -> dict[str, Any]:
    return dict(enc.turn)


def _set_turn(enc: Encounter, st: dict[str, Any]) -> Encounter:
    return replace(enc, turn=tuple(sorted(st.items())))


def acting(enc: Encounter) -> str | None:
    """Who takes the turn's parts now: the active combatant, or in a group's turn the member whose
    turn it is (the members take their turns one after another, each with its own checklist)."""
    return _turn(enc).get("acting", enc.active_id) if enc.started else None


def _require_turn(enc: Encounter, cid: str) -> None:
    if not enc.started:
        raise RuleError("Start the fight first.")
    if cid != acting(enc):
        raise RuleError(f"It is not {enc.get(cid).name}'s turn.")


def _end_turn(enc: Encounter, events: list[Any]) -> Outcome:
    """The acting combatant's turn is over: the next member of its group takes its own, else the
    turn passes on."""
    unit = active_unit(enc)
    st = _turn(enc)
    if len(unit) > 1:
        acted = st.get("acted", []) + [acting(enc)]
        system = system_of(enc)
        left = [c for c in unit if c.id not in acted and not system.is_down(c)]
        if left:
            keep = {k: st[k] for k in ("bottom", "returns") if k in st}
            enc = _set_turn(enc, {**keep, "acting": left[0].id, "acted": acted})
            return enc, tuple(events) + (enc.event("turn", f"{left[0].name}'s turn", who=left[0].id),)
    enc, more = advance(enc, system_of(enc), forward=True)
    return enc, tuple(events) + more


class Part(Record):
    """A request to take one part of a turn (`part`); a move says its `mode` and whether it starts
    `adjacent` to a foe."""

    id: str
    part: str
    mode: str | None = None
    adjacent: list[str] = field(default_factory=list)


class Bottom(Record):
    """A request for the Bottom of the Round's roll."""

    id: str


class Resource(Record):
    """A request to spend (`delta` < 0) or regain one of a character's resources (`key`)."""

    id: str
    key: str
    delta: int


def _apply_part(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """Seed 001, turn components: Rest (+1 HP, the whole turn) or Sprint (ends the turn) only as the
    turn's first thing; otherwise one Instant, one Move (charge / disengage), and the Action, which
    ends the turn. Reading: forced movement is not the turn's Move and gives no free attacks."""
    c = enc.get(args["id"])
    part = args.get("part")
    if part not in TURN_PARTS:
        raise RuleError(f"A turn part is one of {', '.join(TURN_PARTS)}.")
    if part != "move" or args.get("mode") != "forced":
        _require_turn(enc, c.id)
    st = _turn(enc)
    used = list(st.get("parts", []))
    if part in ("rest", "sprint") and used:
        raise RuleError(f"{part.title()} takes the whole turn: {c.name} already used {', '.join(used)}.")
    if part in used and part in ("instant", "move", "action"):
        raise RuleError(f"{c.name} already used the {part.title()} this turn.")
    if part == "rest":
        enc, gained, up = mend(enc, c, 1 if c.max_hp is not None else 0)
        events = [enc.event("rest", f"{c.name} rests" + (f" and regains {gained} HP" if gained else " (already at full HP)"), who=c.id), *up]
        return _end_turn(_set_turn(enc, {**st, "parts": used + ["rest"]}), events)
    if part == "sprint":
        events = [enc.event("sprint", f"{c.name} sprints (double ground speed); the turn ends", who=c.id)]
        return _end_turn(_set_turn(enc, {**st, "parts": used + ["sprint"]}), events)
    if part == "instant":
        return _set_turn(enc, {**st, "parts": used + ["instant"]}), (enc.event("instant", f"{c.name} uses an Instant", who=c.id),)
    if part == "move":
        mode = args.get("mode", "move")
        if mode not in MOVES:
            raise RuleError("A move is a move, a charge, a disengage or forced.")
        if mode == "forced":
            return enc, (enc.event("moved", f"{c.name} is moved against their will: not disengaging, no free attacks", who=c.id),)
        if "action" in used:
            raise RuleError("The Action ended the turn.")
        st = {**st, "parts": used + ["move"]}
        if mode == "charge":
            return _set_turn(enc, st), (enc.event("charge", f"{c.name} charges into base contact", who=c.id),)
        if mode == "disengage":
            adjacent = [enc.get(i) for i in args.get("adjacent", []) if i != c.id]
            if not adjacent:
                return _set_turn(enc, st), (enc.event("move", f"{c.name} moves away (no enemy in base contact)", who=c.id),)
            st["free"] = sorted(set(st.get("free", [])) | {x.id for x in adjacent})
            names = ", ".join(x.name for x in adjacent)
            return _set_turn(enc, st), (enc.event("disengage", f"{c.name} disengages: {names} may each make a free basic melee attack "
                                                                 "with each equipped weapon (each weapon once this turn)", who=c.id),)
        return _set_turn(enc, st), (enc.event("move", f"{c.name} moves", who=c.id),)
    # the Action
    events = [enc.event("action", f"{c.name} takes the Action; the turn ends", who=c.id)]
    return _end_turn(_set_turn(enc, {**st, "parts": used + ["action"]}), events)


def _apply_bottom(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """Seed 001: once per round one character per side may give up its place and act last."""
    c = enc.get(args["id"])
    _require_turn(enc, c.id)
    st = _turn(enc)
    if st.get("parts"):
        raise RuleError(f"{c.name} already acted this turn.")
    if c.side in st.get("bottom", []):
        raise RuleError(f"Someone of the {c.side} already went to the bottom of the queue this round.")
    if c.group is not None:
        raise RuleError("A group acts together and cannot go to the bottom of the queue.")
    index = next(i for i, x in enumerate(enc.combatants) if x.id == c.id)
    if index == len(enc.combatants) - 1:
        raise RuleError(f"{c.name} already acts last.")
    follower = enc.combatants[index + 1].id
    rest = [x for x in enc.combatants if x.id != c.id]
    moved = replace(enc, combatants=tuple(rest) + (c,))
    st = {**st, "bottom": sorted(set(st.get("bottom", [])) | {c.side}),
          "returns": st.get("returns", []) + [[c.id, follower]]}
    moved = _set_turn(moved, st)
    # The turn passes to whoever followed; the mover acts last this round.
    moved = replace(moved, active_id=follower)
    moved, started = turn_starts(moved, system_of(moved))
    return moved, (enc.event("bottom", f"{c.name} goes to the bottom of the queue", who=c.id),) + started


def _attack_turn(enc: Encounter, args: dict[str, Any]) -> dict[str, Any]:
    """May this attack be made now (turn parts, free attacks, 4-3-2)? Returns the turn state after it.
    Reading: an Instant that is not a direct-damage one counts toward 4-3-2 with the Action's attacks."""
    attacker, target = enc.get(args["attacker"]), enc.get(args["target"])
    use = args.get("use", "action")
    st = _turn(enc)
    if use not in ("action", "instant", "free", "direct"):
        raise RuleError("An attack is made as the Action, an Instant, a direct-damage Instant or a free attack.")
    if use in ("action", "instant", "direct"):
        _require_turn(enc, attacker.id)
        used = st.get("parts", [])
        if use == "action" and "action" in used:
            raise RuleError("The Action already ended the turn.")
        if use in ("instant", "direct") and "instant" in used:
            raise RuleError(f"{attacker.name} already used the Instant this turn.")
    weapon = args.get("weapon", "main")
    if use == "action":
        # Seed 001: "an action based power/spell takes the entire action and cannot be paired with
        # an off-hand attack". Reading: a power is a spirit attack; a combined attack is a weapon's.
        power = args.get("kind", "physical") == "spirit"
        paired = st.get("action_kinds", [])
        if power and "off" in paired:
            raise RuleError("A power takes the entire action: it cannot follow an off-hand attack.")
        if weapon == "off" and not power and "power" in paired:
            raise RuleError("A power took the entire action: no off-hand attack with it.")
        mark = "power" if power else "off" if weapon == "off" else None
        if mark and mark not in paired:
            st = {**st, "action_kinds": paired + [mark]}
        made = [tuple(x) for x in st.get("attacks", [])]
        check_432(made, target.id, weapon, attacker.pc)
        if attacker.pc:  # NPCs are exempt, so their attacks are not counted (and the turn state stays small)
            st = {**st, "attacks": [list(x) for x in made] + [[target.id, weapon]]}
    elif use in ("instant", "direct"):
        st = {**st, "parts": st.get("parts", []) + ["instant"]}
        if use == "instant":
            check_432([tuple(x) for x in st.get("attacks", [])], target.id, weapon, attacker.pc)
            if attacker.pc:
                st["attacks"] = st.get("attacks", []) + [[target.id, weapon]]
    else:
        if attacker.id not in st.get("free", []):
            raise RuleError(f"{attacker.name} has no free attack: nobody disengaged from them this turn.")
        key = f"{attacker.id}:{weapon}"
        if key in st.get("free_used", []):
            raise RuleError(f"{attacker.name} already made a free attack with that weapon this turn.")
        st = {**st, "free_used": st.get("free_used", []) + [key]}
    return st


def _apply_attack(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """Apply a rolled attack: damage to the target, riders as conditions, the 4-3-2 count."""
    st = _attack_turn(enc, args)
    attacker, target = enc.get(args["attacker"]), enc.get(args["target"])
    damage = args.get("damage", 0)
    if not isinstance(damage, int) or isinstance(damage, bool) or not 0 <= damage <= 1_000_000:
        raise RuleError("An attack result is out of range.")
    enc, hurt, hurt_events = harm(enc, target, damage)
    target = enc.get(target.id)
    conditions = target.conditions
    events = [enc.event("attack", f"{attacker.name} attacks {target.name}: {args.get('outcome', '?')}"
                     + (f", {damage} damage" if damage else "") + (f" ({hurt.note})" if hurt.absorbed else ""), args.get("text"), target.id)]
    seq = enc.seq
    for name in args.get("riders", []):
        seq += 1
        conditions = conditions + (Condition(id=f"k{seq}", name=str(name)[:60], source_id=attacker.id),)
        events.append(enc.event("condition", f"{target.name}: {name} (rider)", who=target.id))
    enc = replace(enc, seq=seq).with_combatant(replace(target, conditions=conditions))
    return _set_turn(enc, st), (*events, *hurt_events)


def _apply_resource(enc: Encounter, args: dict[str, Any]) -> Outcome:
    c = enc.get(args["id"])
    key = args.get("key")
    if key not in RESOURCES:
        raise RuleError("Unknown resource.")
    try:
        delta = int(args.get("delta", 0))
    except (TypeError, ValueError):
        raise RuleError("Enter a whole number.") from None
    if abs(delta) > 10_000:
        raise RuleError("Change a resource by at most 10,000.")
    label, has_max = RESOURCES[key]
    now = int(c.stat_or(key, 0) or 0)
    if now + delta < 0:
        raise RuleError(f"{c.name} has only {now} {label}.")
    value = now + delta
    if has_max:
        top = int(c.stat_or(f"{key}_max", 0) or 0)
        value = min(value, top)
    stats = tuple(sorted({**dict(c.stats), key: value}.items()))
    verb = "spends" if delta < 0 else "gains"
    return (replace(enc, combatants=tuple(replace(x, stats=stats) if x.id == c.id else x for x in enc.combatants)),
            (enc.event("resource", f"{c.name} {verb} {abs(value - now)} {label} ({value})", who=c.id),))


def end_battle(enc: Encounter) -> Encounter:
    """Seed 001, "Combat and Class Mechanic Summaries": Vigor refills; code points refill and code
    stacks are lost; Fury halves (rounded down, **Reading**) and is lost unless the next battle
    starts within 2 in-game minutes (asked when it starts); HP, Spirit, Faith and Focus carry over."""
    combatants = []
    for c in enc.combatants:
        stats = dict(c.stats)
        if stats.get("vigor_max"):
            stats["vigor"] = stats["vigor_max"]
        if stats.get("honor_max"):
            stats["honor"] = stats["honor_max"]
        if stats.get("stacks"):
            stats["stacks"] = 0
        if stats.get("fury"):
            stats["fury"] = int(stats["fury"]) // 2
        combatants.append(replace(c, stats=tuple(sorted(stats.items()))))
    return replace(enc, combatants=tuple(combatants))


def begin_battle(enc: Encounter, soon: bool) -> tuple[Encounter, list[Any]]:
    """At a battle's start: Fury from the last battle survives only if this one follows within
    2 in-game minutes (`soon`); Stealth starts at 0 unless hiding was announced."""
    combatants, events = [], []
    for c in enc.combatants:
        stats = dict(c.stats)
        if stats.get("fury") and not soon:
            events.append(enc.event("resource", f"{c.name}'s Fury is lost (more than 2 minutes since the last battle)", who=c.id))
            stats["fury"] = 0
        if stats.get("stealth") and not stats.get("hiding"):
            stats["stealth"] = 0
        combatants.append(replace(c, stats=tuple(sorted(stats.items()))))
    return replace(enc, combatants=tuple(combatants)), events


def _resolve_attack(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    config = {k: args[k] for k in ("attacker", "target", "kind", "weapon", "ranged", "inches", "flying", "missile",
                                   "blockable", "modifier", "bonus", "targets", "riders") if k in args}
    spec, reasons, _ = build_spec(encounter, config)
    _attack_turn(encounter, args)  # refused before any die is rolled
    result = resolve_attack(spec, rng)
    return {"attacker": args["attacker"], "target": args["target"], "use": args.get("use", "action"),
            "weapon": args.get("weapon", "main"), "kind": args.get("kind", "physical"),
            "outcome": result.outcome, "damage": result.damage, "text": result.text(),
            "natural": result.natural, "ward": [list(p) for p in result.ward],
            "parry_die": result.parry_die, "block_die": result.block_die,
            "portions": [{"kind": p.kind, "total": p.total, "outcome": p.outcome, "stopped": p.stopped,
                          "dice": p.dice, "damage": p.damage} for p in result.portions],
            "riders": [r[0] for r in result.riders if r[3]],
            "rider_rolls": [list(r) for r in result.riders],
            "reasons": [list(r) for r in reasons]}


# -- a power on several targets with one hit roll (issue 52) ------------------------------
# Realm of Strife: a non-physical attack (a spirit or faith power) against several targets with one
# hit roll (issue 52, section 5). Seed 001, "Bonus split": "All damage or healing bonuses are applied to
# a single 'hit' roll. If that hit roll effects more than one target then the bonus is divided evenly
# between all targets" — its example, a Rain-type power with "a single hit roll" on 6 targets, one of
# which "resists the power".
#
# So: one d100 for the power; each target compares it (with the attacker's spirit to-hit modifier and
# the situation's) against its own Resistance (+ its Dodge for a missile-type power); a natural roll in
# the critical miss range misses them all, one in the attacker's spirit crit range crits them all.
# **Reading** (the seed rolls the hit once and says no more of the damage): the power's damage is
# rolled once; each target hit takes it plus its share of the bonus (split over the targets hit,
# RULES.md's rounding), doubled on a crit. Blocks and parries do not apply (a power blocks only "if the
# power says so": use the single-target attack for that). The power takes the attacker's Action, and
# counts as one attack (on its first target) for 4-3-2.

MAX_POWER_TARGETS = 20


class PowerRequest(Record):
    """A spirit or faith power from `attacker` on several `targets` with one hit roll: the situation's
    to-hit modifier, the damage bonus of the hit roll (split over the targets hit), whether it is a
    missile-type power (each target's Dodge adds to its Resistance)."""

    attacker: str
    targets: list[str]
    modifier: int = 0
    bonus: int = 0
    missile: bool = False


def _portions(enc: Encounter, args: dict[str, Any]) -> tuple[str, list[tuple[str, Portion]]]:
    attacker = args.get("attacker")
    if not isinstance(attacker, str) or attacker not in enc.names():
        raise RuleError("The power's attacker is not in this encounter.")
    targets = args.get("targets")
    if not isinstance(targets, list) or not 1 <= len(targets) <= MAX_POWER_TARGETS or len(set(map(str, targets))) != len(targets):
        raise RuleError(f"A power on several targets has 1 to {MAX_POWER_TARGETS} different targets.")
    modifier, bonus = args.get("modifier") or 0, args.get("bonus") or 0
    if type(modifier) is not int or abs(modifier) > 500 or type(bonus) is not int or abs(bonus) > 10_000:
        raise RuleError("Modifier -500 to 500, bonus up to 10,000.")
    a = enc.get(attacker)
    damage = str(STAT["power"].read(a) or "").strip()
    if not damage:
        raise RuleError(f"{a.name} has no power damage.")
    out = []
    for t in targets:
        if t not in enc.names() or t == attacker:
            raise RuleError("A target of the power is not in this encounter (or is its caster).")
        c = enc.get(t)
        defence = STAT["resist"].number(c) + (STAT["dodge"].number(c) if args.get("missile") else 0)
        out.append((t, Portion("spirit", STAT["spirit_hit"].number(a) + modifier, STAT["spirit_crit"].number(a), defence, damage,
                               parryable=False, blockable=False)))
    return damage, out


def power_odds(enc: Encounter, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target's exact chances from the one d100: hit (a crit included) and crit.

    >>> from pyengine.tracker import Timeline, new_encounter, resolve
    >>> t = Timeline.start(new_encounter("e1", system="strife"))
    >>> for name, stats in (("Mage", {"spirit_hit": 10}), ("Orc", {"resist": 60}), ("Imp", {"resist": 30})):
    ...     t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "max_hp": 20, "stats": stats}}))
    >>> [round(o["p_hit"], 2) for o in power_odds(t.present, {"attacker": "c1", "targets": ["c2", "c3"]})]
    [0.5, 0.8]
    """
    crit_miss = int(enc.option("crit_miss", 5))
    _, portions = _portions(enc, args)
    out = []
    for t, p in portions:
        outcomes = [p.outcome(n, crit_miss) for n in range(1, 101)]
        out.append({"id": t, "resistance": p.defence, "modifier": p.modifier, "p_hit": sum(o in ("hit", "crit") for o in outcomes) / 100,
                    "p_crit": outcomes.count("crit") / 100})
    return out


def resolve_power(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """The one d100, then (when anything is hit) the power's damage once."""
    crit_miss = int(enc.option("crit_miss", 5))
    damage, portions = _portions(enc, args)
    _attack_turn(enc, {"attacker": args["attacker"], "target": portions[0][0], "use": "action", "kind": "spirit"})  # (refused before a die)
    natural = rng.randint(1, 100)
    results = [{"id": t, "outcome": p.outcome(natural, crit_miss), "total": natural + p.modifier, "resistance": p.defence}
               for t, p in portions]
    hit = [r for r in results if r["outcome"] in ("hit", "crit")]
    rolled = roll(damage, rng) if hit else None
    share = split_bonus(int(args.get("bonus") or 0), len(hit)) if hit and args.get("bonus") else 0
    for r in hit:
        r["damage"] = max(0, (max(0, rolled.total) if rolled else 0) + share) * (2 if r["outcome"] == "crit" else 1)
    return {"attacker": args["attacker"], "targets": [t for t, _ in portions], "modifier": args.get("modifier") or 0,
            "bonus": args.get("bonus") or 0, "missile": bool(args.get("missile")), "natural": natural,
            "damage_text": rolled.text if rolled else "", "share": share, "results": results}


def apply_power(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """One step: the power's line, each target's (hit or not, its damage), the Action taken."""
    results = args.get("results")
    if not isinstance(results, list) or not results or any(not isinstance(r, dict) or r.get("id") not in enc.names() for r in results):
        raise RuleError("A power's results are unreadable, or a target left the encounter.")
    st = _attack_turn(enc, {"attacker": args["attacker"], "target": results[0]["id"], "use": "action", "kind": "spirit"})
    a = enc.get(args["attacker"])
    names = ", ".join(enc.get(r["id"]).name for r in results)
    bonus = f", bonus {args['share']:+d} each" if args.get("share") else ""
    events: list[Event] = [enc.event("attack", f"{a.name}'s power on {names}: d100 {args['natural']}"
                                     + (f"; damage {args['damage_text']}{bonus}" if args.get("damage_text") else ""), who=a.id)]
    for r in results:
        c = enc.get(r["id"])
        damage = r.get("damage", 0)
        if type(damage) is not int or not 0 <= damage <= 1_000_000:
            raise RuleError("A power's damage is out of range.")
        events.append(enc.event("attack", f"{c.name}: {r['total']} vs Resistance {r['resistance']}, {r['outcome']}"
                                + (f", {damage} damage" if damage else ""), who=c.id))
        if damage:
            enc, _, hurt = harm(enc, c, damage)
            events += hurt
    return _set_turn(enc, st), tuple(events)


class StrifeSystem(System):
    """Realm of Strife in the tracker (seed 001): turn order by the Initiative stat, the turn's
    components as a checklist, d100 attacks, class resources between battles."""

    def fresh_stats(self, stats: dict[str, Any]) -> dict[str, Any]:
        """Resources with a maximum start full."""
        return {**stats, **{key: stats[f"{key}_max"] for key, (_, has_max) in RESOURCES.items() if has_max and f"{key}_max" in stats}}

    name = "strife"
    label = "Realm of Strife"
    no_delay = ("In Realm of Strife a character gives up its place only to the bottom of the queue (once a round "
                "for each side), on its own turn.")
    aliases = ("ros", "realm of strife", "d100")
    round_seconds = 6  # Reading: seed 001 gives no round length; the clock shows 6 s per round
    options = {"crit_miss": tuple(range(0, 51))}
    stat_fields = STATS
    rolls_initiative = False  # the turn order is the Initiative stat
    attack_kind = "ros_attack"
    turn_tools = ("uses",)    # seed 001: "each faith power can only be used once per day" (a power, 1 a day)

    def attack_outcome(self, args: dict[str, Any]) -> AttackOutcome:
        """Crit miss, miss, stopped (by a ward, parry or block), hit or crit."""
        outcome = args.get("outcome")
        return AttackOutcome.read(args, outcome in ("hit", "crit"), args.get("damage"), outcome == "crit")

    def attack_roll_words(self, args: dict[str, Any]) -> str:
        """The player's own d100 and its total with the attacker's modifiers ("d100 (62) = 67", a portion
        each for a combined attack); never the AC or Resistance, nor the defender's parry or block die.
        A blow warded off before the d100: its ward-off roll-off."""
        natural = args.get("natural")
        if natural is None:
            return "ward-off roll-off" if args.get("ward") else ""
        portions = [p for p in args.get("portions") or [] if isinstance(p, dict)]
        totals = ", ".join(f"{p.get('kind', '')} {p.get('total')}" for p in portions) if len(portions) > 1 else \
            str(portions[0].get("total")) if portions else ""
        return f"d100 ({natural})" + (f" = {totals}" if totals else "")

    def attack_result_words(self, args: dict[str, Any]) -> str:
        """Its outcome as the table sees it: critical miss, (automatic) miss, warded off, parried,
        blocked, hit, critical hit."""
        out = str(args.get("outcome", ""))
        return "critical hit" if out == "crit" else out or "miss"

    def attack_damage_words(self, args: dict[str, Any]) -> str:
        """The damage (doubled on a critical), and the riders that took hold (stun, disarm …)."""
        outcome = self.attack_outcome(args)
        riders = [str(r) for r in args.get("riders") or []]
        parts = ([f"{outcome.damage} damage" + (" (doubled)" if outcome.crit else "")] if outcome.damage > 0 else []) + riders
        return ", ".join(parts)

    def own_gauges(self, combatant: Combatant) -> list[list[Any]]:
        """The character's resources it has (Vigor, Spirit, Faith, Focus, Fury, code points …), with their maximum."""
        stats = dict(combatant.stats)
        out: list[list[Any]] = []
        for key, (label, has_max) in RESOURCES.items():
            top = stats.get(f"{key}_max") if has_max else None
            if key in stats or top:
                out.append([label, whole(stats.get(key, top or 0)), whole(top) if top else None])
        return out

    actions = {"ros_part": ActionRule(_apply_part, request=Part), "ros_bottom": ActionRule(_apply_bottom, request=Bottom),
               "ros_attack": ActionRule(_apply_attack, _resolve_attack), "ros_resource": ActionRule(_apply_resource, request=Resource),
               "ros_power": ActionRule(apply_power, resolve_power, PowerRequest)}

    def roll_initiative(self, combatant: Combatant, rng: Rng) -> tuple[int, int, str]:
        """Reading: the turn order is the Initiative stat itself, highest first (no roll)."""
        return combatant.init_mod, 0, f"Initiative {combatant.init_mod}"

    def break_ties(self, encounter: Encounter, results: dict[str, list[Any]], rng: Rng) -> None:
        """Reading: equal Initiative is settled by a d100 roll-off, repeated while tied."""
        settle_ties(results, rng, 100)

    def order_key(self, combatant: Combatant) -> tuple[Any, ...]:
        init = combatant.initiative if combatant.initiative is not None else -10**9
        return (-init, -combatant.tiebreak)

    def check_turn_state(self, enc: Encounter) -> None:
        """The turn's checklist (TURN_STATE: which parts were used, who acted in a group's turn, the
        bottom-of-the-queue moves, the attacks made) with its own types, naming only combatants here."""
        st = _turn(enc)
        ids = {c.id for c in enc.combatants}
        sides = {"party", "opponents"}

        def of(key: str, ok: Any) -> bool:
            value = st.get(key, [])
            return isinstance(value, list) and len(value) <= 200 and all(ok(v) for v in value)

        def one(v: Any, among: Any) -> bool:
            return isinstance(v, str) and v in among  # (a list is no id: never looked up in a set)

        fine = (set(st) <= set(TURN_STATE)
                and ("acting" not in st or one(st["acting"], ids))
                and of("acted", lambda v: one(v, ids)) and of("free", lambda v: one(v, ids))
                and of("parts", lambda v: one(v, ("rest", "sprint", "instant", "move", "action")))
                and of("bottom", lambda v: one(v, sides)) and of("action_kinds", lambda v: one(v, ("power", "off")))
                and of("returns", lambda v: isinstance(v, list) and len(v) == 2 and one(v[0], ids) and isinstance(v[1], str))
                and of("attacks", lambda v: isinstance(v, list) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], str)))
        if not fine or (st and not enc.started):
            raise SchemaError("The fight's turn state is unreadable.")

    def on_turn_start(self, enc: Encounter) -> Encounter:
        st = _turn(enc)
        keep = {k: st[k] for k in ("bottom", "returns") if k in st}
        return _set_turn(enc, keep) if keep != st else enc

    def on_new_round(self, enc: Encounter, rolls: dict[str, Any] | None = None) -> tuple[Encounter, list[Event]]:
        """Whoever went to the bottom of the queue returns to its place; the choice is open again."""
        st = _turn(enc)
        combatants = list(enc.combatants)
        for cid, follower in reversed(st.get("returns", [])):
            mover = next((x for x in combatants if x.id == cid), None)
            if mover is None:
                continue
            combatants.remove(mover)
            at = next((i for i, x in enumerate(combatants) if x.id == follower), None)
            if at is None:
                at = next((i for i, x in enumerate(combatants) if self.order_key(x) > self.order_key(mover)), len(combatants))
            combatants.insert(at, mover)
        return replace(enc, combatants=tuple(combatants), turn=()), []

    def begin_combat(self, enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, list[Any]]:
        return begin_battle(enc, bool(args.get("soon")))

    def end_combat(self, enc: Encounter) -> Encounter:
        return end_battle(enc)
