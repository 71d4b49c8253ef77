"""Small frozen records without the cost of `dataclasses` at import.

A frozen dataclass compiles its methods (`exec`) when its class is created: about a millisecond
each in CPython, several times that in Pyodide, more on a slow phone. The page's messages, effects
and the core actions' arguments are a hundred such classes, created on every start that does not
come from the memory snapshot (a first visit, the first start after an update). A `Record` class is
made from its annotations with no code compiled: the same constructor (positional or by name,
defaults, `field(default_factory=...)`), equality, hash, repr and immutability as a frozen dataclass,
and type checkers read it as one (PEP 681).

>>> class Point(Record):
...     x: int
...     y: int = 0
>>> Point(1), Point(1) == Point(1, 0), Point(x=2, y=3).but(y=4)
(Point(x=1, y=0), True, Point(x=2, y=4))
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, ClassVar, Self, dataclass_transform

__all__ = ["Record", "field"]

field = dataclasses.field  # the same specifier: default, default_factory
_NONE = object()


@dataclass_transform(eq_default=True, frozen_default=True, field_specifiers=(dataclasses.field,))
class Record:
    """A frozen record of the fields its class annotates, in order."""

    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}     # field -> its default value
    _factories: ClassVar[dict[str, Any]] = {}    # field -> a callable making its default

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = [name for name, hint in inspect.get_annotations(cls).items() if "ClassVar" not in str(hint)]
        defaults, factories = dict(cls._defaults), dict(cls._factories)
        for name in own:
            value = cls.__dict__.get(name, _NONE)
            if isinstance(value, dataclasses.Field):
                if value.default_factory is not dataclasses.MISSING:
                    factories[name] = value.default_factory
                elif value.default is not dataclasses.MISSING:
                    defaults[name] = value.default
                delattr(cls, name)
            elif value is not _NONE:
                defaults[name] = value
                delattr(cls, name)  # the instance holds it; the class keeps no shared value
        cls._fields = cls._fields + tuple(n for n in own if n not in cls._fields)
        cls._defaults, cls._factories = defaults, factories

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = type(self)._fields
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes {len(names)} arguments, {len(args)} were given")
        values = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__name__} got {name!r} twice")
            values[name] = value
        for name in names:
            if name not in values:
                if name in self._defaults:
                    values[name] = self._defaults[name]
                elif name in self._factories:
                    values[name] = self._factories[name]()
                else:
                    raise TypeError(f"{type(self).__name__} is missing {name!r}")
        object.__setattr__(self, "__dict__", values)

    def _values(self) -> tuple[Any, ...]:
        return tuple(self.__dict__[name] for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined, no-any-return]

    def __hash__(self) -> int:
        return hash((self.__class__, self._values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={self.__dict__[n]!r}' for n in self._fields)})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def but(self, **changes: Any) -> Self:
        """A copy with `changes` (as dataclasses.replace)."""
        return type(self)(**{**self.__dict__, **changes})
