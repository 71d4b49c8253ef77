"""The page's state as one frozen value: the fight on screen, what the screen adds to it, the
collections shown beside it and the notices. `update` (web/update) makes the next one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyengine.tracker import Timeline

from .persist import Notice
from .state import Ui

__all__ = ["Model", "NEXT_TURN_GUARD", "Trash"]

NEXT_TURN_GUARD = 0.4  # seconds: two taps on Next turn closer than this are one tap (RK.nextTurnGuardMs)


@dataclass(frozen=True)
class Trash:
    """What was deleted and can come back, newest last: saved rolls (with where they stood),
    characters and encounters (their id, name and whole history). One place for every undelete."""

    rolls: tuple[tuple[int, dict[str, Any]], ...] = ()
    characters: tuple[dict[str, Any], ...] = ()
    encounters: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Model:
    timeline: Timeline                        # the fight on screen, with its undo history
    ui: Ui = field(default_factory=Ui)         # sheets, the attack panel, selections ... (web/state.py)
    rolls: tuple[dict[str, Any], ...] = ()               # the dice history, newest first
    saved_rolls: tuple[dict[str, Any], ...] = ()         # named rolls
    characters: tuple[dict[str, Any], ...] = ()          # My characters (stored documents)
    roster: tuple[dict[str, Any], ...] = ()              # the party, saved from the add form
    templates: tuple[dict[str, Any], ...] = ()           # opponents saved from the add form
    notices: tuple[Notice, ...] = ()           # messages at the top, oldest first
    trash: Trash = field(default_factory=Trash)
    next_turn_guard: float = NEXT_TURN_GUARD
    storage_kept: bool | None = None           # the browser keeps our storage (navigator.storage.persisted), once known
