"""Enchanted Realms in the tracker: combatants' stats read into attacks, the turn economy, the
actions (attack, stance, save, competition, chase, defense, impalement, blind shot) and the System."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ...damage import harm, mend
from ...dice import Rng
from ...errors import RuleError
from ...model import Combatant, Condition, Encounter, Event, Outcome
from ...record import Record
from ...rules import ActionRule, AttackOutcome, System, settle_ties
from ...turns import reordered_by_rolls
from .area import AreaEffect, apply_area, resolve_area
from .attack import CRIT_SKILLS, DAMAGE_TYPES, SKILL_CAP, Pool, apply_damage_types, pool_size, roll_attack
from .restrictions import CONDITIONS, has_condition, net_advantage, situation
from .saves import (
    COMPETITIONS,
    Competition,
    cover_save_bonus,
    movement,
    own_save_modifier,
    roll_competition,
    roll_save,
    save_situation,
)
from .stats import STATS, stat_number
from .variants import blind_shot, chase_penalty, chase_second, defense_roll, impalement, impalement_pool

# -- the tracker's side ---------------------------------------------------------------------------

RESISTANCES = ("resistant", "vulnerable", "immune", "absorbing")
OPTIONS = {"crit_timing": ("immediate", "next_round"), "initiative": ("once", "every_round")}


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
    ac = stat_number(c, "ac")
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
    if damage_type == "poison" and has_condition(_condition_names(target), "Petrified"):
        resist["immune"] = True
        notes.append("petrified: immune to poison")
    crit_skill = any(s in CRIT_SKILLS for s in chosen)
    bonus = (stat_number(attacker, "agi") if ranged else stat_number(attacker, "str")) + stat_number(attacker, "weight")
    pool = Pool(
        skills=len(chosen), net=net, sneak=sneak, award=award, modifier=stat_number(attacker, "die_mod") + extra, penalty=penalty,
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
            "unseen": has_condition(_condition_names(encounter.get(args["attacker"])), "Blind")
            or has_condition(_condition_names(encounter.get(args["target"])), "Invisible") or bool(args.get("unseen"))}


class Stance(Record):
    """A request to take a stance (`stance`: defend, ready, reaction): readying says its `trigger`,
    a reaction its `kind` and whether it is the readied one (`from_ready`)."""

    id: str
    stance: str
    trigger: str = ""
    kind: str | None = None
    from_ready: bool = False


class Save(Record):
    """A request for a saving throw of `kind` against `dc`, with a modifier, advantage or
    disadvantage, and cover against an `area` effect."""

    id: str
    kind: str
    modifier: int
    dc: int
    adv: bool
    dis: bool
    cover: str
    area: bool


class Contest(Record):
    """A request for a competition (`kind`: grapple, shove, …) of `aggressor` against `victim`;
    `slick`: the victim is slippery."""

    aggressor: str
    victim: str
    kind: str
    slick: bool


class Impale(Record):
    """A request to impale a charging foe (`charger`) on a set polearm (`holder`'s)."""

    holder: str
    charger: str


class BlindShot(Record):
    """A request for a missed shot's blind-shot roll: the kept dice of the miss (`faces`)."""

    attacker: str
    target: str
    faces: list[int]
    damage_type: str | None = None


class Chase(Record):
    """A request for one combatant's chase round (ten seconds of movement)."""

    id: str


class Defense(Record):
    """A request for a player's defence roll against a monster's attack (the variant where players roll)."""

    monster: str
    pc: str


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
        gained, face = chase_second(stat_number(c, "speed"), second, stat_number(c, "agi"), rng, abandonment)
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
    pool = Pool(skills=impalement_pool(bool(holder.stat_or("forte", False))), net=sit.net, modifier=stat_number(holder, "die_mod"),
                penalty=sit.die_penalty, ac=ac_for(charger, damage_type), bonus=stat_number(holder, "str") + stat_number(holder, "weight"),
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
    shot = blind_shot(faces, candidates, rng, stat_number(attacker, "die_mod"))
    damage = 0
    text = f"blind shot: d{len(candidates) + 3} = {shot['slot']}"
    if shot["target"] is not None:
        target = encounter.get(shot["target"])
        raw = shot["hits"] + (stat_number(attacker, "agi") if attacker.stat_or("ranged", False) else stat_number(attacker, "str")) + stat_number(attacker, "weight") if shot["hits"] else 0
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
    defended = defense_roll(ac_for(pc, str(monster.stat_or("damage_type", "edged"))), stat_number(monster, "die_mod"), dice, rng)
    text = f"DC {defended['dc']}: " + " ".join(f"{f}{'✓' if ok else '✗'}" for f, ok in zip(defended["faces"], defended["avoided"]))
    return {"monster": monster.id, "pc": pc.id, "result": defended, "text": text}


class RealmsSystem(System):
    """Enchanted Realms in the tracker (seeds 000, 002, 004)."""

    name = "realms"
    label = "Enchanted Realms"
    no_delay = "Enchanted Realms has no holding an action: a turn is taken when it comes."
    aliases = ("er", "enchanted realms")
    round_seconds = 10
    hp_floor = 0
    condition_names = tuple(CONDITIONS)
    options = OPTIONS
    clear_flags_at_turn_start = False
    hp_label = "Body"
    stat_fields = STATS
    attack_kind = "er_attack"

    def attack_outcome(self, args: dict[str, Any]) -> AttackOutcome:
        """A miss, or damage to Body (negative: an absorbing target heals); a crit chain is the critical."""
        return AttackOutcome.read(args, not args.get("miss"), args.get("damage"), args.get("crit"))

    def attack_roll_words(self, args: dict[str, Any]) -> str:
        """The player's own d20s ("2d20 (15, 7)", "2d20 keep worse (15, 7)"), never the AC nor which die hit."""
        faces = [f for f in args.get("faces") or [] if isinstance(f, int)]
        if not faces:
            return ""
        worse = "keep worse" in str(args.get("pool", ""))
        return f"{len(faces)}d20{' keep worse' if worse else ''} ({', '.join(map(str, faces))})"

    def attack_damage_words(self, args: dict[str, Any]) -> str:
        """The damage to Body; a target that absorbs the blow's type heals instead."""
        damage = self.attack_outcome(args).damage
        return f"{damage} damage" if damage > 0 else f"absorbed: it heals {-damage}" if damage < 0 else ""

    actions = {
        "er_attack": ActionRule(_apply_attack, _resolve_attack), "er_stance": ActionRule(_apply_stance, request=Stance),
        "er_save": ActionRule(_apply_save, _resolve_save, Save), "er_competition": ActionRule(_apply_competition, _resolve_competition, Contest),
        "er_chase": ActionRule(_apply_chase, _resolve_chase, Chase), "er_defense": ActionRule(_apply_defense, _resolve_defense, Defense),
        "er_impale": ActionRule(_apply_impale, _resolve_impale, Impale), "er_blind_shot": ActionRule(_apply_blind_shot, _resolve_blind_shot, BlindShot),
        "er_area": ActionRule(apply_area, resolve_area, AreaEffect),
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
        events: list[Event] = []
        combatants = []
        for c in enc.combatants:
            if "reaction_used" in c.flags:
                c = replace(c, flags=tuple(f for f in c.flags if f != "reaction_used"))
            award = c.stat("award_round")
            if award is not None and award < enc.round:
                c = c.with_stats(award_round=None)
            combatants.append(c)
        if rolls:
            ordered, events = reordered_by_rolls(enc, combatants, rolls, self.order_key)
            combatants = list(ordered)
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

    return Competition(kind, stat_number(a, "body_mod"), stat_number(v, "body_mod"), stat_number(a, "size"), stat_number(v, "size"), stat_number(a, "speed"),
                       stat_number(v, "speed"), bool(args.get("slick")), has_condition(_condition_names(a), "Prone"), has_condition(_condition_names(v), "Prone"),
                       net(a), net(v))
