"""Turn flows: who acts, and what a turn's start and end do. Pure functions over `Encounter`.

Two flows, chosen by a system (`System.flow`):
- `INITIATIVE`: everyone in initiative order (a group sharing one initiative acts as one unit);
  Next turn passes it on, a new round starts after the last.
- `SIDES`: side initiative: each round one side acts, its members in any order the table picks
  (tap Act, then Done), then the other side (Laurels and Loot, seed 003).

The rules a flow needs (is a combatant down, what happens as a turn or a round starts) come from
the system, passed in as `hooks`; this module names no system.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Protocol

from .errors import RuleError, SchemaError
from .model import LASTING_FLAGS, LIMITS, Combatant, Duration, Encounter, Event
from .tools import at_turn_start

__all__ = [
    "end_of_next_turn",
    "DONE", "INITIATIVE", "SIDES", "TurnHooks", "TurnFlow", "InitiativeFlow", "SideFlow", "SideRoll",
    "turn_units", "active_unit", "is_skipped", "unit_skipped", "keep_groups_together", "unit_name",
    "tick", "turn_starts", "advance", "roll_initiatives", "check_initiative", "other_side", "side_state", "eligible",
]

DONE = "done"  # the flag of a combatant who has acted this round (side initiative)


class SideRoll(Protocol):
    first: str
    surprised: str | None

    def text(self) -> str: ...


class TurnHooks(Protocol):
    """What a turn flow asks of the rules (a `System` is one)."""

    clear_flags_at_turn_start: bool

    def is_down(self, combatant: Combatant) -> bool: ...

    def can_be_surprised(self, combatant: Combatant) -> bool: ...

    def on_turn_start(self, encounter: Encounter) -> Encounter: ...

    def on_new_round(self, encounter: Encounter, rolls: dict[str, Any] | None) -> tuple[Encounter, list[Event]]: ...

    def roll_initiative(self, combatant: Combatant, rng: Any) -> tuple[int, int, str]: ...

    def break_ties(self, encounter: Encounter, results: dict[str, list[Any]], rng: Any) -> None: ...

    def order_key(self, combatant: Combatant) -> tuple[Any, ...]: ...

    def reroll_each_round(self, encounter: Encounter) -> bool: ...

    def begin_combat(self, encounter: Encounter, args: dict[str, Any]) -> tuple[Encounter, list[Any]]: ...

    def side_initiative(self, round_number: int, face: int, ambush: str) -> SideRoll: ...


# -- units and turns -----------------------------------------------------------------------

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


def end_of_next_turn(enc: Encounter, anchor: str) -> Duration:
    """"Until the end of `anchor`'s next turn": during its own turn, the current end does not count."""
    in_turn = enc.started and anchor in {x.id for x in active_unit(enc)}
    return Duration("end", anchor, 2 if in_turn else 1)


def is_skipped(enc: Encounter, hooks: TurnHooks, c: Combatant) -> bool:
    """Is this combatant down and, by the encounter's option, passed over?"""
    mode = enc.option("skip_down", "npcs")
    return mode != "none" and hooks.is_down(c) and (mode == "all" or not c.pc)


def unit_skipped(enc: Encounter, hooks: TurnHooks, unit: tuple[Combatant, ...]) -> bool:
    return all(is_skipped(enc, hooks, c) for c in unit)


def keep_groups_together(ordered: tuple[Combatant, ...]) -> tuple[Combatant, ...]:
    """The same order, with each group's members moved up to its first member."""
    out: list[Combatant] = []
    placed: set[str] = set()
    for c in ordered:
        if c.id in placed:
            continue
        members = [c] if c.group is None else [x for x in ordered if x.group == c.group]
        out.extend(members)
        placed.update(x.id for x in members)
    return tuple(out)


def unit_name(unit: Iterable[Combatant]) -> str:
    members = list(unit)
    if not members:
        return "Nobody"
    if len(members) == 1:
        return members[0].name
    return f"{members[0].name.rsplit(' ', 1)[0]} ×{len(members)}"


def tick(enc: Encounter, event: str, anchors: set[str]) -> tuple[Encounter, tuple[Event, ...]]:
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
        changed = len(kept) != len(c.conditions) or any(a is not b for a, b in zip(kept, c.conditions))
        combatants.append(replace(c, conditions=tuple(kept)) if changed else c)
    return replace(enc, combatants=tuple(combatants)), tuple(events)


