"""Encounter state as frozen data, and the pure transitions of a fight.

A change is an `Action` (plain JSON-ready data, with every die already rolled), applied by
`apply_action(encounter, action) -> (encounter, events)`. Randomness happens only in `resolve()`,
which turns what the user asked for into such an action; so a list of actions replays exactly, which
is what undo, redo and saving rely on (see `Timeline`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from .dice import Rng
from .errors import RuleError
from .systems import System, get_system
from .text import clean_text

__all__ = [
    "SIDES",
    "SKIP_DOWN",
    "Duration",
    "Condition",
    "Combatant",
    "Encounter",
    "Event",
    "Action",
    "Timeline",
    "new_encounter",
    "resolve",
    "apply_action",
    "turn_units",
    "active_unit",
    "LIMITS",
    "MAX_COMBATANTS",
    "too_many_combatants",
    "valid_stat",
    "validated_fields",
]

SIDES = ("party", "opponents")
_ID = re.compile(r"^c[0-9]{1,9}$")
SKIP_DOWN = ("none", "npcs", "all")


@dataclass(frozen=True)
class Duration:
    """How a condition ends: after `remaining` starts or ends ('start' / 'end') of the anchor's
    turn, or 'never' (until removed)."""

    event: str = "never"
    anchor_id: str | None = None
    remaining: int = 0

    def describe(self, names: dict[str, str]) -> str:
        who = names.get(self.anchor_id or "", "?")
        if self.event == "never":
            return "until removed"
        if self.event == "start":
            return f"{self.remaining} rd (start of {who}'s turn)" if self.remaining > 1 else f"until start of {who}'s turn"
        return f"until end of {who}'s turn" + (f" (+{self.remaining - 1})" if self.remaining > 1 else "")


@dataclass(frozen=True)
class Condition:
    id: str
    name: str
    duration: Duration = Duration()
    source_id: str | None = None
    note: str = ""


@dataclass(frozen=True)
class Combatant:
    id: str
    name: str
    side: str = "opponents"
    pc: bool = False
    init_mod: int = 0
    initiative: int | None = None
    tiebreak: int = 0
    hp: int | None = None
    max_hp: int | None = None
    temp_hp: int = 0
    conditions: tuple[Condition, ...] = ()
    notes: str = ""
    group: str | None = None
    flags: tuple[str, ...] = ()
    stats: tuple[tuple[str, Any], ...] = ()

    @property
    def down(self) -> bool:
        return self.hp is not None and self.hp <= 0

    def stat(self, key: str, default: Any = None) -> Any:
        return dict(self.stats).get(key, default)


@dataclass(frozen=True)
class Event:
    """One line of the fight's log; `roll` is the annotated roll that produced it, if any."""

    kind: str
    round: int
    text: str
    roll: str | None = None
    who: str | None = None


@dataclass(frozen=True)
class Action:
    kind: str
    args: dict = field(default_factory=dict, hash=False, compare=True)

    def to_dict(self) -> dict:
        return {"kind": self.kind, **({"args": self.args} if self.args else {})}


@dataclass(frozen=True)
class Encounter:
    id: str
    name: str
    system: str = "generic"
    options: tuple[tuple[str, Any], ...] = ()
    combatants: tuple[Combatant, ...] = ()
    round: int = 0
    active_id: str | None = None
    seq: int = 0
    turn: tuple[tuple[str, Any], ...] = ()  # the system's own turn state (side initiative ...)

    @property
    def started(self) -> bool:
        return self.round > 0

    def option(self, key: str, default: Any = None) -> Any:
        return dict(self.options).get(key, default)

    def get(self, cid: str) -> Combatant:
        for c in self.combatants:
            if c.id == cid:
                return c
        raise RuleError("That combatant is no longer in this encounter.")

    def names(self) -> dict[str, str]:
        return {c.id: c.name for c in self.combatants}

    @property
    def rules(self) -> System:
        return get_system(self.system)

    @property
    def elapsed_seconds(self) -> int:
        return max(0, self.round - 1) * self.rules.round_seconds


def new_encounter(eid: str, name: str = "Encounter", system: str = "generic", **options: Any) -> Encounter:
    get_system(system)  # unknown systems fail here, with a clear message
    opts = {"skip_down": "npcs", **options}
    return Encounter(id=eid, name=name, system=system, options=tuple(sorted(opts.items())))


# -- turn units --------------------------------------------------------------------------

