"""The browser's side of the runtime (web/page/runtime.py), each part small and on its own: the page as
`views.Page` for the event handlers, the roller's odds panel (its slices waited for by the model), the screen's wake
lock, copying a link, the share screen's QR code, the toast, the live table's transport and the
scanner. It reaches the page through web/page/dom (bound at start), so it imports anywhere and comes from
the start-up snapshot; what it does needs the browser (the e2e suite drives it)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from pyengine.dice import Distribution, Estimate, Rng, parse
from pyengine.documents import Listed
from pyengine.errors import EngineError
from pyengine.live import MAX_MESSAGE
from pyengine.odds import possible_range
from pyengine.reading import readings
from web.app import render
from web.app.html import esc, odds_html, odds_refused_html
from web.app.model import Model
from web.app.odds_job import ESTIMATE_DICE, OddsJob
from web.app.storage.keeper import Keeper
from web.app.update import typed_number
from web.app.update.timers import TOAST_MS
from web.page import dom, qr
from web.page.dom import JsObject
from web.page.timers import Later

T = TypeVar("T")


def later(task: Coroutine[object, object, T]) -> asyncio.Future[T]:
    """A coroutine run on the page's event loop (what it finds goes back as a message); its task."""
    return asyncio.ensure_future(task)


class DomPage:
    """views.Page over the DOM: what an event handler reads (the tapped element `node`, the element
    the event came from `target`), and what the runtime lends a message: the model the event came to,
    the rng, clocks, the keeper's ids and list of encounters. Given at the event; read nothing later."""

    def __init__(self, model: Model, rng: Rng, keeper: Keeper, node: JsObject, target: JsObject = None) -> None:
        self.model, self.rng, self._keeper = model, rng, keeper
        self.node = node
        self.target = target if target is not None else node

    @property
    def attack(self) -> dict[str, Any]:
        return self.model.ui.attack

    @property
    def typing(self) -> bool:
        return self.target is not None and str(getattr(self.target, "type", "")) in ("text", "number")

    @property
    def chosen(self) -> str:
        return str(getattr(self.target, "value", "") or "") if self.target is not None else ""

    def data(self, key: str) -> str | None:
        found = dom.py(self.node.getAttribute(f"data-{key}")) if self.node is not None else None
        return None if found is None else str(found)

    def value(self, node_id: str, default: str = "") -> str:
        return dom.value(node_id, default)

    def number(self, text: str | None, default: int | None = None) -> int | None:
        return typed_number(text, default)

    def checked(self, selector: str) -> list[str]:
        return [str(n.value) for n in dom.document.querySelectorAll(selector) if n.checked]

    def ticked(self, node_id: str) -> bool:
        node = dom.el(node_id)
        return bool(node is not None and node.checked)

    def exists(self, node_id: str) -> bool:
        return dom.el(node_id) is not None

    def attribute(self, selector: str, name: str) -> str | None:
        node = dom.py(dom.document.querySelector(selector))
        found = None if node is None else dom.py(node.getAttribute(name))
        return None if found is None else str(found)

    def fields(self, selector: str, key: str) -> list[tuple[str, str, bool, str]]:
        return [(str(n.getAttribute(key)), str(n.value), bool(getattr(n, "checked", False)), str(getattr(n, "type", "")))
                for n in dom.document.querySelectorAll(selector)]

    def prompt(self, question: str, default: str) -> str | None:
        answer = dom.py(dom.window.prompt(question, default))
        return None if answer is None else str(answer)

    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def monotonic(self) -> float:
        return time.monotonic()

    def new_id(self) -> str:
        return self._keeper.persistence.new_id()

    @property
    def encounters(self) -> tuple[Listed, ...]:
        return tuple(self._keeper.ws.encounters)

    @property
    def locked(self) -> frozenset[str]:
        return frozenset(self._keeper.ws.locked)

    @property
    def servers(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self.model.servers[:2]

    @property
    def nostr(self) -> tuple[str, ...]:
        return self.model.servers[2]


class OddsPanel:
    """The roller's odds for the expression in the box: exact within a small budget; past it an
    estimate by simulation, drawn slice by slice between the user's taps. `more()` says that the
    estimate wants another slice: the model then waits for it (web/app/update/timers.py: a task of its
    own) and asks for it (next_slice)."""

    def __init__(self, more: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> None:
        self.job: OddsJob | None = None
        self.more, self.clock = more, clock
        # The work its tasks did, counted (RK.bench("odds"): the tests assert these, the bench times them):
        # the most work units one exact attempt spent, the most dice one slice drew, the slices run.
        self.counted = {"exact_work": 0, "slice_dice": 0, "slices": 0}

    def refresh(self) -> None:
        self.stop()
        text = dom.value("dice-input").strip()
        try:
            ast = parse(text)
            job = OddsJob(ast, clock=self.clock)
        except EngineError as error:
            self.refused(str(error))
            return
        self.counted["exact_work"] = max(self.counted["exact_work"], job.work)
        dom.el("dice-error").textContent = ""
        dom.set_html("dice-reading", render.readings_html(readings(ast)))
        if job.exact is not None:
            self.show(job.exact)
        else:
            self.job = job
            self.more()  # the estimate's first slice in a task of its own, after the exact attempt

    def stop(self) -> None:
        self.job = None

    def next_slice(self) -> None:
        """Roll for one short slice, show the estimate so far, and come back unless it is done."""
        job = self.job
        if job is None:
            return
        try:
            job.step()
        except EngineError as error:
            self.refused(str(error))
            return
        finally:
            self.counted["slices"] += 1
            self.counted["slice_dice"] = max(self.counted["slice_dice"], job.slices[-1] if job.slices else 0)
        if job.too_costly:
            self.refused(f"One roll of this draws over {ESTIMATE_DICE:,} dice: too many to estimate the odds "
                         "here without freezing the page. Roll it to see a result.")
            return
        dist = job.distribution()
        if dist is not None:
            self.show(dist, job.estimate, possible_range(job.ast) if job.estimate is not None else None)
        if job.done:
            self.job = None
        else:
            self.more()

    def refused(self, why: str) -> None:
        """No odds for the expression in the box: the reason, and the panel emptied (never another
        expression's odds under this one)."""
        self.job = None
        dom.el("dice-error").textContent = why
        dom.set_html("dice-reading", "")
        body = dom.el("odds-body")
        body.setAttribute("data-expr", dom.value("dice-input").strip())
        body.setAttribute("data-kind", "refused")
        dom.set_html("odds-body", odds_refused_html(why))

    def show(self, dist: Distribution, estimate: Estimate | None = None, possible: tuple[int | None, int | None] | None = None) -> None:
        target = _whole(dom.value("odds-target").strip())
        if target is None:
            target = round(dist.mean)
        dom.el("odds-target").placeholder = str(target)
        body = dom.el("odds-body")
        body.setAttribute("data-expr", dom.value("dice-input").strip())
        body.setAttribute("data-kind", "exact" if estimate is None else "estimate")
        dom.set_html("odds-body", odds_html(dist, target, estimate, possible))


def _whole(text: str) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None


class WakeLock:
    """The screen kept awake while a fight runs and the page is seen (refused: the fight goes on)."""

    def __init__(self) -> None:
        self.lock: Any = None

    def want(self, wanted: bool) -> None:
        if not hasattr(dom.window.navigator, "wakeLock"):
            return
        wanted = wanted and dom.document.visibilityState == "visible"
        if wanted and self.lock is None:
            asyncio.ensure_future(self._acquire())
        elif not wanted and self.lock is not None:
            lock, self.lock = self.lock, None
            try:
                lock.release()
            except dom.JsException:
                pass

    def hidden(self) -> None:
        self.lock = None  # the browser releases it when the page is hidden

    async def _acquire(self) -> None:
        try:
            self.lock = await dom.window.navigator.wakeLock.request("screen")
        except dom.JsException:
            self.lock = None


class Transport:
    """The live table's connections: the room at the relays (static/live.mjs over Trystero, loaded the
    first time a table goes live, like the QR encoder), and this device's BroadcastChannel (the
    table display, no network). Whatever comes in goes to `heard(peer, text)` as it is; None when
    it was refused before reaching Python (not text, or too large)."""

    def __init__(self, channel_name: str, heard: Callable[[str, str | None], None], joined: Callable[[str, bool], None],
                 failed: Callable[[str], object]) -> None:
        self.heard, self.joined, self.failed = heard, joined, failed
        self.module: Any = None
        self.self_id = ""            # this page's id in the room (the host names it in its states)
        self.channel: Any = None
        if hasattr(dom.window, "BroadcastChannel"):
            self.channel = dom.window.BroadcastChannel.new(channel_name)
            self.channel.onmessage = dom.proxy(self._on_channel)
        self._on_message = dom.proxy(self._from_peer)
        self._on_peer = dom.proxy(lambda peer, joined: self.joined(str(peer), bool(joined)))
        self._on_fail = dom.proxy(lambda peer: self.failed(str(peer)))

    def _on_channel(self, event: dom.DomEvent) -> None:
        data = dom.py(event.data)
        self.heard("display", data if isinstance(data, str) and len(data) <= MAX_MESSAGE + 100 else None)  # (+ a seal: web/app/seal.py)

    def _from_peer(self, peer: JsObject, text: JsObject) -> None:
        data = dom.py(text)
        self.heard(str(peer), data if isinstance(data, str) else None)

    async def load(self) -> Any:
        """static/live.mjs, listened to (the room at the relays and the direct connections alike)."""
        if self.module is None:
            module = await dom.window.RK.importLive()
            module.listen(self._on_peer, self._on_message, self._on_fail)
            self.module = module
        return self.module

    async def host_key(self, kept: str | None) -> tuple[str, str]:
        """The game master's signing key (JWK text, kept with the room) and its public half."""
        found = await (await self.load()).hostKey(kept or "")
        return str(found[0]), str(found[1])

    async def connect(self, room: str, secret: str, relays: tuple[str, ...], nostr: tuple[str, ...], stun: tuple[str, ...],
                      host_key: str | None) -> None:
        module = await self.load()
        await module.connect(room, secret, dom.to_js(list(relays)), dom.to_js(list(nostr)), dom.to_js(list(stun)), self._on_peer, self._on_message,
                             host_key or "")
        self.self_id = str(module.me())

    def send(self, text: str, peer: str | None = None) -> None:
        if self.module is not None:
            self.module.send(text, peer or "")

    # No internet: direct connections whose details two codes carry (pyengine/pairing.py).
    async def offer(self, token: str) -> str:
        """The game master's phone: a new direct connection's offer (its session description)."""
        return str(await (await self.load()).offer(token))

    async def accept(self, sdp: str) -> str:
        """A player's phone: take the game master's offer; returns this phone's answer."""
        return str(await (await self.load()).accept(sdp))

    async def answered(self, token: str, sdp: str) -> bool:
        """The game master's phone: a player's answer to the offer `token` (False: that offer is gone)."""
        return bool(await (await self.load()).answered(token, sdp))

    def networks(self) -> tuple[int, int, int, int]:
        """How the relays answer now: (Nostr up, Nostr asked, WebTorrent up, WebTorrent asked); -1 where not used."""
        if self.module is None:
            return (-1, -1, -1, -1)
        found = [int(x) for x in dom.py(self.module.relaysUp())]
        return (found[0], found[1], found[2], found[3]) if len(found) == 4 else (-1, -1, -1, -1)

    def unread(self) -> int:
        """How many messages this page's data channels dropped unread since it joined the room
        (static/live.mjs's guard: too fast, too large, not the room's)."""
        if self.module is None:
            return 0
        return int(self.module.guardStats.unread)

    def post(self, text: str) -> None:
        if self.channel is not None:
            self.channel.postMessage(text)

    def leave(self) -> None:
        if self.module is not None:
            self.module.leave()


class Scanner:
    """The scanner sheet's camera (static/scan.mjs, loaded when a scanner first opens): what it reads
    goes to `found(text, kind)`; it stops as soon as the sheet is closed or drawn again."""

    STATES = {
        "scanning": "Point the camera at the code.",
        "scanning-wasm": "Point the camera at the code.",
        "denied": "The camera is not allowed: allow it for this site in the browser's settings, or paste the code below.",
        "no-camera": "No camera here: paste the code below (copied from the other phone's screen).",
        "no-reader": "The scanner could not start here: paste the code below.",
    }

    def __init__(self, found: Callable[[str, str], object]) -> None:
        self.found = found
        self.kind: str | None = None
        self.module: Any = None
        self._code = dom.proxy(lambda text: self.found(str(text), self.kind) if self.kind else None)
        self._state = dom.proxy(self._said)

    def show(self, kind: str | None) -> None:
        """The camera for a scanner of `kind` just drawn (its video element is new), or none."""
        if self.module is not None:
            self.module.close()
        self.kind = kind
        if kind is not None:
            asyncio.ensure_future(self._open(kind))

    async def allow(self) -> str:
        """Ask for the camera once (static/scan.mjs allowCamera): "granted", "denied" or "prompt"."""
        try:
            if self.module is None:
                self.module = await dom.window.RK.importScan()
            return str(await self.module.allowCamera())
        except dom.JsException:
            return "denied"

    async def _open(self, kind: str) -> None:
        try:
            if self.module is None:
                self.module = await dom.window.RK.importScan()
            video = dom.el("scan-video")
            if video is not None and self.kind == kind:
                await self.module.open(video, self._code, self._state)
        except dom.JsException:
            self._said("no-reader")

    def _said(self, state: Any) -> None:
        line = dom.el("scan-state")
        if line is not None:
            line.textContent = self.STATES.get(str(state), "")
            line.setAttribute("data-state", str(state))


class Toast:
    """A short message where the thumb is: at the bottom of the open sheet, else above the turn
    controls; read out by screen readers. A toast of `update`'s is hidden when the model's timer for
    it runs out (HideToast: web/app/update/timers.py). A refusal changes nothing in the model (the model
    after it is the one before), so its toast keeps a timer of its own here (`timed`)."""

    def __init__(self) -> None:
        self._later = Later(self.hide)  # a refusal's toast only
        self._tapped: Any = None  # the last element a finger (or the mouse) went down on
        self._on_down = dom.proxy(lambda event: setattr(self, "_tapped", event.target))
        dom.document.addEventListener("pointerdown", self._on_down, True)

    def show(self, text: str, level: str, undo: bool, in_sheet: bool, redo: bool = False, request: int = 0, timed: bool = False) -> None:
        if timed:
            self._later.soon(TOAST_MS)  # as long as a toast of the model's
        else:
            self._later.cancel()
        for node_id in ("toast", "sheet-toast"):
            dom.el(node_id).hidden = True
        node = dom.el("sheet-toast" if in_sheet else "toast")
        node.className = f"toast {level}" + (" in-sheet" if in_sheet else "")  # (in-sheet: its place in the sheet)
        node.innerHTML = (f'<span data-testid="toast-text">{esc(text)}</span>'
                          + ('<button type="button" data-action="toast-undo" data-testid="toast-undo">Undo</button>' if undo else "")
                          + ('<button type="button" data-action="toast-redo" data-testid="toast-redo">Redo</button>' if redo else "")
                          + (f'<button type="button" data-action="request-apply" data-id="{request}" data-testid="toast-apply">Apply</button>'
                             f'<button type="button" data-action="request-dismiss" data-id="{request}" data-testid="toast-dismiss">Dismiss</button>'
                             if request else ""))
        node.hidden = False
        if in_sheet:
            # The sheet's body gave the toast its place: what was tapped stays in view above it.
            body, tapped = dom.el("sheet-body"), self._tapped
            if tapped is not None and body is not None and body.contains(tapped):
                tapped.scrollIntoView(dom.window.JSON.parse('{"block": "nearest"}'))

    def hide(self) -> None:
        self._later.cancel()
        for node_id in ("toast", "sheet-toast"):
            dom.el(node_id).hidden = True

    @staticmethod
    def out_of_sheet() -> None:
        """A message (and its Undo) said in the sheet that just closed moves to the main screen."""
        inner, outer = dom.el("sheet-toast"), dom.el("toast")
        if not inner.hidden:
            outer.className, outer.innerHTML, outer.hidden = str(inner.className).replace(" in-sheet", ""), inner.innerHTML, False
            inner.hidden, inner.innerHTML = True, ""


def copy_link(field_id: str, out_id: str) -> None:
    """A link in a read-only field: selected, and to the clipboard when the browser lets us."""
    field, out = dom.el(field_id), dom.el(out_id)
    if field is None or not str(field.value):
        return
    field.select()

    def told(text: str) -> JsObject:
        def say(*_: Any) -> None:
            if out is not None:
                out.textContent = text
        return dom.proxy(say)

    clipboard = getattr(dom.window.navigator, "clipboard", None)
    if clipboard is None:
        told("Copy the link from the field (long-press it).")()
        return
    # Clipboard access may be refused: the link stays in the field, selected, either way.
    clipboard.writeText(str(field.value)).then(told("Copied: paste it to the other phone.")).catch(
        told("Copy the link from the field (long-press it)."))


async def show_qr(link: str, field_id: str = "share-field", box_id: str = "share-qr", note_id: str = "share-qr-note") -> None:
    """The link as a QR code under it; segno is installed the first time (a moment, said)."""
    box, note = dom.el(box_id), dom.el(note_id)
    if box is None:
        return
    if qr.loaded() is None:
        note.textContent = "Preparing the QR code…"
    try:
        segno = await qr.load_segno()
        svg, version, modules = qr.qr_svg(segno, link)
    except Exception as error:  # noqa: BLE001 (the encoder's install or a browser refusal: say so, keep the link)
        if dom.el(note_id) is not None:
            dom.el(note_id).textContent = f"The QR code could not be drawn ({error}); the link above works the same."
        return
    box, note = dom.el(box_id), dom.el(note_id)  # the sheet may have been redrawn meanwhile
    field = dom.el(field_id)
    if box is None or field is None or str(field.value) != link:
        return  # closed, or another link asked for since
    box.innerHTML = svg
    box.setAttribute("data-version", str(version))
    box.setAttribute("data-modules", str(modules))
    box.hidden = False
    note.textContent = f"Point another phone's camera at it (QR version {version}, {modules}×{modules})."


def clear_link() -> None:
    """The address without its part after # (a reload does not offer the link again)."""
    dom.window.history.replaceState(None, "", dom.window.location.pathname + dom.window.location.search)
