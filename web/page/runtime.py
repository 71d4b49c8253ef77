"""The runtime: the one place where the page, storage and the Elm core meet, and nothing else.

A DOM event becomes a message (the screens' handlers, web/app/screens; web/page/listeners reads the events),
`update` (web/app/update) makes the next Model and the effects, and `perform` carries each out with
that model: storage (web/app/storage/keeper), drawing (web/page/paint), the live table's connections and timers
(web/page/live). The Model is the page's only state. `dispatch` is not re-entrant: a message raised
while effects are performed waits in the queue and runs after them, so every effect of a message
sees the model that message made. After each round the timers the model wants
(web/app/update/clock.subscriptions) are started or stopped to match. web/page/main.py builds it at start.
"""

from __future__ import annotations

import asyncio
import functools
import random
import secrets
import time
from dataclasses import replace
from typing import assert_never

from pyengine.errors import EngineError
from pyengine.record import Record
from web.app import effects as fx
from web.app.loop import Loop
from web.app.messages import (
    EarlyViewLeft,
    EncountersImported,
    FirstTime,
    JournalAnswered,
    JournalRefused,
    LibraryFailed,
    LibraryLoaded,
    LiveResumed,
    Message,
    Noticed,
    PageReady,
    Refused,
    StorageAsked,
    StorageKept,
)
from web.app.model import NEXT_TURN_GUARD, Model
from web.app.screens import Context, handler, screen_of
from web.app.storage.keeper import LAST_EXPORT_KEY, LIVE_TABLE_KEY, Keeper, stored_time
from web.app.storage.records import Notice, Store
from web.app.update import backup_known, subscriptions
from web.page import browser, dom
from web.page import timers as timing
from web.page.live import LiveSide
from web.page.paint import Drawing

__all__ = ["Runtime"]


