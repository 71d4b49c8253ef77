"""Saving throws in the generic d20 system (SRD 5.1, "Saving Throws", "Conditions", "Damage
Resistance and Vulnerability"), and their exact odds.

A saving throw is a d20 + the creature's bonus for the ability against a DC: it succeeds when the
total meets or beats the DC. A natural 20 or 1 means nothing special (SRD 5.1: only attack rolls and
death saves have them). Advantage rolls two d20 and keeps the higher, disadvantage the lower; any of
each cancel out, and several of one count once.

What the conditions do to saves (SRD 5.1, Appendix PH-A): paralyzed, stunned, unconscious and
petrified creatures fail Strength and Dexterity saves automatically; a restrained one has
disadvantage on Dexterity saves; exhaustion of level 3 or more gives disadvantage on every save; a
dodging creature (the Dodge action, the condition "Dodging") has advantage on Dexterity saves. Magic
Resistance (the trait, a combatant's stat `magic_resistance`) gives advantage on a save the effect
is marked magical for (a spell, a magical effect).

The damage of a save effect is rolled once for all its targets. Each target takes it whole on a
failed save, and on a success half of it (each typed part halved, rounded down) or none. Then each
part goes through the target's resistances, immunities and vulnerabilities (pyengine/damage_types.py:
immune 0, resisted halved again rounded down, vulnerable doubled), in that order: the SRD's order.

Pure: nothing here rolls. The action that rolls and applies a save effect is `d20_save`
(pyengine/systems/generic.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..damage import take_damage
from ..damage_types import DAMAGE_TYPES, Defenses, Portion, adjust, parts_from_args, parts_to_args, split_typed
from ..dice import Distribution, distribution_ast, parse, roll_ast
from ..errors import EngineError, RuleError
from ..model import Combatant, Condition, Duration, Encounter, Event, TurnTool
from ..notation import MAX_DICE, count_dice
from ..save_effects import ABILITIES, ABILITY_NAMES, MAX_DC, NEXT_TURN_END, SUCCESS, SaveEffect
from ..turns import end_of_next_turn

__all__ = ["kept_face", "ABILITIES", "ABILITY_NAMES", "SUCCESS", "SAVE_KEYS", "AUTO_FAIL", "SaveMode", "SaveOdds", "save_key", "save_bonus",
           "save_mode", "p_fail", "save_damage", "save_odds", "saved", "halved", "read_ability", "read_success", "read_dc",
           "read_portions", "exhaustion_level"]

SAVE_KEYS = tuple(f"save_{a}" for a in ABILITIES)  # a combatant's stats: its six save bonuses
AUTO_FAIL = {"paralyzed": ("str", "dex"), "stunned": ("str", "dex"), "unconscious": ("str", "dex"),
             "petrified": ("str", "dex")}
DISADVANTAGE = {"restrained": ("dex",)}
ADVANTAGE = {"dodging": ("dex",)}
EXHAUSTION_DISADVANTAGE = 3   # SRD 5.1, exhaustion level 3: disadvantage on attack rolls and saving throws
_EXHAUSTION = re.compile(r"^exhaust(?:ed|ion)\b\D*(\d+)?", re.IGNORECASE)


def save_key(ability: str) -> str:
    return f"save_{ability}"


def read_ability(value: object) -> str:
    """"dex", "Dexterity", "DEX" -> "dex"; RuleError otherwise."""
    text = str(value or "").strip().lower()
    for key, name in ABILITY_NAMES.items():
        if text in (key, name.lower()):
            return key
    raise RuleError("A saving throw is Strength, Dexterity, Constitution, Intelligence, Wisdom or Charisma.")


def read_success(value: object) -> str:
    if value not in SUCCESS:
        raise RuleError("A successful save takes half the damage or none.")
    return str(value)


def read_dc(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_DC:
        raise RuleError(f"A save's DC is a whole number from 1 to {MAX_DC}.")
    return value


def read_portions(damage: str) -> tuple[Portion, ...]:
    """A save effect's typed damage ("16d6 fire", "2d6+8 bludgeoning"); () for none. RuleError when unreadable."""
    text = " ".join(str(damage or "").split())
    if not text:
        return ()
    if len(text) > 100:
        raise RuleError("A save's damage is at most 100 characters.")
    try:
        portions = split_typed(text)
        for p in portions:
            word = next((w for w in re.findall(r"[A-Za-z]+", p.dice) if len(w) >= 3), None) if p.kind is None else None
            if word:
                raise RuleError(f"“{word}” is not a damage type ({', '.join(DAMAGE_TYPES)}).")
        dice = sum(count_dice(parse(p.dice)) for p in portions)
    except EngineError as error:
        raise RuleError(f"The save's damage {text!r}: {error}") from None
    if dice > MAX_DICE:
        raise RuleError("The save's damage has too many dice.")
    return portions


