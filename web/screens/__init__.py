"""The sheets the page opens over the turn order, one module each, listed in SCREENS.

A screen is its kind (what `OpenSheet` and the UI state's `sheet` name), a `draw` from the page's
state to its HTML (or `Elsewhere` when what it shows is gone), the id of its error line (where a
refusal is said), and the collections whose change from another tab redraws it. A new screen is a
module here and a line in SCREENS; its taps are messages (web/messages.py) read by web/update.py."""

from __future__ import annotations

from ..state import Ui
from . import add, characters, combatant, initiative, menu, selected, view
from .base import EVERY_COLLECTION, Context, Elsewhere, Screen

__all__ = ["Context", "Elsewhere", "Screen", "SCREENS", "EVERY_COLLECTION", "screen_of"]

SCREENS: dict[str, Screen] = {screen.kind: screen for module in (combatant, add, selected, initiative, view, characters, menu)
                              for screen in module.SCREENS}


def screen_of(ui: Ui) -> Screen | None:
    """The screen open now, if any."""
    return SCREENS.get(ui.sheet[0]) if ui.sheet is not None else None
