"""A combatant's turn tools: the reminders a game master keeps for a creature's turn, with their state.

- recharge: an ability used once, then spent until a d6 at the start of the creature's turn shows
  `low` or more ("Recharge 5–6": a 2 in 6 chance each turn; SRD, "Recharge X–Y").
- regeneration: hit points back at the start (or end) of its turn; acid or fire damage stops it at
  its next turn (the game master pauses it: SRD, the troll's Regeneration).
- ongoing: damage at the start or end of its turn (burning, bleeding), a number or dice.
- legendary: a number of legendary actions a round, spent at the end of other creatures' turns,
  all back at the start of its own turn (SRD, "Legendary Actions").
- uses: an ability usable a number of times a day (SRD "3/Day"; Realm of Strife's faith powers,
  once a day each: seed 001_ac0439225e17923b.txt).

A system offers the kinds its rules have (`System.turn_tools`). This module holds the pure rules:
reading a tool (as typed or saved), its words, its chance, and what a turn's start does to them;
the actions that change them are in `tool_actions.py`. Nothing here rolls.
"""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from typing import Any

from .damage_types import DAMAGE_TYPES
from .dice import parse
from .errors import EngineError, RuleError
from .model import TOOL_KINDS, Combatant, Encounter, Event, TurnTool
from .text import clean_text

__all__ = [
    "TOOL_KINDS", "MAX_TOOLS", "CAPS", "DEFAULT_NAMES", "new_tool", "tool_spec", "tools_joining", "tool_from_dict", "tool_to_dict", "recharge_faces", "recharge_chance",
    "recharge_words", "stopped_by", "pause_words", "terms", "describe", "state_words", "waiting", "at_turn_start", "TIMED",
]

MAX_TOOLS = 20                                 # turn tools on one combatant
CAPS = {"legendary": 10, "uses": 99}       # legendary actions a round, uses a day
TIMED = ("regeneration", "ongoing")            # tools that act at the start or end of its turn
DEFAULT_NAMES = {"recharge": "Recharge ability", "regeneration": "Regeneration", "ongoing": "Ongoing damage",
                 "legendary": "Legendary actions", "uses": "Daily ability"}


def recharge_faces(low: int) -> int:
    """How many faces of the d6 recharge an ability on `low` or more (5: 2, the 5 and the 6)."""
    return 7 - low


def recharge_chance(low: int) -> Fraction:
    """The exact chance that a d6 recharges an ability on `low` or more (5: 2 in 6)."""
    return Fraction(recharge_faces(low), 6)


def recharge_words(low: int) -> str:
    """"Recharge 5–6", "Recharge 6"."""
    return f"Recharge {low}" if low == 6 else f"Recharge {low}–6"


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise RuleError(f"{what} must be a whole number.")
    try:
        number = int(value)
    except ValueError:
        raise RuleError(f"{what} must be a whole number.") from None
    if not low <= number <= high:
        raise RuleError(f"{what} must be from {low} to {high}.")
    return number


def _amount(text: Any, kind: str) -> str:
    """The hit points regeneration gives or ongoing damage deals: a number or dice (8, 2d6+1),
    checked by the dice engine (its caps bound the roll)."""
    amount = " ".join(str(text or "").split())
    what = "Regeneration" if kind == "regeneration" else "Ongoing damage"
    if not amount:
        raise RuleError(f"{what} needs an amount: a number or dice (10, 2d6).")
    if len(amount) > 40:
        raise RuleError(f"{what}'s amount is at most 40 characters.")
    try:
        parse(amount)
    except EngineError as error:
        raise RuleError(f"{what}'s amount “{amount}” is neither a number nor dice: {error}") from None
    return amount