def save_bonus(c: Combatant, ability: str) -> int | None:
    """The combatant's save bonus for `ability` (its stat `save_<ability>`), None when it has none set."""
    value: object = c.stat(save_key(ability))
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def exhaustion_level(c: Combatant) -> int:
    """The level of a condition named "Exhaustion 3" / "Exhausted (4)" ("Exhaustion" alone: 1)."""
    level = 0
    for k in c.conditions:
        match = _EXHAUSTION.match(k.name.strip())
        if match:
            level = max(level, int(match.group(1)) if match.group(1) else 1)
    return level


@dataclass(frozen=True)
class SaveMode:
    """How a target rolls a save: its d20 ("1d20", "2d20kh1", "2d20kl1"), whether it fails whatever
    it rolls, and the words why."""

    roll: str = "1d20"
    auto_fail: bool = False
    reasons: tuple[str, ...] = ()


def save_mode(c: Combatant, ability: str, magical: bool = False, asked: str | None = None) -> SaveMode:
    """From the target's conditions and traits, and what the game master asked (`asked`: "adv" or
    "dis"): the SRD's rules for saves (this module's docstring)."""
    names = {k.name.strip().lower() for k in c.conditions}
    fails = sorted(n for n in names if ability in AUTO_FAIL.get(n, ()))
    if fails:
        return SaveMode("1d20", True, (f"{fails[0]}: fails {ABILITY_NAMES[ability]} saves",))
    adv: list[str] = []
    dis: list[str] = []
    adv += [f"{n}: advantage" for n in sorted(names) if ability in ADVANTAGE.get(n, ())]
    dis += [f"{n}: disadvantage" for n in sorted(names) if ability in DISADVANTAGE.get(n, ())]
    exhaustion = exhaustion_level(c)
    if exhaustion >= EXHAUSTION_DISADVANTAGE:
        dis.append(f"exhaustion {exhaustion}: disadvantage")
    if magical and c.stat("magic_resistance") is True:
        adv.append("Magic Resistance: advantage")
    if asked == "adv":
        adv.append("advantage")
    elif asked == "dis":
        dis.append("disadvantage")
    if adv and dis:
        return SaveMode("1d20", False, ("advantage and disadvantage cancel",))
    if adv:
        return SaveMode("2d20kh1", False, tuple(adv))
    if dis:
        return SaveMode("2d20kl1", False, tuple(dis))
    return SaveMode()


def saved(total: int, dc: int) -> bool:
    """SRD: the save succeeds when the total equals or exceeds the DC."""
    return total >= dc


def p_fail(mode: SaveMode, bonus: int, dc: int) -> Fraction:
    """Exactly: P(the save fails)."""
    if mode.auto_fail:
        return Fraction(1)
    one = Fraction(min(20, max(0, dc - bonus - 1)), 20)   # one d20 + bonus < dc
    if mode.roll == "2d20kh1":
        return one * one          # both dice fail
    if mode.roll == "2d20kl1":
        return 1 - (1 - one) ** 2  # either die fails
    return one


def halved(amount: int) -> int:
    """A successful save's half of a part, rounded down."""
    return max(0, amount) // 2


def save_damage(portions: tuple[Portion, ...], defenses: Defenses, success: bool, kind: str) -> Distribution:
    """The damage one target takes from the effect's damage roll: each part whole (failed) or halved
    (saved, "half"), then through the target's defenses; 0 when saved and the success is "none"."""
    if success and kind == "none" or not portions:
        return Distribution.constant(0)
    total = Distribution.constant(0)
    for p in portions:
        part = distribution_ast(parse(p.dice)).map(lambda v: max(0, v))
        if success:
            part = part.map(halved)
        if p.kind:
            part = part.map(_after(defenses, p))
        total = total + part
    return total


def _after(defenses: Defenses, p: Portion) -> Callable[[int], int]:
    return lambda v: adjust(defenses, p, v).after


