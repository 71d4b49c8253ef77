"""Laurels and Loot (World of Cartyrion): side initiative, exploding damage dice, soak, Stamina and
Injuries. Rules from seed 003_48eb62b13b80b748.txt as fixed by shared/RULES.md section 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from ..damage import harm
from ..dice import Rng
from ..errors import RuleError
from ..model import Combatant, Encounter, Event, Outcome, StatField
from ..odds import Distribution, distribution, explosion_count
from ..record import Record
from ..rules import ActionRule, AttackOutcome, System, system_of, whole
from ..turns import SIDES, side_state, surprised

__all__ = [
    "Parry",
    "PARTY", "OPPONENTS", "AMBUSH", "SideInitiative", "side_initiative", "roll_side_initiative",
    "Weapon", "Fighter", "Attack", "AttackResult", "dice_count", "roll_damage_dice", "resolve_attack",
    "shooter_stamina_cost", "attack_odds", "AttackOdds", "LaurelsSystem",
]

PARTY, OPPONENTS = "party", "opponents"
AMBUSH = ("none", "opponents", "party")

# Seed 003, "Determining Turn Order": the first round by who (if anyone) tries to ambush.
# Each entry: (side acting first, side surprised or None).
_FIRST_ROUND = {
    "none": {1: (OPPONENTS, PARTY), 2: (OPPONENTS, None), 3: (OPPONENTS, None), 4: (PARTY, None), 5: (PARTY, None), 6: (PARTY, OPPONENTS)},
    "opponents": {1: (OPPONENTS, PARTY), 2: (OPPONENTS, PARTY), 3: (OPPONENTS, None), 4: (PARTY, None), 5: (PARTY, None), 6: (PARTY, None)},
    "party": {1: (OPPONENTS, None), 2: (OPPONENTS, None), 3: (OPPONENTS, None), 4: (PARTY, None), 5: (PARTY, OPPONENTS), 6: (PARTY, OPPONENTS)},
}


@dataclass(frozen=True)
class SideInitiative:
    """One round's side roll: which side acts first, and which (if any) is surprised."""

    round: int
    face: int
    first: str
    surprised: str | None = None

    def text(self) -> str:
        if self.surprised == PARTY:
            return "Party surprised!"
        if self.surprised == OPPONENTS:
            return "Opponents surprised!"
        return "Party acts first" if self.first == PARTY else "Opponents act first"

    @property
    def order(self) -> tuple[str, str]:
        return (self.first, OPPONENTS if self.first == PARTY else PARTY)


def side_initiative(round_number: int, face: int, ambush: str = "none") -> SideInitiative:
    """Seed 003: every round d6, 1-3 opponents first, 4-6 party first; round 1 by the ambush table."""
    if not 1 <= face <= 6:
        raise RuleError("The side initiative die is a d6.")
    if ambush not in AMBUSH:
        raise RuleError("Ambush is none, opponents or party.")
    if round_number == 1:
        first, surprised = _FIRST_ROUND[ambush][face]
        return SideInitiative(1, face, first, surprised)
    return SideInitiative(round_number, face, PARTY if face >= 4 else OPPONENTS)


def roll_side_initiative(round_number: int, rng: Rng, ambush: str = "none") -> SideInitiative:
    return side_initiative(round_number, rng.randint(1, 6), ambush)


@dataclass(frozen=True)
class Weapon:
    """An attack form: its damage die, magic bonus (+N per original die), finesse, ranged,
    and whether the wielder has the weapon specialisation."""

    die: int = 6
    magic: int = 0
    finesse: bool = False
    ranged: bool = False
    specialised: bool = False

    def __post_init__(self) -> None:
        if self.die not in (4, 6, 8, 10):
            raise RuleError("A Laurels and Loot damage die is a d4, d6, d8 or d10.")
        if not 0 <= self.magic <= 10:
            raise RuleError("A magic bonus is +0 to +10.")


@dataclass(frozen=True)
class Fighter:
    level: int = 1
    str: int = 0
    dex: int = 0
    awa: int = 0
    armour: int = 0
    stamina: int = 0
    injuries: int = 0
    weapon: Weapon = field(default_factory=Weapon)
    shield: int = 0            # shield points left (0: no shield)

    def __post_init__(self) -> None:
        if not 1 <= self.level <= 40:
            raise RuleError("Level is 1 to 40.")