def turn_starts(enc: Encounter, hooks: TurnHooks) -> tuple[Encounter, tuple[Event, ...]]:
    """The active unit's turn begins: per-turn flags reset (not LASTING_FLAGS), the system's turn-start rules, its
    turn tools' (legendary actions back), and conditions timed to the start of this turn count down."""
    unit = active_unit(enc)
    ids = {c.id for c in unit}
    events = [Event("turn", enc.round, f"{unit_name(unit)}'s turn", who=unit[0].id if unit else None)]
    if hooks.clear_flags_at_turn_start:
        enc = replace(enc, combatants=tuple(replace(c, flags=tuple(f for f in c.flags if f in LASTING_FLAGS))
                                            if c.id in ids and c.flags else c for c in enc.combatants))
    enc = hooks.on_turn_start(enc)
    enc, tooled = at_turn_start(enc, ids)
    enc, expired = tick(enc, "start", ids)
    return enc, tuple(events) + tooled + expired


def advance(enc: Encounter, hooks: TurnHooks, forward: bool, process: bool = True,
            rolls: dict[str, Any] | None = None) -> tuple[Encounter, tuple[Event, ...]]:
    """Pass the turn to the next (or back to the previous) unit that is not skipped. With
    `process`, the turn that ends and the one that starts run their rules (conditions tick, a new
    round's rules, with `rolls` if everyone rolled again); without it, only the pointer moves."""
    units = turn_units(enc)
    if not units:
        return enc, ()
    index = next((i for i, u in enumerate(units) if any(c.id == enc.active_id for c in u)), -1)
    events: list[Event] = []
    if process and index >= 0:
        enc, ended = tick(enc, "end", {c.id for c in units[index]})
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
                enc, new_round_events = hooks.on_new_round(replace(enc, round=rnd), rolls)
                events.extend(new_round_events)
                units = turn_units(enc)
        elif index < 0:
            if rnd <= 1:
                return enc, tuple(events)
            index = len(units) - 1
            rnd -= 1
            events.append(Event("round", rnd, f"Back to round {rnd}"))
        if not unit_skipped(enc, hooks, units[index]):
            break
    enc = replace(enc, round=rnd, active_id=units[index][0].id)
    if process:
        enc, started = turn_starts(enc, hooks)
        events.extend(started)
    else:
        events.append(Event("turn", rnd, f"Back to {unit_name(units[index])}'s turn", who=units[index][0].id))
    return enc, tuple(events)


def roll_initiatives(enc: Encounter, hooks: TurnHooks, rng: Any, typed: dict[str, Any], reroll_all: bool) -> dict[str, list[Any]]:
    """Everyone's [initiative, tiebreak, roll text]: typed rolls kept, groups roll once, ties broken."""
    results: dict[str, list[Any]] = {}
    seen_groups: dict[str, list[Any]] = {}
    for c in enc.combatants:
        if c.group is not None and c.group in seen_groups:
            results[c.id] = seen_groups[c.group]
            continue
        if c.id in typed:
            entry: list[Any] = [typed[c.id], 0, None]
        elif c.initiative is not None and not reroll_all:
            entry = [c.initiative, c.tiebreak, None]
        else:
            value, tiebreak, text = hooks.roll_initiative(c, rng)
            entry = [value, tiebreak, text]
        results[c.id] = entry
        if c.group is not None:
            seen_groups[c.group] = entry
    hooks.break_ties(enc, results, rng)
    return results


def _typed_initiatives(enc: Encounter, typed: Any) -> dict[str, int]:
    """The initiatives the players called out: whole numbers within the limit, for combatants of this fight."""
    if not isinstance(typed, dict):
        raise RuleError("The typed initiatives are unreadable.")
    names = enc.names()
    out = {}
    for cid, value in typed.items():
        if cid not in names:
            raise RuleError("That combatant is no longer in this encounter.")
        if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().lstrip("-").isdigit():
            raise RuleError(f"{names[cid]}'s initiative must be a whole number.")
        number = int(value)
        if abs(number) > LIMITS["init"]:
            raise RuleError(f"{names[cid]}'s initiative must be from -{LIMITS['init']:,} to {LIMITS['init']:,}.")
        out[cid] = number
    return out