def turn_units(enc: Encounter) -> list[tuple[Combatant, ...]]:
    """The turn order as units: a group sharing one initiative acts as one unit."""
    units: list[list[Combatant]] = []
    for c in enc.combatants:
        if units and c.group is not None and units[-1][0].group == c.group:
            units[-1].append(c)
        else:
            units.append([c])
    return [tuple(u) for u in units]


def active_unit(enc: Encounter) -> tuple[Combatant, ...]:
    for unit in turn_units(enc):
        if any(c.id == enc.active_id for c in unit):
            return unit
    return ()


def is_skipped(enc: Encounter, c: Combatant) -> bool:
    """Is this combatant down and, by the encounter's option, passed over?"""
    mode = enc.option("skip_down", "npcs")
    return mode != "none" and enc.rules.is_down(c) and (mode == "all" or not c.pc)


def _skipped(enc: Encounter, unit: tuple[Combatant, ...]) -> bool:
    return all(is_skipped(enc, c) for c in unit)


# -- resolving requests into actions (the only place that rolls) ----------------------------

def resolve(enc: Encounter, kind: str, args: dict | None = None, rng: Rng | None = None) -> Action:
    """Turn a request into a fully determined action: rolls dice, picks ids."""
    args = dict(args or {})
    rng = _rng(rng)  # one generator for the whole request (a fresh one when none is given)
    system = enc.rules
    if kind == "add_combatant":
        count = int(args.get("count", 1))
        if not 1 <= count <= 50:
            raise RuleError("Add between 1 and 50 combatants at once.")
        if len(enc.combatants) + count > MAX_COMBATANTS:
            raise RuleError(too_many_combatants(len(enc.combatants) + count))
        base = validated_fields(args.get("combatant", {}))
        ids = [f"c{enc.seq + i + 1}" for i in range(count)]
        group = f"g{enc.seq + 1}" if count > 1 else None
        init = base.get("initiative")
        rolls: dict[str, Any] = {}
        if enc.started and init is None:
            proto = Combatant(id=ids[0], name=base.get("name", "?"), init_mod=base.get("init_mod", 0))
            value, tiebreak, text = system.roll_initiative(proto, rng)
            rolls = {"value": value, "tiebreak": tiebreak, "roll": text}
        return Action(kind, {"ids": ids, "group": group, "combatant": base, "count": count, **({"rolled": rolls} if rolls else {})})
    if system.turn_mode == "sides" and kind in ("start_combat", "next_turn"):
        from . import sides

        if kind == "start_combat":
            if not enc.combatants:
                raise RuleError("Add combatants before starting the fight.")
            ambush = args.get("ambush", enc.option("ambush", "none"))
            return Action(kind, {"side_roll": rng.randint(1, 6), "ambush": ambush})
        if enc.started and sides.needs_side_roll(enc):
            return Action(kind, {"side_roll": rng.randint(1, 6)})
        return Action(kind, {})
    if kind in system.actions:
        return Action(kind, system.resolve(enc, kind, args, rng))
    if kind == "next_turn" and enc.started and system.reroll_each_round(enc):
        after, _ = _advance(enc, forward=True, process=False)
        if after.round > enc.round:  # this tap starts a new round: everyone rolls again
            return Action(kind, {"initiative": _roll_initiatives(enc, rng, {}, True)})
        return Action(kind, {})
    if kind == "start_combat":
        if not enc.combatants:
            raise RuleError("Add combatants before starting the fight.")
        typed = {k: int(v) for k, v in (args.get("typed") or {}).items()}
        results = _roll_initiatives(enc, rng, typed, bool(args.get("reroll_all")))
        return Action(kind, {"initiative": results, **({"soon": bool(args["soon"])} if "soon" in args else {})})
    return Action(kind, args)


def _roll_initiatives(enc: Encounter, rng: Rng, typed: dict, reroll_all: bool) -> dict[str, list]:
    """Everyone's [initiative, tiebreak, roll text]: typed rolls kept, groups roll once, ties broken."""
    system = enc.rules
    results: dict[str, list] = {}
    seen_groups: dict[str, list] = {}
    for c in enc.combatants:
        if c.group is not None and c.group in seen_groups:
            results[c.id] = seen_groups[c.group]
            continue
        if c.id in typed:
            entry = [typed[c.id], 0, None]
        elif c.initiative is not None and not reroll_all:
            entry = [c.initiative, c.tiebreak, None]
        else:
            value, tiebreak, text = system.roll_initiative(c, rng)
            entry = [value, tiebreak, text]
        results[c.id] = entry
        if c.group is not None:
            seen_groups[c.group] = entry
    system.break_ties(enc, results, rng)
    return results