@dataclass(frozen=True)
class Attack:
    """How the blow is made: melee (or reach), ranged, a declared power attack, a sneak attack;
    and how the target parries ('weapon', 'shield' or None), with its parrying weapon's magic and
    exploding dice already taken while parrying this round."""

    ranged: bool = False
    power: bool = False
    sneak: bool = False
    parry: str | None = None
    parry_magic: int = 0
    parry_explosions_taken: int = 0


@dataclass(frozen=True)
class AttackResult:
    dice: tuple[tuple[int, ...], ...]      # each original die with the dice it exploded into
    original: int
    exploded: int                         # dice that showed their maximum
    bonus: int                            # magic per original die + STR/DEX/AWA
    soak: int                             # target DEX (not on sneak attacks) + armour (unless ignored)
    awa_check: tuple[int, int, bool] | None  # (d20, total, success) for sneak attacks with finesse/ranged
    damage: int                           # after soak, never below 0
    to_stamina: int
    to_injuries: int
    to_shield: int = 0
    shield_broken: bool = False
    weapon_shattered: bool = False
    absorbed: int = 0
    attacker_weapon_broken: bool = False
    direct: bool = False
    awa_needed: int = 0                   # the AWA check's target: 10 + the target's armour

    @property
    def rolled(self) -> int:
        return sum(sum(chain) for chain in self.dice)

    def text(self) -> str:
        chains = ", ".join("+".join(map(str, c)) if len(c) > 1 else str(c[0]) for c in self.dice)
        parts = [f"dice {chains} = {self.rolled}", f"+{self.bonus}", f"-{self.soak}", f"= {self.damage}"]
        if self.awa_check is not None:
            face, total, success = self.awa_check
            parts.insert(0, f"AWA check d20 ({face}) = {total} vs {self.awa_needed}: " + ("armour ignored;" if success else "armour counts;"))
        where = []
        if self.to_stamina:
            where.append(f"{self.to_stamina} Stamina")
        if self.to_injuries:
            where.append(f"{self.to_injuries} Injury")
        if self.to_shield:
            where.append(f"shield takes {self.to_shield}" + (" and breaks" if self.shield_broken else ""))
        if self.absorbed:
            where.append(f"{self.absorbed} parried")
        if self.weapon_shattered:
            where.append("parrying weapon shatters")
        return " ".join(parts) + (" → " + ", ".join(where) if where else " → no damage")


def dice_count(level: int, power: bool = False) -> int:
    """Seed 003, "Damage Dice": one die at level 1 and 2, one more at every odd level."""
    n = (level + 1) // 2
    return n * 2 if power else n


def roll_damage_dice(n: int, die: int, rng: Rng) -> tuple[tuple[int, ...], ...]:
    """Roll n dice; every maximum explodes into another die, repeatedly (seed 003, "Critical Hits").

    Rolled the way the seed's example does: the whole handful, then one die for each maximum,
    and so on, so scripted dice in the seed's order reproduce it."""
    chains = [[rng.randint(1, die)] for _ in range(n)]
    live = [i for i, c in enumerate(chains) if c[-1] == die]
    steps = 0
    while live:
        steps += 1
        if steps > 100:
            raise RuleError("An explosion chain went past 100 dice.")
        for i in live:
            chains[i].append(rng.randint(1, die))
        live = [i for i in live if chains[i][-1] == die]
    return tuple(tuple(c) for c in chains)


def shooter_stamina_cost(weapon: Weapon, rng: Rng) -> int:
    """Seed 003, "Range Combat": d4 stamina per ranged attack, halved rounding up with specialisation."""
    cost = rng.randint(1, 4)
    return math.ceil(cost / 2) if weapon.specialised else cost


def _stat_bonus(attacker: Fighter, ranged: bool) -> int:
    if ranged:
        return attacker.awa
    return attacker.dex if attacker.weapon.finesse else attacker.str


