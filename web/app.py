"""The page controller: reads the DOM, calls the engine, writes the DOM back. No rules here."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyodide.ffi import JsException
from pyscript import document, window

from pyengine.characters import (
    Character,
    character_to_dict,
    combatant_fields,
    read_character,
)
from pyengine.dice import Distribution, Estimate, RollResult, parse
from pyengine.errors import EngineError, SchemaError
from pyengine.handoff import read_view, view_payload
from pyengine.reading import readings
from pyengine.rules import system_of
from pyengine.text import quoted
from pyengine.tracker import Timeline

from . import characters, dom, qr, render
from . import effects as fx
from .dom import JsObject
from .html import esc, odds_html
from .messages import Act, AttackApplied, AttackRolled, Message, RollTyped, ShareOffered, ShareOpened
from .model import NEXT_TURN_GUARD, Model, Trash
from .odds_job import OddsJob
from .persist import (
    CHARACTERS,
    COLLECTIONS,
    INDEX,
    ROLLS,
    ROSTER,
    SAVED_ROLLS,
    SNAPSHOT,
    TEMPLATES,
    ChangedElsewhere,
    Notice,
    Persistence,
    StorageFull,
    StorageUnavailable,
    Store,
    import_characters,
    parse_import,
    rebase,
    share_payload,
)
from .screens import Context, Elsewhere, screen_of
from .screens.characters import find as find_character
from .state import Ui, update
from .update import in_place, noticed, without
from .update import update as update_model

# The App's field that holds each collection the model keeps (the rest live in the workspace).
COLLECTION_FIELDS = {ROLLS: "rolls", SAVED_ROLLS: "saved_rolls", CHARACTERS: "characters", ROSTER: "roster", TEMPLATES: "templates"}
HINT_HOME = "hint:home-screen"  # the one-time "add to Home Screen" hint was shown
HINT_FIRST = "hint:first-run"  # the one-time "tap a row, ☰ is the menu" hint was shown
TOAST_SECONDS = 5

QUICK = (("d4", "4"), ("d6", "6"), ("d8", "8"), ("d10", "10"), ("d12", "12"), ("d20", "20"), ("d100", "100"),
         ("Adv", "adv"), ("Dis", "dis"))  # a die adds to the expression being built; Adv / Dis rewrite its d20


class App:
    def __init__(self, store: Store, status: str, rng: random.Random, prefix: str) -> None:
        """status: how the browser's storage answered at start: "ok", "full" or "blocked"."""
        self.store = store
        self.persistent = status != "blocked"
        self.prefix = prefix
        self.rng = rng
        self.persistence = Persistence(store)
        self.notices: list[Notice] = []
        self.ui = Ui()  # what the screen shows beyond the fight (sheet, attack panel ...): changed by `update`
        self._tracker_html: tuple[tuple[Timeline | None, tuple[str, ...] | None], str] = ((None, None), "")  # (timeline, selection), its HTML
        self._odds_proxy = dom.proxy(self.update_odds)
        self._estimate_proxy = dom.proxy(self.estimate_slice)
        self.odds_job: OddsJob | None = None  # an estimate still growing, slice by slice
        self.estimate_timer = None
        self._sheet_proxy = dom.proxy(self.render_sheet)
        self.sheet_timer = None
        self.odds_timer = None
        self.wake_lock = None
        self.toast_timer = None
        self._hide_toast_proxy = dom.proxy(self.hide_toast)
        self.next_turn_guard = NEXT_TURN_GUARD
        self.storage_kept: bool | None = None  # navigator.storage.persisted(), once known
        self.asked_to_keep = False
        self.bin = Trash()  # the model's trash: deleted saved rolls, characters and encounters (web/model.py)
        self._performers = self._performing()
        try:
            self.ws, loaded_notices = self.persistence.load_workspace()
            self.notices.extend(loaded_notices)
            self.rolls = self.persistence.read_collection(ROLLS, self.notices)
            self.saved_rolls = self.persistence.read_collection(SAVED_ROLLS, self.notices)
            self.characters = self.persistence.read_collection(CHARACTERS, self.notices)
        except StorageUnavailable:
            self._fall_back_to_memory()
        if status == "full":
            self.notices.append(Notice(
                "error", "Storage is full (this site, or another site at this address, filled it). Your saved fights are "
                         "shown, but changes cannot be saved until there is room. Export all keeps a copy; Trim history "
                         "frees room.", "export-all", "Export all", (("trim-history", "Trim history"),)))
        elif not self.persistent:
            self.notices.append(Notice("error", "This browser is not letting Roundkeeper save (storage is blocked or private). "
                                                "Everything works, but the fight is lost when the page closes. Export it to keep it."))

    def _fall_back_to_memory(self) -> None:
        from .persist import MemoryStore

        self.store = MemoryStore()
        self.persistent = False
        self.persistence = Persistence(self.store)
        self.ws, _ = self.persistence.load_workspace()
        self.rolls, self.saved_rolls, self.characters = [], [], []

    # -- the model, update and effects (web/update.py) --------------------------------------
    def model(self) -> Model:
        """The page's state as one value (the fields below are its working copy while the rest of
        the controller moves into update)."""
        return Model(self.ws.current, self.ui, rolls=tuple(self.rolls), saved_rolls=tuple(self.saved_rolls),
                     characters=tuple(self.characters), roster=tuple(self.ws.roster), templates=tuple(self.ws.templates),
                     notices=tuple(self.notices), trash=self.bin, next_turn_guard=self.next_turn_guard)

    def adopt(self, model: Model) -> None:
        self.ws.current = model.timeline
        self.ui = model.ui
        self.rolls, self.saved_rolls, self.characters = list(model.rolls), list(model.saved_rolls), list(model.characters)
        self.ws.roster, self.ws.templates = list(model.roster), list(model.templates)
        self.notices = list(model.notices)
        self.bin = model.trash

    def dispatch(self, message: Message) -> Model:
        """Run `update` on a message, take its model, and perform its effects in order."""
        model, effects = update_model(self.model(), message)
        self.adopt(model)
        for effect in effects:
            self.perform(effect)
        return model

    def perform(self, effect: fx.Effect) -> None:
        """Carry out one effect in the browser."""
        self._performers[type(effect)](effect)

    def _performing(self) -> dict[type, Callable[[Any], None]]:
        """Effect type -> how the page carries it out (the one table of what update may ask)."""
        return {
            fx.SaveFight: lambda e: self.save_fight(),
            fx.Render: lambda e: self.render(),
            fx.RenderSheet: lambda e: self.render_sheet(),
            fx.RenderNotices: lambda e: self.render_notices(),
            fx.RenderRolls: lambda e: self.render_rolls(),
            fx.Toast: lambda e: self.toast(e.text, e.level, e.undo),
            fx.HideToast: lambda e: self.hide_toast(),
            fx.Refuse: lambda e: self.error(e.text),
            fx.OpenSheet: lambda e: self.open_sheet(e.kind, e.ident),
            fx.CloseSheet: lambda e: self.close_sheet(),
            fx.StoreCollection: lambda e: self.store_collection(e.key),
            fx.KeepAwake: lambda e: self.update_wake_lock(),
            fx.AskToKeepStorage: lambda e: self.ask_to_keep_storage(),
            fx.SayOnLine: lambda e: setattr(dom.el(e.line), "textContent", e.text),
            fx.SetField: lambda e: setattr(dom.el(e.field), "value", e.value),
            fx.ShowRoll: lambda e: self.show_roll(e.result),
            fx.RefreshOdds: lambda e: self.update_odds(),
            fx.ScheduleOdds: lambda e: self.schedule_odds(),
            fx.OpenCharacter: lambda e: self.open_character(e.ident),
            fx.ClearLink: lambda e: self.clear_link(),
            fx.SwitchTo: self.switch_to_effect,
            fx.ForgetStored: self.forget_stored,
        }

    def save_fight(self) -> None:
        """The fight on screen changed: its line in the list of encounters, then the save."""
        for entry in self.ws.encounters:
            if entry["id"] == self.timeline.present.id:
                self.describe_entry(entry, self.timeline)
        self.save()

    def show_roll(self, result: RollResult) -> None:
        dom.set_html("roll-result", render.roll_result_html(result))

    def render_rolls(self) -> None:
        dom.set_html("saved-rolls", render.saved_rolls_html(self.saved_rolls))
        dom.set_html("roll-history", render.history_html(self.rolls))

    def store_collection(self, key: str) -> None:
        """Store one collection of the model (merged with another tab's), and keep what was stored."""
        owner = self.ws if key in (ROSTER, TEMPLATES) else self
        setattr(owner, COLLECTION_FIELDS[key], self.store_list(key, list(getattr(owner, COLLECTION_FIELDS[key]))))

    # -- state changes ---------------------------------------------------------------------
    def update(self, message: str, **data: object) -> None:
        """Change the UI state (see state.py); the caller renders what changed."""
        self.ui = update(self.ui, message, **data)

    @property
    def timeline(self) -> Timeline:
        return self.ws.current

    def act(self, kind: str, args: dict[str, Any] | None = None, close_sheet: bool = False) -> bool:
        """Resolve and apply an action (update.act): True when the fight changed."""
        before = self.timeline
        return self.dispatch(Act(kind, dict(args or {}), self.rng, close_sheet)).timeline is not before

    def toast(self, text: str, level: str = "info", undo: bool = False) -> None:
        """A short message where the thumb is: at the bottom of the open sheet, else above the turn
        controls; read out by screen readers; gone after a few seconds."""
        for node_id in ("toast", "sheet-toast"):
            dom.el(node_id).hidden = True
        node = dom.el("sheet-toast" if self.ui.sheet is not None else "toast")
        node.className = f"toast {level}"
        node.innerHTML = (f'<span data-testid="toast-text">{esc(text)}</span>'
                          + ('<button type="button" data-action="toast-undo" data-testid="toast-undo">Undo</button>' if undo else ""))
        node.hidden = False
        if self.toast_timer is not None:
            window.clearTimeout(self.toast_timer)
        self.toast_timer = window.setTimeout(self._hide_toast_proxy, TOAST_SECONDS * 1000)

    def hide_toast(self) -> None:
        self.toast_timer = None
        for node_id in ("toast", "sheet-toast"):
            dom.el(node_id).hidden = True

    def commit(self, timeline: Timeline) -> None:
        self.ws.current = timeline
        for entry in self.ws.encounters:
            if entry["id"] == timeline.present.id:
                self.describe_entry(entry, timeline)
        self.save()
        self.render()
        self.update_wake_lock()
        self.ask_to_keep_storage()

    @staticmethod
    def describe_entry(entry: dict[str, Any], timeline: Timeline) -> dict[str, Any]:
        """Bring a list entry up to date with its fight: name, system, round, last played. The time
        is kept to the minute, so most taps leave the stored list of encounters as it was."""
        enc = timeline.present
        minute = int(time.time() // 60) * 60_000
        entry.update({"name": enc.name, "system": enc.system, "round": enc.round, "at": minute})
        return entry

    def save(self) -> None:
        if not self.persistent:
            return
        try:
            self.persistence.save_timeline(self.ws.current, self.ws)
        except StorageFull:
            self.notify(Notice("error", "Storage is full: this change is on screen but NOT saved; the last good save is kept. "
                                        "Trim old undo history to make room?", "trim-history", "Trim history",
                               (("export-all", "Export all"),)))
            return
        except ChangedElsewhere:
            self.pick_up_other_tab(conflict=True)
            return
        except SchemaError as error:
            self.notify(Notice("warn", str(error)))
            return
        except StorageUnavailable:
            self.notify(Notice("error", "The browser stopped letting Roundkeeper save. Export the fight to keep it."))
            return
        try:
            self.store.set(SNAPSHOT, self.tracker_html() if self.ui.selected is None else render.tracker_html(self.timeline))
        except (StorageFull, StorageUnavailable):
            pass  # the snapshot is only a faster start; the fight itself is saved

    def pick_up_other_tab(self, conflict: bool = False) -> None:
        eid = self.timeline.present.id
        self.persistence.revs.pop(eid, None)
        timeline, _ = self.persistence.load_timeline(eid, self.notices)
        if timeline is None:
            return
        self.ws.current = timeline
        if conflict:
            self.notify(Notice("warn", "This fight was changed in another tab. Showing that version; your last change here was not saved."))
        else:
            self.notify(Notice("info", "Updated with a change made in another tab."))
        self.render()

    def pick_up_collection(self, key: str) -> None:
        """Another tab stored a collection: show its version (ours was stored at every change)."""
        notices: list[Notice] = []
        if key == INDEX:
            self.persistence.refresh_index(self.ws)
        elif key == ROLLS:
            self.rolls = self.persistence.read_collection(ROLLS, notices)
            dom.set_html("roll-history", render.history_html(self.rolls))
        elif key == SAVED_ROLLS:
            self.saved_rolls = self.persistence.read_collection(SAVED_ROLLS, notices)
            dom.set_html("saved-rolls", render.saved_rolls_html(self.saved_rolls))
        elif key == ROSTER:
            self.ws.roster = self.persistence.read_collection(ROSTER, notices)
        elif key == TEMPLATES:
            self.ws.templates = self.persistence.read_collection(TEMPLATES, notices)
        elif key == CHARACTERS:
            self.characters = self.persistence.read_collection(CHARACTERS, notices)
        screen = screen_of(self.ui)
        if screen is not None and screen.redrawn_for(key):
            self.render_sheet()

    # -- messages --------------------------------------------------------------------------
    def notify(self, notice: Notice) -> None:
        self.notices = list(noticed(self.notices, notice))
        self.render_notices()

    def error(self, text: str) -> None:
        """A refusal, said where the tap was: in the open screen (its own error line and a toast at
        the bottom of the sheet), else as a notice."""
        screen = screen_of(self.ui)
        node = dom.el(screen.error_line) if screen is not None and screen.error_line else None
        if node is not None:
            node.textContent = text
            self.toast(text, "error")
            return
        self.notify(Notice("error", text))

    # -- rendering -------------------------------------------------------------------------
    def tracker_html(self) -> str:
        """The turn order's HTML, built once per state: the screen and the snapshot share it."""
        timeline, selected = self._tracker_html[0]
        if timeline is not self.timeline or selected != self.ui.selected:  # identity: comparing timelines would walk them
            self._tracker_html = ((self.timeline, self.ui.selected), render.tracker_html(self.timeline, self.ui.selected))
        return self._tracker_html[1]

    def render(self) -> None:
        t = self.timeline
        enc = t.present
        dom.set_html("tracker", self.tracker_html())
        dom.el("round-label").textContent = render.round_label(enc)
        dom.el("undo").disabled = not t.can_undo
        dom.el("redo").disabled = not t.can_redo
        nxt = dom.el("next-turn")
        nxt.disabled = not enc.combatants
        nxt.textContent = ("Next turn" if system_of(enc).flow.ordered_by_initiative else "Done") if enc.started else "Start fight"
        log_box = dom.el("log-box")
        if log_box is not None and log_box.open:
            dom.set_html("log", render.log_html(t.log()))
        self.render_notices()
        if self.ui.sheet is not None:
            self.render_sheet()

    def render_notices(self) -> None:
        dom.set_html("notices", render.notices_html(self.notices))

    def render_roller(self) -> None:
        quick = "".join(
            f'<button type="button" data-action="quick" data-expr="{e}" data-testid="quick-{label.lower()}">{label}</button>'
            for label, e in QUICK
        )
        html = (
            '<form class="row" id="roll-form" data-action-submit="roll">'
            '<input id="dice-input" data-testid="dice-input" value="1d20" autocomplete="off" autocapitalize="off" '
            'spellcheck="false" aria-label="Dice notation" maxlength="1000">'
            '<button type="submit" id="roll-button" class="primary" data-testid="roll-button">Roll</button></form>'
            f'<div class="quick">{quick}</div>'
            '<p class="err" id="dice-error" data-testid="dice-error" role="alert"></p>'
            '<div class="reading" id="dice-reading" data-testid="dice-reading" aria-live="polite"></div>'
            '<div id="roll-result" data-testid="roll-result" aria-live="polite"></div>'
            '<details open class="odds"><summary>Odds before you roll</summary>'
            '<div id="odds-body" data-testid="odds"></div>'
            '<label class="field inline">Chance of at least <input id="odds-target" type="number" inputmode="numeric" data-testid="odds-target"></label></details>'
            '<div class="row"><input id="save-name" placeholder="Name, e.g. Longsword" maxlength="60" data-testid="save-name">'
            '<button type="button" data-action="save-roll" data-testid="save-roll">Save roll</button></div>'
            '<div id="saved-rolls" class="saved-list" data-testid="saved-rolls"></div>'
            '<div class="row hist-head"><h3>History</h3><button type="button" data-action="clear-history" data-testid="clear-history">Clear</button></div>'
            '<ul id="roll-history" class="history" data-testid="roll-history"></ul>'
        )
        dom.set_html("roller", html)
        dom.set_html("saved-rolls", render.saved_rolls_html(self.saved_rolls))
        dom.set_html("roll-history", render.history_html(self.rolls))
        self.update_odds()

    def context(self) -> Context:
        """What the screens draw from: the model, the list of encounters, the theme, the storage."""
        return Context(self.model(), tuple(self.ws.encounters), frozenset(self.ws.locked),
                       self.bin.encounters, str(document.documentElement.dataset.theme or "dark"), self.storage_state(), time.time(),
                       f"{window.location.origin}{window.location.pathname}")

    def render_sheet(self) -> None:
        """Draw the open screen (web/screens); one whose subject is gone closes or opens another."""
        screen = screen_of(self.ui)
        if screen is None or self.ui.sheet is None:
            return
        drawn = screen.draw(self.context(), self.ui.sheet[1])
        if isinstance(drawn, Elsewhere):
            if drawn.kind is None:
                self.close_sheet()
            else:
                self.open_sheet(drawn.kind)
            return
        dom.set_html("sheet-body", drawn)

    def open_sheet(self, kind: str, ident: str | None = None) -> None:
        self.update("sheet-opened", kind=kind, ident=ident)
        dom.forget("sheet-body")
        self.render_sheet()
        dialog = dom.el("sheet")
        if not dialog.open:
            dialog.showModal()
        first = dom.py(dialog.querySelector("input:not([type=file]),select"))
        if first is not None and kind in ("add", "edit", "init"):
            first.focus()

    def close_sheet(self) -> None:
        self.update("sheet-closed")
        dialog = dom.el("sheet")
        if dialog.open:
            dialog.close()
        inner, outer = dom.el("sheet-toast"), dom.el("toast")
        if not inner.hidden:  # a message (and its Undo) said in the sheet that just closed moves to the main screen
            outer.className, outer.innerHTML, outer.hidden = inner.className, inner.innerHTML, False
            inner.hidden, inner.innerHTML = True, ""

    # -- dice roller -----------------------------------------------------------------------
    def do_roll(self, expression: str) -> None:
        self.dispatch(RollTyped(expression, self.rng, int(time.time() * 1000)))

    def store_list(self, key: str, items: list[Any]) -> list[Any]:
        """Save a collection (merged with another tab's changes); returns what is now stored."""
        if not self.persistent:
            return items
        try:
            return self.persistence.write_collection(key, items)
        except StorageFull:
            self.notify(Notice("error", f"Storage is full: the {COLLECTIONS[key].what} could not be saved. "
                                        "Trim history or export to make room.", "trim-history", "Trim history",
                               (("export-all", "Export all"),)))
        except StorageUnavailable:
            self.notify(Notice("error", f"The browser stopped letting Roundkeeper save (storage was blocked): the "
                                        f"{COLLECTIONS[key].what} could not be saved. Export all keeps a copy.",
                               "export-all", "Export all"))
        return items

    def trim_history(self, keep: int = 20) -> None:
        """Make room: every stored fight keeps its last `keep` steps of undo, the roll history its
        last `keep` rolls. The fights themselves are untouched."""
        current = self.timeline.present.id
        for entry in self.ws.encounters:
            if entry["id"] == current or entry["id"] in self.ws.locked:
                continue
            timeline, _ = self.persistence.load_timeline(entry["id"], [])
            if timeline is not None and len(timeline.actions) > keep:
                try:
                    self.persistence.save_timeline(timeline.trimmed(keep), self.ws)
                except (StorageFull, StorageUnavailable, SchemaError):
                    pass
        self.rolls = self.store_list(ROLLS, self.rolls[:keep])
        dom.set_html("roll-history", render.history_html(self.rolls))
        self.notices = [n for n in self.notices if "trim-history" not in dict(n.buttons())]
        self.commit(self.timeline.trimmed(keep))

    def odds_target(self) -> int | None:
        text = dom.value("odds-target").strip()
        try:
            return int(text) if text else None
        except ValueError:
            return None

    def update_odds(self) -> None:
        """Exact odds within a small budget; past it an estimate by simulation, drawn in slices."""
        self.stop_estimate()
        text = dom.value("dice-input").strip()
        try:
            ast = parse(text)
            job = OddsJob(ast)
        except EngineError as error:
            dom.el("dice-error").textContent = str(error)
            dom.set_html("dice-reading", "")
            return  # the last good chart stays
        dom.el("dice-error").textContent = ""
        dom.set_html("dice-reading", render.readings_html(readings(ast)))
        if job.exact is not None:
            self.show_odds(job.exact)
        else:
            self.odds_job = job
            self.estimate_slice()

    def show_odds(self, dist: Distribution, estimate: Estimate | None = None) -> None:
        target = self.odds_target()
        if target is None:
            target = round(dist.mean)
        dom.el("odds-target").placeholder = str(target)
        body = dom.el("odds-body")
        body.setAttribute("data-expr", dom.value("dice-input").strip())
        body.setAttribute("data-kind", "exact" if estimate is None else "estimate")
        dom.set_html("odds-body", odds_html(dist, target, estimate))

    def estimate_slice(self) -> None:
        """Roll for one short slice, show the estimate so far, and come back unless it is done."""
        job = self.odds_job
        self.estimate_timer = None
        if job is None:
            return
        try:
            job.step()
        except EngineError as error:
            self.odds_job = None
            dom.el("dice-error").textContent = str(error)
            return
        dist = job.distribution()
        if dist is not None:
            self.show_odds(dist, job.estimate)
        if job.done:
            self.odds_job = None
        else:
            self.estimate_timer = window.setTimeout(self._estimate_proxy, 0)

    def stop_estimate(self) -> None:
        if self.estimate_timer is not None:
            window.clearTimeout(self.estimate_timer)
            self.estimate_timer = None
        self.odds_job = None

    def schedule_odds(self) -> None:
        self.stop_estimate()  # the expression changed: no more slices for the old one
        if self.odds_timer is not None:
            window.clearTimeout(self.odds_timer)
        self.odds_timer = window.setTimeout(self._odds_proxy, 80)

    # -- keeping the data ------------------------------------------------------------------
    def storage_state(self) -> str:
        if not self.persistent:
            return "blocked"
        if any("trim-history" in dict(n.buttons()) for n in self.notices):
            return "full"
        return {True: "kept", False: "may-clear", None: "unknown"}[self.storage_kept]

    async def check_storage_kept(self, ask: bool) -> None:
        """Whether the browser keeps our data; with `ask`, ask it to (once a fight has started)."""
        storage = getattr(window.navigator, "storage", None)
        if storage is None or not hasattr(storage, "persist"):
            return
        try:
            kept = bool(await storage.persisted())
            if not kept and ask:
                kept = bool(await storage.persist())
        except JsException:
            return
        self.storage_kept = kept
        if self.ui.sheet is not None and self.ui.sheet[0] == "menu":
            self.render_sheet()

    def ask_to_keep_storage(self) -> None:
        if self.persistent and self.storage_kept is not True and self.timeline.present.started and not self.asked_to_keep:
            self.asked_to_keep = True
            asyncio.ensure_future(self.check_storage_kept(ask=True))

    # -- wake lock -------------------------------------------------------------------------
    def update_wake_lock(self) -> None:
        wants = self.timeline.present.started and document.visibilityState == "visible"
        nav = window.navigator
        if not hasattr(nav, "wakeLock"):
            return
        if wants and self.wake_lock is None:
            asyncio.ensure_future(self._acquire_wake_lock())
        elif not wants and self.wake_lock is not None:
            lock, self.wake_lock = self.wake_lock, None
            try:
                lock.release()
            except JsException:
                pass

    async def _acquire_wake_lock(self) -> None:
        try:
            self.wake_lock = await window.navigator.wakeLock.request("screen")
        except JsException:
            self.wake_lock = None  # refused (battery saver, no permission): the fight goes on

    # -- encounters ------------------------------------------------------------------------
    def switch_to(self, timeline: Timeline, origin: dict[str, Any] | None = None) -> None:
        self.update("selection-done")  # a selection belongs to the fight it was made in
        outgoing = self.ws.current.present.id
        listed = any(e["id"] == outgoing for e in self.ws.encounters)
        if self.persistent and listed and outgoing not in self.ws.locked and self.persistence.stored_rev(outgoing) is None:
            self.save()  # a fresh fight never saved yet: every listed fight is stored
        self.ws.current = timeline
        if not any(e["id"] == timeline.present.id for e in self.ws.encounters):
            self.ws.encounters.append({**self.describe_entry({"id": timeline.present.id}, timeline), **(origin or {})})
        self.save()
        self.render()
        self.update_wake_lock()

    def load_encounter(self, eid: str) -> None:
        if eid == self.timeline.present.id:
            return
        timeline, locked = self.persistence.load_timeline(eid, self.notices)
        if timeline is None:
            if locked:
                self.ws.locked.add(eid)
            self.render_notices()
            return
        self.switch_to(timeline)

    # -- my characters -----------------------------------------------------------------------
    def character(self, cid: str | None) -> Character | None:
        return find_character(self.characters, cid)

    def store_character(self, c: Character) -> None:
        self.characters = self.store_list(CHARACTERS, list(in_place(tuple(self.characters), character_to_dict(c))))

    def new_character_id(self) -> str:
        taken = {x.get("id") for x in self.characters}
        n = len(self.characters) + 1
        while f"k{n}-{self.persistence.new_id()[-6:]}" in taken:
            n += 1
        return f"k{n}-{self.persistence.new_id()[-6:]}"

    def open_character(self, cid: str, index: int | None = None) -> None:
        """A character's attack screen, with the chosen named attack (else its first) in the panel."""
        c = self.character(cid)
        if c is None:
            return
        if index is None or c.attack(index) is None:
            index = 0 if c.attacks else None
        chosen = c.attack(index) if index is not None else None
        self.update("character-opened", ident=cid, attack=index, config=dict(chosen.config) if chosen else {})
        dom.forget("sheet-body")
        self.render_sheet()
        dialog = dom.el("sheet")
        if not dialog.open:
            dialog.showModal()

    def panel_system(self) -> str:
        """The system of the attack panel on screen: the character's on its attack screen, else the fight's."""
        c = self.character(self.ui.sheet[1]) if self.ui.practising and self.ui.sheet is not None else None
        return c.system if c is not None else self.timeline.present.system

    def offer_character(self, payload: str, from_link: bool = True) -> None:
        """A character from a link (or a pasted code): into the open fight, or into My characters."""
        try:
            c = read_character(payload)
        except EngineError as error:
            if from_link:
                window.history.replaceState(None, "", window.location.pathname + window.location.search)
                self.notify(Notice("error", f"The character's link could not be opened: {error} It was removed from the address bar."))
            else:
                self.error(f"Nothing was added: {error}")
            return
        self.update("character-offered", character=c)
        fight = quoted(self.timeline.present.name)
        same = self.timeline.present.system == c.system
        text = characters.offer_text(c, fight if same else "")
        buttons = (("keep-character", "Save to my characters"),)
        if same:
            self.notify(Notice("info", text, "add-character", "Add to the fight", buttons))
        else:
            self.notify(Notice("info", text, "keep-character", "Save to my characters"))

    def take_character(self, into_fight: bool) -> None:
        """The offered character joins the open fight (one undoable step), or goes into My characters."""
        c = self.ui.pending_character
        if c is None:
            return
        self.update("character-taken")
        self.notices = list(without(self.notices, "add-character", "keep-character"))
        window.history.replaceState(None, "", window.location.pathname + window.location.search)
        if into_fight:
            weapon = c.attack(0)  # the tracker's combatant has one weapon: the first attack's
            if self.act("add_combatant", {"combatant": combatant_fields(c, weapon)}):
                self.notify(Notice("info", f"{c.name} joined the fight."))
            return
        if self.character(c.id) is not None:
            c = replace(c, id=self.new_character_id())
        self.store_character(c)
        self.notify(Notice("info", f"{c.name} is in My characters."))
        self.render_notices()

    def roll_attack(self, target_id: str) -> None:
        """Roll the attack now (update: on the fight, or a character's practice encounter)."""
        self.dispatch(AttackRolled(target_id, dom.value("atk-attacker") or None, self.rng, int(time.time() * 1000)))

    def open_attack_sheet(self) -> None:
        """The attack panel with its defaults: the last target still standing, else the first foe
        of whoever's turn it is."""
        enc = self.timeline.present
        me = enc.get(enc.active_id) if enc.active_id else None
        ids = enc.names()
        last = self.ui.last_target
        target = last if last in ids and last != enc.active_id else None
        if target is None:
            target = next((c.id for c in enc.combatants if me is None or (c.side != me.side and not system_of(enc).is_down(c))), None)
        if target is not None:
            self.open_sheet("combatant", target)

    def schedule_sheet(self) -> None:
        if self.sheet_timer is not None:
            window.clearTimeout(self.sheet_timer)
        self.sheet_timer = window.setTimeout(self._sheet_proxy, 150)

    def apply_attack(self) -> None:
        self.dispatch(AttackApplied())

    def forget_stored(self, effect: fx.ForgetStored) -> None:
        """ForgetStored: out of storage and the list; then the first encounter left, else a fresh one."""
        self.persistence.delete_encounter(effect.ident)
        self.ws.encounters = [e for e in self.ws.encounters if e["id"] != effect.ident]
        first = next((e for e in self.ws.encounters if e["id"] not in self.ws.locked), None)
        timeline = self.persistence.load_timeline(first["id"], self.notices)[0] if first is not None else None
        self.switch_to(timeline if timeline is not None else effect.fresh)

    async def import_file(self, file: JsObject) -> None:
        text = str(await file.text())
        try:
            timelines, roster, templates = parse_import(text)
            mine = import_characters(text)
        except EngineError as error:
            self.error(f"Nothing was imported: {error}")
            return
        for timeline in timelines:
            fresh = rebase(timeline, self.persistence.new_id() + f"-{len(self.ws.encounters)}")
            self.ws.current = fresh
            self.ws.encounters.append({**self.describe_entry({"id": fresh.present.id}, fresh), "from": "file"})
            self.save()
        known = {json.dumps(p, sort_keys=True) for p in self.ws.roster}
        self.ws.roster = self.store_list(ROSTER, self.ws.roster + [p for p in roster if json.dumps(p, sort_keys=True) not in known])
        known = {json.dumps(p, sort_keys=True) for p in self.ws.templates}
        self.ws.templates = self.store_list(TEMPLATES, self.ws.templates + [p for p in templates if json.dumps(p, sort_keys=True) not in known])
        known = {json.dumps(c, sort_keys=True) for c in self.characters}
        for item in mine:  # a character already here is kept once; one with a taken id gets a new id
            if json.dumps(item, sort_keys=True) in known:
                continue
            if any(c.get("id") == item["id"] for c in self.characters):
                item = {**item, "id": self.new_character_id()}
            self.characters.append(item)
        if mine:
            self.characters = self.store_list(CHARACTERS, self.characters)
        self.close_sheet()
        self.render()
        self.notify(Notice("info", f"Imported {len(timelines)} encounter{'s' * (len(timelines) != 1)}."))

    def offer_shared(self, payload: str) -> None:
        self.dispatch(ShareOffered(payload, tuple(self.ws.encounters), frozenset(self.ws.locked)))

    def open_shared(self, replace_earlier: bool = False) -> None:
        self.dispatch(ShareOpened(replace_earlier, self.persistence.new_id(), tuple(self.ws.encounters), frozenset(self.ws.locked)))

    def clear_link(self) -> None:
        window.history.replaceState(None, "", window.location.pathname + window.location.search)

    def switch_to_effect(self, effect: fx.SwitchTo) -> None:
        """SwitchTo: over an earlier encounter (its list entry brought up to date, its stored
        revision forgotten), or as a new one listed with where it came from."""
        if effect.replacing is not None:
            self.persistence.revs.pop(effect.replacing, None)
            for entry in self.ws.encounters:
                if entry["id"] == effect.replacing:
                    self.describe_entry(entry, effect.timeline)
            self.switch_to(effect.timeline)
        else:
            self.switch_to(effect.timeline, dict(effect.origin))

    def first_time(self, key: str) -> bool:
        """True the first time this is asked for `key` on this device (and remembered); never
        when nothing can be remembered, so a hint does not nag on every start."""
        if not self.persistent:
            return False
        try:
            if self.store.get(key) is not None:
                return False
            self.store.set(key, "shown")
        except (StorageFull, StorageUnavailable):
            return False
        return True

    def first_run_hint(self) -> None:
        """Once, on a first visit: where a combatant's sheet and the menu are."""
        if self.timeline.present.combatants or not self.first_time(HINT_FIRST):
            return
        self.notices.append(Notice("info", "Add combatants, then tap one to open its sheet (damage, conditions, attacks). "
                                           "☰ at the top opens the menu: encounters, game systems, export and the rules."))

    def home_screen_hint(self) -> None:
        """Safari clears a site's storage after 7 days without a visit unless it is on the Home
        Screen: say so once, on Safari for iPhone and iPad when not opened from the Home Screen."""
        if dom.py(getattr(window.navigator, "standalone", None)) is not False or not self.first_time(HINT_HOME):
            return
        self.notices.append(Notice("info", "Safari clears a site's saved data after 7 days without a visit. To keep your "
                                           "fights, add Roundkeeper to your Home Screen (Share → Add to Home Screen); "
                                           "Export all in the menu saves a copy to a file.", "export-all", "Export all"))

    def share_link(self, kind: str = "fight") -> str:
        """The fight for a co-GM (its whole present state), or the players' read-only view."""
        here = f"{window.location.origin}{window.location.pathname}"
        if kind == "view":
            return f"{here}#view={view_payload(self.timeline.present)}"
        return f"{here}#fight={share_payload(self.timeline.present)}"

    async def show_qr(self, link: str) -> None:
        """The link as a QR code under it; segno is installed the first time (a moment, said)."""
        box, note = dom.el("share-qr"), dom.el("share-qr-note")
        if box is None:
            return
        if qr.loaded() is None:
            note.textContent = "Preparing the QR code…"
        try:
            segno = await qr.load_segno()
            svg, version, modules = qr.qr_svg(segno, link)
        except Exception as error:  # noqa: BLE001 (the encoder's install or a browser refusal: say so, keep the link)
            if dom.el("share-qr-note") is not None:
                dom.el("share-qr-note").textContent = f"The QR code could not be drawn ({error}); the link above works the same."
            return
        box, note = dom.el("share-qr"), dom.el("share-qr-note")  # the menu may have been redrawn meanwhile
        field = dom.el("share-field")
        if box is None or field is None or str(field.value) != link:
            return  # closed, or another link asked for since
        box.innerHTML = svg
        box.setAttribute("data-version", str(version))
        box.setAttribute("data-modules", str(modules))
        box.hidden = False
        note.textContent = f"Point another phone's camera at it (QR version {version}, {modules}×{modules})."

    def open_view(self, payload: str) -> None:
        """A fight's read-only view from a #view= link: shown at once, nothing saved."""
        window.history.replaceState(None, "", window.location.pathname + window.location.search)
        try:
            view = read_view(payload)
        except EngineError as error:
            self.notify(Notice("error", f"The fight's view could not be opened: {error}"))
            return
        self.update("view-opened", view=view)
        dom.forget("sheet-body")
        self.render_sheet()
        dialog = dom.el("sheet")
        if not dialog.open:
            dialog.showModal()
