"""The page's events, each to the runtime: taps, forms, typing, choices, keys, the sheet's gestures,
other tabs' writes, links opened on a running page, and an export file picked for import (read a
piece a task). The browser is reached through web/page/dom, bound at start."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pyengine.errors import EngineError
from pyengine.storage import MAX_DOCUMENT_CHARS
from web.app.exchange import Imported, reading_import
from web.app.messages import (
    AddressChanged,
    CharacterOffered,
    CodeRead,
    FileImported,
    FileRead,
    LiveLinkOpened,
    LogToggled,
    Refused,
    ShareOffered,
    SheetClosed,
    StoredElsewhere,
    ViewOpened,
    VisibilityChanged,
)
from web.page import browser, dom
from web.page.dom import DomEvent, JsObject

if TYPE_CHECKING:
    from web.page.runtime import Runtime

__all__ = ["Listeners", "open_fragment", "say_fixed_dice", "import_file", "MAX_IMPORT_BYTES"]

# -- the page's events ------------------------------------------------------------------------------

SWIPE_PX = 80  # a downward swipe this long, started while the sheet is scrolled to its top, closes it


class Listeners:
    """The page's events: taps, forms, typing, choices, keys, the sheet's gestures, other tabs,
    links opened on a running page; each to the runtime."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.swipe: dict[str, float] = {}

    def on_click(self, event: DomEvent) -> None:
        node = dom.py(event.target.closest("[data-action]"))
        if node is not None and not node.hasAttribute("disabled"):
            self.rt.event("click", str(node.getAttribute("data-action")), node)

    def on_submit(self, event: DomEvent) -> None:
        form = event.target
        action = dom.py(form.getAttribute("data-action-submit"))
        if action:
            event.preventDefault()
            self.rt.event("submit", str(action), form)

    def on_input(self, event: DomEvent) -> None:
        target = event.target
        panel = str(dom.py(target.getAttribute("data-action-change")) or "")
        if panel in ("attack-config", "save-config") and str(target.type) in ("text", "number", "search"):
            # The attack and save panels' odds follow what is typed (the sheet redrawn a moment after typing stops).
            self.rt.event("change", panel, target, target)
            return
        self.rt.event("input", str(target.id or ""), target)

    def on_change(self, event: DomEvent) -> None:
        target = event.target
        if target.id == "import-file" and target.files.length:
            asyncio.ensure_future(import_file(self.rt, target.files.item(0)))
            target.value = ""
            return
        self.rt.event("change", str(dom.py(target.getAttribute("data-action-change")) or ""), target, target)

    def on_key(self, event: DomEvent) -> None:
        key, target = str(event.key), event.target
        if key == "Enter" and dom.py(target.getAttribute("data-testid")) == "init-input":
            next_initiative(event)
            return
        if key in ("Enter", " ") and str(target.tagName) == "LI" and target.hasAttribute("data-action"):
            event.preventDefault()  # a focusable row (a combatant) answers Enter and Space like a button
            self.on_click(event)
            return
        tag = str(target.tagName or "").lower()
        if tag in ("input", "textarea", "select") or dom.el("sheet").open or event.defaultPrevented:
            return
        key, ctrl = key.lower(), event.ctrlKey or event.metaKey
        if key == "n" and not ctrl:
            self.rt.event("click", "next-turn", target)
        elif (key == "u" and not ctrl) or (key == "z" and ctrl and not event.shiftKey):
            event.preventDefault()
            self.rt.event("click", "undo", target)
        elif (key == "z" and ctrl and event.shiftKey) or (key == "y" and ctrl):
            event.preventDefault()
            self.rt.event("click", "redo", target)

    def on_sheet_close(self, event: DomEvent) -> None:
        """Closed by the browser (Escape, the back gesture): the UI state follows. The event comes a
        moment after the close; a sheet opened again since stays open."""
        if not dom.el("sheet").open:
            self.rt.dispatch(SheetClosed())

    def on_sheet_click(self, event: DomEvent) -> None:
        """A tap on the backdrop (outside the sheet's box, which the dialog itself receives) closes it."""
        sheet = dom.el("sheet")
        if event.target == sheet:
            box = sheet.getBoundingClientRect()
            if not (box.left <= event.clientX <= box.right and box.top <= event.clientY <= box.bottom):
                self.rt.dispatch(SheetClosed())

    def on_touchstart(self, event: DomEvent) -> None:
        touch = event.changedTouches.item(0)
        self.swipe.clear()
        if event.touches.length == 1 and dom.el("sheet-body").scrollTop <= 0 and touch is not None:
            self.swipe["y"], self.swipe["x"] = float(touch.clientY), float(touch.clientX)

    def on_touchend(self, event: DomEvent) -> None:
        touch = event.changedTouches.item(0)
        if "y" not in self.swipe or touch is None:
            return
        dy, dx = float(touch.clientY) - self.swipe["y"], abs(float(touch.clientX) - self.swipe["x"])
        self.swipe.clear()
        if dy >= SWIPE_PX and dx < dy / 2:  # mostly down, like pulling the sheet away
            self.rt.dispatch(SheetClosed())

    def on_storage(self, event: DomEvent) -> None:
        if self.rt.drawing.page_only:
            return  # the table display reads none of the stored fights
        key = dom.py(event.key)
        if key is None or not str(key).startswith(self.rt.prefix):
            return  # cleared, or a sibling site at another path of this origin
        self.rt.dispatch(StoredElsewhere(str(key)[len(self.rt.prefix):]))

    def on_visibility(self, event: DomEvent) -> None:
        self.rt.wake.hidden()  # (the browser drops the lock with a hidden page)
        self.rt.dispatch(VisibilityChanged())

    def on_log_toggle(self, event: DomEvent) -> None:
        dom.forget("log")
        self.rt.dispatch(LogToggled())

    def on_hash_change(self, event: DomEvent) -> None:
        open_fragment(self.rt)
        self.rt.dispatch(AddressChanged())

    def wire(self) -> None:
        sheet = dom.el("sheet")
        for target, name, listener in (
            (dom.document, "click", self.on_click), (dom.document, "submit", self.on_submit), (dom.document, "input", self.on_input),
            (dom.document, "change", self.on_change), (dom.document, "keydown", self.on_key), (dom.window, "storage", self.on_storage),
            (dom.document, "visibilitychange", self.on_visibility), (dom.el("log-box"), "toggle", self.on_log_toggle),
            (sheet, "close", self.on_sheet_close), (sheet, "click", self.on_sheet_click),
            (sheet, "touchstart", self.on_touchstart), (sheet, "touchend", self.on_touchend),
            (dom.window, "hashchange", self.on_hash_change), (dom.window, "popstate", lambda event: self.rt.drawing.back_pressed()),
        ):
            if target is not None:  # (the table display has no log: static/early.mjs took the tracker out)
                dom.on(target, name, listener)