def _check_attack(attacker: Fighter, attack: Attack) -> None:
    if attack.power and attack.sneak:
        raise RuleError("A power attack cannot be a sneak attack.")
    if attack.ranged != attacker.weapon.ranged:
        raise RuleError("Ranged attacks need a ranged weapon, melee attacks a melee one.")
    if attack.parry not in (None, "weapon", "shield"):
        raise RuleError("A parry is with a weapon or a shield.")


def resolve_attack(attacker: Fighter, target: Fighter, attack: Attack, rng: Rng) -> AttackResult:
    """Roll and apply one blow (seed 003, "Resolving Combat", "Sneak Attacks", "Parrying").

    Readings (RULES.md): damage below 0 is 0; melee damage past the remaining Stamina goes to
    Injuries; a parry acts on the damage after soak; a shield takes double and, when it breaks,
    the blow's damage it could not hold (rounded up) reaches the character."""
    _check_attack(attacker, attack)
    weapon = attacker.weapon
    awa_check = None
    armour_applies = True
    if attack.sneak and (weapon.finesse or weapon.ranged):
        face = rng.randint(1, 20)
        total = face + attacker.awa
        success = total >= 10 + target.armour
        awa_check = (face, total, success)
        armour_applies = not success
    awa_needed = 10 + target.armour
    n = dice_count(attacker.level, attack.power)
    chains = roll_damage_dice(n, weapon.die, rng)
    exploded = sum(1 for c in chains for f in c if f == weapon.die)
    bonus = weapon.magic * n + _stat_bonus(attacker, attack.ranged)
    soak = (0 if attack.sneak else target.dex) + (target.armour if armour_applies else 0)
    damage = max(0, sum(map(sum, chains)) + bonus - soak)
    direct = attack.ranged or attack.sneak
    result: dict[str, Any] = dict(dice=chains, original=n, exploded=exploded, bonus=bonus, soak=soak, awa_check=awa_check,
                                  damage=damage, to_stamina=0, to_injuries=0, attacker_weapon_broken=attack.power, direct=direct,
                                  awa_needed=awa_needed)
    through = damage
    if attack.parry == "weapon":
        # Fully absorbed; the (N+1)-th exploding die against a +N weapon shatters it.
        needed = attack.parry_magic + 1 - attack.parry_explosions_taken
        result["weapon_shattered"] = exploded >= needed
        result["absorbed"] = damage
        through = 0
    elif attack.parry == "shield" and target.shield > 0:
        doubled = 2 * damage
        if doubled <= target.shield:
            result["to_shield"] = doubled
            result["absorbed"] = damage
            through = 0
        else:
            result["to_shield"] = target.shield
            result["shield_broken"] = True
            through = math.ceil((doubled - target.shield) / 2)
            result["absorbed"] = damage - through
    if direct:
        result["to_injuries"] = through
    else:
        result["to_stamina"] = min(through, target.stamina)
        result["to_injuries"] = through - result["to_stamina"]
    return AttackResult(**result)


# -- exact odds ----------------------------------------------------------------------------

@dataclass(frozen=True)
class AttackOdds:
    damage: Distribution            # after soak (before parry)
    through: Distribution           # what reaches the character
    p_out_of_stamina: float         # melee: Stamina reaches 0
    p_injury: float                 # at least one Injury point
    p_shatter: float = 0.0          # a weapon parry: the parrying weapon shatters

    def at_least(self, n: int) -> float:
        return self.damage.at_least(n)


