"""The built-in game systems. Each is one module here; registering it is one line below."""

from __future__ import annotations

from ..rules import register
from .generic import GenericSystem
from .laurels import LaurelsSystem
from .realms import RealmsSystem
from .strife import StrifeSystem

__all__ = ["GenericSystem", "LaurelsSystem", "RealmsSystem", "StrifeSystem"]

register(GenericSystem())
register(LaurelsSystem())
register(RealmsSystem())
register(StrifeSystem())