def _rng(rng: Rng | None) -> Rng:
    if rng is None:
        import random

        return random.Random()
    return rng


LIMITS = {"name": 200, "notes": 5000, "hp": 1_000_000, "init": 1000}
MAX_COMBATANTS = 500  # in one encounter: where the user adds and where a file is read
NUMBER_FIELDS = {  # a combatant's numbers as the user types them: (label, lowest, highest)
    "hp": ("HP", -LIMITS["hp"], LIMITS["hp"]), "max_hp": ("Max HP", 1, LIMITS["hp"]),
    "temp_hp": ("Temporary HP", 0, LIMITS["hp"]), "init_mod": ("Initiative modifier", -LIMITS["init"], LIMITS["init"]),
    "initiative": ("Initiative", -LIMITS["init"], LIMITS["init"]),
}


def too_many_combatants(count: int) -> str:
    """The one message for the combatant limit, whether typed in or read from a file."""
    return f"An encounter holds at most {MAX_COMBATANTS} combatants ({count:,} would be too many)."


def valid_stat(value: Any) -> bool:
    """A stat or option value: a flag, a whole number within the HP bound, or short text."""
    return (isinstance(value, bool) or value is None or (isinstance(value, int) and abs(value) <= LIMITS["hp"])
            or (isinstance(value, str) and len(value) <= 100))


def validated_fields(fields: dict) -> dict:
    """Check what a user typed for a combatant; raise RuleError with a plain message."""
    if not isinstance(fields, dict):
        raise RuleError("A combatant's fields are unreadable.")
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key in ("name", "notes"):
            text = clean_text(str(value)) if value is not None else ""
            if key == "name" and not text:
                raise RuleError("A combatant needs a name.")
            if len(text) > LIMITS[key]:
                raise RuleError(f"The {key} is too long (at most {LIMITS[key]} characters).")
            out[key] = text
        elif key == "side":
            if value not in SIDES:
                raise RuleError("Side must be party or opponents.")
            out[key] = value
        elif key == "pc":
            out[key] = bool(value)
        elif key in NUMBER_FIELDS:
            if value is None or value == "":
                out[key] = None if key in ("hp", "max_hp", "initiative") else 0
                continue
            label, low, high = NUMBER_FIELDS[key]
            try:
                number = int(value)
            except (TypeError, ValueError):
                raise RuleError(f"{label} must be a whole number.") from None
            if not low <= number <= high:
                raise RuleError(f"{label} must be from {low:,} to {high:,}.")
            out[key] = number
        elif key == "stats":
            if not isinstance(value, dict) or len(value) > 200:
                raise RuleError("A combatant's stats are unreadable.")
            stats = {}
            for k, v in value.items():
                if valid_stat(v):
                    stats[str(k)[:40]] = v
                else:
                    raise RuleError(f"{str(k)[:40]} must be a whole number up to {LIMITS['hp']:,}.")
            out[key] = stats
        else:
            raise RuleError(f"Unknown combatant field {key!r}.")
    return out


# -- applying actions (pure) ---------------------------------------------------------------

def apply_action(enc: Encounter, action: Action) -> tuple[Encounter, tuple[Event, ...]]:
    """Apply one resolved action; returns the new encounter and what happened."""
    handler = enc.rules.actions.get(action.kind) or _HANDLERS.get(action.kind)
    if handler is None:
        raise RuleError(f"Unknown action {action.kind!r}.")
    return handler(enc, action.args)


def _ev(enc: Encounter, kind: str, text: str, roll: str | None = None, who: str | None = None) -> Event:
    return Event(kind, enc.round, text, roll, who)


def _with(enc: Encounter, combatant: Combatant) -> Encounter:
    return replace(enc, combatants=tuple(combatant if c.id == combatant.id else c for c in enc.combatants))


