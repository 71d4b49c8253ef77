"""The page's start: the browser bound (web/page/dom), the runtime built from what is stored, the page
drawn and listened to, the links it was opened with taken in, and the engine said ready.
index.html calls `start()`."""

from __future__ import annotations

import random
import secrets

from web.app.messages import EarlyTapsKept, JournalFailed, PageDrawn
from web.app.model import NEXT_TURN_GUARD
from web.app.params import chosen_nostr, chosen_servers, journal_set_aside, read_seed, stun_ignored
from web.app.seal import is_key
from web.app.storage.keeper import SERVERS_KEY
from web.app.storage.records import MemoryStore, Notice, StorageUnavailable, Store
from web.page import dom
from web.page.listeners import Listeners, open_fragment, say_fixed_dice
from web.page.runtime import Runtime

__all__ = ["start", "bench", "runtime"]


def servers_of(stored: str | None) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The relays, STUN servers and Nostr relays (web/app/params.py: a link picks relays, never a STUN server)."""
    params = dom.window.URLSearchParams.new(dom.window.location.search)
    relays, stun = chosen_servers(dom.py(params.get("relays")), dom.py(params.get("stun")), stored)
    return relays, stun, chosen_nostr(dom.py(params.get("nostr")), stored)


runtime: Runtime | None = None  # the page's, once started (the bench reads it)


def display_key(prefix: str, display: bool) -> str:
    """The table display's key (web/app/seal.py): a display reads it from its address (`?dkey=`, "" when
    absent or malformed); the game master's tab keeps its own in sessionStorage (no other tab can
    read it; a reload of the tab keeps it, so an open display goes on), made on first use."""
    if display:
        found = dom.py(dom.window.URLSearchParams.new(dom.window.location.search).get("dkey"))
        return str(found) if is_key(found) else ""
    name = prefix + "display-key"
    try:
        kept = dom.py(dom.window.sessionStorage.getItem(name))
        if is_key(kept):
            return str(kept)
        made = secrets.token_urlsafe(16)
        dom.window.sessionStorage.setItem(name, made)
        return made
    except dom.JsException:
        return secrets.token_urlsafe(16)  # (sessionStorage refused: this page's key, until it reloads)


def say_ignored_stun(rt: Runtime, store: Store, status: str) -> None:
    """A join link's `?stun=` that names servers this phone does not list is not used: said once."""
    try:
        kept = None if status == "blocked" else store.get(SERVERS_KEY)
    except StorageUnavailable:
        kept = None
    ignored = stun_ignored(dom.py(dom.window.URLSearchParams.new(dom.window.location.search).get("stun")), kept)
    if ignored:
        rt.say(Notice("warn", ignored))