@lru_cache(maxsize=64)  # the sheet redraws often; its inputs are frozen values
def attack_odds(attacker: Fighter, target: Fighter, attack: Attack) -> AttackOdds:
    """Exact distribution of the blow's damage and where it goes (explosions cut below 1e-12)."""
    _check_attack(attacker, attack)
    weapon = attacker.weapon
    n = dice_count(attacker.level, attack.power)
    exploding = distribution(f"{n}d{weapon.die}!")  # every maximum explodes, cut below 1e-12
    bonus = weapon.magic * n + _stat_bonus(attacker, attack.ranged)
    dex = 0 if attack.sneak else target.dex
    cases = [(1.0, True)]
    if attack.sneak and (weapon.finesse or weapon.ranged):
        need = 10 + target.armour - attacker.awa
        p_success = min(1.0, max(0.0, (21 - max(1, need)) / 20))
        cases = [(p_success, False), (1.0 - p_success, True)]

    def soaked(armour: bool) -> Distribution:
        soak = dex + (target.armour if armour else 0)
        return exploding.map(lambda value: max(0, value + bonus - soak))

    def reaching(d: int) -> int:
        """What of a blow of d gets through the parry (seed 003)."""
        if attack.parry == "weapon":
            return 0
        if attack.parry == "shield" and target.shield > 0:
            return 0 if 2 * d <= target.shield else math.ceil((2 * d - target.shield) / 2)
        return d

    damage = Distribution.mix((weight, soaked(armour)) for weight, armour in cases)
    through = damage.map(reaching)
    if attack.ranged or attack.sneak:  # straight to Injuries
        p_out, p_injury = 0.0, through.at_least(1)
    else:
        p_out = through.at_least(target.stamina) if target.stamina > 0 else 1.0
        p_injury = through.at_least(target.stamina + 1)
    p_shatter = 0.0
    if attack.parry == "weapon":  # the (N+1)-th exploding die against a +N weapon shatters it
        needed = attack.parry_magic + 1 - attack.parry_explosions_taken
        p_shatter = maxima(n, weapon.die).at_least(needed)
    return AttackOdds(damage, through, p_out, p_injury, p_shatter)


def maxima(n: int, die: int) -> Distribution:
    """How many dice of n exploding d`die` show their maximum (seed 003, "Critical Hits": each
    maximum rolls another die)."""
    return explosion_count(1 / die, n)


# -- the tracker's side ---------------------------------------------------------------------

STATS = (  # the combatant sheet's fields, and the bounds the rules check
    StatField("level", "Level", default=1, high=40), StatField("str", "STR", high=50), StatField("dex", "DEX", high=50),
    StatField("awa", "AWA", high=50), StatField("armour", "Armour points", high=100),
    StatField("injury_max", "Injury points", high=10_000), StatField("die", "Weapon die", default=6, high=10),
    StatField("magic", "Magic +N", high=10), StatField("shield", "Shield points", high=10_000),
    StatField("finesse", "Finesse weapon", "flag", False), StatField("ranged", "Ranged weapon", "flag", False),
    StatField("specialised", "Weapon specialisation", "flag", False),
    StatField("cannot_be_surprised", "Cannot be surprised", "flag", False),
)


def fighter_of(c: Combatant) -> Fighter:
    """The rules' view of a tracker combatant (HP is Stamina; Injuries live in its stats)."""
    try:
        return Fighter(
            level=int(c.stat_or("level", 1)), str=int(c.stat_or("str", 0)), dex=int(c.stat_or("dex", 0)), awa=int(c.stat_or("awa", 0)),
            armour=int(c.stat_or("armour", 0)), stamina=max(0, c.hp or 0), injuries=int(c.stat_or("injuries", 0)),
            weapon=Weapon(die=int(c.stat_or("die", 6)), magic=int(c.stat_or("magic", 0)), finesse=bool(c.stat_or("finesse", False)),
                          ranged=bool(c.stat_or("ranged", False)), specialised=bool(c.stat_or("specialised", False))),
            shield=int(c.stat_or("shield", 0)),
        )
    except (TypeError, ValueError):
        raise RuleError(f"{c.name}'s Laurels and Loot numbers are not whole numbers.") from None


def attack_setup(encounter: Encounter, attacker_id: str, target_id: str, power: bool = False, sneak: bool = False,
                 close: bool = False) -> tuple[Fighter, Fighter, Attack]:
    """The attack the tracker would make, refused (RuleError) where seed 003 forbids it. `close`:
    the target is within 10 ft."""
    attacker, target = encounter.get(attacker_id), encounter.get(target_id)
    if attacker.id == target.id:
        raise RuleError("A combatant cannot attack itself.")
    if surprised_now(encounter, attacker):
        raise RuleError(f"{attacker.name} is surprised: the surprised side takes no turns in round 1 (seed 003).")
    if attacker.stat_or("weapon_broken", False):
        raise RuleError(f"{attacker.name}'s weapon is broken.")
    if {"parry_weapon", "parry_shield"} & set(attacker.flags):
        raise RuleError(f"{attacker.name} is parrying until their next turn, and a character who parries cannot attack.")
    if sneak and attacker.stat_or(f"attacked_{target.id}", None) == encounter.round - 1 and encounter.round > 0:
        raise RuleError(f"No sneak attack: {attacker.name} attacked {target.name} in the prior round.")
    parry = "weapon" if "parry_weapon" in target.flags else "shield" if "parry_shield" in target.flags else None
    a = fighter_of(attacker)
    if a.weapon.ranged and close:
        raise RuleError("A ranged attack needs at least 10 ft between shooter and target.")
    attack = Attack(ranged=a.weapon.ranged, power=power, sneak=sneak, parry=parry,
                    parry_magic=int(target.stat_or("magic", 0)), parry_explosions_taken=int(target.stat_or("parry_explosions", 0)))
    return a, fighter_of(target), attack


