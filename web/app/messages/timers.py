"""The page's messages from its timers (web/app/update/timers.py: each carries the number of what it
waited for) and a refusal found on the browser's side."""

from __future__ import annotations

from pyengine.record import Record

__all__ = ["Refused", "ToastTimedOut", "SheetDue", "OddsDue", "EstimateGoesOn", "SliceDue"]


class Refused(Record):
    """A refusal the browser's side found (a tap whose handler failed, a file too large to import):
    said where the tap was, as any refusal of `update`'s."""

    text: str


class ToastTimedOut(Record):
    """The toast numbered `number` (Model.toast) has been on screen its time."""

    number: int


class SheetDue(Record):
    """Typing stopped: the open sheet's redraw numbered `number` (Model.sheet_due) is due."""

    number: int


class OddsDue(Record):
    """Typing in the dice box stopped: the odds numbered `number` (Model.odds_due) are due."""

    number: int


class EstimateGoesOn(Record):
    """The roller's estimate of the odds wants another slice (said by the odds panel after the exact
    attempt and after each slice that did not finish it)."""


class SliceDue(Record):
    """The estimate's slice numbered `number` (Model.estimating) is due: a task of its own, so the
    page answers taps between slices."""

    number: int