def _stops(value: Any) -> str:
    """The damage types that pause regeneration as it takes them: "acid, fire" (checked, in order)."""
    if value in (None, ""):
        return ""
    words = [w for w in re.split(r"[\s,]+|\band\b|\bor\b", str(value).lower()) if w] if isinstance(value, str) else None
    if not words or len(words) > len(DAMAGE_TYPES) or any(w not in DAMAGE_TYPES for w in words):
        raise RuleError(f"What stops regeneration is damage types ({', '.join(DAMAGE_TYPES)}).")
    return ", ".join(t for t in DAMAGE_TYPES if t in words)


def stopped_by(t: TurnTool) -> tuple[str, ...]:
    return tuple(t.stops.split(", ")) if t.stops else ()


def pause_words(t: TurnTool) -> str:
    """Why regeneration pauses: its own damage types ("acid or fire"), the troll's when it names none."""
    kinds = stopped_by(t) or ("acid", "fire")
    return ", ".join(kinds[:-1]) + " or " + kinds[-1] if len(kinds) > 1 else kinds[0]


def new_tool(tid: str, fields: dict[str, Any]) -> TurnTool:
    """A tool as typed on a sheet (kind, name, amount, low, when, most), checked; RuleError with a
    plain message otherwise. It starts ready, with every use left."""
    if not isinstance(fields, dict):
        raise RuleError("A turn tool is unreadable.")
    kind = fields.get("kind")
    if kind not in TOOL_KINDS:
        raise RuleError("A turn tool is a recharge, regeneration, ongoing damage, legendary actions or uses a day.")
    name = clean_text(str(fields.get("name") or "")) or DEFAULT_NAMES[kind]
    if len(name) > 60:
        raise RuleError("A turn tool's name is at most 60 characters.")
    tool = TurnTool(tid, kind, name)
    if kind == "recharge":
        return replace(tool, low=_whole(fields.get("low", 5), "The lowest face that recharges it", 2, 6))
    if kind in TIMED:
        when = fields.get("when") or "start"
        if when not in ("start", "end"):
            raise RuleError("A turn tool acts at the start or the end of its turn.")
        return replace(tool, amount=_amount(fields.get("amount"), kind), when=when,
                       stops=_stops(fields.get("stops")) if kind == "regeneration" else "")
    what = "Legendary actions a round" if kind == "legendary" else "Uses a day"
    most = _whole(fields.get("most", 3 if kind == "legendary" else 1), what, 1, CAPS[kind])
    return replace(tool, most=most, left=most, actions=_legendary_actions(fields.get("actions"), most) if kind == "legendary" else ())