def can_be_surprised(c: Combatant) -> bool:
    """An ambush surprises a side, except those of it that cannot be surprised (the stat)."""
    return not c.stat("cannot_be_surprised", False)


def surprised_now(encounter: Encounter, c: Combatant) -> bool:
    """Round 1 of a fight whose roll surprised `c`'s side, and `c` can be surprised: it takes no turn
    and makes no attack (seed 003), on its own side's turn or another's (pyengine.turns.surprised, the
    side flow's reading)."""
    return surprised(encounter, system_of(encounter), c)


def out_of_turn(encounter: Encounter, attacker_id: str) -> str | None:
    """Why an attack by this combatant is outside its side's turn, or None. Reactions are the GM's
    call (seed 003), so the tracker says so rather than refusing."""
    st = side_state(encounter)
    c = encounter.get(attacker_id)
    if not encounter.started or "side" not in st:
        return None
    if surprised_now(encounter, c):
        return f"{c.name} is surprised: no turn and no attack in round 1."
    if c.side != st["side"]:
        whose = "the party's" if st["side"] == "party" else "the opponents'"
        return f"{c.name} is out of turn: it is {whose} turn (a reaction is the GM's call)."
    return None


def _bounded(value: Any, limit: int = 1_000_000) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
        raise RuleError("An attack result is out of range.")
    return value


def _apply_attack(enc: Encounter, args: dict[str, Any]) -> Outcome:
    r = args["result"]
    attacker, target = enc.get(args["attacker"]), enc.get(args["target"])
    to_stamina, to_injuries = _bounded(r["to_stamina"]), _bounded(r["to_injuries"])
    to_shield, exploded, cost = _bounded(r.get("to_shield", 0)), _bounded(r.get("exploded", 0)), _bounded(args.get("cost", 0), 4)
    stats = dict(target.stats)
    stats["injuries"] = int(stats.get("injuries", 0) or 0) + to_injuries
    if to_shield:
        stats["shield"] = max(0, int(stats.get("shield", 0) or 0) - to_shield)
    flags = set(target.flags)
    if "parry_weapon" in flags:
        stats["parry_explosions"] = int(stats.get("parry_explosions", 0) or 0) + exploded
        if r.get("weapon_shattered"):
            stats["weapon_broken"] = True
            flags.discard("parry_weapon")
    if r.get("shield_broken"):
        flags.discard("parry_shield")
    enc = enc.with_combatant(replace(target, stats=tuple(sorted(stats.items())), flags=tuple(sorted(flags))))
    enc, hurt, hurt_events = harm(enc, enc.get(target.id), to_stamina)
    a_stats = dict(attacker.stats)
    if args.get("power"):
        a_stats["weapon_broken"] = True
    a_stats["attacked_round"] = enc.round  # no parry after it this turn
    a_stats[f"attacked_{target.id}"] = enc.round  # no sneak attack on this target next round
    enc = enc.with_combatant(replace(enc.get(attacker.id), stats=tuple(sorted(a_stats.items()))))
    enc, _, spent_events = harm(enc, enc.get(attacker.id), cost, temporary=False)  # Stamina spent, not damage taken
    kind = "ranged " if args.get("ranged") else ""
    how = ("power " if args.get("power") else "") + ("sneak " if args.get("sneak") else "") + kind + "attack"
    where = []
    if to_stamina:
        where.append(f"{to_stamina} Stamina" + (f" ({hurt.note})" if hurt.absorbed else ""))
    if to_injuries:
        where.append(f"{to_injuries} Injury")
    text = f"{attacker.name}'s {how} on {target.name}: " + (", ".join(where) if where else "no damage")
    events = [Event("attack", enc.round, text, args.get("text"), target.id)]
    if cost:
        events.append(Event("stamina", enc.round, f"{attacker.name} spends {cost} Stamina shooting", who=attacker.id))
    if r.get("weapon_shattered"):
        events.append(Event("shatter", enc.round, f"{target.name}'s parrying weapon shatters", who=target.id))
    if r.get("shield_broken"):
        events.append(Event("shield", enc.round, f"{target.name}'s shield breaks", who=target.id))
    if args.get("power"):
        events.append(Event("broken", enc.round, f"{attacker.name}'s weapon breaks after the power attack", who=attacker.id))
    return enc, (*events, *hurt_events, *spent_events)


