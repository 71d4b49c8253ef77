"""Realm of Strife's power on several targets with one hit roll (issue 52): each target's odds and
the power resolved and applied in one step."""

from __future__ import annotations

from typing import Any

from ...damage import harm
from ...dice import Rng, roll
from ...errors import RuleError
from ...model import Encounter, Event, Outcome
from ...record import Record
from .rules import Portion, split_bonus
from .turns import STAT, attack_turn, set_turn

__all__ = ["MAX_POWER_TARGETS", "PowerRequest", "apply_power", "power_odds", "resolve_power"]

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
    attack_turn(enc, {"attacker": args["attacker"], "target": portions[0][0], "use": "action", "kind": "spirit"})  # (refused before a die)
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
    st = attack_turn(enc, {"attacker": args["attacker"], "target": results[0]["id"], "use": "action", "kind": "spirit"})
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
    return set_turn(enc, st), tuple(events)
