"""The dice roller: rolls, the quick dice, saved rolls (deleted and brought back) and the history."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import assert_never

from pyengine.dice import Rng, parse, roll, roll_ast
from pyengine.documents import Rolled
from pyengine.errors import DiceDrawnError, EngineError
from pyengine.text import clean_text, quoted
from web.app import ui as state
from web.app.effects import (
    RefreshOdds,
    RenderNotices,
    RenderRolls,
    RollStale,
    SayOnLine,
    SetField,
    ShowRoll,
    StopOdds,
    StoreCollection,
)
from web.app.messages import (
    DiceTyped,
    HistoryCleared,
    QuickDieTapped,
    RollSaved,
    RollTyped,
    SavedRollDeleted,
    SavedRollRestored,
    SavedRollTapped,
)
from web.app.model import Model
from web.app.quick import add_die, advantage
from web.app.storage.records import ROLLS, SAVED_ROLLS, Notice
from web.app.update.common import Result, notify, with_roll, without
from web.app.update.timers import odds_later

# A roll's text kept in the history (100 rolls of 1,000 dice kept whole were 5 MB written at every roll).
HISTORY_TEXT = 4_000
# Faces one roll typed in the roller may draw (the engine's own limit is 10,000): about 30 ms of
# Pyodide, so that no roll blocks the page (`python3 build.py bench --only engine` measures it).
ROLLER_FACES = 4_000

# -- the dice roller's collections ------------------------------------------------------------


def _roll_deleted(model: Model, m: SavedRollDeleted) -> Result:
    """A saved roll goes to the trash (with its place), and a notice offers Undo."""
    if not 0 <= m.index < len(model.saved_rolls):
        return model, ()
    gone = model.saved_rolls[m.index]
    model = replace(model, saved_rolls=model.saved_rolls[:m.index] + model.saved_rolls[m.index + 1:],
                    trash=replace(model.trash, rolls=model.trash.rolls + ((m.index, gone),)))
    model = notify(model, Notice("info", f"Deleted the saved roll {quoted(str(gone.get('name')))}.", "undelete-roll", "Undo"))
    return model, (StoreCollection(SAVED_ROLLS), RenderRolls(), RenderNotices())


def _roll_restored(model: Model, m: SavedRollRestored) -> Result:
    """The last deleted saved roll back where it stood (replacing one saved since under its name)."""
    notices = without(model.notices, "undelete-roll")
    if not model.trash.rolls:
        return replace(model, notices=notices), (RenderNotices(),)
    index, back = model.trash.rolls[-1]
    rest = tuple(s for s in model.saved_rolls if s.get("name") != back.get("name"))
    model = replace(model, saved_rolls=rest[:index] + (back,) + rest[index:], notices=notices,
                    trash=replace(model.trash, rolls=model.trash.rolls[:-1]))
    return model, (StoreCollection(SAVED_ROLLS), RenderRolls(), RenderNotices())


def _history_cleared(model: Model, m: HistoryCleared) -> Result:
    return replace(model, rolls=()), (StoreCollection(ROLLS), RenderRolls())


# -- the dice roller ------------------------------------------------------------------------------


def _rolled(model: Model, expr: str, rng: Rng, at_ms: int) -> Result:
    """Roll an expression: the result where the Roll button is, first in the history; a mistake is
    said on the roller's error line and nothing else changes."""
    expression = expr.strip()
    try:
        result = roll_ast(parse(expression), rng, expression, ROLLER_FACES)
    except DiceDrawnError:  # (the roller's bound; the engine's other caps, 1,000 dice a roll ..., say their own words)
        return model, (SayOnLine("dice-error", f"This roll draws more than {ROLLER_FACES:,} dice (rerolls and explosions "
                                               "included): too many to roll here at once. Its odds are still shown above; "
                                               "roll fewer dice, or in parts."),)
    except EngineError as error:
        return model, (SayOnLine("dice-error", str(error)),)
    text = result.text if len(result.text) <= HISTORY_TEXT else result.text[:HISTORY_TEXT] + f" … ({len(result.text):,} characters in all)"
    entry: Rolled = {"expr": expression, "total": result.total, "text": text, "at": at_ms, "crits": result.crits, "fumbles": result.fumbles}
    model = with_roll(replace(model, ui=state.dice_rolled(model.ui)), entry)  # the next quick die starts anew
    return model, (SayOnLine("dice-error", ""), ShowRoll(result), StoreCollection(ROLLS), RenderRolls())


def _roll_typed(model: Model, m: RollTyped) -> Result:
    return _rolled(model, m.expr, m.rng, m.at_ms)


def _saved_roll_tapped(model: Model, m: SavedRollTapped) -> Result:
    """A saved roll into the dice box, rolled, its odds shown."""
    if not 0 <= m.index < len(model.saved_rolls):
        return model, ()
    expr = str(model.saved_rolls[m.index].get("expr", ""))
    model, effects = _rolled(model, expr, m.rng, m.at_ms)
    return model, (SetField("dice-input", expr), *effects, RefreshOdds())


def _roll_saved(model: Model, m: RollSaved) -> Result:
    """Keep the expression under its name (the same name replaces the older one)."""
    expr = m.expr.strip()
    try:
        roll(expr, random.Random(0))  # only to check it rolls: a fixed generator, nothing is shown
    except EngineError as error:
        return model, (SayOnLine("dice-error", str(error)),)
    name = clean_text(m.name.strip() or expr)[:60] or expr[:60]
    saved = tuple(s for s in model.saved_rolls if s.get("name") != name) + ({"name": name, "expr": expr},)
    return replace(model, saved_rolls=saved), (StoreCollection(SAVED_ROLLS), RenderRolls(), SetField("save-name", ""))


def _quick_die(model: Model, m: QuickDieTapped) -> Result:
    """A die adds to the expression being built (else starts a new one); Adv / Dis rewrite its d20."""
    adv_or_dis = m.what in ("adv", "dis")
    text = advantage(m.box, m.what == "adv") if adv_or_dis else add_die(m.box if model.ui.building else "", m.what)
    return replace(model, ui=state.dice_typed(model.ui)), (SetField("dice-input", text), RefreshOdds(), RollStale())


def _dice_typed(model: Model, m: DiceTyped) -> Result:
    return odds_later(replace(model, ui=state.dice_typed(model.ui))), (StopOdds(), RollStale())


Handled = SavedRollDeleted | SavedRollRestored | HistoryCleared | RollTyped | SavedRollTapped | RollSaved | QuickDieTapped | DiceTyped


def handle(model: Model, message: Handled) -> Result:
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case SavedRollDeleted():
            return _roll_deleted(model, message)
        case SavedRollRestored():
            return _roll_restored(model, message)
        case HistoryCleared():
            return _history_cleared(model, message)
        case RollTyped():
            return _roll_typed(model, message)
        case SavedRollTapped():
            return _saved_roll_tapped(model, message)
        case RollSaved():
            return _roll_saved(model, message)
        case QuickDieTapped():
            return _quick_die(model, message)
        case DiceTyped():
            return _dice_typed(model, message)
        case _:
            assert_never(message)