@dataclass(frozen=True)
class SaveOdds:
    p_fail: float
    damage: Distribution   # what the target takes, saved or not

    def p_drop(self, hp: int | None) -> float:
        return self.damage.at_least(hp) if hp is not None and hp > 0 else 0.0


def save_odds(mode: SaveMode, bonus: int, dc: int, portions: tuple[Portion, ...], defenses: Defenses, success: str) -> SaveOdds:
    """Exact: P(fail), and the target's damage as the mixture of a failed and a successful save."""
    fail = p_fail(mode, bonus, dc)
    cases = [(float(fail), save_damage(portions, defenses, False, success))]
    if fail < 1:
        cases.append((float(1 - fail), save_damage(portions, defenses, True, success)))
    return SaveOdds(float(fail), Distribution.mix(cases))


# -- a rolled save on the fight ---------------------------------------------------------------------

def _duration(enc: Encounter, target: Combatant, source: str | None, rounds: int) -> Duration:
    """How long a failed save's condition lasts, anchored as the tracker's own durations are: N rounds
    counted at the start of the source's turn (the target's when there is none), "until the end of
    its next turn" (a turn in progress does not count)."""
    if rounds == 0:
        return Duration()
    anchor = source if source and source in enc.names() and rounds != NEXT_TURN_END else target.id
    if rounds > 0:
        return Duration("start", anchor, rounds)
    return end_of_next_turn(enc, anchor)


def checked_result(raw: Any) -> dict[str, Any]:
    """A saved target's result (a rolled save inside an action, from storage or a link), checked:
    RuleError when it is not ours."""
    if not isinstance(raw, dict) or not isinstance(raw.get("saved"), bool) or not isinstance(raw.get("total"), int):
        raise RuleError("A saving throw's result is unreadable.")
    faces = raw.get("faces", [])
    if not isinstance(faces, list) or len(faces) > 2 or not all(isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 20 for f in faces):
        raise RuleError("A saving throw's dice are unreadable.")
    if not -100 <= raw["total"] <= 100:
        raise RuleError("A saving throw's total is out of range.")
    return raw


def rolled_save(mode: SaveMode, bonus: int, typed: int | None, rng: Any) -> tuple[list[int], int]:
    """(faces, total) of one save: none rolled when it fails automatically (its total is the bonus),
    the natural d20 a player typed, else its d20s rolled as `mode` says."""
    if mode.auto_fail:
        return [], bonus
    if typed is not None:
        return [typed], typed + bonus
    d20 = roll_ast(parse(mode.roll), rng, mode.roll)
    return [d.face for d in d20.dice], d20.total + bonus


def phone_faces(c: Combatant, mode: SaveMode, raw: Any) -> list[int] | None:
    """The d20s a player's phone rolled for this save (verified: from both phones' values), if any:
    as many as the save rolls now (one, or two with advantage or disadvantage); RuleError when the
    save's roll changed since the phone was asked."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(type(f) is int and 1 <= f <= 20 for f in raw) or len(raw) not in (1, 2):
        raise RuleError(f"{c.name}'s dice from the phone are unreadable.")
    if not mode.auto_fail and len(raw) != (2 if mode.roll.startswith("2") else 1):
        raise RuleError(f"{c.name}'s phone rolled {len(raw)}d20, and the save now rolls {mode.roll[:4]}: "
                        "ask the phone again, or type its die.")
    return list(raw)


def rolled_parts(portions: tuple[Portion, ...], rng: Any, typed: list[int | None] | None = None) -> tuple[list[tuple[Portion, int]], list[str]]:
    """An effect's damage rolled once, each typed part on its own (or the amount typed for it from
    physical dice): the parts and the words of each roll."""
    parts: list[tuple[Portion, int]] = []
    texts = []
    for i, p in enumerate(portions):
        amount = typed[i] if typed is not None and i < len(typed) else None
        if amount is None:
            rolled = roll_ast(parse(p.dice), rng, p.dice)
            amount, text = max(0, rolled.total), rolled.text
        else:
            text = f"{amount} (typed)"
        parts.append((p, amount))
        texts.append(text + p.suffix)
    return parts, texts


def taken(parts: list[tuple[Portion, int]], made: bool, success: str) -> list[tuple[Portion, int]]:
    """What a target takes of the effect's damage roll, before its defenses: all of it on a failure; on
    a success each part halved (rounded down), or nothing."""
    if not made:
        return list(parts)
    return [] if success == "none" else [(p, halved(amount)) for p, amount in parts]


def roll_words(result: dict[str, Any]) -> str | None:
    """A rolled save's dice as the log shows them ("2d20 (4, 15) +2 = 17"); None when none was rolled."""
    faces = result.get("faces") or []
    if not faces or result.get("auto_fail"):
        return None
    return f"{'2d20' if len(faces) == 2 else '1d20'} ({', '.join(map(str, faces))}) {result['total'] - kept_face(faces, str(result.get('roll'))):+d} = {result['total']}"