def check_initiative(value: Any, tiebreak: Any) -> None:
    """A stored or rolled initiative and its tiebreak: whole numbers within ±1,000,000."""
    if not all(isinstance(x, int) and not isinstance(x, bool) and abs(x) <= 10**6 for x in (value, tiebreak)):
        raise RuleError("An initiative result is out of range.")


# -- the flows -----------------------------------------------------------------------------

class TurnFlow:
    """How a fight's turns go. The tracker resolves and applies Start and Next through its flow."""

    name = "base"
    ordered_by_initiative = True   # the list is the turn order (so a changed initiative moves a row)
    table_picks_actor = False      # the table taps who acts next (Act buttons)

    def resolve_start(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any], rng: Any) -> dict[str, Any]:
        raise NotImplementedError

    def resolve_next(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any], rng: Any) -> dict[str, Any]:
        raise NotImplementedError

    def start(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, tuple[Event, ...]]:
        raise NotImplementedError

    def next(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, tuple[Event, ...]]:
        raise NotImplementedError

    def previous(self, hooks: TurnHooks, enc: Encounter) -> tuple[Encounter, tuple[Event, ...]]:
        raise RuleError("Use Undo to go back.")

    def act_now(self, hooks: TurnHooks, enc: Encounter, cid: str) -> tuple[Encounter, tuple[Event, ...]]:
        raise RuleError("Only side initiative lets anyone of a side act next.")

    def check_state(self, enc: Encounter) -> None:
        """A saved fight's turn state as this flow writes it (else SchemaError): one from a link or a
        file that would break the next turn is refused when it is read, not when it is played."""
        if enc.turn:
            raise SchemaError("The encounter's turn state is not one its game system keeps.")

    def may_act_now(self, hooks: TurnHooks, enc: Encounter, c: Combatant) -> bool:
        return False


def reordered_by_rolls(enc: Encounter, combatants: list[Combatant], rolls: dict[str, Any],
                       order_key: Any) -> tuple[tuple[Combatant, ...], list[Event]]:
    """A new round's initiatives (rolled for it when the system rerolls every round): each
    combatant's new value, the fight reordered by them (groups kept together), and what was rolled."""
    updated, events = [], []
    for c in combatants:
        value, tiebreak, text = rolls.get(c.id, [c.initiative, c.tiebreak, None])
        check_initiative(value, tiebreak)
        updated.append(replace(c, initiative=value, tiebreak=tiebreak))
        if text:
            events.append(Event("initiative", enc.round, f"{c.name} rolled {value} for initiative", text, c.id))
    return keep_groups_together(tuple(sorted(updated, key=order_key))), events


class InitiativeFlow(TurnFlow):
    name = "initiative"

    def resolve_start(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any], rng: Any) -> dict[str, Any]:
        typed = _typed_initiatives(enc, args.get("typed") or {})
        results = roll_initiatives(enc, hooks, rng, typed, bool(args.get("reroll_all")))
        return {"initiative": results, **({"soon": bool(args["soon"])} if "soon" in args else {})}

    def resolve_next(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any], rng: Any) -> dict[str, Any]:
        if enc.started and hooks.reroll_each_round(enc):
            after, _ = advance(enc, hooks, forward=True, process=False)
            if after.round > enc.round:  # this tap starts a new round: everyone rolls again
                return {"initiative": roll_initiatives(enc, hooks, rng, {}, True)}
            return {}
        return dict(args)

    def start(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, tuple[Event, ...]]:
        results = args["initiative"]
        updated = []
        events = []
        for c in enc.combatants:
            value, tiebreak, text = results[c.id]
            check_initiative(value, tiebreak)
            updated.append(replace(c, initiative=value, tiebreak=tiebreak))
            if text and (c.group is None or c.id == next(x.id for x in enc.combatants if x.group == c.group)):
                who = c.name if c.group is None else c.name.rsplit(" ", 1)[0]
                events.append(Event("initiative", 1, f"{who} rolled {value} for initiative", text, c.id))
            elif not text:
                events.append(Event("initiative", 1, f"{c.name} has initiative {value}", None, c.id))
        ordered = keep_groups_together(tuple(sorted(updated, key=hooks.order_key)))
        enc = replace(enc, combatants=ordered, round=1, active_id=None, turn=())
        enc, begun = hooks.begin_combat(enc, args)
        events.extend(begun)
        units = turn_units(enc)
        first = next((u for u in units if not unit_skipped(enc, hooks, u)), units[0])
        enc = replace(enc, active_id=first[0].id)
        events.insert(0, Event("round", 1, "The fight begins: round 1"))
        enc, start_events = turn_starts(enc, hooks)
        return enc, tuple(events) + start_events

    def next(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, tuple[Event, ...]]:
        return advance(enc, hooks, forward=True, rolls=args.get("initiative"))

    def previous(self, hooks: TurnHooks, enc: Encounter) -> tuple[Encounter, tuple[Event, ...]]:
        return advance(enc, hooks, forward=False, process=False)