class Runtime(Loop):
    def __init__(self, store: Store, status: str, rng: random.Random, prefix: str, guard: float = NEXT_TURN_GUARD,
                 servers: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] = ((), (), ())) -> None:
        """status: how the browser's storage answered at start: "ok", "full", "blocked" or "display"."""
        self.prefix, self.rng = prefix, rng
        self.keeper = Keeper(store, status)
        super().__init__(replace(self.keeper.first_model(), next_turn_guard=guard, servers=servers, live_page=secrets.token_hex(4)))
        self.keeper.dispatch = self.dispatch
        self.drawing = Drawing(self.dispatch, self.context, lambda kind: self.live.scanner.show(kind))
        self.drawing.page_only = status == "display"
        self.keeper.snapshot = self.drawing.snapshot_html
        self.live = LiveSide(prefix, self.keeper, self.dispatch, rng, self.took_over)
        self.wake = browser.WakeLock()
        self.timers = timing.Timers(self.fired)

    def settled(self, model: Model) -> None:
        """The timers the model wants, started or stopped to match (web/app/update/clock.subscriptions):
        the live table's clocks, and what waits once (a toast's time, typing that stopped)."""
        wanted = subscriptions(model)
        self.live.follow(frozenset(s for s in wanted if isinstance(s, fx.Every)))
        self.timers.follow(frozenset(s for s in wanted if isinstance(s, fx.After)))

    def fired(self, message: Record) -> None:
        """A timer the model wanted ran out: its message (made by update: web/app/update/timers.waiting)."""
        if isinstance(message, Message):
            self.dispatch(message)

    def event(self, kind: str, name: str, node: dom.JsObject, target: dom.JsObject = None) -> None:
        """A DOM event to its screen's handler, and the messages it answers with to `dispatch`; a
        value the handler cannot read (a bad number) is said where the tap was."""
        model = self.model  # (the model this event came to: the page it reads is given it, once)
        found = handler(kind, name, model.timeline.present.system)
        if found is None:
            return
        try:
            answer = found(browser.DomPage(model, self.rng, self.keeper, node, target))
            for message in answer if isinstance(answer, tuple) else (answer,) if answer is not None else ():
                self.dispatch(message)
        except EngineError as error:
            self.dispatch(Refused(str(error)))

    def say(self, *notices: Notice) -> None:
        """A notice from the browser's side (storage refused, another tab)."""
        self.dispatch(Noticed(notices))

    def perform(self, effect: fx.Effect, model: Model) -> None:  # noqa: C901, PLR0912 - one case an effect
        """Carry out one effect with the model that asked for it (the one table of what update may ask)."""
        keeper, drawing, live = self.keeper, self.drawing, self.live
        if isinstance(effect, fx.StorageEffect):  # (the keeper's own match: web/app/storage/keeper.Keeper.perform)
            keeper.perform(effect, model)
            return
        match effect:
            case fx.Render():
                drawing.render(model, effect.elsewhere)
            case fx.RenderSheet():
                screen = screen_of(model.ui)
                if not effect.collection or (screen is not None and screen.redrawn_for(effect.collection)):
                    drawing.render_sheet(model, typing=effect.typing)
            case fx.RenderNotices():
                drawing.render_notices(model)
            case fx.RenderRolls():
                drawing.render_rolls(model)
            case fx.RenderRoller():
                drawing.render_roller(model)
            case fx.AskFirstTime():
                if keeper.first_time(effect.key):
                    self.dispatch(FirstTime(effect.key))
            case fx.Toast():
                drawing.toasts.show(effect.text, effect.level, effect.undo, model.ui.sheet is not None, effect.redo, effect.request)
            case fx.HideToast():
                drawing.toasts.hide()
            case fx.Refuse():
                drawing.refuse(model, effect.text)
            case fx.ShowSheet():
                drawing.show_sheet(model, effect.focus)
            case fx.CloseSheet():
                drawing.close_sheet()
            case fx.KeepAwake():
                self.wake.want(model.timeline.present.started or model.live.following)
            case fx.AskToKeepStorage():
                if keeper.persistent and model.storage_kept is not True and model.timeline.present.started and not model.asked_to_keep:
                    self.dispatch(StorageAsked())
                    browser.later(self.check_storage_kept(ask=True))
            case fx.SayOnLine():
                line = dom.el(effect.line)
                if line is not None:  # (its screen may have closed since)
                    line.textContent = effect.text
                    if effect.mark:
                        line.dataset.state = effect.mark
            case fx.SetField():
                drawing.fill(((effect.field, effect.value),))
            case fx.FillForm():
                drawing.fill(effect.fields, effect.focus)
            case fx.ShowRoll():
                drawing.show_roll(effect.result)
            case fx.RefreshOdds():
                drawing.odds.refresh()
            case fx.StopOdds():
                drawing.odds.stop()
            case fx.StepOdds():
                drawing.odds.next_slice()
            case fx.RollStale():
                drawing.roll_stale()
            case fx.ClearLink():
                drawing.clear_link()
            case fx.AddEncounters():
                self.store_imported(effect, model)
            case fx.SetTheme():
                dom.window.RK.applyTheme(effect.theme)  # "system" (the phone's setting, followed live), "light" or "dark"
                keeper.keep("theme", effect.theme)
            case fx.Download():
                dom.download(*keeper.export(model, effect.what))
                if effect.what == "all":  # a backup: its time kept, the menu's "Last backup" and the offer follow
                    now = time.time()
                    keeper.keep(LAST_EXPORT_KEY, repr(now))
                    browser.later(self.backed_up(now))
            case fx.ShowShareLink():
                drawing.show_share_link(model, effect.kind)
            case fx.CopyLink():
                browser.copy_link(effect.field, effect.line)
            case fx.Reload():
                dom.window.location.reload()
            case fx.LiveConnect():
                live.connect(effect)
            case fx.LiveSend():
                live.send(effect, model)
            case fx.LiveBroadcast():
                live.broadcast(effect)
            case fx.LiveTell():
                live.transport.send(effect.text, effect.peer)
            case fx.LiveLeave():
                live.leave()
            case fx.StoreServers():
                keeper.keep_servers(effect.relays, effect.stun, effect.nostr)
            case fx.ForgetLive():
                keeper.keep_live(None)
            case fx.KeepLiveTable():
                keeper.keep(LIVE_TABLE_KEY, effect.text)
            case fx.OpenDisplay():
                dom.window.open(live.display_address(), "roundkeeper-display")
            case fx.ShowLiveLink():
                live.show_live_link(effect)
            case fx.ShowLink():
                drawing.show_link(effect.link)
            case fx.MakeOffer():
                browser.later(live.make_offer())
            case fx.AcceptOffer():
                browser.later(live.accept_offer(effect))
            case fx.ApplyAnswer():
                browser.later(live.apply_answer(effect))
            case fx.LoadLibrary():
                browser.later(self.load_library(effect.fresh))
            case _:
                assert_never(effect)

    # -- what the page asks the browser for, a while later -------------------------------------
    async def load_library(self, fresh: bool = False) -> None:
        """The creature library's file, the site's own (precached by the service worker: offline too;
        `fresh`: past the caches, its copy replaced). Its size is checked before it is read, and it is
        read and checked a slice at a time (pyengine.systems.srd.reading_library), each in a task of its
        own: no long task, whatever the file."""
        from pyengine.systems.srd import LIBRARY_FILE, MAX_LIBRARY_CHARS, reading_library

        window = dom.window
        try:
            url = str(window.URL.new(f"./{LIBRARY_FILE}", window.document.baseURI).href)
            response = await window.fetch(url, dom.to_js({"cache": "reload"} if fresh else {}, dict_converter=window.Object.fromEntries))
            if not response.ok:
                self.dispatch(LibraryFailed(f"the file answered {response.status}", fresh=fresh))
                return
            blob = await response.blob()
            if int(blob.size) > MAX_LIBRARY_CHARS:  # (before a byte of it is read into the page)
                self.dispatch(LibraryFailed(f"The creature library is damaged (a file of {int(blob.size) / 1e6:,.1f} MB where about "
                                            "0.5 MB is expected).", damaged=True, fresh=fresh))
                return
            text = str(await blob.text())
        except dom.JsException as error:
            self.dispatch(LibraryFailed(str(error)[:200] or "no network", fresh=fresh))
            return
        steps = reading_library(text)
        try:
            while True:
                try:
                    next(steps)
                except StopIteration as done:
                    self.dispatch(LibraryLoaded(library=done.value))
                    return
                await window.RK.nextTask()  # (the page's own task ends here: taps and drawing go on)
        except EngineError as error:
            self.dispatch(LibraryFailed(str(error), damaged=True, fresh=fresh))

    def store_imported(self, e: fx.AddEncounters, model: Model) -> None:
        """An imported fight stored and listed as from a file, with the model the effect came with; the
        import goes on a task later (EncountersImported: the page answers taps between them). What could
        not be stored (storage full) is neither listed nor shown, and said with the count."""
        if not e.timelines or not self.keeper.store_imported(model, e.timelines[0]):
            self.dispatch(EncountersImported(e.stored, e.total, last=e.last))  # (refused: the next, no smaller, would be too)
            return
        browser.later(self._next_task(EncountersImported(e.stored + 1, e.total, e.timelines[1:], e.timelines[0])))

    async def _next_task(self, message: Message) -> None:
        await asyncio.sleep(0)
        self.dispatch(message)

    async def check_storage_kept(self, ask: bool) -> None:
        """Whether the browser keeps our data; with `ask`, ask it to (once a fight has started)."""
        storage = getattr(dom.window.navigator, "storage", None)
        if storage is None or not hasattr(storage, "persist"):
            return
        try:
            kept = bool(await storage.persisted())
            if not kept and ask:
                kept = bool(await storage.persist())
        except dom.JsException:
            return
        self.dispatch(StorageKept(kept))

    def journal_conflict(self, key: str, vid: str) -> None:
        """The journal refused this tab's version `vid` of `key`: another tab stored its own first (static/journal.js)."""
        browser.later(self._journal_conflict(key, vid))

    async def _journal_conflict(self, key: str, vid: str) -> None:
        raw = dom.py(await dom.window.RK.journal.read(key))
        dom.window.RK.journal.resolved(key)
        self.dispatch(JournalRefused(self.unprefixed(key), vid, raw if isinstance(raw, str) else None))

    def journal_settled(self, key: str) -> None:
        """The journal answered every write of `key` this tab made (static/journal.js)."""
        self.dispatch(JournalAnswered(self.unprefixed(key)))

    def unprefixed(self, key: str) -> str:
        """A journal key as the keeper names it: without this site's prefix."""
        return key[len(self.prefix):] if key.startswith(self.prefix) else key

    # -- what the screens draw from -------------------------------------------------------------
    def context(self, model: Model) -> Context:
        """The model, the list of encounters, the theme, the storage, the time, the page's address."""
        ws, location = self.keeper.ws, dom.window.location
        return Context(model, tuple(ws.encounters), frozenset(ws.locked), model.trash.encounters,
                       str(dom.document.documentElement.dataset.themePref or "system"), self.keeper.storage_state(model), time.time(),
                       f"{location.origin}{location.pathname}", safari_tab())

    def took_over(self) -> None:
        """The early view's join taken over: a view still not drawn is drawn as this page has it."""
        if self.drawing.early_view:
            self.drawing.early_view = False
            self.dispatch(EarlyViewLeft())

    async def backed_up(self, at: float | None) -> None:
        self.dispatch(backup_known(at, time.time()))

    def ready(self) -> None:
        """The page listens: when this device last made a backup, then the page's first things
        (PageReady: the wake lock, the one-time hints, the storage kept)."""
        self.dispatch(backup_known(stored_time(self.keeper.get(LAST_EXPORT_KEY)), time.time()))
        browser.later(self.check_storage_kept(ask=False))
        self.dispatch(PageReady(safari_tab()))

    def resume_live(self) -> None:
        """The game master's table stays live across a reload of their phone: the same room again."""
        stored = self.keeper.stored_live()
        if stored:
            room, secret, _ = stored
            self.dispatch(LiveResumed(room, secret, kept=self.keeper.get(LIVE_TABLE_KEY) or "", rng=self.rng))


@functools.cache  # (a page's answer does not change: read once, not at every drawing)
def safari_tab() -> bool:
    """Safari on an iPhone or iPad, in a tab rather than opened from the Home Screen (only there is
    `navigator.standalone` a boolean, and false): WebKit clears such a site's data after 7 days of use
    without a visit."""
    return dom.py(getattr(dom.window.navigator, "standalone", None)) is False
