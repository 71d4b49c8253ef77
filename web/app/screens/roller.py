"""The dice roller beside the turn order: the dice box, the quick dice, saved rolls and the history.
Its taps and typing as messages (web/app/render.py and the runtime draw it)."""

from __future__ import annotations

from web.app.messages import (
    DiceTyped,
    HistoryCleared,
    OddsTargetTyped,
    QuickDieTapped,
    RollSaved,
    RollTyped,
    SavedRollDeleted,
    SavedRollTapped,
)
from web.app.views import Handler, datum

EVENTS: dict[str, Handler] = {
    "quick": lambda page: QuickDieTapped(str(page.data("expr")), page.value("dice-input")),
    "save-roll": lambda page: RollSaved(page.value("dice-input"), page.value("save-name")),
    "roll-saved": lambda page: SavedRollTapped(int(datum(page, "index")), page.rng, page.now_ms()),
    "delete-saved": lambda page: SavedRollDeleted(int(datum(page, "index"))),
    "clear-history": lambda page: HistoryCleared(),
}
SUBMITS: dict[str, Handler] = {"roll": lambda page: RollTyped(page.value("dice-input"), page.rng, page.now_ms())}
# Typing, by the field's id: the quick dice then add to what was typed; the odds follow once typing stops.
INPUTS: dict[str, Handler] = {"dice-input": lambda page: DiceTyped(), "odds-target": lambda page: OddsTargetTyped()}
