"""Side initiative as a turn flow: each round one side acts, its members in any order the table
chooses (tap who acts, mark done), then the other side. Used by systems whose `turn_mode` is
"sides" (Laurels and Loot, seed 003). Pure functions over `Encounter`, like tracker.py.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .errors import RuleError

if TYPE_CHECKING:  # pragma: no cover
    from .tracker import Combatant, Encounter, Event

__all__ = ["state", "eligible", "needs_side_roll", "start", "advance", "act_now", "other"]

DONE = "done"


def other(side: str) -> str:
    return "opponents" if side == "party" else "party"


def state(enc: "Encounter") -> dict:
    return dict(enc.turn)


def _with_state(enc: "Encounter", st: dict) -> "Encounter":
    return replace(enc, turn=tuple(sorted(st.items())))


def eligible(enc: "Encounter", c: "Combatant", st: dict | None = None) -> bool:
    """May `c` still act this round, on the side whose turn it is?"""
    from .tracker import is_skipped

    st = state(enc) if st is None else st
    if c.side != st.get("side") or DONE in c.flags:
        return False
    if enc.round == 1 and st.get("surprised") == c.side and not c.stat("cannot_be_surprised", False):
        return False
    return not is_skipped(enc, c)


def _first_eligible(enc: "Encounter", st: dict) -> "Combatant | None":
    return next((c for c in enc.combatants if eligible(enc, c, st)), None)


def needs_side_roll(enc: "Encounter") -> bool:
    """Would the next Done start a new round (and so need a new side roll)?"""
    st = state(enc)
    after = replace(enc, combatants=tuple(replace(c, flags=tuple(sorted(set(c.flags) | {DONE}))) if c.id == enc.active_id else c
                                          for c in enc.combatants))
    if _first_eligible(after, st) is not None:
        return False
    if st.get("side") == st.get("first"):
        return _first_eligible(after, {**st, "side": other(st["side"])}) is None
    return True


def _new_round(enc: "Encounter", round_number: int, face: int, ambush: str) -> tuple["Encounter", list["Event"]]:
    from .tracker import Event

    roll = enc.rules.side_initiative(round_number, face, ambush)
    st = {"face": face, "first": roll.first, "surprised": roll.surprised, "side": roll.first, "text": roll.text()}
    combatants = tuple(replace(c, flags=tuple(f for f in c.flags if f != DONE)) if DONE in c.flags else c for c in enc.combatants)
    enc = _with_state(replace(enc, round=round_number, combatants=combatants, active_id=None), st)
    events = [Event("round", round_number, f"Round {round_number}: {roll.text()}", f"1d6 ({face}) = {face}")]
    return enc, events


def _pick_next(enc: "Encounter", events: list["Event"], face_for_new_round: int | None) -> "Encounter":
    """Make the next eligible member active: same side, else the other side, else a new round."""
    from .tracker import Event, _turn_starts

    for _ in range(3):
        st = state(enc)
        nxt = _first_eligible(enc, st)
        if nxt is not None:
            enc = replace(enc, active_id=nxt.id)
            enc, started = _turn_starts(enc)
            events.extend(started)
            return enc
        if st.get("side") == st.get("first"):
            second = other(st["side"])
            enc = _with_state(enc, {**st, "side": second})
            if any(c.side == second for c in enc.combatants):
                events.append(Event("side", enc.round, "The party's turn" if second == "party" else "The opponents' turn"))
            continue
        if face_for_new_round is None:
            raise RuleError("A new round needs its side initiative roll.")
        enc, round_events = _new_round(enc, enc.round + 1, face_for_new_round, "none")
        events.extend(round_events)
        face_for_new_round = None
    return replace(enc, active_id=None)


def start(enc: "Encounter", args: dict) -> tuple["Encounter", tuple["Event", ...]]:
    face = args.get("side_roll")
    if not isinstance(face, int):
        raise RuleError("Starting needs the side initiative roll.")
    enc, events = _new_round(enc, 1, face, args.get("ambush", "none"))
    enc = _pick_next(enc, events, None)
    return enc, tuple(events)


def advance(enc: "Encounter", args: dict) -> tuple["Encounter", tuple["Event", ...]]:
    """The active member is done: the next one of its side acts, then the other side, then a new round."""
    from .tracker import Event, _tick

    events: list = []
    if enc.active_id is not None:
        actor = enc.get(enc.active_id)
        enc = replace(enc, combatants=tuple(replace(c, flags=tuple(sorted(set(c.flags) | {DONE}))) if c.id == actor.id else c
                                            for c in enc.combatants))
        enc, ended = _tick(enc, "end", {actor.id})
        events.append(Event("done", enc.round, f"{actor.name} is done", who=actor.id))
        events.extend(ended)
    enc = _pick_next(enc, events, args.get("side_roll"))
    return enc, tuple(events)


def act_now(enc: "Encounter", args: dict) -> tuple["Encounter", tuple["Event", ...]]:
    """The table chooses who of the acting side goes now."""
    from .tracker import _turn_starts

    c = enc.get(args["id"])
    if not enc.started:
        raise RuleError("Start the fight first.")
    if not eligible(enc, c):
        raise RuleError(f"{c.name} cannot act now: it is not their side's turn, they are done, or they are surprised.")
    enc = replace(enc, active_id=c.id)
    return _turn_starts(enc)