def _add(enc: Encounter, args: dict):
    fields = validated_fields(args["combatant"])
    ids = args["ids"]
    count = len(ids)
    if not (1 <= count <= 50 and all(isinstance(i, str) and _ID.match(i) for i in ids)):
        raise RuleError("A new combatant needs a fresh id.")
    if any(c.id in ids for c in enc.combatants):
        raise RuleError("A new combatant's id is already taken.")
    if len(enc.combatants) + count > MAX_COMBATANTS:
        raise RuleError(too_many_combatants(len(enc.combatants) + count))
    stats = tuple(sorted((fields.pop("stats", None) or {}).items()))
    if fields.get("hp") is None and fields.get("max_hp") is not None:
        fields["hp"] = fields["max_hp"]
    if fields.get("max_hp") is None and fields.get("hp") is not None:
        fields["max_hp"] = fields["hp"]
    rolled = args.get("rolled") or {}
    if rolled:
        fields["initiative"] = rolled["value"]
        fields["tiebreak"] = rolled["tiebreak"]
    name = fields.pop("name")
    new = [
        Combatant(id=cid, name=f"{name} {i + 1}" if count > 1 else name, group=args.get("group"), stats=stats, **fields)
        for i, cid in enumerate(ids)
    ]
    seq = max(enc.seq, *(int(cid[1:]) for cid in ids))
    events = [_ev(enc, "added", f"{new[0].name if count == 1 else f'{count} × {name}'} joined the fight", rolled.get("roll"))]
    if enc.started:
        # Mid-fight: slot in by initiative, after everyone with the same or higher.
        position = len(enc.combatants)
        init = new[0].initiative if new[0].initiative is not None else -10**9
        for i, c in enumerate(enc.combatants):
            if (c.initiative if c.initiative is not None else -10**9) < init:
                position = i
                break
        combatants = enc.combatants[:position] + tuple(new) + enc.combatants[position:]
    else:
        combatants = enc.combatants + tuple(new)
    return replace(enc, combatants=combatants, seq=seq), tuple(events)


def _update(enc: Encounter, args: dict):
    c = enc.get(args["id"])
    fields = validated_fields(args.get("fields", {}))
    stats = fields.pop("stats", None)
    updated = replace(c, **fields)
    if stats is not None:
        updated = replace(updated, stats=tuple(sorted({**dict(c.stats), **stats}.items())))
    if updated.max_hp is not None and updated.hp is not None and updated.hp > updated.max_hp and "hp" not in fields:
        updated = replace(updated, hp=updated.max_hp)
    new = _with(enc, updated)
    if enc.started and updated.initiative != c.initiative and enc.rules.turn_mode != "sides":
        new = _resort(new, updated)
    return new, (_ev(enc, "edited", f"{updated.name} edited", who=c.id),)


def _resort(enc: Encounter, moved: Combatant) -> Encounter:
    """A combatant's initiative changed mid-fight: it (and its group) move to where the system's
    order puts them, after everyone who sorts the same or before; the others keep their order
    (delays included) and whose turn it is does not change."""
    movers = [x for x in enc.combatants if x.id == moved.id or (moved.group is not None and x.group == moved.group)]
    rest = [x for x in enc.combatants if x not in movers]
    key = enc.rules.order_key(replace(moved, tiebreak=-10**9))
    position = next((i for i, x in enumerate(rest) if enc.rules.order_key(x) > key), len(rest))
    return replace(enc, combatants=tuple(rest[:position] + movers + rest[position:]))


def _remove(enc: Encounter, args: dict):
    c = enc.get(args["id"])
    combatants = tuple(x for x in enc.combatants if x.id != c.id)
    active = enc.active_id
    events = [_ev(enc, "removed", f"{c.name} left the fight", who=c.id)]
    if enc.active_id == c.id:
        unit = active_unit(enc)
        rest = [x for x in unit if x.id != c.id]
        if rest:
            active = rest[0].id
        else:
            # The turn passes on to whoever was next; the round may roll over.
            nxt, nxt_events = _advance(enc, forward=True, process=False)
            active = nxt.active_id if nxt.active_id != c.id else None
            enc = replace(enc, round=nxt.round)
            events.extend(e for e in nxt_events if e.kind == "round")
    # Conditions anchored on the removed combatant no longer have a clock: they last until removed.
    cleaned = []
    for x in combatants:
        conds = tuple(
            replace(k, duration=Duration()) if k.duration.anchor_id == c.id else k for k in x.conditions
        )
        cleaned.append(replace(x, conditions=conds) if conds != x.conditions else x)
    if not cleaned:
        active = None
    return replace(enc, combatants=tuple(cleaned), active_id=active), tuple(events)