def _legendary_actions(raw: Any, most: int) -> tuple[tuple[str, int], ...]:
    """A creature's named legendary actions and what each costs ([["Wing Attack", 2], ...]), checked."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > 20 or not all(isinstance(x, list | tuple) and len(x) == 2 for x in raw):
        raise RuleError("Legendary actions are a list of names and costs.")
    out = []
    for name, cost in raw:
        name = clean_text(str(name))[:60]
        if not name:
            raise RuleError("A legendary action needs a name.")
        out.append((name, _whole(cost, f"{name}'s cost", 1, most)))
    return tuple(out)


def tool_spec(t: TurnTool) -> dict[str, Any]:
    """What the tool is, without its state: how a saved opponent keeps it (new_tool reads it back)."""
    out: dict[str, Any] = {"kind": t.kind, "name": t.name}
    if t.kind == "recharge":
        out["low"] = t.low
    elif t.kind in TIMED:
        out.update(amount=t.amount, when=t.when, **({"stops": t.stops} if t.stops else {}))
    else:
        out["most"] = t.most
        if t.actions:
            out["actions"] = [[n, cost] for n, cost in t.actions]
    return out


def tools_joining(specs: list[dict[str, Any]], kinds: tuple[str, ...], seq: int) -> tuple[tuple[TurnTool, ...], int]:
    """A joining combatant's tools from a saved opponent's specs (tool_spec), with fresh ids after
    `seq`; those of a kind the fight's system does not have (`kinds`) stay behind. Returns them and
    the last id number used."""
    tools = []
    for spec in specs:
        if spec.get("kind") in kinds:
            seq += 1
            tools.append(new_tool(f"t{seq}", spec))
    return tuple(tools), seq


def tool_to_dict(t: TurnTool) -> dict[str, Any]:
    """A tool as saved: its id, what it is (tool_spec) and its state (defaults left out)."""
    out: dict[str, Any] = {"id": t.id, **tool_spec(t)}
    if t.kind not in TIMED:
        out["left"] = t.left
    elif t.paused:
        out["paused"] = True
    if t.done:
        out["done"] = t.done
    return out


def tool_from_dict(d: Any) -> TurnTool:
    """A saved tool (a file, a link, storage): every field checked as a typed one, then its state."""
    if not isinstance(d, dict):
        raise RuleError("A turn tool is not an object.")
    tid = d.get("id")
    if not isinstance(tid, str) or not 1 <= len(tid) <= 20:
        raise RuleError("A turn tool has no valid id.")
    tool = new_tool(tid, d)
    paused = d.get("paused", False)
    if not isinstance(paused, bool) or (paused and tool.kind != "regeneration"):
        raise RuleError(f"{tool.name}: only regeneration is paused.")
    left = _whole(d.get("left", tool.most), f"{tool.name}: what is left", 0, tool.most) if tool.kind not in TIMED else 1
    done = _whole(d.get("done", 0), f"{tool.name}: the round it acted", 0, 10**6)
    return replace(tool, left=left, paused=paused, done=done)


def terms(t: TurnTool) -> str:
    """What the tool does, after its name: "Recharge 5–6", "10 HP at the start of its turn", "3 a round"."""
    if t.kind == "recharge":
        return recharge_words(t.low)
    if t.kind in TIMED:
        return f"{t.amount} {'HP' if t.kind == 'regeneration' else 'damage'} at the {t.when} of its turn"
    return f"{t.most} a {'round' if t.kind == 'legendary' else 'day'}"


def describe(t: TurnTool) -> str:
    """The tool in a few words: "Fire Breath (Recharge 5–6)", "Regeneration: 10 HP at the start of
    its turn", "Legendary actions (3 a round)", "Misty Step (2 a day)"."""
    return f"{t.name}: {terms(t)}" if t.kind in TIMED else f"{t.name} ({terms(t)})"


def state_words(t: TurnTool) -> str:
    """Its state: "ready" / "spent", "2 of 3 left", "off at its next turn"."""
    if t.kind == "recharge":
        return "ready" if t.left else "spent"
    if t.kind in TIMED:
        return f"off at its next turn ({pause_words(t)})" if t.paused else ""
    return f"{t.left} of {t.most} left"


def waiting(enc: Encounter, c: Combatant) -> list[TurnTool]:
    """The tools that wait for a tap on `c`'s turn: a spent ability's recharge roll (not on the turn
    it was spent: its d6 comes at the start of its next turn, SRD), regeneration and ongoing damage
    not yet applied this round."""
    return [t for t in c.tools
            if (t.kind == "recharge" and not t.left and t.done != enc.round)
            or (t.kind in TIMED and t.done != enc.round and not t.paused)]


def at_turn_start(enc: Encounter, ids: set[str]) -> tuple[Encounter, tuple[Event, ...]]:
    """What a turn's start does to the tools of those whose turn it is, with no die: legendary
    actions all back (SRD), a paused regeneration skipped this once (it took acid or fire)."""
    events: list[Event] = []
    combatants = []
    for c in enc.combatants:
        if c.id not in ids or not c.tools:
            combatants.append(c)
            continue
        tools = []
        for t in c.tools:
            if t.kind == "legendary" and t.left < t.most:
                t = replace(t, left=t.most)
            elif t.kind == "regeneration" and t.paused:
                events.append(enc.event("tool", f"{c.name}'s {t.name} does not work this turn ({pause_words(t)})", who=c.id))
                t = replace(t, paused=False, done=enc.round)
            tools.append(t)
        combatants.append(replace(c, tools=tuple(tools)))
    return replace(enc, combatants=tuple(combatants)), tuple(events)
