"""Roundkeeper's rules engine. Importing any of its modules registers the built-in game systems
first (systems.BUILTIN), so the registry never depends on which module was imported first."""

from . import systems  # noqa: F401 - registers the built-in systems
