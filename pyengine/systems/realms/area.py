"""Enchanted Realms' area effects (issue 52, section 5): one save of a kind (a body preservation save
by default) against one DC for several targets at once, each with its own cover and its own
restrictions, its damage to Body rolled once for all.

Seed 004, "Cover": "A target with half cover gains +2 to his or her AC as well as body preservation
saves against area of effect attacks"; three-quarters +5; complete cover "+5 to body preservation
saves". Seed 002: a save is d20 (2d20 keep better / worse at advantage / disadvantage) + modifier;
RULES.md's restrictions table: paralyzed, petrified and stunned fail body saves, restrained has
disadvantage on them, poisoned on preservation saves; Defend gives advantage.

**Reading** (the seeds give an area effect no damage rule): its damage, when it has one, is rolled
once for all the targets; a target that fails takes it whole, one that succeeds half of it (rounded
down) or none, as the game master says; it goes to Body through the one damage path.

>>> from pyengine.tracker import Timeline, new_encounter, resolve
>>> import random
>>> t = Timeline.start(new_encounter("e1", system="realms"))
>>> for name in ("Orc", "Elf", "Troll"):
...     t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "max_hp": 10}}))
>>> odds = area_odds(t.present, {"dc": 12, "targets": [{"id": "c1"}, {"id": "c2", "cover": "half"}]})
>>> [round(o["p_success"], 2) for o in odds]
[0.45, 0.55]
"""

from __future__ import annotations

from typing import Any

from ...dice import Rng, parse
from ...errors import EngineError, RuleError
from ...model import Encounter, Event, Outcome
from ...notation import count_dice
from ...record import Record
from ...rolling import roll_ast
from .restrictions import SAVE_KINDS
from .saves import cover_save_bonus, own_save_modifier, roll_save, save_odds, save_situation

__all__ = ["AreaEffect", "area_odds", "resolve_area", "apply_area", "MAX_AREA_TARGETS"]

MAX_AREA_TARGETS = 50
MAX_AREA_DICE = 100


class AreaEffect(Record):
    """An area effect on several targets: its name, the save's kind and DC, a modifier every target
    adds, its damage to Body (dice, rolled once; "" none) and what a success takes ("half", "none"),
    and the targets ({"id", "cover", "adv", "dis"} each)."""

    dc: int
    targets: list[dict[str, Any]]
    name: str = "Area effect"
    kind: str = "body"
    modifier: int = 0
    damage: str = ""
    success: str = "none"


def _checked(enc: Encounter, args: dict[str, Any]) -> tuple[str, int, int, str, str, list[dict[str, Any]]]:
    kind = str(args.get("kind") or "body")
    if kind not in SAVE_KINDS:
        raise RuleError(f"A save is one of {', '.join(SAVE_KINDS)}.")
    dc, modifier = args.get("dc"), args.get("modifier") or 0
    if type(dc) is not int or not -50 <= dc <= 100 or type(modifier) is not int or not -50 <= modifier <= 50:
        raise RuleError("An area effect's DC is -50 to 100 and its modifier -50 to 50.")
    success = str(args.get("success") or "none")
    if success not in ("half", "none"):
        raise RuleError("A success takes half the damage or none.")
    damage = str(args.get("damage") or "").strip()
    if damage:
        try:
            dice = count_dice(parse(damage))
        except EngineError as error:
            raise RuleError(f"The area effect's damage {damage[:40]!r}: {error}") from None
        if dice > MAX_AREA_DICE:
            raise RuleError(f"An area effect's damage rolls at most {MAX_AREA_DICE} dice.")
    targets = args.get("targets")
    if not isinstance(targets, list) or not 1 <= len(targets) <= MAX_AREA_TARGETS:
        raise RuleError(f"An area effect needs 1 to {MAX_AREA_TARGETS} targets.")
    seen: set[str] = set()
    for t in targets:
        if not isinstance(t, dict) or t.get("id") not in enc.names() or t["id"] in seen:
            raise RuleError("A target of the area effect is not in this encounter (or is there twice).")
        seen.add(t["id"])
    return kind, dc, modifier, damage, success, targets


def _target(enc: Encounter, kind: str, modifier: int, t: dict[str, Any]) -> tuple[int, str | None, str | None, list[str]]:
    """One target's save: its modifier (the effect's, its own Body modifier for body saves, its cover
    against an area for body and preservation saves), advantage, automatic failure, and why."""
    c = enc.get(t["id"])
    mod = modifier + own_save_modifier(c, kind)
    cover = str(t.get("cover") or "none")
    bonus = cover_save_bonus(cover, True) if kind in ("body", "preservation") else cover_save_bonus(cover, False)
    net, auto, causes = save_situation(kind, [k.name for k in c.conditions], "defending" in c.flags, t.get("adv") is True, t.get("dis") is True)
    if bonus:
        causes.append(f"{cover} cover: +{bonus}")
    return mod + bonus, net, auto, causes


def area_odds(enc: Encounter, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target's exact chance to succeed (its modifier, advantage, automatic failure)."""
    kind, dc, modifier, _, _, targets = _checked(enc, args)
    out = []
    for t in targets:
        mod, net, auto, causes = _target(enc, kind, modifier, t)
        out.append({"id": t["id"], "modifier": mod, "net": net, "auto_fail": auto, "causes": causes, "p_success": save_odds(mod, dc, net, auto)})
    return out


def resolve_area(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """The damage rolled once, then each target's save."""
    kind, dc, modifier, damage, success, targets = _checked(enc, args)
    rolled = roll_ast(parse(damage), rng, damage) if damage else None
    results = []
    for t in targets:
        mod, net, auto, causes = _target(enc, kind, modifier, t)
        save = roll_save(mod, dc, net, rng, auto)
        results.append({"id": t["id"], "faces": list(save.faces), "kept": save.kept, "total": save.total, "success": save.success,
                        "auto_fail": auto or "", "text": save.text(dc) + (f" ({', '.join(causes)})" if causes and not auto else "")})
    return {"name": str(args.get("name") or "Area effect")[:60], "kind": kind, "dc": dc, "modifier": modifier, "success": success,
            "damage": damage, "amount": max(0, rolled.total) if rolled else 0, "damage_text": rolled.text if rolled else "",
            "targets": [dict(t) for t in targets], "results": results}


def apply_area(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """One step: a line for the effect, a line per target's save, its damage to Body (the one damage path)."""
    from ...damage import take_damage

    results = args.get("results")
    if not isinstance(results, list) or not results:
        raise RuleError("An area effect's results are unreadable.")
    names = [enc.get(r["id"]).name for r in results if isinstance(r, dict) and r.get("id") in enc.names()]
    amount = int(args.get("amount") or 0)
    said = f": {args['damage_text']}" if args.get("damage_text") else ""
    events: list[Event] = [enc.event("save_action", f"{args.get('name', 'Area effect')} ({args['kind']} save vs DC {args['dc']}) "
                                                    f"on {', '.join(names)}{said}")]
    for r in results:
        if not isinstance(r, dict) or r.get("id") not in enc.names() or not isinstance(r.get("success"), bool):
            raise RuleError("A target of the area effect is no longer in this encounter.")
        c = enc.get(r["id"])
        events.append(enc.event("save", f"{c.name}'s {args['kind']} save vs DC {args['dc']}: {'success' if r['success'] else 'failure'}",
                                str(r.get("text") or "")[:300], c.id))
        taken = amount if not r["success"] else (amount // 2 if args.get("success") == "half" else 0)
        if taken and c.hp is not None:
            enc, more = take_damage(enc, c, taken, half=r["success"])
            events += more
    return enc, tuple(events)
