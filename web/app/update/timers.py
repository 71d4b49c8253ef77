"""What waits on a timer, besides the live table's clocks (web/app/update/clock.py): the toast on screen,
the open sheet's redraw once typing stops, the roller's odds once typing in the dice box stops, and
the next slice of the roller's estimate (a task of its own, so the page answers taps between slices).

Each is a number in the Model (0: nothing waits), taken from one count (`Model.timed`), so a new
toast or a key typed again is a new number and its timer starts anew. `waiting(model)` says the
timers the model wants (clock.subscriptions adds them to the live table's), the runtime starts and
stops them to match, and each timer's message comes back through `update` with its number: a stale
one (a toast replaced since, a redraw already done) does nothing. Pure, and tested with no clock at
all (tests/unit/test_timers.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from web.app.effects import After, Effect, HideToast, RefreshOdds, Refuse, RenderSheet, StepOdds, StopOdds, Toast
from web.app.messages import EstimateGoesOn, OddsDue, Refused, SheetDue, SliceDue, ToastTimedOut
from web.app.model import Model
from web.app.update.common import Result

__all__ = ["Handled", "handle", "TOAST_MS", "SHEET_MS", "ODDS_MS", "SLICE_MS", "waiting", "timed", "sheet_later", "odds_later", "redrawn"]

TOAST_MS = 5_000  # a toast's time on screen (long enough to reach its Undo)
SHEET_MS = 150    # typing, then tapping a button on the sheet: the tap lands before the redraw
ODDS_MS = 80      # the odds of what is typed in the dice box, once typing pauses
SLICE_MS = 0      # the estimate's next slice: at once, but in a task of its own


def waiting(model: Model) -> frozenset[After]:
    """The one-shot timers the model wants.

    >>> from pyengine.tracker import Timeline, new_encounter
    >>> m = Model(Timeline.start(new_encounter("e1")))
    >>> waiting(m), waiting(replace(m, toast=3, sheet_due=4)) == {After(TOAST_MS, ToastTimedOut(3)), After(SHEET_MS, SheetDue(4))}
    (frozenset(), True)
    """
    wanted = set()
    if model.toast:
        wanted.add(After(TOAST_MS, ToastTimedOut(model.toast)))
    if model.sheet_due:
        wanted.add(After(SHEET_MS, SheetDue(model.sheet_due)))
    if model.odds_due:
        wanted.add(After(ODDS_MS, OddsDue(model.odds_due)))
    if model.estimating:
        wanted.add(After(SLICE_MS, SliceDue(model.estimating)))
    return frozenset(wanted)


def _next(model: Model) -> tuple[Model, int]:
    return replace(model, timed=model.timed + 1), model.timed + 1


def timed(model: Model, effects: tuple[Effect, ...]) -> Result:
    """After any update: a toast shown gets a new number, so it is hidden TOAST_MS from now; a toast
    hidden first waits for nothing. Odds asked anew or stopped end the estimate under way (a new one
    says when it wants its first slice). (A refusal leaves the model as it was: its toast's time is
    the drawing's, web/page/browser.Toast.)"""
    shown: bool | None = None
    for effect in effects:
        if isinstance(effect, Toast):
            shown = True
        elif isinstance(effect, HideToast):
            shown = False
        elif isinstance(effect, RefreshOdds | StopOdds) and model.estimating:
            model = replace(model, estimating=0)
    if shown is None:
        return model, effects
    if not shown:
        return (replace(model, toast=0) if model.toast else model), effects
    model, number = _next(model)
    return replace(model, toast=number), effects


def sheet_later(model: Model) -> Model:
    """The open sheet is drawn SHEET_MS after the last key typed (a key again starts the wait anew)."""
    model, number = _next(model)
    return replace(model, sheet_due=number)


def redrawn(model: Model, typing: bool) -> Result:
    """The open sheet drawn again: now, or (typed in) once typing stops, so that a tap on the sheet
    after typing lands before the redraw."""
    return (sheet_later(model), ()) if typing else (model, (RenderSheet(),))


def odds_later(model: Model) -> Model:
    """The dice box's odds come ODDS_MS after the last key typed."""
    model, number = _next(model)
    return replace(model, odds_due=number)


def _toast_timed_out(model: Model, m: ToastTimedOut) -> Result:
    if m.number != model.toast:
        return model, ()
    return replace(model, toast=0), (HideToast(),)


def _sheet_due(model: Model, m: SheetDue) -> Result:
    if m.number != model.sheet_due:
        return model, ()
    return replace(model, sheet_due=0), (RenderSheet(typing=True),)


def _odds_due(model: Model, m: OddsDue) -> Result:
    if m.number != model.odds_due:
        return model, ()
    return replace(model, odds_due=0), (RefreshOdds(),)


def _estimate_goes_on(model: Model, m: EstimateGoesOn) -> Result:
    model, number = _next(model)
    return replace(model, estimating=number), ()


def _slice_due(model: Model, m: SliceDue) -> Result:
    if m.number != model.estimating:
        return model, ()
    return replace(model, estimating=0), (StepOdds(),)


def _refused(model: Model, m: Refused) -> Result:
    return model, (Refuse(m.text),)


Handled = ToastTimedOut | SheetDue | OddsDue | EstimateGoesOn | SliceDue | Refused


def handle(model: Model, message: Handled) -> Result:
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case ToastTimedOut():
            return _toast_timed_out(model, message)
        case SheetDue():
            return _sheet_due(model, message)
        case OddsDue():
            return _odds_due(model, message)
        case EstimateGoesOn():
            return _estimate_goes_on(model, message)
        case SliceDue():
            return _slice_due(model, message)
        case Refused():
            return _refused(model, message)
        case _:
            assert_never(message)
