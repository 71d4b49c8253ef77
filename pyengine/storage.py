"""Saved data: encounters (with their whole undo history) to and from JSON-ready dicts.

Every document carries `app` and a `schema` number. `migrate()` brings any older document up to
SCHEMA_VERSION through an ordered list of pure steps; a newer document is refused (never
overwritten). Loading checks every field and every bound, so a file that is not ours, truncated, or
full of absurd values raises SchemaError with a plain message and changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .errors import EngineError, SchemaError
from .model import (
    LIMITS,
    MAX_ATTACKS,
    MAX_COMBATANTS,
    SIDES,
    Action,
    Combatant,
    Condition,
    Defenses,
    Duration,
    Encounter,
    NamedAttack,
    too_many_combatants,
    valid_stat,
)
from .rules import get_system
from .save_effects import ABILITIES, MAX_DC, MAX_SAVE_ACTIONS, SaveEffect
from .text import clean_text
from .tools import MAX_TOOLS, tool_from_dict, tool_to_dict
from .tracker import Timeline

__all__ = [
    "APP",
    "SCHEMA_VERSION",
    "MAX_COMBATANTS",
    "MAX_ACTIONS",
    "MAX_DOCUMENT_CHARS",
    "MAX_JSON_DEPTH",
    "MIGRATIONS",
    "pack",
    "unpack",
    "check_json_depth",
    "depth",
    "migrate",
    "encounter_to_dict",
    "encounter_from_dict",
    "timeline_to_dict",
    "timeline_from_dict",
    "dumps",
    "loads",
]

APP = "roundkeeper"
SCHEMA_VERSION = 1
MAX_ACTIONS = 50_000
MAX_DOCUMENT_CHARS = 5_000_000
# Our deepest document (a workspace export: encounters > actions > args > combatant > stats) nests
# about 8 levels; anything deeper is refused before the JSON parser recurses into it.
MAX_JSON_DEPTH = 32
TURN_DEPTH = 4    # an encounter's turn state: {key: [ids ...]} and the like
ARGS_DEPTH = 6    # one action's arguments: {"combatant": {"stats": {...}}}

# MIGRATIONS[n] turns a schema-n document into schema n+1. Schema 1 is the first published format,
# so there is nothing to migrate yet; each future change of format adds one step and a fixture file
# of the old version under tests/unit/fixtures/.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def migrate(doc: Any) -> dict[str, Any]:
    """Bring a saved document up to SCHEMA_VERSION (pure: the input is not changed)."""
    if not isinstance(doc, dict) or doc.get("app") != APP:
        raise SchemaError("This is not a Roundkeeper file.")
    version = doc.get("schema")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SchemaError("This Roundkeeper file has no valid format number.")
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"This was saved by a newer Roundkeeper (format {version}; this version reads up to "
            f"{SCHEMA_VERSION}). Reload to update the app; nothing was changed."
        )
    doc = json.loads(json.dumps(doc))
    while doc["schema"] < SCHEMA_VERSION:
        doc = MIGRATIONS[doc["schema"]](doc)
    return dict(doc)


# -- to dicts ------------------------------------------------------------------------------

def _combatant_to_dict(c: Combatant) -> dict[str, Any]:
    out: dict[str, Any] = {"id": c.id, "name": c.name, "side": c.side}
    if c.pc:
        out["pc"] = True
    for key in ("init_mod", "tiebreak", "temp_hp"):
        if getattr(c, key):
            out[key] = getattr(c, key)
    for key in ("initiative", "hp", "max_hp"):  # 0 HP is a downed combatant: keep it
        if getattr(c, key) is not None:
            out[key] = getattr(c, key)
    if c.conditions:
        out["conditions"] = [
            {"id": k.id, "name": k.name, **({"until": [k.duration.event, k.duration.anchor_id, k.duration.remaining]} if k.duration.event != "never" else {}),
             **({"source": k.source_id} if k.source_id else {}), **({"note": k.note} if k.note else {}),
             **({"save": list(k.save)} if k.save else {})}
            for k in c.conditions
        ]
    for key in ("notes", "group"):
        if getattr(c, key):
            out[key] = getattr(c, key)
    if c.flags:
        out["flags"] = list(c.flags)
    if c.stats:
        out["stats"] = dict(c.stats)
    if c.tools:
        out["tools"] = [tool_to_dict(t) for t in c.tools]
    if c.attacks:
        out["attacks"] = [a.to_dict() for a in c.attacks]
    if c.defenses:
        out["defenses"] = c.defenses.to_dict()
    if c.save_actions:
        out["save_actions"] = [a.to_dict() for a in c.save_actions]
    return out


def encounter_to_dict(e: Encounter) -> dict[str, Any]:
    return {
        "id": e.id, "name": e.name, "system": e.system, "options": dict(e.options),
        "combatants": [_combatant_to_dict(c) for c in e.combatants],
        "round": e.round, "active": e.active_id, "seq": e.seq,
        **({"turn": dict(e.turn)} if e.turn else {}),
    }


def timeline_to_dict(t: Timeline) -> dict[str, Any]:
    return {
        "app": APP, "schema": SCHEMA_VERSION, "kind": "encounter",
        "base": encounter_to_dict(t.base),
        "actions": [a.to_dict() for a in t.actions],
        "cursor": t.cursor,
    }


def dumps(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


# -- from dicts (strict) -------------------------------------------------------------------

def _opt_int(value: Any, what: str, limit: int) -> int | None:
    return None if value is None else _int(value, what, limit)


def _int(value: Any, what: str, limit: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise SchemaError(f"{what} must be a whole number.")
    if abs(value) > limit:
        raise SchemaError(f"{what} is out of range (at most {limit:,}).")
    return value


def _str(value: Any, what: str, limit: int, optional: bool = False) -> str:
    if value is None and optional:
        return ""
    if not isinstance(value, str):
        raise SchemaError(f"{what} must be text.")
    if len(value) > limit:
        raise SchemaError(f"{what} is too long ({len(value):,} characters; at most {limit:,}).")
    return value


def _combatant_from_dict(d: Any) -> Combatant:
    if not isinstance(d, dict):
        raise SchemaError("A combatant entry is not an object.")
    name = clean_text(_str(d.get("name"), "A combatant's name", LIMITS["name"]))
    label = f"{name[:40]!r}"
    side = d.get("side", "opponents")
    if side not in SIDES:
        raise SchemaError(f"{label}: side must be party or opponents.")
    conditions = []
    raw_conditions = d.get("conditions", []) or []
    if not isinstance(raw_conditions, list) or len(raw_conditions) > 100:
        raise SchemaError(f"{label}: conditions are unreadable.")
    for k in raw_conditions:
        if not isinstance(k, dict):
            raise SchemaError(f"{label}: a condition is not an object.")
        until = k.get("until")
        if until is None:
            duration = Duration()
        else:
            if not (isinstance(until, list) and len(until) == 3 and until[0] in ("start", "end")):
                raise SchemaError(f"{label}: a condition has an unreadable duration.")
            duration = Duration(until[0], _str(until[1], "A duration's anchor", 20), _int(until[2], "A duration", 1000))
        save = k.get("save")
        if save is not None and not (isinstance(save, list) and len(save) == 2 and save[0] in ABILITIES
                                     and isinstance(save[1], int) and not isinstance(save[1], bool) and 1 <= save[1] <= MAX_DC):
            raise SchemaError(f"{label}: a condition's repeated save is unreadable.")
        conditions.append(Condition(
            id=_str(k.get("id"), "A condition id", 20), name=clean_text(_str(k.get("name"), "A condition name", 60)),
            duration=duration, source_id=_str(k.get("source"), "A condition source", 20, True) or None,
            note=clean_text(_str(k.get("note"), "A condition note", 200, True)),
            save=(str(save[0]), int(save[1])) if save is not None else None,
        ))
    flags = d.get("flags", []) or []
    if not isinstance(flags, list) or len(flags) > 100 or not all(isinstance(f, str) and len(f) <= 40 for f in flags):
        raise SchemaError(f"{label}: flags are unreadable.")
    stats = d.get("stats", {}) or {}
    if not isinstance(stats, dict) or len(stats) > 200 or not all(
        isinstance(k, str) and len(k) <= 40 and valid_stat(v) for k, v in stats.items()
    ):
        raise SchemaError(f"{label}: stats are unreadable.")
    raw_tools = d.get("tools", []) or []
    if not isinstance(raw_tools, list) or len(raw_tools) > MAX_TOOLS:
        raise SchemaError(f"{label}: turn tools are unreadable.")
    try:
        tools = tuple(tool_from_dict(t) for t in raw_tools)
    except EngineError as error:
        raise SchemaError(f"{label}: {error}") from None
    if len({t.id for t in tools}) != len(tools):
        raise SchemaError(f"{label}: two turn tools share one id.")
    raw_attacks = d.get("attacks", []) or []
    if not isinstance(raw_attacks, list) or len(raw_attacks) > MAX_ATTACKS:
        raise SchemaError(f"{label}: named attacks are unreadable.")
    raw_saves = d.get("save_actions", []) or []
    if not isinstance(raw_saves, list) or len(raw_saves) > MAX_SAVE_ACTIONS:
        raise SchemaError(f"{label}: save actions are unreadable.")
    try:
        attacks = tuple(NamedAttack.read(a) for a in raw_attacks)
        defenses = Defenses.read(d.get("defenses"))
        save_actions = tuple(SaveEffect.read(a) for a in raw_saves)
    except EngineError as error:
        raise SchemaError(f"{label}: {error}") from None
    # Every text is cleaned as it is read, as typed text is (links, files and storage alike).
    flags = [clean_text(f) for f in flags]
    stats = {k: clean_text(v) if isinstance(v, str) else v for k, v in stats.items()}
    hp_limit = LIMITS["hp"]
    return Combatant(
        id=_str(d.get("id"), "A combatant id", 20), name=name, side=side, pc=bool(d.get("pc", False)),
        init_mod=_int(d.get("init_mod", 0), f"{label}: initiative modifier", LIMITS["init"]),
        initiative=_opt_int(d.get("initiative"), f"{label}: initiative", LIMITS["init"]),
        tiebreak=_int(d.get("tiebreak", 0), f"{label}: tiebreak", 10**6),
        hp=_opt_int(d.get("hp"), f"{label}: HP", hp_limit),
        max_hp=_opt_int(d.get("max_hp"), f"{label}: max HP", hp_limit),
        temp_hp=_int(d.get("temp_hp", 0), f"{label}: temporary HP", hp_limit),
        conditions=tuple(conditions), notes=clean_text(_str(d.get("notes"), f"{label}: notes", LIMITS["notes"], True)),
        group=_str(d.get("group"), "A group id", 20, True) or None, flags=tuple(flags),
        stats=tuple(sorted(stats.items())), tools=tools, attacks=attacks,
        defenses=defenses, save_actions=save_actions,
    )


def encounter_from_dict(d: Any) -> Encounter:
    if not isinstance(d, dict):
        raise SchemaError("The encounter is not an object.")
    combatants = d.get("combatants", [])
    if not isinstance(combatants, list):
        raise SchemaError("The combatant list is unreadable.")
    if len(combatants) > MAX_COMBATANTS:
        raise SchemaError(too_many_combatants(len(combatants)))
    parsed = tuple(_combatant_from_dict(c) for c in combatants)
    if len({c.id for c in parsed}) != len(parsed):
        raise SchemaError("Two combatants share one id.")
    options = d.get("options", {})
    if not isinstance(options, dict) or len(options) > 50 or not all(
        isinstance(k, str) and len(k) <= 40 and valid_stat(v) for k, v in options.items()
    ):
        raise SchemaError("The encounter's options are unreadable.")
    active = d.get("active")
    if active is not None and active not in {c.id for c in parsed}:
        raise SchemaError("The active combatant is not in the encounter.")
    system = _str(d.get("system", "generic"), "The game system", 40)
    try:
        rules = get_system(system)
    except EngineError as error:
        raise SchemaError(str(error)) from None
    enc = Encounter(
        id=_str(d.get("id"), "The encounter id", 40), name=clean_text(_str(d.get("name"), "The encounter name", 100)),
        system=system, options=tuple(sorted(options.items())), combatants=parsed,
        round=_int(d.get("round", 0), "The round", 10**6), active_id=active, seq=_int(d.get("seq", 0), "The id counter", 10**9),
        turn=_turn_state(d.get("turn", {})),
    )
    if enc.started and enc.active_id is None and not rules.flow.table_picks_actor:
        raise SchemaError("A started fight names whose turn it is.")
    if any(t.kind not in rules.turn_tools for c in parsed for t in c.tools):
        raise SchemaError(f"A combatant has a turn tool that {rules.label}'s rules do not have.")
    rules.check_turn_state(enc)  # each system's own schema (a started Laurels fight without its side roll ...)
    return enc


def _turn_state(turn: Any) -> tuple[Any, ...]:
    if not isinstance(turn, dict) or len(turn) > 20 or depth(turn) > TURN_DEPTH or len(json.dumps(turn)) > 20_000:
        raise SchemaError("The encounter's turn state is unreadable.")
    return tuple(sorted(turn.items()))


def depth(value: Any) -> int:
    """How deeply lists and objects nest in a JSON-ready value (a scalar is 0); no recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item if isinstance(v, (list, dict)))
    return deepest


