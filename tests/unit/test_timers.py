"""What waits on a timer, as subscriptions of the Model (web/app/update/timers.py): the toast on screen,
the sheet's and the odds' redraw once typing stops, the roller's estimate slice by slice. No clock:
the timers are what `subscriptions` says, and a timer that runs out is its message through `update`."""

from __future__ import annotations

import random
from dataclasses import replace

from tests.unit.test_update import PARTY, fight, ids
from web.app import messages as msg
from web.app.effects import After, Every, HideToast, RefreshOdds, Refuse, RenderSheet, StepOdds, StopOdds, Toast
from web.app.model import Live
from web.app.update import subscriptions, update
from web.app.update.clock import BEAT
from web.app.update.timers import ODDS_MS, SHEET_MS, SLICE_MS, TOAST_MS

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
    """A refusal changes nothing, its toast's timer neither (the drawing's own: web/page/browser.Toast)."""
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


def test_the_estimate_wants_one_slice_at_a_time_and_odds_asked_anew_or_typing_end_it():
    model = fight()
    going, effects = update(model, msg.EstimateGoesOn())
    assert effects == () and afters(going) == {After(SLICE_MS, msg.SliceDue(going.estimating))}
    stepped, effects = update(going, msg.SliceDue(going.estimating))
    assert effects == (StepOdds(),) and stepped.estimating == 0 and afters(stepped) == set()
    again, _ = update(stepped, msg.EstimateGoesOn())
    assert again.estimating > going.estimating
    assert update(again, msg.SliceDue(going.estimating)) == (again, ())  # a slice already taken: nothing
    typed, effects = update(again, msg.DiceTyped())
    assert StopOdds() in effects and typed.estimating == 0 and afters(typed) == {After(ODDS_MS, msg.OddsDue(typed.odds_due))}
    quick, effects = update(again, msg.QuickDieTapped("d8", "40d10kh20"))  # odds asked anew: a new estimate, if any, says so
    assert RefreshOdds() in effects and quick.estimating == 0 and afters(quick) == set()


class FakeElement:
    def __init__(self) -> None:
        self.textContent, self.placeholder, self.attributes = "", "", {}

    def setAttribute(self, name, value):  # noqa: N802 - the DOM's name
        self.attributes[name] = value


def test_the_roller_estimates_slice_by_slice_each_a_timer_of_the_model_and_typing_stops_it(monkeypatch):
    """The odds panel (web/page/browser.OddsPanel) with update and the page's timers (web/page/timers.Timers) as
    the runtime joins them, in CPython: each slice of the estimate is one timer the model wants, one
    at a time; typing stops the estimate and no slice comes after."""
    from web.page import browser, dom
    from web.page import timers as timing

    window, elements, html, box = FakeWindow(), {}, {}, {"dice-input": "100d6!kh50", "odds-target": ""}
    monkeypatch.setattr(dom, "window", window)
    monkeypatch.setattr(dom, "create_proxy", lambda fn: fn)
    monkeypatch.setattr(dom, "el", lambda i: elements.setdefault(i, FakeElement()))
    monkeypatch.setattr(dom, "value", lambda i, default="": box.get(i, default))
    monkeypatch.setattr(dom, "set_html", lambda i, text, *a, **k: html.__setitem__(i, text) or True)
    ticks = iter(range(10**6))
    queue: list[object] = []
    panel = browser.OddsPanel(lambda: queue.append(msg.EstimateGoesOn()), clock=lambda: next(ticks) * 0.005)
    timers = timing.Timers(queue.append)
    model = fight()
    performed = {RefreshOdds(): panel.refresh, StepOdds(): panel.next_slice, StopOdds(): panel.stop}

    def settle() -> None:
        """What the runtime does: each message queued through update, its effects performed, then
        the timers matched to the model."""
        nonlocal model
        while queue:
            model, effects = update(model, queue.pop(0))
            for effect in effects:
                performed.get(effect, lambda: None)()
            timers.follow(frozenset(afters(model)))

    def dispatch(message) -> None:
        queue.append(message)
        settle()

    def fire() -> None:
        """The one timer waiting runs out (its message is queued by web/page/timers.Timers)."""
        window.run(next(iter(window.pending)))
        settle()

    dispatch(msg.DiceTyped())
    dispatch(msg.OddsDue(model.odds_due))
    assert panel.job is not None and panel.job.exact is None  # over the exact budget: estimated
    for _ in range(3):
        assert [ms for _, ms, _ in window.pending.values()] == [SLICE_MS]  # one slice waits, in a task of its own
        fire()
    est = panel.job.estimate
    assert est is not None and 3 <= est.rolls < 20  # three slices rolled, each a few rolls on the fake clock
    assert elements["odds-body"].attributes["data-kind"] == "estimate" and "odds-body" in html
    dispatch(msg.DiceTyped())  # typing: the estimate stops at once
    assert panel.job is None and model.estimating == 0
    assert [ms for _, ms, _ in window.pending.values()] == [ODDS_MS]  # only the odds once typing stops
    box["dice-input"] = "2d6"
    fire()
    assert elements["odds-body"].attributes == {"data-expr": "2d6", "data-kind": "exact"} and window.pending == {}




