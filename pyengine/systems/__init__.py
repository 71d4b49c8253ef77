"""Rule systems: small units the tracker asks, found by name in a registry."""

from __future__ import annotations

from ..errors import RuleError
from .base import System
from .generic import GenericSystem
from .laurels import LaurelsSystem
from .realms import RealmsSystem
from .strife import StrifeSystem

__all__ = ["System", "register", "get_system", "systems"]

_REGISTRY: dict[str, System] = {}
_ALIASES: dict[str, str] = {}


def register(system: System) -> System:
    _REGISTRY[system.name] = system
    for alias in (system.name, *system.aliases):
        _ALIASES[alias.lower()] = system.name
    return system


def get_system(name: str) -> System:
    key = _ALIASES.get(str(name).lower())
    if key is None:
        raise RuleError(f"Unknown game system {name!r}.")
    return _REGISTRY[key]


def systems() -> list[System]:
    return list(_REGISTRY.values())


register(GenericSystem())
register(LaurelsSystem())
register(RealmsSystem())
register(StrifeSystem())
