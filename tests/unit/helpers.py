"""What the unit tests share: a fight's steps, its names and ids, whose turn it is (issue 49, item 6:
one copy instead of one a test file). Typed and checked by mypy --strict with the engine."""

from __future__ import annotations

from typing import Any

from pyengine.rolling import Rng
from pyengine.tracker import Timeline, active_unit, new_encounter, resolve

__all__ = ["step", "ids", "order", "active", "active_names", "team"]


def step(t: Timeline, kind: str, rng: Rng | None = None, /, **args: Any) -> Timeline:
    """The timeline after one action, resolved as the page resolves it (`rng`: its dice). Positional:
    an action may have an argument named `kind` or `rng`."""
    return t.do(resolve(t.present, kind, args, rng))


def ids(t: Timeline) -> dict[str, str]:
    """Each combatant's id by its name."""
    return {c.name: c.id for c in t.present.combatants}


def order(t: Timeline) -> list[str]:
    """The combatants' names, in turn order."""
    return [c.name for c in t.present.combatants]


def active(t: Timeline) -> str | None:
    """The name of the combatant whose turn it is (None: no one's)."""
    return t.present.get(t.present.active_id).name if t.present.active_id else None


def active_names(t: Timeline) -> list[str]:
    """Everyone whose turn it is now (a group acts together)."""
    return [c.name for c in active_unit(t.present)]


def team(system: str, people: list[tuple[str, dict[str, Any]]], name: str = "Test") -> Timeline:
    """A fight of `system` with `people` ((name, fields) each) added, not started."""
    t = Timeline.start(new_encounter("e1", name, system=system))
    for who, fields in people:
        t = step(t, "add_combatant", combatant={"name": who, **fields})
    return t