def _start(enc: Encounter, args: dict):
    if enc.rules.turn_mode == "sides":
        from . import sides

        return sides.start(enc, args)
    results = args["initiative"]
    updated = []
    events = []
    for c in enc.combatants:
        value, tiebreak, text = results[c.id]
        if not all(isinstance(x, int) and not isinstance(x, bool) and abs(x) <= 10**6 for x in (value, tiebreak)):
            raise RuleError("An initiative result is out of range.")
        updated.append(replace(c, initiative=value, tiebreak=tiebreak))
        if text and (c.group is None or c.id == next(x.id for x in enc.combatants if x.group == c.group)):
            events.append(Event("initiative", 1, f"{c.name if c.group is None else c.name.rsplit(' ', 1)[0]} rolled {value} for initiative", text, c.id))
        elif not text:
            events.append(Event("initiative", 1, f"{c.name} has initiative {value}", None, c.id))
    ordered = tuple(sorted(updated, key=enc.rules.order_key))
    ordered = _keep_groups_together(ordered)
    enc = replace(enc, combatants=ordered, round=1, active_id=None, turn=())
    enc, begun = enc.rules.begin_combat(enc, args)
    events.extend(begun)
    first = next((u for u in turn_units(enc) if not _skipped(enc, u)), turn_units(enc)[0])
    enc = replace(enc, active_id=first[0].id)
    events.insert(0, Event("round", 1, "The fight begins: round 1"))
    enc, start_events = _turn_starts(enc)
    return enc, tuple(events) + start_events


def _keep_groups_together(ordered: tuple[Combatant, ...]) -> tuple[Combatant, ...]:
    out: list[Combatant] = []
    placed: set[str] = set()
    for c in ordered:
        if c.id in placed:
            continue
        members = [c] if c.group is None else [x for x in ordered if x.group == c.group]
        out.extend(members)
        placed.update(x.id for x in members)
    return tuple(out)


def _turn_starts(enc: Encounter) -> tuple[Encounter, tuple[Event, ...]]:
    unit = active_unit(enc)
    ids = {c.id for c in unit}
    events = [Event("turn", enc.round, f"{_unit_name(unit)}'s turn", who=unit[0].id if unit else None)]
    # Per-round flags (reaction used ...) reset when the combatant's own turn starts.
    if enc.rules.clear_flags_at_turn_start:
        enc = replace(enc, combatants=tuple(replace(c, flags=()) if c.id in ids and c.flags else c for c in enc.combatants))
    enc = enc.rules.on_turn_start(enc)
    enc, expired = _tick(enc, "start", ids)
    return enc, tuple(events) + expired


def _unit_name(unit: Iterable[Combatant]) -> str:
    unit = list(unit)
    if not unit:
        return "Nobody"
    if len(unit) == 1:
        return unit[0].name
    base = unit[0].name.rsplit(" ", 1)[0]
    return f"{base} ×{len(unit)}"


def _tick(enc: Encounter, event: str, anchors: set[str]) -> tuple[Encounter, tuple[Event, ...]]:
    """Count down conditions whose clock is this turn's start or end; expire those at zero."""
    names = enc.names()
    events: list[Event] = []
    combatants = []
    for c in enc.combatants:
        kept = []
        for k in c.conditions:
            d = k.duration
            if d.event == event and d.anchor_id in anchors:
                if d.remaining <= 1:
                    when = "start" if event == "start" else "end"
                    events.append(Event("condition_expired", enc.round,
                                        f"{k.name} on {c.name} ended ({when} of {names.get(d.anchor_id or '', '?')}'s turn)", who=c.id))
                    continue
                k = replace(k, duration=replace(d, remaining=d.remaining - 1))
            kept.append(k)
        combatants.append(replace(c, conditions=tuple(kept)) if len(kept) != len(c.conditions) or any(a is not b for a, b in zip(kept, c.conditions)) else c)
    return replace(enc, combatants=tuple(combatants)), tuple(events)


