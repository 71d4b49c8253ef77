"""Drawing the page from a given Model: the turn order, the round and its buttons, the notices and the
players' requests, the roller, the open sheet (web/app/screens) with its history entry. The runtime hands
each call the model it draws (the one `update` just made); nothing here changes it: what a drawing
finds (a screen whose subject is gone) goes back as a message. The browser is reached through
web/page/dom, bound at start."""

from __future__ import annotations

from collections.abc import Callable

from pyengine.dice import RollResult
from pyengine.handoff import view_payload
from pyengine.rules import system_of
from pyengine.tracker import Timeline
from web.app import render
from web.app.exchange import share_payload
from web.app.messages import EstimateGoesOn, Message, Noticed, SheetClosed, SheetOpened
from web.app.model import Model
from web.app.screens import Context, Elsewhere, screen_of
from web.app.storage.records import Notice
from web.page import browser, dom

__all__ = ["Drawing"]


class Drawing:
    """The page's regions, drawn from the model; the sheet (a modal dialog) with its history entry."""

    def __init__(self, dispatch: Callable[[Message], object], context: Callable[[Model], Context],
                 scanner: Callable[[str | None], None]) -> None:
        self.dispatch, self.context, self.scan = dispatch, context, scanner
        self._tracker: tuple[tuple[Timeline | None, tuple[str, ...] | None], str] = ((None, None), "")
        self.odds = browser.OddsPanel(lambda: dispatch(EstimateGoesOn()))
        self.toasts = browser.Toast()
        self.sheet_in_history = False  # a history entry was pushed for the open sheet (Back closes it)
        self.backs_pending = 0         # history.back() calls of our own whose popstate has not come yet
        # Links this page took in (the part after #): the history entry under an open sheet still has
        # it, and going back to it must not offer the same fight or character again.
        self.consumed: set[str] = set()
        self.page_only = False   # the table display: the players' view alone (start: `#display`)
        # The players' view drawn before the engine was ready (static/early.mjs): kept on screen until
        # this page has a view of its own to draw over it.
        self.early_view = False

    def tracker_html(self, timeline: Timeline, selected: tuple[str, ...] | None = None) -> str:
        """The turn order's HTML, built once per state: the screen and the snapshot share it."""
        (drawn, was), html = self._tracker
        if drawn is not timeline or was != selected:  # identity: comparing timelines would walk them
            html = render.tracker_html(timeline, selected)
            self._tracker = ((timeline, selected), html)
        return html

    def snapshot_html(self, timeline: Timeline) -> str:
        """The turn order with no selection, for the start-up snapshot: the drawn one when that is it,
        else built aside (the cache keeps what the screen shows: selecting rows does not build it twice)."""
        (drawn, selected), html = self._tracker
        return html if drawn is timeline and selected is None else render.tracker_html(timeline)

    def render(self, model: Model, elsewhere: bool = False) -> None:
        """`elsewhere`: drawn for another tab's change (the open sheet's fields keep what is typed)."""
        if self.page_only:  # the table display: its one screen, and nothing of a tracker
            if model.ui.sheet is not None:
                self.render_sheet(model)
            return
        t = model.timeline
        enc = t.present
        dom.set_html("tracker", self.tracker_html(t, model.ui.selected))
        dom.el("round-label").textContent = render.round_label(enc)
        dom.el("undo").disabled = not t.can_undo
        dom.el("redo").disabled = not t.can_redo
        nxt = dom.el("next-turn")
        nxt.disabled = not enc.combatants
        nxt.textContent = ("Next turn" if system_of(enc).flow.ordered_by_initiative else "Done") if enc.started else "Start fight"
        log_box = dom.el("log-box")
        if log_box is not None and log_box.open:
            dom.set_html("log", render.log_html(t.log()))
        self.render_notices(model)
        if model.ui.sheet is not None:
            self.render_sheet(model, typing="fields" if elsewhere else False)

    def show_roll(self, result: RollResult) -> None:
        node = dom.el("roll-result")
        if node is not None and node.classList.contains("stale"):
            node.classList.remove("stale")
            dom.forget("roll-result")  # (the same result again is drawn again, without its "previous")
        dom.set_html("roll-result", render.roll_result_html(result))

    @staticmethod
    def roll_stale() -> None:
        """Another expression typed: the result shown says it is the previous roll (it is not this one's)."""
        node = dom.el("roll-result")
        if node is not None and node.firstElementChild is not None and not node.classList.contains("stale"):
            node.classList.add("stale")
            node.insertAdjacentHTML("afterbegin", '<p class="previous muted" data-testid="roll-previous">Previous roll:</p>')

    def render_notices(self, model: Model) -> None:
        dom.set_html("notices", render.notices_html(list(model.notices), model.timeline))
        live = model.live
        waiting = live.requests if live.hosting else ()
        tray, badge = dom.el("request-tray"), dom.el("request-count")
        if tray is not None and badge is not None:
            dom.set_html("request-tray", render.tray_html(waiting) if waiting else "")
            tray.hidden = not (waiting and live.tray)
            badge.hidden = not waiting
            badge.textContent = f"Asks {len(waiting)}"
            badge.setAttribute("aria-label", f"Players' requests: {len(waiting)}")
            badge.setAttribute("aria-expanded", "true" if live.tray else "false")
            dom.document.body.classList.toggle("has-tray", bool(waiting and live.tray))

    def render_rolls(self, model: Model) -> None:
        dom.set_html("saved-rolls", render.saved_rolls_html(list(model.saved_rolls)))
        dom.set_html("roll-history", render.history_html(list(model.rolls)))

    def render_roller(self, model: Model) -> None:
        dom.set_html("roller", render.roller_html())
        self.render_rolls(model)
        self.odds.refresh()

    def render_sheet(self, model: Model, typing: bool | str = False) -> None:
        """Draw the open screen (web/app/screens); one whose subject is gone closes or opens another.
        `typing`: drawn a moment after typing stopped (the field typed in keeps what it holds)."""
        screen = screen_of(model.ui)
        if screen is None or model.ui.sheet is None:
            return
        if self.early_view:
            if model.ui.sheet[0] == "live-follow" and model.live.view is None:
                return  # the early view stays until there is a view to draw over it (no flash of "waiting")
            self.early_view = False
        drawn = screen.draw(self.context(model), model.ui.sheet[1])
        if isinstance(drawn, Elsewhere):
            self.dispatch(SheetClosed() if drawn.kind is None else SheetOpened(drawn.kind))
            return
        dom.set_html("sheet-body", drawn, morph=True, typing=typing)
        # The players' view is the page's screen on a player's phone and the table display, not a dialog over a tracker.
        dom.el("sheet").classList.toggle("page", model.ui.sheet[0] == "live-follow")
        if model.ui.sheet[0] == "live" and model.live.link:
            self.show_link(model.live.link)
        for field, box, note in (("offer-code", "offer-qr", "offer-qr-note"), ("answer-code", "answer-qr", "answer-qr-note"),
                                 ("character-link", "character-qr", "character-qr-note")):
            node = dom.el(field)
            if node is not None and str(node.value):
                browser.later(browser.show_qr(str(node.value), field, box, note))
        self.scan(model.ui.sheet[1] if model.ui.sheet[0] == "scan" else None)

    def show_link(self, link: str) -> None:
        """The join link in the Live table's field and as its QR code (drawn again with the sheet)."""
        field = dom.el("live-link")
        if field is not None and str(field.value) != link:
            field.value = link
            browser.later(browser.show_qr(link, "live-link", "live-qr", "live-qr-note"))

    def show_sheet(self, model: Model, focus: bool) -> None:
        """A sheet opened: at its top (not where the last one was scrolled), with a history entry of
        its own, so that the phone's Back closes it instead of leaving the app."""
        dom.forget("sheet-body")
        self.render_sheet(model)
        dialog = dom.el("sheet")
        if model.ui.sheet is None:
            return  # what it would show is gone
        if not dialog.open:
            dialog.showModal()
        dom.el("sheet-body").scrollTop = 0
        if not self.sheet_in_history:
            dom.window.history.pushState(dom.window.JSON.parse('{"rkSheet": 1}'), "")  # marked: see close_sheet
            self.sheet_in_history = True
        first = dom.py(dialog.querySelector("input:not([type=file]),select"))
        if first is not None and focus:
            first.focus()

    def close_sheet(self) -> None:
        self.scan(None)
        dialog = dom.el("sheet")
        if dialog.open:
            dialog.close()
        self.toasts.out_of_sheet()
        if self.sheet_in_history:  # its history entry goes too (Back then leaves the app as before)
            self.sheet_in_history = False
            self.backs_pending += 1
            dom.window.history.back()

    def clear_link(self) -> None:
        """The address without the link this page took in (kept in mind: see `consumed`)."""
        if dom.window.location.hash:
            self.consumed.add(str(dom.window.location.hash))
        browser.clear_link()

    def back_pressed(self) -> None:
        """The phone's Back (a popstate): it closes the open sheet; the one this page caused itself
        (closing a sheet takes its history entry back) is ignored."""
        if self.backs_pending:
            self.backs_pending -= 1
            return
        if self.sheet_in_history:
            self.sheet_in_history = False
            self.dispatch(SheetClosed())

    def refuse(self, model: Model, text: str) -> None:
        """A refusal, said where the tap was: in the open screen (its own error line and a toast at
        the bottom of the sheet), else as a notice."""
        screen = screen_of(model.ui)
        node = dom.el(screen.error_line) if screen is not None and screen.error_line else None
        if node is None:
            self.dispatch(Noticed((Notice("error", text),)))
            return
        node.textContent = text
        self.toasts.show(text, "error", False, True, timed=True)

    @staticmethod
    def fill(fields: tuple[tuple[str, str | bool], ...], focus: str | None = None) -> None:
        for node_id, value in fields:
            node = dom.el(node_id)
            if node is None:
                continue
            if isinstance(value, bool):
                node.checked = value
            else:
                node.value = value
        if focus is not None and dom.el(focus) is not None:
            dom.el(focus).focus()

    @staticmethod
    def show_share_link(model: Model, kind: str) -> None:
        """The fight for a co-GM (its whole present state), or the players' read-only view: in the
        field, copied, and drawn as a QR code."""
        field = dom.el("share-field")
        if field is None:
            return
        here = f"{dom.window.location.origin}{dom.window.location.pathname}"
        enc = model.timeline.present
        field.value = f"{here}#view={view_payload(enc)}" if kind == "view" else f"{here}#fight={share_payload(enc)}"
        browser.copy_link("share-field", "share-out")
        browser.later(browser.show_qr(str(field.value)))