def timeline_from_dict(doc: Any) -> Timeline:
    """Read a saved encounter (any schema up to ours) and replay its history."""
    doc = migrate(doc)
    if doc.get("kind") != "encounter":
        raise SchemaError("This Roundkeeper file does not hold an encounter.")
    base = encounter_from_dict(doc.get("base"))
    actions = doc.get("actions", [])
    if not isinstance(actions, list):
        raise SchemaError("The encounter's history is unreadable.")
    if len(actions) > MAX_ACTIONS:
        raise SchemaError(f"The history is too long ({len(actions):,} steps; at most {MAX_ACTIONS:,}).")
    parsed = []
    for a in actions:
        if not isinstance(a, dict) or not isinstance(a.get("kind"), str) or not isinstance(a.get("args", {}), dict) \
                or depth(a.get("args", {})) > ARGS_DEPTH:
            raise SchemaError("A step of the encounter's history is unreadable.")
        parsed.append(Action(a["kind"], a.get("args", {})))
    cursor = doc.get("cursor", len(parsed))
    _int(cursor, "The undo position", MAX_ACTIONS)
    try:
        timeline = Timeline.start(base, parsed, cursor)
    except SchemaError:
        raise
    except EngineError as error:
        raise SchemaError(f"The encounter's history does not replay: {error}") from None
    except (KeyError, TypeError, ValueError, IndexError, StopIteration):
        raise SchemaError("The encounter's history does not replay: a step is missing data.") from None
    if len(timeline.present.combatants) > MAX_COMBATANTS:
        raise SchemaError(too_many_combatants(len(timeline.present.combatants)))
    return timeline


