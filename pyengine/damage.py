"""The one path by which hit points change in a fight: damage (`harm`, `take_damage`) and healing
(`mend`, `heal`).

Every system's attack, the damage and heal actions, a rest, a death save that brings a creature
back: all go through here, so temporary hit points, the system's floor, the "down" and "back up"
events and the system's own reaction to damage (`System.on_damage`) hold for every way damage
arrives. A test checks that no other module of the engine writes `hp` or `temp_hp`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .damage_types import Adjusted, Portion, adjust_all
from .model import Combatant, Encounter, Event, Outcome
from .rules import system_of
from .tools import stopped_by

__all__ = ["Hurt", "harm", "mend", "give_temporary", "take_damage", "heal"]


@dataclass(frozen=True)
class Hurt:
    """What one hit did to a combatant: the damage dealt, the part its temporary HP took, and its
    hit points before and after (None: it has none to track)."""

    amount: int
    absorbed: int
    before: int | None
    after: int | None

    @property
    def note(self) -> str:
        """The words an attack's log line adds when temporary HP took part of it."""
        return f"{self.absorbed} to temporary HP" if self.absorbed else ""


def harm(enc: Encounter, c: Combatant, amount: int, temporary: bool = True) -> tuple[Encounter, Hurt, tuple[Event, ...]]:
    """`amount` damage to `c`: temporary HP first (unless `temporary` is False: hit points spent on
    purpose, such as Stamina spent shooting), then the system's floor, then the "down" event and the
    system's own reaction. Returns the encounter, what the hit did and the events it adds."""
    amount = max(0, amount)
    if c.hp is None:
        return enc, Hurt(amount, 0, None, None), ()
    system = system_of(enc)
    absorbed = min(c.temp_hp, amount) if temporary else 0
    hp = c.hp - (amount - absorbed)
    if system.hp_floor is not None:
        hp = max(system.hp_floor, hp)
    updated = replace(c, hp=hp, temp_hp=c.temp_hp - absorbed)
    events: list[Event] = []
    if system.is_down(updated) and not system.is_down(c):
        events.append(enc.event("down", f"{c.name} is down", who=c.id))
    new, more = system.on_damage(enc.with_combatant(updated), c, amount)
    if any(e.kind == "dead" and e.who == c.id for e in more):  # "dies" says more than "is down"
        events = [e for e in events if e.kind != "down"]
    return new, Hurt(amount, absorbed, c.hp, hp), tuple(events) + tuple(more)


def mend(enc: Encounter, c: Combatant, amount: int) -> tuple[Encounter, int, tuple[Event, ...]]:
    """`amount` hit points back to `c`, up to its maximum (from 0 where the system has a floor).
    Returns the encounter, the hit points gained and the "back up" event if it was down."""
    if c.hp is None:
        return enc, 0, ()
    system = system_of(enc)
    base = max(c.hp, 0) if system.hp_floor is not None else c.hp
    hp = base + max(0, amount)
    if c.max_hp is not None:
        hp = min(hp, c.max_hp)
    updated = replace(c, hp=hp)
    events: tuple[Event, ...] = ()
    if system.is_down(c) and not system.is_down(updated):
        events = (enc.event("up", f"{c.name} is back up", who=c.id),)
    return enc.with_combatant(updated), hp - c.hp, events


def give_temporary(enc: Encounter, c: Combatant, amount: int) -> Encounter:
    """Temporary hit points do not stack: the larger stays."""
    return enc.with_combatant(replace(c, temp_hp=max(c.temp_hp, amount)))


def take_damage(enc: Encounter, c: Combatant, amount: int, source: str | None = None, roll: str | None = None,
                half: bool = False, parts: Sequence[tuple[Portion, int]] = ()) -> Outcome:
    """The damage action, and any attack that logs plain damage: one "damage" event, then `harm`'s.
    With `parts` (each typed part and its amount, a save's half already taken), the target's
    resistances, immunities and vulnerabilities change each part (pyengine/damage_types.py), the log
    says how, and a regeneration stopped by a type it took is off at its next turn."""
    kinds = ""
    notes = ["saved: half damage"] if half else []
    adjusted: tuple[Adjusted, ...] = ()
    if parts:
        adjusted = adjust_all(c.defenses, list(parts))
        amount = sum(a.after for a in adjusted)
        typed = [a for a in adjusted if a.kind]
        if len(adjusted) == 1 and typed:
            kinds = f" {typed[0].kind}"
            notes += [typed[0].note] if typed[0].note else []
        elif typed:
            notes.append(", ".join(f"{a.after} {a.kind or 'untyped'}" + (f" ({a.note})" if a.note else "") for a in adjusted))
    new, hurt, more = harm(enc, c, amount)
    by = f" from {enc.get(source).name}" if source and any(x.id == source for x in enc.combatants) else ""
    if hurt.absorbed:
        notes.append(hurt.note)
    text = f"{c.name} took {amount}{kinds} damage{by}" + (f" ({'; '.join(notes)})" if notes else "")
    new, paused = _regeneration_stopped(new, c.id, {a.kind for a in adjusted if a.kind and a.after > 0})
    return new, (enc.event("damage", text, roll, c.id), *more, *paused)


def _regeneration_stopped(enc: Encounter, cid: str, taken: set[str]) -> tuple[Encounter, tuple[Event, ...]]:
    """SRD (the troll): "If the troll takes acid or fire damage, this trait doesn't function at the
    start of the troll's next turn": a regeneration whose stopping types were taken is paused."""
    if not taken or not any(x.id == cid for x in enc.combatants):
        return enc, ()
    c = enc.get(cid)
    events: list[Event] = []
    for t in c.tools:
        hit = [k for k in stopped_by(t) if k in taken]
        if t.kind == "regeneration" and hit and not t.paused:
            c = c.with_tool(replace(t, paused=True))
            events.append(enc.event("tool", f"{c.name}'s {t.name} is off at its next turn ({' and '.join(hit)} damage)", who=c.id))
    return enc.with_combatant(c), tuple(events)


def heal(enc: Encounter, c: Combatant, amount: int, roll: str | None = None) -> Outcome:
    """The heal action: one "heal" event, then the "back up" one."""
    new, gained, more = mend(enc, c, amount)
    return new, (enc.event("heal", f"{c.name} healed {gained}", roll, c.id), *more)
