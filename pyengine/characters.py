"""A player's own characters: stats in the system's own fields, named attacks, and the payloads that
hand a character to the game master's tracker.

A character is kept on the player's phone. Its stats are the ones the tracker uses for a combatant of
its system (the system's `stat_fields`); each named attack holds the weapon's stats that differ from
the character's (a second weapon) and the attack panel's options (skills used, power attack, kind of
attack...). Attacking from a character builds a small practice encounter (the character and a target
described by the game master) and asks the system's own attack action: the odds and the roll are the
tracker's, never a second copy.

Stored one item per character with its own format number (`v`) and migrations, like a saved fight.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import RuleError, SchemaError
from .model import Encounter, StatField
from .rules import get_system
from .storage import pack, unpack
from .text import clean_text
from .tracker import apply_action, new_encounter, resolve

__all__ = [
    "CHARACTER_VERSION", "CHARACTER_MIGRATIONS", "MAX_CHARACTERS", "MAX_ATTACKS", "NAME_LIMIT", "NamedAttack", "Character",
    "validated_stats", "validated_config", "character_from_dict", "character_to_dict", "combatant_fields", "practice_encounter",
    "character_payload", "read_character", "TARGET_ID", "ME_ID",
]

CHARACTER_VERSION = 1
MAX_CHARACTERS = 50       # on one phone
MAX_ATTACKS = 20          # per character
NAME_LIMIT = 60           # a character's or an attack's name
CONFIG_KEYS = 40          # options of one attack
TEXT_LIMIT = 100          # one text stat or option
MAX_PAYLOAD = 20_000      # characters of a shared character's link payload

# CHARACTER_MIGRATIONS[n] turns a format-n character into format n + 1. Format 1 is the first.
CHARACTER_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}

ME_ID, TARGET_ID = "c1", "c2"   # the practice encounter's two combatants


@dataclass(frozen=True)
class NamedAttack:
    """One way the character attacks: a name, the weapon's stats that differ from the character's
    own, and the attack panel's options."""

    name: str
    stats: dict[str, Any] = field(default_factory=dict[str, Any])
    config: dict[str, Any] = field(default_factory=dict[str, Any])


@dataclass(frozen=True)
class Character:
    id: str
    name: str
    system: str
    max_hp: int | None = None
    init_mod: int = 0
    stats: dict[str, Any] = field(default_factory=dict[str, Any])
    attacks: tuple[NamedAttack, ...] = ()

    def attack(self, index: int) -> NamedAttack | None:
        return self.attacks[index] if 0 <= index < len(self.attacks) else None


def _name(value: Any, what: str) -> str:
    text = clean_text(value) if isinstance(value, str) else ""
    if not text:
        raise RuleError(f"{what} needs a name.")
    if len(text) > NAME_LIMIT:
        raise RuleError(f"{what}'s name is too long (at most {NAME_LIMIT} characters).")
    return text


def _number(value: Any, label: str, low: int, high: int) -> int:
    if isinstance(value, bool):
        raise RuleError(f"{label} must be a whole number.")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise RuleError(f"{label} must be a whole number.") from None
    if not low <= number <= high:
        raise RuleError(f"{label} must be from {low:,} to {high:,}.")
    return number


def validated_stats(fields: tuple[StatField, ...], stats: Any, label: str) -> dict[str, Any]:
    """Stats as the system's fields allow them: numbers in their bounds, text of one line, flags.
    An empty number is left out (the field's default applies); an unknown key is refused."""
    if not isinstance(stats, dict) or len(stats) > 200:
        raise RuleError("The stats are unreadable.")
    by_key = {f.key: f for f in fields}
    out: dict[str, Any] = {}
    for key, value in stats.items():
        f = by_key.get(key)
        if f is None:
            raise RuleError(f"{label} has no stat {str(key)[:40]!r}.")
        if f.kind == "flag":
            out[key] = bool(value)
        elif f.kind == "text":
            text = clean_text(value) if isinstance(value, str) else ""
            if len(text) > TEXT_LIMIT:
                raise RuleError(f"{f.label} is too long (at most {TEXT_LIMIT} characters).")
            out[key] = text
        elif value is not None and value != "":
            out[key] = _number(value, f.label, f.low, f.high)
    return out


def validated_config(config: Any) -> dict[str, Any]:
    """An attack panel's options: a few short values (text, whole numbers, flags, lists of words)."""
    if not isinstance(config, dict) or len(config) > CONFIG_KEYS:
        raise RuleError("An attack's options are unreadable.")
    out: dict[str, Any] = {}
    for key, value in config.items():
        if not isinstance(key, str) or len(key) > 40 or key in ("attacker", "target", "pending"):
            continue  # who attacks whom is the practice encounter's, not the attack's
        if value is None or isinstance(value, bool):
            out[key] = value
        elif isinstance(value, int):
            out[key] = _number(value, key, -1_000_000, 1_000_000)
        elif isinstance(value, str):
            if len(value) > TEXT_LIMIT:
                raise RuleError(f"The option {key} is too long (at most {TEXT_LIMIT} characters).")
            out[key] = clean_text(value)
        elif isinstance(value, list) and len(value) <= 20 and all(isinstance(v, str) and len(v) <= TEXT_LIMIT for v in value):
            out[key] = [clean_text(v) for v in value]
        else:
            raise RuleError(f"The option {key} is unreadable.")
    return out