def other_side(side: str) -> str:
    return "opponents" if side == "party" else "party"


def side_state(enc: Encounter) -> dict[str, Any]:
    """The side flow's state: the round's roll (face, first, surprised, text) and the side acting."""
    return dict(enc.turn)


def eligible(enc: Encounter, hooks: TurnHooks, c: Combatant, st: dict[str, Any] | None = None) -> bool:
    """Side initiative: may `c` still act this round, on the side whose turn it is?"""
    st = side_state(enc) if st is None else st
    if c.side != st.get("side") or DONE in c.flags:
        return False
    if surprised(enc, hooks, c, st):
        return False
    return not is_skipped(enc, hooks, c)


def surprised(enc: Encounter, hooks: TurnHooks, c: Combatant, st: dict[str, Any] | None = None) -> bool:
    """Side initiative: is `c` held back by an ambush's surprise (round 1, its side surprised, and it
    can be surprised)? Such a combatant takes no turn and makes no attack in round 1."""
    st = side_state(enc) if st is None else st
    return enc.started and enc.round == 1 and st.get("surprised") == c.side and hooks.can_be_surprised(c)


def _with_side_state(enc: Encounter, st: dict[str, Any]) -> Encounter:
    return replace(enc, turn=tuple(sorted(st.items())))


def _marked_done(enc: Encounter, cid: str | None) -> Encounter:
    return replace(enc, combatants=tuple(replace(c, flags=tuple(sorted(set(c.flags) | {DONE}))) if c.id == cid else c
                                         for c in enc.combatants))