def next_initiative(event: DomEvent) -> None:
    """Enter in an initiative field moves on to the next empty one; after the last, the fight starts."""
    event.preventDefault()
    inputs = list(dom.document.querySelectorAll("[data-testid=init-input]"))
    at = next((i for i, n in enumerate(inputs) if n == event.target), len(inputs))
    empty = next((n for n in inputs[at + 1:] if not str(n.value).strip()), None)
    if empty is not None:
        empty.focus()
    else:
        dom.el("init-form").requestSubmit()


def open_fragment(rt: Runtime) -> None:
    """A link with a shared fight, a player's character or the players' view: offered, never opened
    unasked (also when the link is opened on a page already running: only the part after # changed)."""
    fragment = str(dom.window.location.hash or "")
    if fragment in rt.drawing.consumed:  # back on the entry under a closed sheet: that link was taken in already
        browser.clear_link()
        return
    if fragment.startswith("#fight="):
        rt.dispatch(ShareOffered(fragment[len("#fight="):], tuple(rt.keeper.ws.encounters), frozenset(rt.keeper.ws.locked)))
    elif fragment.startswith("#character="):
        rt.dispatch(CharacterOffered(fragment[len("#character="):]))
    elif fragment.startswith("#view="):
        rt.dispatch(ViewOpened(fragment[len("#view="):]))
    elif fragment.startswith("#join="):
        # A game master's offer read by the phone's own camera app: this phone answers it (the two-code join).
        rt.drawing.clear_link()
        rt.dispatch(CodeRead(fragment, "offer"))
    elif fragment.startswith("#live=") or fragment == "#display":
        # Kept in the address: a reload follows again.
        rt.dispatch(LiveLinkOpened(fragment[len("#live="):] if fragment.startswith("#live=") else "display", device=rt.keeper.device(),
                                   keyed=fragment != "#display" or bool(rt.live.display_key)))



def say_fixed_dice(seed: str) -> None:
    """`?seed=N` (the tests' and the bench's) makes every roll predictable: said in the header for
    as long as it is in the address, with the way back to random dice (a link someone sends can
    carry it; this page never adds it to a link of its own)."""
    button = dom.document.createElement("button")
    button.type = "button"
    button.id = "fixed-dice"
    button.className = "fixed-dice"
    button.setAttribute("data-testid", "fixed-dice")
    button.textContent = "Fixed dice"
    button.title = f"Every roll on this page is fixed by the address (?seed={seed[:12]}), for testing. Tap for random dice."

    def random_dice(*_: object) -> None:
        query = dom.window.URLSearchParams.new(dom.window.location.search)
        query.delete("seed")
        rest = str(query.toString())
        dom.window.location.replace(f"{dom.window.location.pathname}{'?' + rest if rest else ''}{dom.window.location.hash}")

    button.addEventListener("click", dom.proxy(random_dice))
    menu = dom.el("menu-button")
    if menu is not None:
        menu.parentNode.insertBefore(button, menu)


async def import_file(rt: Runtime, file: JsObject) -> None:
    """An export file, its size checked before it is read (a huge file is never loaded whole), then
    read an encounter a task (a file of many large fights does not freeze the page)."""
    size = int(dom.py(file.size) or 0)
    if size > MAX_IMPORT_BYTES:
        rt.dispatch(Refused(f"Nothing was imported: the file is too large ({size / 1e6:,.1f} MB; an export is at most "
                            f"{MAX_IMPORT_BYTES / 1e6:,.0f} MB)."))
        return
    text = str(await file.text())
    steps = reading_import(text)
    try:
        while True:
            try:
                done = next(steps)
            except StopIteration as end:
                found: Imported = end.value
                break
            rt.dispatch(FileRead(done))
            await asyncio.sleep(0)
    except EngineError as error:
        rt.drawing.toasts.hide()
        rt.dispatch(Refused(f"Nothing was imported: {error}"))
        return
    rt.dispatch(FileImported(found, rt.keeper.persistence.new_id(), len(rt.keeper.ws.encounters)))


MAX_IMPORT_BYTES = 2 * MAX_DOCUMENT_CHARS  # an export's text at most, as UTF-8 (mostly one byte a character)