def legendary_resistance(c: Combatant) -> TurnTool | None:
    """The creature's "Legendary Resistance" uses (a per-day turn tool), if it has them."""
    return next((t for t in c.tools if t.kind == "uses" and t.name.lower().startswith("legendary resistance")), None)


def apply_save(enc: Encounter, target: Combatant, source: str | None, effect: SaveEffect, result: dict[str, Any],
               parts: list[tuple[Portion, int]], label: str = "") -> tuple[Encounter, tuple[Event, ...]]:
    """One target's save on the fight: a line for the save ("Goblin 1: Dex save 9 vs DC 17, failed"),
    then its damage (whole, or each part halved on a success, or none; then its defenses: the one
    damage path, so temporary HP, regeneration stopped by fire, concentration and death-save rules
    hold), then on a failure the condition, with its duration, its source and its repeated save."""
    result = checked_result(result)
    made = result["saved"]
    ability = ABILITY_NAMES[effect.ability][:3]
    why = " (typed)" if result.get("typed") else " (rolled on the player's phone)" if result.get("phone") else ""
    roll = roll_words(result)
    head = f"{label}: " if label else ""
    said = (f"{ability} save vs DC {effect.dc}, failed automatically" if result.get("auto_fail") and not made
            else f"{ability} save {result['total']} vs DC {effect.dc}, {'succeeded' if made else 'failed'}{why}")
    events: list[Event] = [enc.event("save", f"{head}{target.name}: {said}", roll, target.id)]
    parts = taken(parts, made, effect.success)
    if parts and target.hp is not None:
        enc, more = take_damage(enc, target, sum(a for _, a in parts), source, parts=parts if any(p.kind for p, _ in parts) else (),
                                half=made)
        events += more
    if not made and effect.condition and target.id in enc.names():
        c = enc.get(target.id)
        if any(effect.condition.lower() == k.lower() for k in c.defenses.condition_immunities):
            events.append(enc.event("condition", f"{c.name} is immune to {effect.condition.lower()}", who=c.id))
        else:
            duration = _duration(enc, c, source, effect.rounds)
            seq = enc.seq + 1
            again = (effect.ability, effect.dc) if effect.repeat else None
            note = f"{effect.name}" + (f": {ability} save DC {effect.dc} at the end of each of its turns ends it" if again else "")
            cond = Condition(id=f"k{seq}", name=effect.condition, duration=duration, source_id=source, note=note[:200], save=again)
            enc = replace(enc.with_combatant(replace(c, conditions=c.conditions + (cond,))), seq=seq)
            events.append(enc.event("condition", f"{c.name} is {effect.condition} ({duration.describe(enc.names())})", who=c.id))
    return enc, tuple(events)


def kept_face(faces: list[int], roll: str) -> int:
    """The d20 kept: the higher of two with advantage ("2d20kh1"), the lower with disadvantage."""
    if len(faces) < 2:
        return faces[0]
    return max(faces) if roll == "2d20kh1" else min(faces)


def apply_rider(enc: Encounter, target: Combatant, source: str, rider: Any) -> tuple[Encounter, tuple[Event, ...]]:
    """A hit's rider, rolled by the attack (pyengine/systems/generic.py): the target's save and its damage."""
    if not isinstance(rider, dict):
        raise RuleError("An attack's rider is unreadable.")
    effect = SaveEffect.read(rider.get("effect"), "An attack's save")
    return apply_save(enc, target, source, effect, rider, parts_from_args(rider.get("parts")), effect.name)


# -- the save action: one effect, several targets, one step ------------------------------------------

MAX_TARGETS = 50
COVER_BONUS = {"none": 0, "half": 2, "three-quarters": 5}   # SRD: cover adds to Dexterity saves