def _advance(enc: Encounter, forward: bool, process: bool = True, rolls: dict | None = None) -> tuple[Encounter, tuple[Event, ...]]:
    units = turn_units(enc)
    if not units:
        return enc, ()
    index = next((i for i, u in enumerate(units) if any(c.id == enc.active_id for c in u)), -1)
    events: list[Event] = []
    if process and index >= 0:
        enc, ended = _tick(enc, "end", {c.id for c in units[index]})
        events.extend(ended)
        units = turn_units(enc)
    rnd = enc.round
    step = 1 if forward else -1
    for _ in range(len(units) + 1):
        index += step
        if index >= len(units):
            index = 0
            rnd += 1
            events.append(Event("round", rnd, f"Round {rnd}"))
            if process:
                enc, new_round_events = enc.rules.on_new_round(replace(enc, round=rnd), rolls)
                events.extend(new_round_events)
                units = turn_units(enc)
        elif index < 0:
            if rnd <= 1:
                return enc, tuple(events)
            index = len(units) - 1
            rnd -= 1
            events.append(Event("round", rnd, f"Back to round {rnd}"))
        if not _skipped(enc, units[index]):
            break
    enc = replace(enc, round=rnd, active_id=units[index][0].id)
    if process:
        enc, started = _turn_starts(enc)
        events.extend(started)
    else:
        events.append(Event("turn", rnd, f"Back to {_unit_name(units[index])}'s turn", who=units[index][0].id))
    return enc, tuple(events)


def _next(enc: Encounter, args: dict):
    if not enc.started:
        raise RuleError("Start the fight first.")
    if enc.rules.turn_mode == "sides":
        from . import sides

        return sides.advance(enc, args)
    return _advance(enc, forward=True, rolls=args.get("initiative"))


def _previous(enc: Encounter, args: dict):
    if not enc.started:
        raise RuleError("Start the fight first.")
    if enc.rules.turn_mode == "sides":
        raise RuleError("With side initiative, use Undo to go back.")
    return _advance(enc, forward=False, process=False)


def _act_now(enc: Encounter, args: dict):
    from . import sides

    if enc.rules.turn_mode != "sides":
        raise RuleError("Only side initiative lets anyone of a side act next.")
    return sides.act_now(enc, args)


def _end(enc: Encounter, args: dict):
    if not enc.started:
        raise RuleError("No fight is running.")
    enc2 = enc.rules.end_combat(enc)
    return replace(enc2, round=0, active_id=None, turn=()), (_ev(enc, "end", f"The fight ended after {enc.round} round{'s' * (enc.round != 1)}"),)


def _delay(enc: Encounter, args: dict):
    """Move a combatant (its whole group) to act right after another one in this round."""
    if not enc.started:
        raise RuleError("Start the fight first.")
    mover = enc.get(args["id"])
    after = enc.get(args["after"])
    movers = [c for c in enc.combatants if c.id == mover.id or (mover.group is not None and c.group == mover.group)]
    if after in movers:
        raise RuleError("A combatant cannot delay until after itself.")
    was_active = any(c.id == enc.active_id for c in movers)
    rest = [c for c in enc.combatants if c not in movers]
    target_unit = next(u for u in turn_units(replace(enc, combatants=tuple(rest))) if after in u)
    position = rest.index(target_unit[-1]) + 1
    moved = [replace(c, initiative=after.initiative, tiebreak=after.tiebreak) for c in movers]
    combatants = tuple(rest[:position] + moved + rest[position:])
    events = [_ev(enc, "delay", f"{_unit_name(movers)} delays until after {after.name}", who=mover.id)]
    if was_active:
        # The delayer's turn ends; whoever came next now acts (the mover's conditions do not tick).
        old_units = turn_units(enc)
        idx = next(i for i, u in enumerate(old_units) if any(c.id == enc.active_id for c in u))
        nxt = None
        for u in old_units[idx + 1:] + old_units[:idx]:
            if u[0] not in movers and not _skipped(enc, u):
                nxt = u
                break
        enc = replace(enc, combatants=combatants, active_id=(nxt[0].id if nxt else movers[0].id))
        enc, started = _turn_starts(enc)
        events.extend(started)
        return enc, tuple(events)
    return replace(enc, combatants=combatants), tuple(events)


def _number(args: dict, key: str = "amount") -> int:
    try:
        value = int(args[key])
    except (KeyError, TypeError, ValueError):
        raise RuleError("Enter a whole number.") from None
    if not 0 <= value <= LIMITS["hp"]:
        raise RuleError(f"Enter a number from 0 to {LIMITS['hp']:,}.")
    return value


def _hp_target(enc: Encounter, args: dict) -> tuple[Combatant, int, int]:
    """(the combatant, its hit points, the amount); refused for a combatant without hit points."""
    c = enc.get(args["id"])
    amount = _number(args)
    if c.hp is None:
        raise RuleError(f"{c.name} has no hit points to track.")
    return c, c.hp, amount