class SideFlow(TurnFlow):
    name = "sides"
    ordered_by_initiative = False
    table_picks_actor = True

    def check_state(self, enc: Encounter) -> None:
        """Started: this round's side roll (its d6, the side that went first, the side acting, the
        surprised side or none, its text); not started: nothing."""
        st = side_state(enc)
        if not enc.started:
            return super().check_state(enc)
        sides = ("party", "opponents")
        face = st.get("face")
        if (set(st) != {"face", "first", "surprised", "side", "text"} or isinstance(face, bool) or not isinstance(face, int)
                or not 1 <= face <= 6 or st.get("first") not in sides or st.get("side") not in sides
                or st.get("surprised") not in (None, *sides) or not isinstance(st.get("text"), str) or len(st["text"]) > 300):
            raise SchemaError("The fight's side initiative state is unreadable.")
    def _first_eligible(self, hooks: TurnHooks, enc: Encounter, st: dict[str, Any]) -> Combatant | None:
        return next((c for c in enc.combatants if eligible(enc, hooks, c, st)), None)

    def _round_over(self, hooks: TurnHooks, enc: Encounter) -> bool:
        """Is nobody left to act this round, on the side acting now or (if it went first) the other?"""
        st = side_state(enc)
        if self._first_eligible(hooks, enc, st) is not None:
            return False
        if st.get("side") == st.get("first"):
            return self._first_eligible(hooks, enc, {**st, "side": other_side(st["side"])}) is None
        return True

    def needs_side_roll(self, hooks: TurnHooks, enc: Encounter) -> bool:
        """Would the next Done start a new round (and so need a new side roll)?"""
        return self._round_over(hooks, _marked_done(enc, enc.active_id))

    def resolve_start(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any], rng: Any) -> dict[str, Any]:
        out = {"side_roll": rng.randint(1, 6), "ambush": args.get("ambush", enc.option("ambush", "none"))}
        first_round, _ = self._new_round(hooks, enc, 1, out["side_roll"], out["ambush"])
        if self._round_over(hooks, first_round):  # every side there is surprised: round 2 needs its roll now
            out["next_side_roll"] = rng.randint(1, 6)
        return out

    def resolve_next(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any], rng: Any) -> dict[str, Any]:
        return {"side_roll": rng.randint(1, 6)} if enc.started and self.needs_side_roll(hooks, enc) else {}

    def _new_round(self, hooks: TurnHooks, enc: Encounter, round_number: int, face: int, ambush: str) -> tuple[Encounter, list[Event]]:
        if isinstance(face, bool) or not isinstance(face, int):  # a saved fight's roll is checked like a typed one
            raise RuleError("The side initiative die is a d6.")
        roll = hooks.side_initiative(round_number, face, ambush)
        st = {"face": face, "first": roll.first, "surprised": roll.surprised, "side": roll.first, "text": roll.text()}
        combatants = tuple(replace(c, flags=tuple(f for f in c.flags if f != DONE)) if DONE in c.flags else c for c in enc.combatants)
        enc = _with_side_state(replace(enc, round=round_number, combatants=combatants, active_id=None), st)
        return enc, [Event("round", round_number, f"Round {round_number}: {roll.text()}", f"1d6 ({face}) = {face}")]

    def _pick_next(self, hooks: TurnHooks, enc: Encounter, events: list[Event], face_for_new_round: int | None) -> Encounter:
        """Make the next eligible member active: same side, else the other side, else a new round
        (whose first side may have no one either: then its second side). No one at all: none is active."""
        new_round = False
        for _ in range(4):
            st = side_state(enc)
            nxt = self._first_eligible(hooks, enc, st)
            if nxt is not None:
                enc = replace(enc, active_id=nxt.id)
                enc, started = turn_starts(enc, hooks)
                events.extend(started)
                return enc
            if st.get("side") == st.get("first"):
                second = other_side(st["side"])
                enc = _with_side_state(enc, {**st, "side": second})
                if any(c.side == second for c in enc.combatants):
                    events.append(Event("side", enc.round, "The party's turn" if second == "party" else "The opponents' turn"))
                continue
            if new_round:  # a new round already began here and no one of either side can act in it
                break
            if face_for_new_round is None:
                raise RuleError("A new round needs its side initiative roll.")
            new_round = True
            enc, round_events = self._new_round(hooks, enc, enc.round + 1, face_for_new_round, "none")
            events.extend(round_events)
            face_for_new_round = None
        return replace(enc, active_id=None)

    def start(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, tuple[Event, ...]]:
        face = args.get("side_roll")
        if not isinstance(face, int):
            raise RuleError("Starting needs the side initiative roll.")
        enc, events = self._new_round(hooks, enc, 1, face, args.get("ambush", "none"))
        enc = self._pick_next(hooks, enc, events, args.get("next_side_roll"))
        return enc, tuple(events)

    def next(self, hooks: TurnHooks, enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, tuple[Event, ...]]:
        """The active member is done: the next one of its side acts, then the other side, then a new round."""
        events: list[Event] = []
        if enc.active_id is not None:
            actor = enc.get(enc.active_id)
            enc, ended = tick(_marked_done(enc, actor.id), "end", {actor.id})
            events.append(Event("done", enc.round, f"{actor.name} is done", who=actor.id))
            events.extend(ended)
        enc = self._pick_next(hooks, enc, events, args.get("side_roll"))
        return enc, tuple(events)

    def previous(self, hooks: TurnHooks, enc: Encounter) -> tuple[Encounter, tuple[Event, ...]]:
        raise RuleError("With side initiative, use Undo to go back.")

    def act_now(self, hooks: TurnHooks, enc: Encounter, cid: str) -> tuple[Encounter, tuple[Event, ...]]:
        """The table chooses who of the acting side goes now."""
        c = enc.get(cid)
        if not enc.started:
            raise RuleError("Start the fight first.")
        if not eligible(enc, hooks, c):
            raise RuleError(f"{c.name} cannot act now: it is not their side's turn, they are done, or they are surprised.")
        return turn_starts(replace(enc, active_id=c.id), hooks)

    def may_act_now(self, hooks: TurnHooks, enc: Encounter, c: Combatant) -> bool:
        return enc.started and c.id != enc.active_id and eligible(enc, hooks, c)


INITIATIVE = InitiativeFlow()
SIDES = SideFlow()