def _target_args(enc: Encounter, raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_TARGETS:
        raise RuleError(f"A save needs 1 to {MAX_TARGETS} targets.")
    out, seen = [], set()
    for t in raw:
        if not isinstance(t, dict) or not isinstance(t.get("id"), str) or t["id"] not in enc.names():
            raise RuleError("A target of the save is no longer in this encounter.")
        if t["id"] in seen:
            raise RuleError(f"{enc.get(t['id']).name} is a target twice.")
        seen.add(t["id"])
        out.append(t)
    return out


def _whole(value: Any, low: int, high: int, what: str) -> int | None:
    if value is None or value == "":
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise RuleError(f"{what} is a whole number from {low} to {high}.")
    return value


def save_target(enc: Encounter, effect: SaveEffect, t: dict[str, Any]) -> tuple[Combatant, SaveMode, int, list[str]]:
    """One target as the save sees it: its roll (conditions, traits, the game master's advantage), its
    bonus (typed for this save, else its stat, else +0 said in the notes; cover added to Dexterity)."""
    c = enc.get(t["id"])
    asked = t.get("adv") if t.get("adv") in ("adv", "dis") else None
    mode = save_mode(c, effect.ability, effect.magical, asked)
    notes = list(mode.reasons)
    bonus = _whole(t.get("bonus"), -30, 40, "A save bonus")
    if bonus is None:
        bonus = save_bonus(c, effect.ability)
        if bonus is None:
            bonus = 0
            notes.append(f"{ABILITY_NAMES[effect.ability]} save not set: +0")
    cover = t.get("cover") or "none"
    if cover not in COVER_BONUS:
        raise RuleError("Cover is none, half or three-quarters.")
    if effect.ability == "dex" and COVER_BONUS[cover]:
        bonus += COVER_BONUS[cover]
        notes.append(f"{cover} cover: +{COVER_BONUS[cover]}")
    return c, mode, bonus, notes


def resolve_save(enc: Encounter, args: dict[str, Any], rng: Any) -> dict[str, Any]:
    """The dice of a save effect: its damage rolled once for all (or the amounts the game master typed
    from physical dice), and each target's d20s (or the natural d20 or the total typed for a player
    who rolled at the table)."""
    effect = SaveEffect.read(args.get("effect"), "The save")
    source = args.get("source")
    if source is not None and (not isinstance(source, str) or source not in enc.names()):
        raise RuleError("The save's source is no longer in this encounter.")
    targets = _target_args(enc, args.get("targets"))
    portions = read_portions(effect.damage)
    typed_damage = args.get("damage_typed")
    typed_damage = typed_damage if isinstance(typed_damage, list) else []
    parts, texts = rolled_parts(portions, rng, [_whole(typed_damage[i] if i < len(typed_damage) else None, 0, 100_000,
                                                       "A typed damage amount") for i in range(len(portions))])
    results = []
    for t in targets:
        c, mode, bonus, notes = save_target(enc, effect, t)
        natural = _whole(t.get("d20"), 1, 20, "A typed d20")
        total = _whole(t.get("total"), -100, 100, "A typed save total")
        phone = phone_faces(c, mode, t.get("faces"))
        faces: list[int] = []
        if phone is not None and not mode.auto_fail:
            faces, total, typed = phone, kept_face(phone, mode.roll) + bonus, False
        elif total is not None and not mode.auto_fail:
            typed = True
        else:
            faces, total = rolled_save(mode, bonus, natural, rng)
            typed = natural is not None and not mode.auto_fail
        results.append({"id": c.id, "faces": faces, "total": total, "saved": not mode.auto_fail and saved(total, effect.dc),
                        "auto_fail": mode.auto_fail, "typed": typed, "roll": mode.roll, "bonus": bonus,
                        **({"phone": True} if phone is not None and not mode.auto_fail else {}),
                        **({"legendary": True} if t.get("legendary") is True else {})})
    return {"effect": effect.to_dict(), **({"source": source} if source else {}), "parts": parts_to_args(parts),
            "damage_text": " + ".join(texts)[:500], "results": results}


def apply_save_action(enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, tuple[Event, ...]]:
    """The rolled save effect on the fight, one step: a line for the effect, then each target's save,
    damage and condition (apply_save). A target that spends a Legendary Resistance (`legendary`: its
    "Legendary Resistance" uses) succeeds instead."""
    effect = SaveEffect.read(args.get("effect"), "The save")
    source = args.get("source")
    source = source if isinstance(source, str) and source in enc.names() else None
    parts = parts_from_args(args.get("parts"))
    results = args.get("results")
    if not isinstance(results, list) or not 1 <= len(results) <= MAX_TARGETS:
        raise RuleError("A save's results are unreadable.")
    who = f"{enc.get(source).name}'s " if source else ""
    damage = f": {args['damage_text']}" if parts and isinstance(args.get("damage_text"), str) else ""
    names = [enc.get(r["id"]).name for r in results if isinstance(r, dict) and r.get("id") in enc.names()]
    events: list[Event] = [enc.event("save_action", f"{who}{effect.name} ({effect.words}) on {', '.join(names)}{damage}",
                                     who=source)]
    for r in results:
        if not isinstance(r, dict) or r.get("id") not in enc.names():
            raise RuleError("A target of the save is no longer in this encounter.")
        target = enc.get(r["id"])
        if r.get("legendary") is True and not r.get("saved"):
            enc, target, spent = _legendary_resistance(enc, target)
            events += spent
            r = {**r, "saved": True}
        enc, more = apply_save(enc, target, source, effect, r, parts)
        events += more
    return enc, tuple(events)


def _legendary_resistance(enc: Encounter, c: Combatant) -> tuple[Encounter, Combatant, tuple[Event, ...]]:
    tool = legendary_resistance(c)
    if tool is None or tool.left < 1:
        raise RuleError(f"{c.name} has no Legendary Resistance left.")
    spent = c.with_tool(replace(tool, left=tool.left - 1))
    enc = enc.with_combatant(spent)
    return enc, spent, (enc.event("tool", f"{c.name} spends a Legendary Resistance to succeed ({tool.left - 1} of {tool.most} left)",
                                  who=c.id),)


# -- a condition's repeated save at the end of the creature's turn -----------------------------------

def repeat_odds(c: Combatant, ability: str, dc: int) -> tuple[SaveMode, int, float]:
    """How `c` rolls its repeated save and P(it succeeds)."""
    mode = save_mode(c, ability)
    bonus = save_bonus(c, ability) or 0
    return mode, bonus, float(1 - p_fail(mode, bonus, dc))


def resolve_repeat(enc: Encounter, args: dict[str, Any], rng: Any) -> dict[str, Any]:
    """The d20 of a condition's repeated save (SRD: "can repeat the saving throw at the end of each of
    its turns, ending the effect on itself on a success"), or the one the player typed."""
    c, k = _repeated(enc, args)
    assert k.save is not None
    mode, bonus, _ = repeat_odds(c, k.save[0], k.save[1])
    typed = _whole(args.get("d20"), 1, 20, "A typed d20")
    faces, total = rolled_save(mode, bonus, typed, rng)
    return {"id": c.id, "condition": k.id, "faces": faces, "total": total, "roll": mode.roll, "typed": typed is not None,
            "auto_fail": mode.auto_fail, "saved": not mode.auto_fail and saved(total, k.save[1])}


def apply_repeat(enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, tuple[Event, ...]]:
    c, k = _repeated(enc, args)
    assert k.save is not None
    result = checked_result(args)
    ability = ABILITY_NAMES[k.save[0]][:3]
    roll = roll_words(result)
    what = (f"{ability} save vs DC {k.save[1]}, failed automatically" if result.get("auto_fail")
            else f"{ability} save {result['total']} vs DC {k.save[1]}{' (typed)' if result.get('typed') else ''}")
    if not result["saved"]:
        return enc, (enc.event("save", f"{c.name}: {what} to end {k.name}: failed, still {k.name.lower()}", roll, c.id),)
    gone = replace(c, conditions=tuple(x for x in c.conditions if x.id != k.id))
    return enc.with_combatant(gone), (enc.event("save", f"{c.name}: {what} to end {k.name}: succeeded, {k.name} ends", roll, c.id),)


def _repeated(enc: Encounter, args: dict[str, Any]) -> tuple[Combatant, Condition]:
    if not isinstance(args.get("id"), str) or args["id"] not in enc.names():
        raise RuleError("That combatant is no longer in this encounter.")
    c = enc.get(args["id"])
    k = next((x for x in c.conditions if x.id == args.get("condition")), None)
    if k is None or k.save is None:
        raise RuleError(f"{c.name} no longer has that condition to save against.")
    return c, k