def _apply_parry(enc: Encounter, args: dict[str, Any]) -> Outcome:
    c = enc.get(args["id"])
    with_ = args.get("with")
    if with_ not in ("weapon", "shield"):
        raise RuleError("Parry with a weapon or a shield.")
    if with_ == "weapon" and c.stat_or("weapon_broken", False):
        raise RuleError(f"{c.name}'s weapon is broken.")
    if with_ == "shield" and int(c.stat_or("shield", 0)) <= 0:
        raise RuleError(f"{c.name} has no shield left.")
    if enc.started and c.stat_or("attacked_round", None) == enc.round:
        raise RuleError(f"{c.name} attacked this turn, and a character who parries cannot attack on its turn.")
    flags = tuple(sorted((set(c.flags) - {"parry_weapon", "parry_shield"}) | {f"parry_{with_}"}))
    stats = tuple(sorted({**dict(c.stats), "parry_explosions": 0}.items()))
    text = f"{c.name} parries with {'a weapon' if with_ == 'weapon' else 'a shield'} until their next turn"
    return replace(enc, combatants=tuple(replace(c, flags=flags, stats=stats) if x.id == c.id else x for x in enc.combatants)), \
        (Event("parry", enc.round, text, who=c.id),)


class Parry(Record):
    """A request to parry until the next turn, with a weapon or a shield (`with`)."""

    id: str
    with_: str | None = None


