"""Encounter state as frozen data, and the pure transitions of a fight.

A change is an `Action` (plain JSON-ready data, with every die already rolled), applied by
`apply_action(encounter, action) -> (encounter, events)`. Randomness happens only in `resolve()`,
which turns what the user asked for into such an action; so a list of actions replays exactly, which
is what undo, redo and saving rely on (see `Timeline`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from .core_args import (
    Added,
    Batch,
    Delay,
    Edit,
    Flag,
    Flow,
    GoneCondition,
    HitPoints,
    Initiative,
    Join,
    NewCondition,
    Nothing,
    Option,
    Rename,
    Target,
    Temporary,
    as_args,
)
from .damage import give_temporary, heal, take_damage
from .damage_types import parts_from_args
from .dice import Rng, roll
from .errors import RuleError
from .model import (
    ID_PATTERN,
    LIMITS,
    MAX_COMBATANTS,
    NUMBER_FIELDS,
    SIDES,
    SKIP_DOWN,
    Action,
    Combatant,
    Condition,
    Defenses,
    Duration,
    Encounter,
    Event,
    NamedAttack,
    Outcome,
    too_many_combatants,
    valid_stat,
    validated_fields,
)
from .record import Record
from .rules import CORE_KINDS, ActionRule, get_system, system_of, typed_rule
from .save_effects import SaveEffect
from .text import clean_text
from .tool_actions import TOOL_ACTIONS
from .tools import tools_joining
from .turns import active_unit, advance, end_of_next_turn, turn_starts, turn_units, unit_name, unit_skipped

__all__ = [
    "SIDES", "SKIP_DOWN", "BATCHABLE", "MAX_BATCH", "Duration", "Condition", "Combatant", "Encounter", "Event", "Action", "Timeline",
    "new_encounter", "resolve", "request", "apply_action", "turn_units", "active_unit", "LIMITS", "MAX_COMBATANTS", "NUMBER_FIELDS",
    "too_many_combatants", "valid_stat", "validated_fields",
]


def new_encounter(eid: str, name: str = "Encounter", system: str = "generic", **options: Any) -> Encounter:
    rules = get_system(system)  # unknown systems fail here, with a clear message
    opts = {"skip_down": "npcs", **rules.new_options, **options}
    return Encounter(id=eid, name=name, system=system, options=tuple(sorted(opts.items())))


# -- resolving requests into actions (the only place that rolls) ----------------------------

def resolve(enc: Encounter, kind: str, args: dict[str, Any] | None = None, rng: Rng | None = None) -> Action:
    """Turn a request into a fully determined action: rolls dice, picks ids."""
    args = dict(args or {})
    rng = _rng(rng)  # one generator for the whole request (a fresh one when none is given)
    rule = _rule(enc, kind)
    return Action(kind, rule.resolve(enc, args, rng) if rule is not None and rule.resolve is not None else args)


def request(enc: Encounter, kind: str, args: Record, rng: Rng | None = None) -> Action:
    """A request made of its typed record (pyengine/core_args.py, or the system's own) as a fully
    determined action. A record that is not the kind's is refused, not read as a wrong one."""
    rule = _rule(enc, kind)
    if rule is None:
        raise RuleError(f"Unknown action {kind!r}.")
    if rule.request is not None and type(args) is not rule.request:
        raise RuleError(f"{kind} takes {rule.request.__name__}, not {type(args).__name__}.")
    return resolve(enc, kind, as_args(args), rng)


def _rule(enc: Encounter, kind: str) -> ActionRule | None:
    """The core action of that kind, else the encounter's system's (which may not shadow a core one)."""
    return CORE.get(kind) or system_of(enc).actions.get(kind)


def _resolve_add(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    count = int(args.get("count", 1))
    if not 1 <= count <= 50:
        raise RuleError("Add between 1 and 50 combatants at once.")
    if len(enc.combatants) + count > MAX_COMBATANTS:
        raise RuleError(too_many_combatants(len(enc.combatants) + count))
    base = validated_fields(args.get("combatant", {}))
    ids = [f"c{enc.seq + i + 1}" for i in range(count)]
    group = f"g{enc.seq + 1}" if count > 1 else None
    rolls: dict[str, Any] = {}
    if enc.started and base.get("initiative") is None:
        proto = Combatant(id=ids[0], name=base.get("name", "?"), init_mod=base.get("init_mod", 0))
        value, tiebreak, text = system_of(enc).roll_initiative(proto, rng)
        rolls = {"value": value, "tiebreak": tiebreak, "roll": text}
    hp: dict[str, Any] = {}
    if args.get("roll_hp"):  # a creature's hit dice, rolled for each member (its average otherwise)
        rolled_hp = [roll(str(args["roll_hp"]), rng) for _ in ids]
        hp = {"hp_rolls": [max(1, min(r.total, LIMITS["hp"])) for r in rolled_hp], "hp_roll": "; ".join(r.text for r in rolled_hp)[:2000]}
    return {"ids": ids, "group": group, "combatant": base, "count": count, **({"rolled": rolls} if rolls else {}), **hp}


def _resolve_batch(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {"actions": [{"kind": k, "args": a} for k, a in _batch_requests(args)]}


def _resolve_start(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    if not enc.combatants:
        raise RuleError("Add combatants before starting the fight.")
    system = system_of(enc)
    return system.flow.resolve_start(system, enc, args, rng)


def _resolve_next(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    system = system_of(enc)
    return system.flow.resolve_next(system, enc, args, rng)


def _rng(rng: Rng | None) -> Rng:
    return random.Random() if rng is None else rng


# -- applying actions (pure) ---------------------------------------------------------------

def apply_action(enc: Encounter, action: Action) -> tuple[Encounter, tuple[Event, ...]]:
    """Apply one resolved action; returns the new encounter and what happened."""
    rule = _rule(enc, action.kind)
    if rule is None:
        raise RuleError(f"Unknown action {action.kind!r}.")
    return rule.apply(enc, action.args)


def _with(enc: Encounter, combatant: Combatant) -> Encounter:
    return enc.with_combatant(combatant)


def _add(enc: Encounter, a: Added) -> Outcome:
    fields = validated_fields(a.combatant)
    ids = a.ids
    count = len(ids)
    if not (1 <= count <= 50 and all(isinstance(i, str) and ID_PATTERN.match(i) for i in ids)):
        raise RuleError("A new combatant needs a fresh id.")
    if any(c.id in ids for c in enc.combatants):
        raise RuleError("A new combatant's id is already taken.")
    if len(enc.combatants) + count > MAX_COMBATANTS:
        raise RuleError(too_many_combatants(len(enc.combatants) + count))
    stats = tuple(sorted((fields.pop("stats", None) or {}).items()))
    specs = fields.pop("tools", None) or []
    _typed_fields(fields)
    if fields.get("hp") is None and fields.get("max_hp") is not None:
        fields["hp"] = fields["max_hp"]
    if fields.get("max_hp") is None and fields.get("hp") is not None:
        fields["max_hp"] = fields["hp"]
    rolled = a.rolled or {}
    if rolled:
        fields["initiative"] = rolled["value"]
        fields["tiebreak"] = rolled["tiebreak"]
    name = fields.pop("name")
    seq = max(enc.seq, *(int(cid[1:]) for cid in ids))
    new = []
    hp_rolls = a.hp_rolls or []
    if hp_rolls and (len(hp_rolls) != count or not all(isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= LIMITS["hp"] for h in hp_rolls)):
        raise RuleError("Rolled hit points are one whole number for each member.")
    for i, cid in enumerate(ids):  # a saved opponent's turn tools, each member its own (and its own rolled HP)
        tools, seq = tools_joining(specs, system_of(enc).turn_tools, seq)
        own = {"hp": hp_rolls[i], "max_hp": hp_rolls[i]} if hp_rolls else {}
        new.append(Combatant(id=cid, name=f"{name} {i + 1}" if count > 1 else name, group=a.group, stats=stats, tools=tools, **{**fields, **own}))
    events = [enc.event("added", f"{new[0].name if count == 1 else f'{count} × {name}'} joined the fight"
                        + (f" (HP rolled: {', '.join(map(str, hp_rolls))})" if hp_rolls else ""), rolled.get("roll") or a.hp_roll)]
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


def _typed_fields(fields: dict[str, Any]) -> None:
    """A combatant's named attacks and defenses (checked by validated_fields) as the model's values."""
    if "attacks" in fields:
        fields["attacks"] = tuple(NamedAttack.read(x) for x in fields["attacks"])
    if "defenses" in fields:
        fields["defenses"] = Defenses.read(fields["defenses"])
    if "save_actions" in fields:
        fields["save_actions"] = tuple(SaveEffect.read(x) for x in fields["save_actions"])


def _update(enc: Encounter, a: Edit) -> Outcome:
    c = enc.get(a.id)
    fields = validated_fields(a.fields)
    if "tools" in fields:
        raise RuleError("Turn tools are given and taken away on the combatant's sheet, not by an edit.")
    stats = fields.pop("stats", None)
    _typed_fields(fields)
    updated = replace(c, **fields)
    if stats is not None:
        updated = replace(updated, stats=tuple(sorted({**dict(c.stats), **stats}.items())))
    if updated.max_hp is not None and updated.hp is not None and updated.hp > updated.max_hp and "hp" not in fields:
        updated = replace(updated, hp=updated.max_hp)
    new = _with(enc, updated)
    if enc.started and updated.initiative != c.initiative and system_of(enc).flow.ordered_by_initiative:
        new = _resort(new, updated)
    return new, (enc.event("edited", f"{updated.name} edited", who=c.id),)


def _resort(enc: Encounter, moved: Combatant) -> Encounter:
    """A combatant's initiative changed mid-fight: it (and its group) move to where the system's
    order puts them, after everyone who sorts the same or before; the others keep their order
    (delays included) and whose turn it is does not change."""
    movers = [x for x in enc.combatants if x.id == moved.id or (moved.group is not None and x.group == moved.group)]
    rest = [x for x in enc.combatants if x not in movers]
    key = system_of(enc).order_key(replace(moved, tiebreak=-10**9))
    position = next((i for i, x in enumerate(rest) if system_of(enc).order_key(x) > key), len(rest))
    return replace(enc, combatants=tuple(rest[:position] + movers + rest[position:]))


def _remove(enc: Encounter, a: Target) -> Outcome:
    c = enc.get(a.id)
    combatants = tuple(x for x in enc.combatants if x.id != c.id)
    active = enc.active_id
    events = [enc.event("removed", f"{c.name} left the fight", who=c.id)]
    if enc.active_id == c.id:
        unit = active_unit(enc)
        rest = [x for x in unit if x.id != c.id]
        if rest:
            active = rest[0].id
        else:
            # The turn passes on to whoever was next; the round may roll over.
            nxt, nxt_events = advance(enc, system_of(enc), forward=True, process=False)
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


def _start(enc: Encounter, args: dict[str, Any]) -> Outcome:
    system = system_of(enc)
    return system.flow.start(system, enc, args)


def _next(enc: Encounter, args: dict[str, Any]) -> Outcome:
    if not enc.started:
        raise RuleError("Start the fight first.")
    system = system_of(enc)
    return system.flow.next(system, enc, args)


def _previous(enc: Encounter, a: Nothing) -> Outcome:
    if not enc.started:
        raise RuleError("Start the fight first.")
    system = system_of(enc)
    return system.flow.previous(system, enc)


def _act_now(enc: Encounter, a: Target) -> Outcome:
    system = system_of(enc)
    return system.flow.act_now(system, enc, a.id)


def _end(enc: Encounter, a: Nothing) -> Outcome:
    if not enc.started:
        raise RuleError("No fight is running.")
    enc2 = system_of(enc).end_combat(enc)
    return replace(enc2, round=0, active_id=None, turn=()), (enc.event("end", f"The fight ended after {enc.round} round{'s' * (enc.round != 1)}"),)


def _delay(enc: Encounter, a: Delay) -> Outcome:
    """Move a combatant (its whole group) to act right after another one in this round."""
    if not enc.started:
        raise RuleError("Start the fight first.")
    mover = enc.get(a.id)
    after = enc.get(a.after)
    movers = [c for c in enc.combatants if c.id == mover.id or (mover.group is not None and c.group == mover.group)]
    if after in movers:
        raise RuleError("A combatant cannot delay until after itself.")
    was_active = any(c.id == enc.active_id for c in movers)
    rest = [c for c in enc.combatants if c not in movers]
    target_unit = next(u for u in turn_units(replace(enc, combatants=tuple(rest))) if after in u)
    position = rest.index(target_unit[-1]) + 1
    moved = [replace(c, initiative=after.initiative, tiebreak=after.tiebreak) for c in movers]
    combatants = tuple(rest[:position] + moved + rest[position:])
    events = [enc.event("delay", f"{unit_name(movers)} delays until after {after.name}", who=mover.id)]
    if was_active:
        # The delayer's turn ends; whoever came next now acts (the mover's conditions do not tick).
        old_units = turn_units(enc)
        idx = next(i for i, u in enumerate(old_units) if any(c.id == enc.active_id for c in u))
        nxt = None
        for u in old_units[idx + 1:] + old_units[:idx]:
            if u[0] not in movers and not unit_skipped(enc, system_of(enc), u):
                nxt = u
                break
        enc = replace(enc, combatants=combatants, active_id=(nxt[0].id if nxt else movers[0].id))
        enc, started = turn_starts(enc, system_of(enc))
        events.extend(started)
        return enc, tuple(events)
    return replace(enc, combatants=combatants), tuple(events)


def _resolve_delay(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """A new delay, where the system's rules allow holding a turn (a saved one still replays)."""
    if system_of(enc).no_delay:
        raise RuleError(system_of(enc).no_delay)
    return args


def _number(value: int | None) -> int:
    if value is None:
        raise RuleError("Enter a whole number.")
    if not 0 <= value <= LIMITS["hp"]:
        raise RuleError(f"Enter a number from 0 to {LIMITS['hp']:,}.")
    return value


def _hp_target(enc: Encounter, a: HitPoints) -> tuple[Combatant, int, int]:
    """(the combatant, its hit points, the amount); refused for a combatant without hit points."""
    c = enc.get(a.id)
    amount = _number(a.amount)
    if c.hp is None:
        raise RuleError(f"{c.name} has no hit points to track.")
    return c, c.hp, amount


def _damage(enc: Encounter, a: HitPoints) -> Outcome:
    c, _, amount = _hp_target(enc, a)
    return take_damage(enc, c, amount, a.source, a.roll, a.half, parts_from_args(a.parts))


def _heal(enc: Encounter, a: HitPoints) -> Outcome:
    c, _, amount = _hp_target(enc, a)
    return heal(enc, c, amount, a.roll)


def _temp(enc: Encounter, a: Temporary) -> Outcome:
    c = enc.get(a.id)
    amount = _number(a.amount)
    enc = give_temporary(enc, c, amount)
    return enc, (enc.event("temp_hp", f"{c.name} has {enc.get(c.id).temp_hp} temporary HP", who=c.id),)


def _add_condition(enc: Encounter, a: NewCondition) -> Outcome:
    c = enc.get(a.id)
    name = clean_text(a.name)
    if not name:
        raise RuleError("A condition needs a name.")
    if len(name) > 60:
        raise RuleError("A condition name is at most 60 characters.")
    system_of(enc).check_condition(name)
    kind = a.until
    anchor = a.anchor or enc.active_id or c.id
    if anchor not in enc.names():
        raise RuleError("The combatant that times this condition is not in the fight.")
    if kind == "rounds":
        rounds = _number(a.rounds)
        if not 1 <= rounds <= 1000:
            raise RuleError("A duration is 1 to 1,000 rounds.")
        duration = Duration("start", anchor, rounds)
    elif kind == "start":
        duration = Duration("start", anchor, 1)
    elif kind == "end":
        duration = end_of_next_turn(enc, anchor)
    elif kind == "never":
        duration = Duration()
    else:
        raise RuleError(f"Unknown duration {kind!r}.")
    seq = enc.seq + 1
    cond = Condition(id=f"k{seq}", name=name, duration=duration, source_id=a.source, note=clean_text(a.note)[:200])
    updated = replace(c, conditions=c.conditions + (cond,))
    text = f"{c.name} is {name} ({duration.describe(enc.names())})"
    return replace(_with(enc, updated), seq=seq), (enc.event("condition", text, who=c.id),)


def _remove_condition(enc: Encounter, a: GoneCondition) -> Outcome:
    c = enc.get(a.id)
    cond = next((k for k in c.conditions if k.id == a.condition), None)
    if cond is None:
        raise RuleError("That condition is already gone.")
    updated = replace(c, conditions=tuple(k for k in c.conditions if k.id != cond.id))
    return _with(enc, updated), (enc.event("condition_removed", f"{cond.name} removed from {c.name}", who=c.id),)


def _flag(enc: Encounter, a: Flag) -> Outcome:
    c = enc.get(a.id)
    flag = clean_text(a.flag)
    flags = tuple(sorted(set(c.flags) | {flag})) if a.on else tuple(f for f in c.flags if f != flag)
    words = _FLAG_WORDS.get((a.flag, a.on))
    said = words.replace("{name}", c.name) if words else f"{c.name}: {a.flag.replace('_', ' ')} {'on' if a.on else 'off'}"
    return _with(enc, replace(c, flags=flags)), (enc.event("flag", said, who=c.id),)


# What the log says of the flags that decide what the players see (pyengine/handoff.py).
_FLAG_WORDS = {
    ("hidden", True): "{name} is hidden from the players",
    ("hidden", False): "{name} is revealed to the players",
    ("unknown", True): "{name} is shown to the players as an unknown creature",
    ("unknown", False): "{name} is shown to the players by name",
}


def _option(enc: Encounter, a: Option) -> Outcome:
    key, value = a.key, a.value
    if key == "skip_down" and value not in SKIP_DOWN:
        raise RuleError("skip_down is none, npcs or all.")
    if key == "players_hp" and value not in ("words", "numbers"):
        raise RuleError("players_hp is words or numbers.")
    system_of(enc).check_option(key, value)
    options = tuple(sorted({**dict(enc.options), key: value}.items()))
    return replace(enc, options=options), (enc.event("option", f"Option {key} set to {value}"),)


def _rename(enc: Encounter, a: Rename) -> Outcome:
    name = clean_text(a.name)
    if not name or len(name) > 100:
        raise RuleError("An encounter name is 1 to 100 characters.")
    return replace(enc, name=name), (enc.event("rename", f"Encounter renamed to {name}"),)


def _set_initiative(enc: Encounter, a: Initiative) -> Outcome:
    c = enc.get(a.id)
    value = a.value
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
    return replace(enc, combatants=combatants), (enc.event("initiative", f"{c.name}'s initiative set to {value}", who=c.id),)


BATCHABLE = ("damage", "heal", "temp_hp", "add_condition", "remove_condition")
MAX_BATCH = 50


def _batch_requests(args: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    items = args.get("actions")
    if not isinstance(items, (list, tuple)) or not 1 <= len(items) <= MAX_BATCH:
        raise RuleError(f"Apply to 1 to {MAX_BATCH} combatants at once.")
    out = []
    for item in items:
        kind = item.get("kind") if isinstance(item, dict) else None
        if kind not in BATCHABLE or not isinstance(item.get("args", {}), dict):
            raise RuleError("Only damage, healing and conditions apply to several combatants at once.")
        out.append((str(kind), dict(item.get("args", {}))))
    return out


def _batch(enc: Encounter, a: Batch) -> Outcome:
    """Several combatants at once (a fireball on four goblins): one step to undo; refused whole
    if any part is refused."""
    events: list[Event] = []
    for kind, sub in _batch_requests({"actions": a.actions}):
        enc, more = CORE[kind].apply(enc, sub)
        events.extend(more)
    return enc, tuple(events)


# The tracker's own actions, built like a system's: kind -> ActionRule(apply, resolve). Their names
# are rules.CORE_KINDS, which no system may reuse.
CORE: dict[str, ActionRule] = {
    "batch": typed_rule(Batch, _batch, _resolve_batch),
    "add_combatant": typed_rule(Added, _add, _resolve_add, Join),
    "update_combatant": typed_rule(Edit, _update),
    "remove_combatant": typed_rule(Target, _remove),
    "start_combat": ActionRule(_start, _resolve_start, Flow),  # the flow's own arguments (rules.TurnFlow)
    "next_turn": ActionRule(_next, _resolve_next, Flow),
    "previous_turn": typed_rule(Nothing, _previous),
    "end_combat": typed_rule(Nothing, _end),
    "delay": typed_rule(Delay, _delay, _resolve_delay),
    "damage": typed_rule(HitPoints, _damage),
    "heal": typed_rule(HitPoints, _heal),
    "temp_hp": typed_rule(Temporary, _temp),
    "add_condition": typed_rule(NewCondition, _add_condition),
    "remove_condition": typed_rule(GoneCondition, _remove_condition),
    "set_flag": typed_rule(Flag, _flag),
    "set_option": typed_rule(Option, _option),
    "rename": typed_rule(Rename, _rename),
    "set_initiative": typed_rule(Initiative, _set_initiative),
    "act_now": typed_rule(Target, _act_now),
    **TOOL_ACTIONS,  # a combatant's turn tools: recharge, regeneration, ongoing damage, legendary actions, uses a day
}
assert set(CORE) == CORE_KINDS, "rules.CORE_KINDS names the tracker's actions"


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
    def start(base: Encounter, actions: Iterable[Action] = (), cursor: int | None = None) -> Timeline:
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

    def do(self, action: Action) -> Timeline:
        state, events = apply_action(self.present, action)
        n = self.cursor
        return Timeline(
            self.base, self.actions[:n] + (action,), n + 1, self.states[: n + 1] + (state,), self.logs[:n] + (events,)
        )

    def undo(self) -> Timeline:
        if not self.can_undo:
            raise RuleError("Nothing to undo.")
        return replace(self, cursor=self.cursor - 1)

    def redo(self) -> Timeline:
        if not self.can_redo:
            raise RuleError("Nothing to redo.")
        return replace(self, cursor=self.cursor + 1)

    def log(self) -> list[Event]:
        return [e for events in self.logs[: self.cursor] for e in events]

    def last_action(self) -> Action | None:
        return self.actions[self.cursor - 1] if self.cursor else None

    def trimmed(self, keep: int) -> Timeline:
        """Forget undo history older than the last `keep` actions (asked of the user first)."""
        start = max(0, self.cursor - keep)
        return Timeline(self.states[start], self.actions[start: self.cursor], self.cursor - start,
                        self.states[start: self.cursor + 1], self.logs[start: self.cursor])