def start() -> None:
    """Build the runtime from what is stored, draw the page, listen to it, say the engine is ready."""
    global runtime
    dom.bind()
    window, document = dom.window, dom.document
    rk = window.RK
    prefix = str(rk.prefix)
    store, status = dom.open_store(prefix)
    seed_text = dom.py(window.URLSearchParams.new(window.location.search).get("seed"))
    seed, refused = read_seed(None if seed_text is None else str(seed_text))
    # The system's own randomness (not a Mersenne Twister a peer could learn from the values it is sent:
    # a verified roll's secret and the game master's key come from it), unless `?seed=` fixes the dice.
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    display = str(window.location.hash or "") == "#display"
    if seed is not None and not display:  # (the display rolls nothing)
        say_fixed_dice(str(seed_text))
    guard_ms = dom.py(getattr(rk, "nextTurnGuardMs", None))
    guard = NEXT_TURN_GUARD if guard_ms is None else float(guard_ms) / 1000
    try:
        try:
            stored = None if display or status == "blocked" else store.get(SERVERS_KEY)
        except StorageUnavailable:
            stored = None
        servers = servers_of(stored)
        # The table display (a second window of the game master's) reads nothing stored: not the
        # game master's fight, its hidden foes, nor anything else; it shows what the game master's
        # window sends it, and saves nothing (issue 36).
        rt = Runtime(MemoryStore(), "display", rng, prefix, guard, servers) if display else Runtime(store, status, rng, prefix, guard, servers)
    except Exception as error:  # noqa: BLE001 - whatever is stored, the engine starts
        rt = Runtime(MemoryStore(), "blocked", rng, prefix, guard, servers_of(None))
        rt.say(Notice("error", f"The saved data could not be loaded ({type(error).__name__}: {str(error)[:200]}). "
                               "It is left untouched; this page runs without saving. Reload to try again."))
    runtime = rt
    early = dom.py(getattr(rk, "early", None))
    if early is not None:  # static/early.mjs drew the players' view before the engine was ready: taken over
        early.stop()
        rt.drawing.early_view = bool(dom.py(early.shown))
        taps = tuple((str(t[0]), str(t[1])) for t in (early.taps.to_py() or []))
        if taps:  # (answered once the page has joined: update/follow's EarlyJoinTaken)
            rt.dispatch(EarlyTapsKept(taps))
        if rt.drawing.early_view and display:
            # The display's view comes from the game master's window in a moment; if it does not, this
            # page draws what it has (its own line says how long since the last update).
            window.setTimeout(dom.proxy(rt.live.took_over), 3000)
    if refused:
        rt.say(Notice("warn", refused))
    if not display:
        say_ignored_stun(rt, store, status)
    rt.live.display_key = display_key(prefix, display)
    journal = dom.py(getattr(rk, "journal", None))
    if journal is not None:
        journal.onError = dom.proxy(lambda name: rt.dispatch(JournalFailed(str(name))))
        journal.onConflict = dom.proxy(lambda key, vid: rt.journal_conflict(str(key), str(vid)))
        journal.onSettled = dom.proxy(lambda key: rt.journal_settled(str(key)))
        rt.keeper.journaled = bool(dom.py(getattr(journal, "ok", False)))
        refused_at_start = str(dom.py(getattr(journal, "error", "")) or "")
        if not rt.keeper.journaled and refused_at_start and not display and status != "blocked":
            # IndexedDB refused before the page listened (private browsing, a blocked site, a browser
            # without it): the page works from localStorage; said once (update: journal_said).
            rt.dispatch(JournalFailed(refused_at_start))
        aside = [str(k) for k in (dom.py(getattr(journal, "setAside", None)) or [])]
        if aside:
            rt.say(journal_set_aside(aside))
    tracker = dom.el("tracker")
    if tracker is not None:  # (the table display's early view took the tracker out of its page: static/early.mjs)
        tracker.removeAttribute("inert")
    rt.dispatch(PageDrawn(display=bool(display)))
    window.performance.mark("rk:first-render")
    Listeners(rt).wire()
    for node in (dom.el("undo"), dom.el("redo"), dom.el("next-turn")):
        if node is not None:
            node.setAttribute("data-action", node.id)
    open_fragment(rt)
    rt.resume_live()
    rt.ready()
    rk.bench = dom.proxy(bench)
    window.clearTimeout(rk.watchdog)
    document.getElementById("boot-error").classList.remove("show")
    if display:  # nothing of a tracker in its DOM: no control that could change a fight
        for ident in ("app", "dock", "menu-button"):
            node = dom.el(ident)
            if node is not None:
                node.remove()
        head = dom.py(document.querySelector("#sheet .sheet-head"))
        if head is not None:
            head.remove()
    document.documentElement.dataset.engine = "ready"
    rk.readyAt = window.performance.now()
    window.performance.mark("rk:ready")


def bench(name: dom.JsObject, arg: dom.JsObject = "") -> str:
    from web.page import bench as hooks  # only when the benchmark asks: keeps it off the start-up path

    assert runtime is not None
    return hooks.hook(runtime, str(name), str(arg))