_JSON_SPECIAL = re.compile(r'[\\"\[\]{}]')


def check_json_depth(text: str, limit: int = MAX_JSON_DEPTH, what: str = "file") -> None:
    """Refuse JSON text that nests deeper than `limit`, before any parser recurses into it. A scan
    of the brackets outside strings (one step per special character; never recursive)."""
    level = 0
    in_string = False
    escaped_at = -1
    for match in _JSON_SPECIAL.finditer(text):
        at = match.start()
        char = text[at]
        if in_string:
            if at == escaped_at:
                continue
            if char == "\\":
                escaped_at = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            if level > limit:
                raise SchemaError(f"The {what} nests its data too deeply to be ours (more than {limit} levels).")
        elif char in "]}":
            level -= 1


def loads(text: str, what: str = "file") -> Any:
    """Parse JSON text of a saved document, with size and nesting bounds and a plain error.
    `what` names where the text came from in the messages: "file", "link", "saved data"."""
    if not isinstance(text, str):
        raise SchemaError(f"The {what} is not text.")
    if len(text) > MAX_DOCUMENT_CHARS:
        raise SchemaError(f"The {what} is too large ({len(text):,} characters; at most {MAX_DOCUMENT_CHARS:,}).")
    check_json_depth(text, MAX_JSON_DEPTH, what)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise SchemaError(f"The {what} is not valid JSON (it may be truncated).") from None


# -- links and codes ------------------------------------------------------------------------

def pack(doc: Any) -> str:
    """A document for a link's fragment or a code: compact JSON, compressed, URL-safe base64."""
    import base64
    import zlib

    return base64.urlsafe_b64encode(zlib.compress(dumps(doc).encode(), 9)).decode().rstrip("=")


def unpack(payload: Any, what: str, max_chars: int, max_bytes: int) -> Any:
    """The document of a link or code (`pack`'s), bounded before and while it is unpacked (a small
    code that inflates to gigabytes stops at max_bytes); raises SchemaError with a plain message."""
    import base64
    import binascii
    import zlib

    if not isinstance(payload, str) or not payload or len(payload) > max_chars:
        raise SchemaError(f"That is not {what} (it is empty or far too long).")
    try:
        data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        decoder = zlib.decompressobj()
        raw = decoder.decompress(data, max_bytes)
        if decoder.unconsumed_tail:
            raise SchemaError(f"{what[0].upper() + what[1:]} is too large.")
    except (binascii.Error, zlib.error, ValueError):
        raise SchemaError(f"{what[0].upper() + what[1:]} is damaged (it may have been cut short).") from None
    return loads(raw.decode("utf-8", "replace"), "link")
