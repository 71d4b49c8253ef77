"""The arguments of the tracker's own actions, typed.

A saved action keeps its arguments as a plain dict (the save format does not change); each core
kind reads that dict into one frozen dataclass, checked, before its rule runs. A missing or
mistyped argument is a RuleError that names it, never a KeyError or TypeError deep in a rule, and
a rule reads `a.amount`, not `args["amount"]`. Start and next turn take the system's own flow
arguments (rules.TurnFlow), which stay the flow's dict.

>>> read_args(HitPoints, {"id": "c1", "amount": "7"})
HitPoints(id='c1', amount=7, source=None, roll=None, half=False, parts=None)
>>> read_args(HitPoints, {"amount": 7})
Traceback (most recent call last):
...
pyengine.errors.RuleError: HitPoints: id is missing.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import RuleError
from .record import Record, field

__all__ = ["read_args", "typed", "as_args", "Join", "Flow", "Target", "Edit", "Added", "Delay", "HitPoints", "Temporary", "NewCondition", "GoneCondition",
           "Flag", "Option", "Rename", "Initiative", "Batch", "Nothing", "NewTool", "ToolTarget", "ToolUsed", "Recharged",
           "ToolActed", "ToolSet"]

T = TypeVar("T", bound=Record)


class Nothing(Record):
    """An action without arguments (previous turn, end of the fight)."""


class Target(Record):
    """One combatant (remove, act now)."""

    id: str


class Edit(Record):
    id: str
    fields: dict[str, Any]


class Added(Record):
    """A combatant (or a group) joining: its fields, the ids resolve picked, the initiative rolled mid-fight."""

    combatant: dict[str, Any]
    ids: list[Any]
    group: str | None = None
    rolled: dict[str, Any] | None = None
    count: int = 1
    hp_rolls: list[Any] | None = None   # each member's rolled hit points (a creature's hit dice)
    hp_roll: str | None = None          # those rolls as shown in the log
    roll_hp: str | None = None          # asked: the hit dice to roll (resolve rolls them)


class Join(Record):
    """A request to add a combatant, or `count` of them as one group: its fields as typed; with
    `roll_hp`, each member's hit points rolled from those dice (a creature's hit dice)."""

    combatant: dict[str, Any]
    count: int = 1
    roll_hp: str | None = None


class Flow(Record):
    """Start or next turn: the system's own flow arguments (rules.TurnFlow), which are its dict."""

    options: dict[str, Any] = field(default_factory=dict)


class Delay(Record):
    id: str
    after: str


class HitPoints(Record):
    """Damage or healing: who, how much, from whom, the roll shown, halved by a save."""

    id: str
    amount: int
    source: str | None = None
    roll: str | None = None
    half: bool = False
    parts: list[Any] | None = None  # typed damage: [type, amount, marks] each (pyengine/damage_types.py)


class Temporary(Record):
    id: str
    amount: int


class NewCondition(Record):
    id: str
    name: str = ""
    until: str = "never"
    rounds: int | None = None
    anchor: str | None = None
    source: str | None = None
    note: str = ""


class GoneCondition(Record):
    id: str
    condition: str


class Flag(Record):
    id: str
    flag: str
    on: bool = True


class Option(Record):
    key: str
    value: Any


class Rename(Record):
    name: str = ""


class Initiative(Record):
    id: str
    value: int


class Batch(Record):
    actions: list[Any]


class NewTool(Record):
    """A turn tool given to a combatant (with `group`, to every member of its group, each its own):
    its fields as typed (pyengine/tools.py: new_tool)."""

    id: str
    tool: dict[str, Any]
    group: bool = False


class ToolTarget(Record):
    """One turn tool of one combatant (removed)."""

    id: str
    tool: str


class ToolUsed(Record):
    """An ability used, legendary actions spent (`count`; or `action`, one of its named legendary
    actions, which spends what it costs), a daily use."""

    id: str
    tool: str
    count: int = 1
    action: str = ""
    waits: int | None = None  # a recharge spent on its own turn: the round its d6 is not offered again (decided when used)


class Recharged(Record):
    """A spent ability's recharge roll: the d6's face."""

    id: str
    tool: str
    face: int


class ToolActed(Record):
    """Regeneration or ongoing damage applied: the hit points (rolled where they are dice) and the roll."""

    id: str
    tool: str
    amount: int
    roll: str | None = None


class ToolSet(Record):
    """A tool's state set by hand: what is left (uses back after a rest, an ability ready), regeneration paused."""

    id: str
    tool: str
    left: int | None = None
    paused: bool | None = None


def _whole(value: Any) -> int | None:
    """An int, or the text of one (saves of earlier versions kept some numbers as typed)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and len(value) <= 20:
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


_CHECKS: dict[Any, Callable[[Any], bool]] = {
    str: lambda v: isinstance(v, str),
    bool: lambda v: isinstance(v, bool),
    dict: lambda v: isinstance(v, dict),
    list: lambda v: isinstance(v, (list, tuple)),
}


def _read(cls: type, name: str, hint: Any, value: Any) -> Any:
    options = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, type(int | None)) else (hint,)
    if value is None and type(None) in options:
        return None
    for option in options:
        base = typing.get_origin(option) or option
        if base is Any:
            return value
        if base is int:
            number = _whole(value)
            if number is not None:
                return number
        elif base in _CHECKS and _CHECKS[base](value):
            return list(value) if base is list else value
    kinds = " or ".join("a whole number" if (typing.get_origin(o) or o) is int else getattr(typing.get_origin(o) or o, "__name__", "?")
                        for o in options if o is not type(None))
    raise RuleError(f"{cls.__name__}: {name} must be {kinds}.")


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """A class's field types, resolved once (resolving them is most of a replayed action's cost)."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def read_args(cls: type[T], args: dict[str, Any]) -> T:
    """`args` (a saved action's) as `cls`, every field checked against its type; unknown keys are
    left out (a newer version's extras), a missing field without a default is refused."""
    if not isinstance(args, dict):
        raise RuleError(f"{cls.__name__}: the arguments are unreadable.")
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for name in cls._fields:
        if name not in args:
            if name not in cls._defaults and name not in cls._factories:
                raise RuleError(f"{cls.__name__}: {name} is missing.")
            continue
        values[name] = _read(cls, name, hints[name], args[name])
    return cls(**values)


def as_args(request: Record) -> dict[str, Any]:
    """A request's record as the arguments an action saves: each field by its name (`with_` as
    `with`), a field left at its default left out (as the screens always sent them), a Flow as its
    options.

    >>> as_args(NewCondition("c1", "Prone", rounds=None)), as_args(Flow({"reroll_all": True}))
    ({'id': 'c1', 'name': 'Prone'}, {'reroll_all': True})
    """
    if isinstance(request, Flow):
        return dict(request.options)
    args: dict[str, Any] = {}
    for name in request._fields:
        value = request.__dict__[name]
        default = request._defaults.get(name, _NO_DEFAULT) if name not in request._factories else request._factories[name]()
        if default is _NO_DEFAULT or value != default or type(value) is not type(default):
            args[name.rstrip("_")] = value
    return args


_NO_DEFAULT = object()


def typed(cls: type[T], rule: Callable[[Any, T], Any]) -> Callable[[Any, dict[str, Any]], Any]:
    """A rule on typed arguments as an ActionRule's `apply` (which takes the saved dict)."""
    def apply(enc: Any, args: dict[str, Any]) -> Any:
        return rule(enc, read_args(cls, args))
    apply.__name__ = getattr(rule, "__name__", "apply")
    apply.__doc__ = rule.__doc__
    return apply