def _damage(enc: Encounter, args: dict):
    c, before, amount = _hp_target(enc, args)
    absorbed = min(c.temp_hp, amount)
    hp = before - (amount - absorbed)
    floor = enc.rules.hp_floor
    if floor is not None:
        hp = max(floor, hp)
    updated = replace(c, hp=hp, temp_hp=c.temp_hp - absorbed)
    source = args.get("source")
    by = f" from {enc.get(source).name}" if source and any(x.id == source for x in enc.combatants) else ""
    text = f"{c.name} took {amount} damage{by}" + (f" ({absorbed} to temporary HP)" if absorbed else "")
    events = [_ev(enc, "damage", text, args.get("roll"), c.id)]
    if enc.rules.is_down(updated) and not enc.rules.is_down(c):
        events.append(_ev(enc, "down", f"{c.name} is down", who=c.id))
    return _with(enc, updated), tuple(events)


def _heal(enc: Encounter, args: dict):
    c, before, amount = _hp_target(enc, args)
    base = max(before, 0) if enc.rules.hp_floor is not None else before
    hp = base + amount
    if c.max_hp is not None:
        hp = min(hp, c.max_hp)
    updated = replace(c, hp=hp)
    events = [_ev(enc, "heal", f"{c.name} healed {hp - before}", args.get("roll"), c.id)]
    if enc.rules.is_down(c) and not enc.rules.is_down(updated):
        events.append(_ev(enc, "up", f"{c.name} is back up", who=c.id))
    return _with(enc, updated), tuple(events)


def _temp(enc: Encounter, args: dict):
    c = enc.get(args["id"])
    amount = _number(args)
    # Temporary hit points do not stack: the larger stays.
    updated = replace(c, temp_hp=max(c.temp_hp, amount))
    return _with(enc, updated), (_ev(enc, "temp_hp", f"{c.name} has {updated.temp_hp} temporary HP", who=c.id),)


def _add_condition(enc: Encounter, args: dict):
    c = enc.get(args["id"])
    name = clean_text(str(args.get("name", "")))
    if not name:
        raise RuleError("A condition needs a name.")
    if len(name) > 60:
        raise RuleError("A condition name is at most 60 characters.")
    enc.rules.check_condition(name)
    kind = args.get("until", "never")
    anchor = args.get("anchor") or enc.active_id or c.id
    if anchor not in enc.names():
        raise RuleError("The combatant that times this condition is not in the fight.")
    if kind == "rounds":
        rounds = _number(args, "rounds")
        if not 1 <= rounds <= 1000:
            raise RuleError("A duration is 1 to 1,000 rounds.")
        duration = Duration("start", anchor, rounds)
    elif kind == "start":
        duration = Duration("start", anchor, 1)
    elif kind == "end":
        # "Until the end of X's next turn": during X's own turn, the current end does not count.
        in_turn = enc.started and anchor in {x.id for x in active_unit(enc)}
        duration = Duration("end", anchor, 2 if in_turn else 1)
    elif kind == "never":
        duration = Duration()
    else:
        raise RuleError(f"Unknown duration {kind!r}.")
    seq = enc.seq + 1
    cond = Condition(id=f"k{seq}", name=name, duration=duration, source_id=args.get("source"), note=str(args.get("note", ""))[:200])
    updated = replace(c, conditions=c.conditions + (cond,))
    text = f"{c.name} is {name} ({duration.describe(enc.names())})"
    return replace(_with(enc, updated), seq=seq), (_ev(enc, "condition", text, who=c.id),)


def _remove_condition(enc: Encounter, args: dict):
    c = enc.get(args["id"])
    cond = next((k for k in c.conditions if k.id == args["condition"]), None)
    if cond is None:
        raise RuleError("That condition is already gone.")
    updated = replace(c, conditions=tuple(k for k in c.conditions if k.id != cond.id))
    return _with(enc, updated), (_ev(enc, "condition_removed", f"{cond.name} removed from {c.name}", who=c.id),)


def _flag(enc: Encounter, args: dict):
    c = enc.get(args["id"])
    flag = str(args["flag"])
    flags = tuple(sorted(set(c.flags) | {flag})) if args.get("on", True) else tuple(f for f in c.flags if f != flag)
    return _with(enc, replace(c, flags=flags)), (_ev(enc, "flag", f"{c.name}: {flag.replace('_', ' ')} {'on' if args.get('on', True) else 'off'}", who=c.id),)


