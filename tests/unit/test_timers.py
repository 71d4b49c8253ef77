"""What waits on a timer, as subscriptions of the Model (web/update/timers.py): the toast on screen,
the sheet's and the odds' redraw once typing stops. No clock: the timers are what `subscriptions`
says, and a timer that runs out is its message through `update`."""

from __future__ import annotations

import random
from dataclasses import replace

from tests.unit.test_update import PARTY, fight, ids
from web import messages as msg
from web.effects import After, Every, HideToast, RefreshOdds, Refuse, RenderSheet, StopOdds, Toast
from web.model import Live
from web.update import subscriptions, update
from web.update.clock import BEAT
from web.update.timers import ODDS_MS, SHEET_MS, TOAST_MS

RNG = random.Random(1)


def afters(model) -> set[After]:
    return {s for s in subscriptions(model) if isinstance(s, After)}


def test_a_toast_is_hidden_by_its_own_timer_and_a_newer_toast_starts_the_wait_anew():
    model = fight(*PARTY, started=True)
    assert afters(model) == set()
    hit, effects = update(model, msg.HitPointsTyped("damage", ids(model)["Ogre"], "5", RNG))
    assert any(isinstance(e, Toast) for e in effects)
    first = hit.toast
    assert first and afters(hit) == {After(TOAST_MS, msg.ToastTimedOut(first))}
    again, _ = update(hit, msg.HitPointsTyped("damage", ids(model)["Ogre"], "2", RNG))
    assert again.toast > first and afters(again) == {After(TOAST_MS, msg.ToastTimedOut(again.toast))}  # the first one's timer is stopped
    # The first toast's time running out (a timer already stopped, late) hides nothing.
    assert update(again, msg.ToastTimedOut(first)) == (again, ())
    hidden, effects = update(again, msg.ToastTimedOut(again.toast))
    assert effects == (HideToast(),) and hidden.toast == 0 and afters(hidden) == set()


def test_a_refusal_leaves_the_model_as_it_was_and_a_hidden_toast_waits_for_nothing():
    """A refusal changes nothing, its toast's timer neither (the drawing's own: web/browser.Toast)."""
    model = fight(*PARTY, started=True)
    refused, effects = update(model, msg.Refused("Nothing was imported: the file is too large."))
    assert refused is model and effects == (Refuse("Nothing was imported: the file is too large."),) and afters(refused) == set()
    hit, _ = update(model, msg.HitPointsTyped("damage", ids(model)["Ogre"], "5", RNG))
    undone, effects = update(hit, msg.UndoTapped(from_toast=True))
    assert undone.toast > hit.toast and any(isinstance(e, Toast) and e.redo for e in effects)  # said anew, with Redo: its own time
    nothing = replace(fight(), toast=7, timed=7)  # a toast on screen, and nothing to undo: Undo in it hides it
    hidden, effects = update(nothing, msg.UndoTapped(from_toast=True))
    assert effects == (HideToast(),) and hidden.toast == 0 and afters(hidden) == set()


def test_typing_on_a_sheet_redraws_it_once_typing_stops():
    model = fight(*PARTY, started=True)
    model, _ = update(model, msg.SheetOpened("combatant", ids(model)["Ogre"]))
    typed = msg.AttackConfigured({"attacker": ids(model)["Cyra"], "bonus": "2"}, typing=True)
    after, effects = update(model, typed)
    assert effects == () and afters(after) == {After(SHEET_MS, msg.SheetDue(after.sheet_due))}
    more, _ = update(after, typed.but(config={"attacker": ids(model)["Cyra"], "bonus": "25"}))
    assert more.sheet_due > after.sheet_due and afters(more) == {After(SHEET_MS, msg.SheetDue(more.sheet_due))}
    assert update(more, msg.SheetDue(after.sheet_due)) == (more, ())  # the earlier key's wait was replaced
    drawn, effects = update(more, msg.SheetDue(more.sheet_due))
    assert effects == (RenderSheet(typing=True),) and drawn.sheet_due == 0 and afters(drawn) == set()
    # Not typing (a select, a box): drawn at once, nothing waits.
    now, effects = update(model, typed.but(typing=False))
    assert effects == (RenderSheet(),) and afters(now) == set()


def test_the_dice_box_stops_its_estimate_at_once_and_shows_the_odds_once_typing_stops():
    model = fight()
    typed, effects = update(model, msg.DiceTyped())
    assert StopOdds() in effects and afters(typed) == {After(ODDS_MS, msg.OddsDue(typed.odds_due))}
    due, effects = update(typed, msg.OddsDue(typed.odds_due))
    assert effects == (RefreshOdds(),) and afters(due) == set()


def test_the_live_tables_clock_and_the_toasts_timer_are_wanted_together():
    model = fight(*PARTY, started=True)
    hosting = replace(model, live=Live(role="host"))
    hit, _ = update(hosting, msg.HitPointsTyped("damage", ids(model)["Ogre"], "5", RNG))
    wanted = subscriptions(hit)
    assert BEAT in wanted and After(TOAST_MS, msg.ToastTimedOut(hit.toast)) in wanted
    assert all(isinstance(s, (Every, After)) for s in wanted)