def migrate_character(doc: Any) -> dict[str, Any]:
    """Bring a stored character up to CHARACTER_VERSION (pure); a newer one is refused, untouched."""
    if not isinstance(doc, dict):
        raise SchemaError("A character is unreadable.")
    version = doc.get("v")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SchemaError("A character has no valid format number.")
    if version > CHARACTER_VERSION:
        raise SchemaError(f"A character was saved by a newer Roundkeeper (format {version}); reload to update the app.")
    doc = json.loads(json.dumps(doc))
    while doc["v"] < CHARACTER_VERSION:
        doc = CHARACTER_MIGRATIONS[doc["v"]](doc)
    return dict(doc)


def character_from_dict(doc: Any) -> Character:
    """A stored or shared character, fully checked; raises SchemaError or RuleError."""
    doc = migrate_character(doc)
    cid = doc.get("id")
    if not isinstance(cid, str) or not 0 < len(cid) <= 40:
        raise SchemaError("A character has no valid id.")
    system = get_system(doc.get("system") if isinstance(doc.get("system"), str) else "")
    name = _name(doc.get("name"), "A character")
    max_hp = doc.get("max_hp")
    max_hp = None if max_hp is None or max_hp == "" else _number(max_hp, "Max HP", 1, 1_000_000)
    init_mod = _number(doc.get("init_mod", 0) or 0, "Initiative modifier", -1000, 1000)
    stats = validated_stats(system.stat_fields, doc.get("stats", {}), system.label)
    attacks_doc = doc.get("attacks", [])
    if not isinstance(attacks_doc, list):
        raise SchemaError("A character's attacks are unreadable.")
    if len(attacks_doc) > MAX_ATTACKS:
        raise RuleError(f"A character has at most {MAX_ATTACKS} attacks.")
    attacks = []
    for item in attacks_doc:
        if not isinstance(item, dict):
            raise SchemaError("An attack is unreadable.")
        attacks.append(NamedAttack(_name(item.get("name"), "An attack"),
                                   validated_stats(system.stat_fields, item.get("stats", {}), system.label),
                                   validated_config(item.get("config", {}))))
    return Character(cid, name, system.name, max_hp, init_mod, stats, tuple(attacks))


def character_to_dict(c: Character) -> dict[str, Any]:
    out: dict[str, Any] = {"v": CHARACTER_VERSION, "id": c.id, "name": c.name, "system": c.system}
    if c.max_hp is not None:
        out["max_hp"] = c.max_hp
    if c.init_mod:
        out["init_mod"] = c.init_mod
    out["stats"] = dict(c.stats)
    out["attacks"] = [{"name": a.name, "stats": dict(a.stats), "config": dict(a.config)} for a in c.attacks]
    return out


def combatant_fields(c: Character, attack: NamedAttack | None = None) -> dict[str, Any]:
    """The character as the tracker's add_combatant takes it: a player character of the party, at
    full HP, with the attack's weapon (when one is given) in place of its own, and its attacks by name
    where the system's attack is a bonus and damage (the phone's Attack panel offers them)."""
    out: dict[str, Any] = {"name": c.name, "side": "party", "pc": True, "init_mod": c.init_mod,
                           "stats": get_system(c.system).fresh_stats({**c.stats, **(attack.stats if attack else {})})}
    if c.max_hp is not None:
        out["max_hp"] = out["hp"] = c.max_hp
    named = get_system(c.system).named_attacks([(a.name, {**c.stats, **a.stats}) for a in c.attacks])
    if named:
        out["attacks"] = named[:MAX_ATTACKS]
    return out


def practice_encounter(c: Character, attack: NamedAttack | None, target_stats: dict[str, Any], target_hp: int | None = None,
                       target_name: str = "Target") -> Encounter:
    """The character and the target the game master describes, alone in an encounter of the
    character's system: what the system's own attack panel and attack action work on."""
    system = get_system(c.system)
    enc = new_encounter("practice", "Practice", c.system)
    me = combatant_fields(c, attack)
    target: dict[str, Any] = {"name": _name(target_name, "The target"), "side": "opponents",
                              "stats": validated_stats(system.stat_fields, target_stats, system.label)}
    if target_hp is not None:
        target["max_hp"] = target["hp"] = _number(target_hp, "The target's HP", 1, 1_000_000)
    for fields in (me, target):
        enc, _ = apply_action(enc, resolve(enc, "add_combatant", {"combatant": fields}))
    # The fight runs and it is the character's turn (some systems attack only in the attacker's
    # turn). The start's own rolls decide nothing the player sees: a fixed generator.
    setup = random.Random(0)
    enc, _ = apply_action(enc, resolve(enc, "start_combat", {}, setup))
    for _ in range(4):
        if enc.active_id == ME_ID:
            break
        enc, _ = apply_action(enc, resolve(enc, "next_turn", {}, setup))
    return enc


# -- handing a character over ----------------------------------------------------------------

def character_payload(c: Character) -> str:
    """The character for a link or a code (storage.pack)."""
    return pack(character_to_dict(c))


def read_character(payload: str) -> Character:
    """A character from a link or a pasted code (the link itself, or its part after #character=)."""
    if not isinstance(payload, str):
        raise SchemaError("That is not a character's code.")
    text = payload.strip()
    if "#character=" in text:
        text = text.split("#character=", 1)[1]
    return character_from_dict(unpack(text, "a character's code", MAX_PAYLOAD, 200_000))