def _option(enc: Encounter, args: dict):
    key, value = str(args["key"]), args["value"]
    if key == "skip_down" and value not in SKIP_DOWN:
        raise RuleError("skip_down is none, npcs or all.")
    enc.rules.check_option(key, value)
    options = tuple(sorted({**dict(enc.options), key: value}.items()))
    return replace(enc, options=options), (_ev(enc, "option", f"Option {key} set to {value}"),)


def _rename(enc: Encounter, args: dict):
    name = clean_text(str(args.get("name", "")))
    if not name or len(name) > 100:
        raise RuleError("An encounter name is 1 to 100 characters.")
    return replace(enc, name=name), (_ev(enc, "rename", f"Encounter renamed to {name}"),)


def _set_initiative(enc: Encounter, args: dict):
    c = enc.get(args["id"])
    value = int(args["value"])
    if abs(value) > LIMITS["init"]:
        raise RuleError("Initiative must be between -1,000 and 1,000.")
    movers = [x for x in enc.combatants if x.id == c.id or (c.group is not None and x.group == c.group)]
    moved = [replace(x, initiative=value) for x in movers]
    rest = [x for x in enc.combatants if x not in movers]
    if enc.started:
        position = len(rest)
        for i, x in enumerate(rest):
            if (x.initiative or 0) < value:
                position = i
                break
        combatants = tuple(rest[:position] + moved + rest[position:])
    else:
        by_id = {m.id: m for m in moved}
        combatants = tuple(by_id.get(x.id, x) for x in enc.combatants)
    return replace(enc, combatants=combatants), (_ev(enc, "initiative", f"{c.name}'s initiative set to {value}", who=c.id),)


_HANDLERS = {
    "add_combatant": _add,
    "update_combatant": _update,
    "remove_combatant": _remove,
    "start_combat": _start,
    "next_turn": _next,
    "previous_turn": _previous,
    "end_combat": _end,
    "delay": _delay,
    "damage": _damage,
    "heal": _heal,
    "temp_hp": _temp,
    "add_condition": _add_condition,
    "remove_condition": _remove_condition,
    "set_flag": _flag,
    "set_option": _option,
    "rename": _rename,
    "set_initiative": _set_initiative,
    "act_now": _act_now,
}


# -- undo / redo ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Timeline:
    """An encounter's whole history: the state before the first action, every action, and how many
    are applied (the rest can be redone). States are replayed once and kept (structural sharing)."""

    base: Encounter
    actions: tuple[Action, ...] = ()
    cursor: int = 0
    states: tuple[Encounter, ...] = ()
    logs: tuple[tuple[Event, ...], ...] = ()

    @staticmethod
    def start(base: Encounter, actions: Iterable[Action] = (), cursor: int | None = None) -> "Timeline":
        actions = tuple(actions)
        states = [base]
        logs: list[tuple[Event, ...]] = []
        for action in actions:
            state, events = apply_action(states[-1], action)
            states.append(state)
            logs.append(events)
        cur = len(actions) if cursor is None else cursor
        if not 0 <= cur <= len(actions):
            raise RuleError("The saved undo position is out of range.")
        return Timeline(base, actions, cur, tuple(states), tuple(logs))

    @property
    def present(self) -> Encounter:
        return self.states[self.cursor]

    @property
    def can_undo(self) -> bool:
        return self.cursor > 0

    @property
    def can_redo(self) -> bool:
        return self.cursor < len(self.actions)

    def do(self, action: Action) -> "Timeline":
        state, events = apply_action(self.present, action)
        n = self.cursor
        return Timeline(
            self.base, self.actions[:n] + (action,), n + 1, self.states[: n + 1] + (state,), self.logs[:n] + (events,)
        )

    def undo(self) -> "Timeline":
        if not self.can_undo:
            raise RuleError("Nothing to undo.")
        return replace(self, cursor=self.cursor - 1)

    def redo(self) -> "Timeline":
        if not self.can_redo:
            raise RuleError("Nothing to redo.")
        return replace(self, cursor=self.cursor + 1)

    def log(self) -> list[Event]:
        return [e for events in self.logs[: self.cursor] for e in events]

    def last_action(self) -> Action | None:
        return self.actions[self.cursor - 1] if self.cursor else None

    def trimmed(self, keep: int) -> "Timeline":
        """Forget undo history older than the last `keep` actions (asked of the user first)."""
        start = max(0, self.cursor - keep)
        return Timeline(self.states[start], self.actions[start: self.cursor], self.cursor - start,
                        self.states[start: self.cursor + 1], self.logs[start: self.cursor])
