"""The generic system: d20 + modifier initiative, plain hit points, free-text conditions, the d20
attack (d20 + bonus against AC, advantage, cover, a natural 20 doubles the damage dice), the two
reminders d20 tables expect (the SRD's death saves and concentration checks; docs/rules.md), the
SRD monsters' turn tools (recharge, regeneration, ongoing damage, legendary actions, uses a day) and
the lair's entry in the order (initiative 20, losing ties)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..damage import mend, take_damage
from ..damage_types import Defenses, Portion, adjust, parts_from_args, parts_to_args, split_typed
from ..dice import Distribution, Rng, distribution_ast, parse, roll_ast
from ..errors import EngineError, RuleError, UnsetDefenceError
from ..model import TOOL_KINDS, Combatant, Encounter, Event, NamedAttack, Outcome, StatField
from ..notation import MAX_DICE, count_dice, doubled_dice
from ..record import Record
from ..rules import ActionRule, System, settle_ties
from ..save_effects import ABILITIES, ABILITY_NAMES, SaveEffect
from ..turns import reordered_by_rolls
from .saving_throws import (
    SaveMode,
    apply_repeat,
    apply_rider,
    apply_save_action,
    read_portions,
    resolve_repeat,
    resolve_save,
    rolled_parts,
    rolled_save,
    save_bonus,
    save_mode,
    save_odds,
    saved,
)

__all__ = ["GenericSystem", "DeathSave", "RepeatSave", "SaveRequest", "dying", "at_zero", "massive", "LAIR_INITIATIVE", "LAIR", "is_lair", "concentration_dc", "death_save_outcome", "DEATH_SAVES", "AttackSpec", "attack_spec", "attack_odds", "named_attack",
           "AttackOdds", "COVER"]

DEATH_SAVES = 3  # three successes: stable; three failures: dead
STATS = (
    StatField("ac", "AC", default=None, low=0, high=60),
    StatField("to_hit", "Attack bonus", default=0, low=-20, high=40),
    StatField("damage", "Damage", "text", "1d6", placeholder="1d8+3"),
    StatField("crit_on", "Critical hit on a natural", default=20, low=2, high=20),
    # Saving throw bonuses (issue 52; pyengine/systems/saving_throws.py): empty until typed, a library
    # creature's from its stat block.
    *(StatField(f"save_{a}", f"{a.capitalize()} save", default=None, low=-20, high=40) for a in ABILITIES),
    StatField("magic_resistance", "Magic Resistance (advantage on saves against magic)", "flag", default=False),
    # A spellcaster's (issue 52: the spells a player casts from the phone): empty until typed.
    StatField("spell_dc", "Spell save DC", default=None, low=1, high=40),
    StatField("spell_attack", "Spell attack bonus", default=None, low=-20, high=40),
)
COVER = {"none": 0, "half": 2, "three-quarters": 5}  # SRD: cover adds to the target's AC
# SRD, "Lair Actions": on initiative count 20, losing all initiative ties. The lair is an entry of
# the order (a combatant marked by the stat `lair`), not a creature: it has no hit points and is
# never an attacker or a target.
LAIR_INITIATIVE = 20
LAIR = {"name": "Lair", "side": "opponents", "initiative": LAIR_INITIATIVE, "stats": {"lair": True}}


def is_lair(c: Combatant) -> bool:
    return c.stat("lair") is True


@dataclass(frozen=True)
class AttackSpec:
    """One d20 attack, every number known: d20 (advantage: the higher of two, disadvantage: the
    lower) + bonus against AC; a natural 1 misses, a natural crit_on or more hits and crits."""

    bonus: int
    ac: int
    roll: str           # "1d20", "2d20kh1" or "2d20kl1"
    damage: str
    crit_on: int = 20
    notes: tuple[str, ...] = ()
    portions: tuple[Portion, ...] = ()   # the damage's typed parts (pyengine/damage_types.py)
    defenses: Defenses = Defenses()      # the target's, applied to each part after the roll
    weapon: str = ""                     # the named attack used ("" : the attacker's own stats)
    rider: SaveEffect | None = None      # the save a hit asks of the target (the Assassin's poison)
    rider_mode: SaveMode = SaveMode()    # how the target rolls that save (its conditions, traits)
    rider_bonus: int = 0                 # the target's bonus for it (+0 when not set: said in `notes`)


def spell_attack(attacker: Combatant, raw: Any) -> NamedAttack | None:
    """A spell attack (`{"name", "damage"}`: Fire Bolt's 2d10 fire) as the attacker's attack, with its
    spell attack bonus; None when the attack is no spell. RuleError when the caster has no bonus set."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not isinstance(raw.get("damage"), str):
        raise RuleError("A spell attack is unreadable.")
    bonus = attacker.stat("spell_attack")
    if bonus is None:
        raise RuleError(f"{attacker.name} has no spell attack bonus: the game master sets it on {attacker.name}'s sheet.")
    return NamedAttack(raw["name"][:60], int(bonus), raw["damage"][:100])


def attack_spec(enc: Encounter, args: dict[str, Any]) -> AttackSpec:
    """The attack the tracker would make from the attacker's stats and the panel's choices."""
    attacker, target = enc.get(args["attacker"]), enc.get(args["target"])
    if attacker.id == target.id:
        raise RuleError("A combatant cannot attack itself.")
    ac = target.stat("ac")
    if ac is None:
        raise UnsetDefenceError(f"{target.name} has no AC: edit it (or type what the game master says) to see the odds.")
    cover = args.get("cover") or "none"
    if cover == "complete":
        raise RuleError(f"{target.name} has complete cover: it cannot be targeted directly.")
    if cover not in COVER:
        raise RuleError("Cover is none, half or three-quarters.")
    try:
        modifier = int(args.get("modifier") or 0)
    except (TypeError, ValueError):
        raise RuleError("The extra modifier must be a whole number.") from None
    if not -50 <= modifier <= 50:
        raise RuleError("The extra modifier must be from -50 to 50.")
    adv, dis = args.get("adv") in (True, "adv", "advantage"), args.get("adv") in ("dis", "disadvantage")
    notes = []
    if COVER[cover]:
        notes.append(f"{cover} cover: +{COVER[cover]} AC")
    spell = spell_attack(attacker, args.get("spell"))
    weapon = spell or named_attack(attacker, args.get("with"))
    damage = weapon.damage if weapon else str(attacker.stat_or("damage", "1d6") or "1d6")
    try:
        portions = split_typed(damage)
        dice = sum(count_dice(parse(p.dice)) for p in portions)
    except EngineError as error:
        raise RuleError(f"{attacker.name}'s damage {damage!r}: {error}") from None
    if 2 * dice > MAX_DICE:
        raise RuleError(f"{attacker.name}'s damage has too many dice to double on a crit.")
    to_hit = (weapon.bonus if weapon else STATS[1].number(attacker)) + modifier
    rider = weapon.rider if weapon else None
    mode, bonus = SaveMode(), 0
    if rider is not None:
        mode = save_mode(target, rider.ability, rider.magical)
        found = save_bonus(target, rider.ability)
        bonus = found if found is not None else 0
        notes.append(f"on a hit: {rider.words}" + ("" if found is not None else f" ({target.name}'s {ABILITY_NAMES[rider.ability]} save not set: +0)"))
    return AttackSpec(to_hit, int(ac) + COVER[cover], "2d20kh1" if adv else "2d20kl1" if dis else "1d20", damage,
                      STATS[3].number(attacker), tuple(notes), portions, target.defenses, weapon.name if weapon else "",
                      rider, mode, bonus)


def named_attack(attacker: Combatant, name: Any) -> NamedAttack | None:
    """The attacker's named attack of that name, else its first one (the panel shows that one
    chosen when the attacker changed); None: it has none, its own stats attack."""
    if not attacker.attacks:
        return None
    return next((a for a in attacker.attacks if a.name == name), attacker.attacks[0])


@dataclass(frozen=True)
class AttackOdds:
    p_hit: float          # crits included
    p_crit: float
    damage: Distribution  # 0 on a miss

    def p_drop(self, hp: int | None) -> float:
        return self.damage.at_least(hp) if hp is not None and hp > 0 else 0.0


def _hits(spec: AttackSpec, natural: int) -> tuple[bool, bool]:
    crit = natural >= spec.crit_on
    return crit or (natural != 1 and natural + spec.bonus >= spec.ac), crit


def attack_odds(spec: AttackSpec) -> AttackOdds:
    """Exact: the d20's distribution split into miss, hit and crit, mixed with the damage (and the
    damage with its dice doubled)."""
    naturals = distribution_ast(parse(spec.roll))
    p_hit = p_crit = 0.0
    for natural, p in naturals.pmf.items():
        hit, crit = _hits(spec, natural)
        p_hit += p if hit else 0.0
        p_crit += p if crit else 0.0
    portions = spec.portions or (Portion(spec.damage),)
    # A rider's damage comes on a hit, through the target's save: whole with P(fail), else half or
    # none (its dice are not the attack's: a critical hit does not double them).
    rider = (save_odds(spec.rider_mode, spec.rider_bonus, spec.rider.dc, read_portions(spec.rider.damage), spec.defenses,
                       spec.rider.success).damage if spec.rider is not None and spec.rider.damage else Distribution.constant(0))
    cases = [(1.0 - p_hit, Distribution.constant(0)), (p_hit - p_crit, _damage_distribution(portions, spec.defenses, False) + rider)]
    if p_crit:
        cases.append((p_crit, _damage_distribution(portions, spec.defenses, True) + rider))
    return AttackOdds(p_hit, p_crit, Distribution.mix(cases))


def _damage_distribution(portions: tuple[Portion, ...], defenses: Defenses, crit: bool) -> Distribution:
    """The damage a hit deals: each typed part (its dice doubled on a crit) after the target's
    resistances, immunities and vulnerabilities, summed."""
    total = Distribution.constant(0)
    for p in portions:
        ast = parse(p.dice)
        part = distribution_ast(doubled_dice(ast) if crit else ast).map(lambda v: max(0, v))
        if p.kind:
            part = part.map(_after_defenses(defenses, p))
        total = total + part
    return total


def _after_defenses(defenses: Defenses, p: Portion) -> Callable[[int], int]:
    def after(v: int) -> int:
        return adjust(defenses, p, v).after
    return after


def _resolve_attack(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    spec = attack_spec(enc, args)
    d20 = roll_ast(parse(spec.roll), rng, spec.roll)
    natural = d20.total
    hit, crit = _hits(spec, natural)
    text = (f"{d20.text.rsplit(' = ', 1)[0]} {spec.bonus:+d} = {natural + spec.bonus} vs AC {spec.ac}: "
            + ("crit" if crit else "hit" if hit else "miss"))
    damage = 0
    parts: list[tuple[Portion, int]] = []
    if hit:
        texts = []
        for p in spec.portions:
            ast = parse(p.dice)
            rolled = roll_ast(doubled_dice(ast) if crit else ast, rng, p.dice)
            parts.append((p, max(0, rolled.total)))
            texts.append(rolled.text + p.suffix)
        damage = sum(amount for _, amount in parts)
        text += f"; {' + '.join(texts)}" + (" (dice doubled)" if crit else "")
    typed: dict[str, Any] = {"parts": parts_to_args(parts)} if any(p.kind for p, _ in parts) else {}
    target = enc.get(args["target"])
    if hit and spec.rider is not None:
        typed["rider"] = _rolled_rider(spec, args.get("rider_d20"), rng)
    # SRD: damage to a dying creature is a failed death save, from a critical hit two. Decided here
    # and saved with the action, so that a fight saved before this rule replays as it was played.
    extra = {"second_failure": True} if crit and damage and dying(target) else {}
    return {"attacker": args["attacker"], "target": args["target"], "faces": [d.face for d in d20.dice], "natural": natural,
            "hit": hit, "crit": crit, "damage": damage, "text": text, **extra, **typed,
            **({"with": spec.weapon} if spec.weapon else {})}


def _rolled_rider(spec: AttackSpec, typed: Any, rng: Rng) -> dict[str, Any]:
    """A hit's rider, rolled: the target's save (its d20s, or the natural d20 the game master typed
    for a player who rolled at the table) and the rider's damage, each part on its own."""
    assert spec.rider is not None
    rider = spec.rider
    if typed is not None and not spec.rider_mode.auto_fail and (
            not isinstance(typed, int) or isinstance(typed, bool) or not 1 <= typed <= 20):
        raise RuleError("A typed save is one d20: 1 to 20.")
    faces, total = rolled_save(spec.rider_mode, spec.rider_bonus, typed, rng)
    made = not spec.rider_mode.auto_fail and saved(total, rider.dc)
    parts, _ = rolled_parts(read_portions(rider.damage), rng)
    return {"effect": rider.to_dict(), "faces": faces, "total": total, "saved": made, "auto_fail": spec.rider_mode.auto_fail,
            "typed": typed is not None, "roll": spec.rider_mode.roll, "parts": parts_to_args(parts)}


def _apply_attack(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """The rolled attack on the fight: the damage through the tracker's own damage (temporary HP,
    concentration and death-save reminders), one step."""
    attacker, target = enc.get(args["attacker"]), enc.get(args["target"])
    damage = args.get("damage", 0)
    if not isinstance(damage, int) or isinstance(damage, bool) or not 0 <= damage <= 1_000_000:
        raise RuleError("An attack result is out of range.")
    outcome = "crit" if args.get("crit") else "hit" if args.get("hit") else "miss"
    weapon = f" ({str(args['with'])[:60]})" if isinstance(args.get("with"), str) and args.get("with") else ""
    events: tuple[Event, ...] = (enc.event("attack", f"{attacker.name} attacks {target.name}{weapon}: {outcome}"
                                           + (f", {damage} damage" if damage else ""), args.get("text"), target.id),)
    if damage and target.hp is not None:
        enc, more = take_damage(enc, target, damage, attacker.id, parts=parts_from_args(args.get("parts")))
        events += more
        hurt = enc.get(target.id)
        if args.get("second_failure") is True and dying(hurt):
            enc, counted = _count(enc, hurt, 0, 1, None)
            events += tuple(replace(e, text=f"Critical hit: {e.text}") for e in counted)
    if args.get("rider") is not None and args.get("hit") and target.hp is not None:
        enc, more = apply_rider(enc, enc.get(target.id), attacker.id, args["rider"])
        events += more
    return enc, events


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
    """A player character (or a monster the fight keeps dying: its stat `death_saves`) at 0 hit points,
    neither stable nor dead: it rolls death saves."""
    return ((c.pc or c.stat("death_saves") is True) and c.hp is not None and c.hp <= 0 and not c.stat("stable")
            and not c.stat("dead"))


def at_zero(c: Combatant) -> bool:
    """At 0 HP and counted as the SRD counts a character there (dying, stable or dead): every player
    character, a monster the fight keeps dying, and a monster that died."""
    return (c.pc or c.stat("death_saves") is True or c.stat("dead") is True) and c.hp is not None and c.hp <= 0


def massive(before: Combatant, amount: int) -> int | None:
    """SRD 5.1, "Instant Death": the damage left after `before` reaches 0 hit points (all of it when
    it was at 0 already), when that equals or exceeds its hit point maximum; else None."""
    if before.hp is None or before.max_hp is None or amount <= 0:
        return None
    taken = amount - min(before.temp_hp, amount)
    left = taken - max(0, before.hp)
    return left if left >= before.max_hp and taken > 0 else None


class SaveRequest(Record):
    """A save effect on several targets (pyengine/systems/saving_throws.py): its source (None: a trap,
    a spell typed by hand), the effect (SaveEffect's fields), the targets ({"id", and "d20" or "total"
    typed, or "faces" a player's phone rolled, "adv", "cover", "bonus", "legendary"} each), and damage amounts typed from physical dice."""

    effect: dict[str, Any]
    targets: list[dict[str, Any]]
    source: str | None = None
    damage_typed: list[int] | None = None


class RepeatSave(Record):
    """A condition's repeated save at the end of its creature's turn: rolled, or the player's d20 (`d20`)."""

    id: str
    condition: str
    d20: int | None = None


class DeathSave(Record):
    """A request for a death saving throw: rolled, or its result as the player says it (`result`)."""

    id: str
    result: str | None = None


def _resolve_death_save(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    c = enc.get(args["id"])
    if not dying(c):
        raise RuleError(f"{c.name} is not dying: death saves are for a player character at 0 HP.")
    result = args.get("result")
    if result in ("success", "failure"):  # rolled at the table, only the outcome is told
        return {"id": c.id, "result": result}
    return {"id": c.id, "face": rng.randint(1, 20)}


def _apply_death_save(enc: Encounter, args: dict[str, Any]) -> Outcome:
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
        cleared = c.with_stats(death_successes=None, death_failures=None)
        enc, _, _ = mend(enc.with_combatant(cleared), cleared, 1)  # from 0 (the floor) to 1 HP
        return enc, (enc.event("death_save", f"{c.name} rolls a 20 on a death save and is back with 1 HP", roll, c.id),)
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
    actions = {"death_save": ActionRule(_apply_death_save, _resolve_death_save, DeathSave), "d20_attack": ActionRule(_apply_attack, _resolve_attack),
               "d20_save": ActionRule(apply_save_action, resolve_save, SaveRequest), "repeat_save": ActionRule(apply_repeat, resolve_repeat, RepeatSave)}
    attack_kind = "d20_attack"
    # A table's variant (the SRD rolls once): everyone rolls again as each new round begins. A monster
    # at 0 hit points dies (the SRD's default for monsters); "dying": it makes death saves as a character
    # does; "down": it stays down, the table decides. Instant death from massive damage (SRD), "on".
    # A fight saved before these two rules has neither option: it replays as it was played ("down", "off").
    options = {"initiative": ("once", "every_round"), "monsters_at_0": ("die", "dying", "down"), "instant_death": ("on", "off")}
    new_options = {"monsters_at_0": "die", "instant_death": "on"}
    turn_tools = TOOL_KINDS

    def is_creature(self, combatant: Combatant) -> bool:
        return not is_lair(combatant)

    def named_attacks(self, attacks: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Each attack of a character's (its attack bonus and damage) as a named attack: the phone's
        Attack panel offers them by name, the game master's engine rolls the one chosen."""
        out = []
        for name, stats in attacks:
            bonus, damage = stats.get("to_hit", 0), stats.get("damage")
            if isinstance(bonus, int) and not isinstance(bonus, bool) and isinstance(damage, str) and damage.strip():
                try:
                    out.append(NamedAttack.read({"name": name[:60], "bonus": bonus, "damage": damage}).to_dict())
                except EngineError:
                    continue  # (an attack the fight cannot take stays the character's own)
        return out

    def players_chip(self, combatant: Combatant) -> str:
        """A party member at 0 HP as the table sees it: "dying (1 ✓, 2 ✗)", "stable" or "dead"."""
        c = combatant
        if not at_zero(c):
            return ""
        if c.stat("dead"):
            return "dead"
        if c.stat("stable"):
            return "stable"
        return f"dying ({int(c.stat_or('death_successes', 0))} ✓, {int(c.stat_or('death_failures', 0))} ✗)"

    def attack_roll_words(self, args: dict[str, Any]) -> str:
        """The player's own d20 and bonus ("1d20 (13) +0 = 13"), not the AC, not hit or miss."""
        return str(args.get("text", "")).split(" vs AC", 1)[0]

    def attack_damage_words(self, args: dict[str, Any]) -> str:
        """The damage its dice rolled, "(dice doubled)" on a critical."""
        outcome = self.attack_outcome(args)
        return f"{outcome.damage} damage" + (" (dice doubled)" if outcome.crit else "") if outcome.damage > 0 else ""

    def roll_initiative(self, combatant: Combatant, rng: Rng) -> tuple[int, int, str]:
        """d20 + modifier; a lair is always on 20 and rolls nothing."""
        if is_lair(combatant):
            return LAIR_INITIATIVE, 0, ""
        return super().roll_initiative(combatant, rng)

    def order_key(self, combatant: Combatant) -> tuple[Any, ...]:
        """Highest first; a lair after everyone on the same count (it loses ties); then the modifier, then the roll-off."""
        init = combatant.initiative if combatant.initiative is not None else -10**9
        return (-init, is_lair(combatant), -combatant.init_mod, -combatant.tiebreak)

    def reroll_each_round(self, encounter: Encounter) -> bool:
        return bool(encounter.option("initiative", "once") == "every_round")

    def on_new_round(self, encounter: Encounter, rolls: dict[str, Any] | None) -> tuple[Encounter, list[Event]]:
        if not rolls:
            return encounter, []
        ordered, events = reordered_by_rolls(encounter, list(encounter.combatants), rolls, self.order_key)
        return replace(encounter, combatants=ordered), events

    def break_ties(self, encounter: Encounter, results: dict[str, list[Any]], rng: Rng) -> None:
        """Ties on the total go to the higher modifier, then to a d20 roll-off (repeated while tied)."""
        mods = {c.id: (c.init_mod, is_lair(c)) for c in encounter.combatants}  # a lair loses ties: it rolls off with none
        settle_ties(results, rng, 20, key=lambda cid, entry: (entry[0], mods[cid]))

    def on_damage(self, encounter: Encounter, before: Combatant, amount: int) -> tuple[Encounter, list[Event]]:
        """A concentrating creature is reminded of its save; a player character's death saves start
        afresh as it drops to 0 HP, and damage while dying is a failed death save (SRD). Damage that
        leaves, past 0 hit points, as much as the creature's maximum kills it at once (SRD, "Instant
        Death"); a monster at 0 dies, unless the fight keeps monsters dying (option `monsters_at_0`)."""
        events: list[Event] = []
        c = encounter.get(before.id)
        if amount > 0 and any(k.name.lower() == "concentrating" for k in c.conditions):
            events.append(encounter.event("concentration", f"{c.name} is concentrating: Constitution save DC {concentration_dc(amount)} "
                                                           "to keep it", who=c.id))
        if c.hp is None or c.hp > 0 or amount <= 0 or c.stat("dead") or is_lair(c):
            return encounter, events
        left = massive(before, amount) if encounter.option("instant_death", "off") == "on" else None
        if left is not None:
            dead = c.with_stats(dead=True, stable=None, death_successes=None, death_failures=None)
            return encounter.with_combatant(dead), events + [encounter.event(
                "dead", f"{c.name} dies: instant death ({left} damage past 0 HP, maximum {c.max_hp})", who=c.id)]
        at_0 = "dying" if c.pc else encounter.option("monsters_at_0", "down")
        if at_0 == "die":
            return encounter.with_combatant(c.with_stats(dead=True)), events + [encounter.event("dead", f"{c.name} dies", who=c.id)]
        if at_0 != "dying":
            return encounter, events
        if before.hp is not None and before.hp > 0:  # just dropped: a fresh count
            fresh = c.with_stats(death_successes=0, death_failures=0, stable=None, dead=None, death_saves=None if c.pc else True)
            return encounter.with_combatant(fresh), events
        if c.stat("dead"):
            return encounter, events
        if c.stat("stable"):  # damage wakes the dying again
            c = c.with_stats(stable=None, death_successes=0)
        encounter, counted = _count(encounter.with_combatant(c), c, 0, 1, None)
        return encounter, events + list(counted)
