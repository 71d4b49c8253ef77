"""The built-in game systems, one module each, listed in BUILTIN and registered here. The engine's
package (pyengine/__init__.py) imports this one, so whatever module of the engine is imported first,
the registry already holds every built-in system."""

from __future__ import annotations

from ..rules import System, register
from .generic import GenericSystem
from .laurels import LaurelsSystem
from .realms import RealmsSystem
from .strife import StrifeSystem

__all__ = ["BUILTIN", "GenericSystem", "LaurelsSystem", "RealmsSystem", "StrifeSystem"]

BUILTIN: tuple[System, ...] = (GenericSystem(), LaurelsSystem(), RealmsSystem(), StrifeSystem())

for _system in BUILTIN:
    register(_system)
