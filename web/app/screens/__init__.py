"""The page's screens, one module each: the sheets it opens over the turn order (listed in SCREENS),
and the parts always there (the turn order and its bar, the notices, the dice roller).

A sheet is its kind (what `SheetOpened` and the UI state's `sheet` name), a `draw` from the page's
state to its HTML (or `Elsewhere` when what it shows is gone), the id of its error line (where a
refusal is said), and the collections whose change from another tab redraws it. Each module also
turns its own DOM events into messages: EVENTS (taps, by data-action), SUBMITS (forms, by
data-action-submit), CHANGES (selects and fields, by data-action-change), INPUTS (typing, by the
field's id); a handler reads the page through `views.Page` and answers with messages for
web/app/update. A new screen is a module here and its name in MODULES."""

from __future__ import annotations

from types import ModuleType

from web.app.screens import add, characters, combatant, initiative, live, menu, pairing, roller, save, selected, tracker, view
from web.app.screens.base import EVERY_COLLECTION, Context, Elsewhere, Screen
from web.app.ui import Ui
from web.app.views import Handler, view_for

__all__ = ["Context", "Elsewhere", "Screen", "SCREENS", "EVERY_COLLECTION", "screen_of", "EVENTS", "SUBMITS", "CHANGES", "INPUTS",
           "handler"]

MODULES: tuple[ModuleType, ...] = (tracker, roller, combatant, add, selected, initiative, view, characters, menu, live, pairing, save)

SCREENS: dict[str, Screen] = {screen.kind: screen for module in MODULES for screen in getattr(module, "SCREENS", ())}


def _joined(table: str) -> dict[str, Handler]:
    """One table of every module's handlers; a name two modules claim is a mistake, found at import."""
    out: dict[str, Handler] = {}
    for module in MODULES:
        for name, handler in getattr(module, table, {}).items():
            if name in out:
                raise ValueError(f"{table} {name!r} is claimed twice ({module.__name__})")
            out[name] = handler
    return out


EVENTS, SUBMITS, CHANGES, INPUTS = _joined("EVENTS"), _joined("SUBMITS"), _joined("CHANGES"), _joined("INPUTS")
TABLES = {"click": EVENTS, "submit": SUBMITS, "change": CHANGES, "input": INPUTS}


def screen_of(ui: Ui) -> Screen | None:
    """The screen open now, if any."""
    return SCREENS.get(ui.sheet[0]) if ui.sheet is not None else None


def handler(kind: str, name: str, system: str) -> Handler | None:
    """The handler of an event (`kind`: click, submit, change or input) named `name`: the screens',
    else, for a tap, the fight's system's own (its view's events)."""
    found = TABLES[kind].get(name)
    if found is None and kind == "click":
        found = view_for(system).events.get(name)
    return found