def _resolve_parry(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {"id": args["id"], "with": args.get("with")}


def _resolve_attack(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    a, t, attack = attack_setup(encounter, args["attacker"], args["target"], bool(args.get("power")), bool(args.get("sneak")),
                                bool(args.get("close")))
    result = resolve_attack(a, t, attack, rng)
    cost = shooter_stamina_cost(a.weapon, rng) if attack.ranged else 0
    return {
        "attacker": args["attacker"], "target": args["target"], "power": attack.power, "sneak": attack.sneak,
        "ranged": attack.ranged, "cost": cost, "text": result.text(),
        "dice": [list(chain) for chain in result.dice], "die": a.weapon.die,
        "result": {"to_stamina": result.to_stamina, "to_injuries": result.to_injuries, "to_shield": result.to_shield,
                   "shield_broken": result.shield_broken, "weapon_shattered": result.weapon_shattered,
                   "exploded": result.exploded, "damage": result.damage},
    }


class LaurelsSystem(System):
    """Laurels and Loot in the tracker (seed 003): side initiative, Stamina as HP, Injuries."""

    name = "laurels"
    label = "Laurels and Loot"
    aliases = ("ll", "cartyrion", "world of cartyrion", "laurels and loot")
    round_seconds = 6
    hp_floor = 0
    hp_label = "Stamina"
    flow = SIDES
    options = {"ambush": AMBUSH}
    stat_fields = STATS
    actions = {"ll_attack": ActionRule(_apply_attack, _resolve_attack), "ll_parry": ActionRule(_apply_parry, _resolve_parry, Parry)}
    attack_kind = "ll_attack"

    def attack_outcome(self, args: dict[str, Any]) -> AttackOutcome:
        """What the target takes: Stamina, then Injuries (a blow on its shield, or parried, is none).
        No critical: the dice explode instead."""
        r = args.get("result") or {}
        taken = [whole(r.get(k)) for k in ("to_stamina", "to_injuries", "to_shield")]
        return AttackOutcome.read(args, any(n > 0 for n in taken), taken[0] + taken[1], False)

    def attack_roll_words(self, args: dict[str, Any]) -> str:
        """The player's own damage dice, each with the dice it exploded into ("2d4 (4+2, 3) = 9"): no
        to-hit roll in this system, and nothing of the target's soak."""
        chains = [[f for f in chain if isinstance(f, int)] for chain in args.get("dice") or [] if isinstance(chain, list)]
        if not chains or not all(chains):
            return ""
        shown = ", ".join("+".join(map(str, chain)) for chain in chains)
        return f"{len(chains)}d{whole(args.get('die'))} ({shown}) = {sum(map(sum, chains))}"

    def attack_result_words(self, args: dict[str, Any]) -> str:
        """Hit; on its shield; parried (a weapon parry absorbs the blow); no damage (armour and DEX took it all)."""
        r = args.get("result") or {}
        if whole(r.get("to_stamina")) or whole(r.get("to_injuries")):
            return "hit"
        if whole(r.get("to_shield")):
            return "on its shield"
        return "parried" if whole(r.get("damage")) else "no damage"

    def attack_damage_words(self, args: dict[str, Any]) -> str:
        """What reached the target, as the system counts it ("31 damage (25 Stamina, 6 Injuries)"); the
        shield's share and breaking, a parrying weapon that shattered."""
        r = args.get("result") or {}
        stamina, injuries = whole(r.get("to_stamina")), whole(r.get("to_injuries"))
        where = ([f"{stamina} Stamina"] if stamina else []) + ([f"{injuries} {'Injury' if injuries == 1 else 'Injuries'}"] if injuries else [])
        parts = [f"{stamina + injuries} damage ({', '.join(where)})"] if where else []
        if whole(r.get("to_shield")):
            parts.append(f"the shield takes {whole(r.get('to_shield'))}" + (" and breaks" if r.get("shield_broken") else ""))
        if r.get("weapon_shattered"):
            parts.append("the parrying weapon shatters")
        return ", ".join(parts)

    def players_health(self, combatant: Combatant) -> str:
        """Stamina and Injuries as the players see them (seed 003: damage wears Stamina down, then
        injures): out of the fight at the Injury limit; else "tiring" below full Stamina, "out of
        Stamina" at 0, with "injured" (any Injury) or "badly injured" (half the limit or more)."""
        c = combatant
        if self.is_down(c):
            return "out of the fight"
        parts = []
        if c.hp is not None and c.max_hp and c.hp < c.max_hp:
            parts.append("out of Stamina" if c.hp <= 0 else "tiring")
        injuries, limit = whole(c.stat_or("injuries", 0)), whole(c.stat_or("injury_max", 0))
        if injuries > 0:
            parts.append("badly injured" if limit and 2 * injuries >= limit else "injured")
        if parts:
            return ", ".join(parts)
        return "unhurt" if c.hp is not None and c.max_hp else ""

    def down_words(self, combatant: Combatant) -> str:
        """Out of the fight at the Injury limit (Stamina at 0 only tires it: it still attacks)."""
        return "Out of the fight (Injuries at their limit)" if self.is_down(combatant) else ""

    def own_gauges(self, combatant: Combatant) -> list[list[Any]]:
        """Injuries against their limit; the shield's points while it has a shield."""
        limit, shield = whole(combatant.stat_or("injury_max", 0)), whole(combatant.stat_or("shield", 0))
        return [["Injuries", whole(combatant.stat_or("injuries", 0)), limit or None]] + ([["Shield", shield, None]] if shield else [])

    def can_be_surprised(self, combatant: Combatant) -> bool:
        return can_be_surprised(combatant)

    def is_down(self, combatant: Combatant) -> bool:
        """Out of the fight when its Injury points are used up (Stamina at 0 only tires it)."""
        limit = int(combatant.stat_or("injury_max", 0) or 0)
        return limit > 0 and int(combatant.stat_or("injuries", 0)) >= limit

    def side_initiative(self, round_number: int, face: int, ambush: str) -> SideInitiative:
        return side_initiative(round_number, face, ambush)