def test_the_live_tables_clock_and_the_toasts_timer_are_wanted_together():
    model = fight(*PARTY, started=True)
    hosting = replace(model, live=Live(role="host"))
    hit, _ = update(hosting, msg.HitPointsTyped("damage", ids(model)["Ogre"], "5", RNG))
    wanted = subscriptions(hit)
    assert BEAT in wanted and After(TOAST_MS, msg.ToastTimedOut(hit.toast)) in wanted
    assert all(isinstance(s, (Every, After)) for s in wanted)


class FakeWindow:
    """setTimeout / clearTimeout as a list of what is pending (the browser's, without a browser)."""

    def __init__(self) -> None:
        self.pending: dict[int, tuple[object, int, tuple[object, ...]]] = {}
        self.next = 100

    def setTimeout(self, callback, ms, *args):  # noqa: N802 - the browser's name
        self.next += 1
        self.pending[self.next] = (callback, ms, args)
        return self.next

    def clearTimeout(self, handle):  # noqa: N802
        self.pending.pop(handle, None)

    def run(self, handle) -> None:
        callback, _, args = self.pending.pop(handle)
        callback(*args)


def test_the_pages_timers_follow_what_the_model_wants(monkeypatch):
    """web/page/timers.Timers: a wait the model wants is started once, its message dispatched once when it
    runs out; one it no longer wants is cleared (a newer toast), even late."""
    from web.page import dom
    from web.page import timers as timing

    window = FakeWindow()
    monkeypatch.setattr(dom, "window", window)
    monkeypatch.setattr(dom, "create_proxy", lambda fn: fn)
    said: list[object] = []
    timers = timing.Timers(said.append)
    first = After(TOAST_MS, msg.ToastTimedOut(1))
    timers.follow(frozenset({first}))
    timers.follow(frozenset({first}))  # wanted still: not started twice
    assert [(ms, args) for _, ms, args in window.pending.values()] == [(TOAST_MS, (1,))]
    newer = After(TOAST_MS, msg.ToastTimedOut(2))
    timers.follow(frozenset({newer, After(SHEET_MS, msg.SheetDue(3))}))  # the first toast's wait is cleared
    assert sorted(ms for _, ms, _ in window.pending.values()) == [SHEET_MS, TOAST_MS] and len(window.pending) == 2
    sheet = next(h for h, (_, ms, _) in window.pending.items() if ms == SHEET_MS)
    window.run(sheet)
    assert said == [msg.SheetDue(3)]
    timers.follow(frozenset({newer, After(SHEET_MS, msg.SheetDue(3))}))  # fired, still wanted: not again
    assert len(window.pending) == 1
    timers.follow(frozenset())  # nothing wanted: the toast's wait is cleared, and a late call does nothing
    assert window.pending == {} and said == [msg.SheetDue(3)]
    timers._fired(2)
    assert said == [msg.SheetDue(3)]
