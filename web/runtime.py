"""The runtime: the one place where the page, storage and the Elm core meet.

A DOM event becomes a message (the screens' handlers, web/screens), `update` (web/update) makes
the next Model and the effects, and the runtime performs them here: store, draw, say. The Model is
the page's only state; what lives beside it belongs to the browser (storage and its list of
encounters, timers, the wake lock). index.html calls `start()`.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyodide.ffi import JsException
from pyscript import document, window

from pyengine.dice import RollResult
from pyengine.errors import EngineError, SchemaError
from pyengine.handoff import view_payload
from pyengine.live import (
    BEAT_MS,
    DEFAULT_NOSTR,
    DEFAULT_RELAYS,
    DEFAULT_STUN,
    LiveError,
    beat_text,
    hello_text,
    read_room,
    request_text,
    state_text,
)
from pyengine.rules import system_of
from pyengine.storage import MAX_DOCUMENT_CHARS
from pyengine.tracker import Timeline

from . import browser, dom, render
from . import effects as fx
from .dom import JsObject
from .live import answering
from .messages import (
    AnswerMade,
    CharacterOffered,
    ClaimTapped,
    CodeRead,
    CollectionChanged,
    DirectFailed,
    EncountersImported,
    FightChangedElsewhere,
    FileImported,
    LibraryFailed,
    LibraryLoaded,
    LiveFollowed,
    LiveOpened,
    LiveTicked,
    Message,
    OfferMade,
    PairingFailed,
    PeerChanged,
    PeerSaid,
    RelaysChecked,
    ShareOffered,
    SheetClosed,
    SheetOpened,
    StorageKept,
    ViewOpened,
)
from .model import NEXT_TURN_GUARD, Model
from .params import chosen_nostr, chosen_servers, journal_set_aside, read_seed
from .persist import (
    CHARACTERS,
    COLLECTIONS,
    INDEX,
    ROLLS,
    SAVED_ROLLS,
    SNAPSHOT,
    ChangedElsewhere,
    Imported,
    MemoryStore,
    Notice,
    Persistence,
    StorageFull,
    StorageUnavailable,
    Store,
    Workspace,
    export_all,
    export_encounter,
    reading_import,
    rebase_changes,
    share_payload,
)
from .screens import Context, Elsewhere, handler, screen_of
from .update import COLLECTION_OF, FIRST_RUN_HINT, notify
from .update import update as update_model

HINT_HOME = "hint:home-screen"  # the one-time "add to Home Screen" hint was shown
HINT_FIRST = "hint:first-run"  # the one-time "tap a row, ☰ is the menu" hint was shown
FULL = Notice("error", "Storage is full: this change is on screen but NOT saved; the last good save is kept. "
                       "Trim old undo history to make room?", "trim-history", "Trim history", (("export-all", "Export all"),))


class Runtime:
    def __init__(self, store: Store, status: str, rng: random.Random, prefix: str) -> None:
        """status: how the browser's storage answered at start: "ok", "full" or "blocked"."""
        self.store, self.persistent, self.prefix, self.rng = store, status != "blocked", prefix, rng
        self.persistence = Persistence(store)
        notices: list[Notice] = []
        try:
            self.ws, loaded = self.persistence.load_workspace()
            notices.extend(loaded)
            collections = {key: tuple(self.persistence.read_collection(key, notices)) for key in (ROLLS, SAVED_ROLLS, CHARACTERS)}
        except StorageUnavailable:
            self.store, self.persistent = MemoryStore(), False
            self.persistence = Persistence(self.store)
            self.ws, _ = self.persistence.load_workspace()
            collections = {}
        if status == "full":
            notices.append(Notice(
                "error", "Storage is full (this site, or another site at this address, filled it). Your saved fights are "
                         "shown, but changes cannot be saved until there is room. Export all keeps a copy; Trim history "
                         "frees room.", "export-all", "Export all", (("trim-history", "Trim history"),)))
        elif not self.persistent:
            notices.append(Notice("error", "This browser is not letting Roundkeeper save (storage is blocked or private). "
                                           "Everything works, but the fight is lost when the page closes. Export it to keep it."))
        self.model = Model(self.ws.current, rolls=collections.get(ROLLS, ()), saved_rolls=collections.get(SAVED_ROLLS, ()),
                           characters=collections.get(CHARACTERS, ()), roster=tuple(self.ws.roster), templates=tuple(self.ws.templates),
                           notices=tuple(notices))
        self._tracker_html: tuple[tuple[Timeline | None, tuple[str, ...] | None], str] = ((None, None), "")
        self.odds = browser.OddsPanel()
        self.toasts = browser.Toast()
        self.sheet_in_history = False  # a history entry was pushed for the open sheet (Back closes it)
        # Links this page took in (the part after #): the history entry under an open sheet still has
        # it, and going back to it must not offer the same fight or character again.
        self.consumed: set[str] = set()
        self.backs_pending = 0         # history.back() calls of our own whose popstate has not come yet
        self.wake = browser.WakeLock()
        self.sheet_later = browser.Later(lambda: self.render_sheet(typing=True))
        self.asked_to_keep = False
        self.page_only = False   # the table display: the players' view alone (start: `#display`)
        # The players' view drawn before the engine was ready (static/early.mjs): kept on screen until
        # this page has a view of its own to draw over it; the taps made on it, answered once joined.
        self.early_view = False
        self.early_taps: list[tuple[str, str]] = []
        stored_servers = self.store.get(SERVERS_KEY) if self.persistent else None
        self.servers = live_servers(stored_servers)
        self.nostr = live_nostr(stored_servers)
        self.transport = browser.Transport(prefix + "live", self.heard, self.peer_changed, lambda peer: self.dispatch(DirectFailed(peer)))
        self.scanner = browser.Scanner(lambda text, kind: self.dispatch(CodeRead(text, kind)))
        self.revision = 0        # the live table's last revision sent, counted from 1 in this page (no clock)
        self.session = secrets.token_hex(4)  # this page's (a follower takes a new page's states whatever its clock)
        self.ticker: Any = None  # a follower's clock for its connection line
        self.connecting: Any = None  # the room being joined (a task; its result: the host's public key)
        self.live_link = ""          # the hosted table's join link, once its key is known
        self.journal_said = False    # the durable copy's refusal was said (once a page)
        self.shared: Timeline | None = self.model.timeline  # the fight as this tab last stored it or took it in
        self.base_of: dict[int, Timeline | None] = {}      # revision stored -> what it was made from
        self.journaled = False       # the durable journal (IndexedDB) answers: it decides same-moment races
        self._performers = self.performing()

    # -- the loop: message -> update -> effects ----------------------------------------------
    def dispatch(self, message: Message) -> Model:
        """Run `update` on a message, keep its model, and perform its effects in order."""
        self.model, effects = update_model(self.model, message)
        for effect in effects:
            self._performers[type(effect)](effect)
        return self.model

    def event(self, kind: str, name: str, node: JsObject, target: JsObject = None) -> None:
        """A DOM event to its screen's handler, and the messages it answers with to `dispatch`; a
        value the handler cannot read (a bad number) is said where the tap was."""
        found = handler(kind, name, self.model.timeline.present.system)
        if found is None:
            return
        try:
            answer = found(browser.DomPage(self, node, target))
            for message in answer if isinstance(answer, tuple) else (answer,) if answer is not None else ():
                self.dispatch(message)
        except EngineError as error:
            self.refuse(str(error))

    def say(self, notice: Notice) -> None:
        """A notice from the browser's side (storage refused, another tab)."""
        self.model = notify(self.model, notice)
        self.render_notices()

    def performing(self) -> dict[type, Callable[[Any], None]]:
        """Effect type -> how the page carries it out (the one table of what update may ask)."""
        return {
            fx.SaveFight: lambda e: self.save_fight(),
            fx.Render: lambda e: self.render(e.elsewhere),
            fx.RenderSheet: self.render_sheet_effect,
            fx.ScheduleSheet: lambda e: self.sheet_later.soon(150),
            fx.RenderNotices: lambda e: self.render_notices(),
            fx.RenderRolls: lambda e: self.render_rolls(),
            fx.Toast: lambda e: self.toasts.show(e.text, e.level, e.undo, self.model.ui.sheet is not None, e.redo, e.request),
            fx.HideToast: lambda e: self.toasts.hide(),
            fx.Refuse: lambda e: self.refuse(e.text),
            fx.ShowSheet: lambda e: self.show_sheet(e.focus),
            fx.CloseSheet: lambda e: self.close_sheet(),
            fx.StoreCollection: lambda e: self.store_collection(e.key),
            fx.KeepAwake: lambda e: self.wake.want(self.model.timeline.present.started or self.model.live.following),
            fx.AskToKeepStorage: lambda e: self.ask_to_keep_storage(),
            fx.SayOnLine: self.say_on_line,
            fx.SetField: lambda e: self.fill(((e.field, e.value),)),
            fx.FillForm: lambda e: self.fill(e.fields, e.focus),
            fx.ShowRoll: lambda e: self.show_roll(e.result),
            fx.RefreshOdds: lambda e: self.odds.refresh(),
            fx.ScheduleOdds: lambda e: self.odds.schedule(),
            fx.RollStale: lambda e: self.roll_stale(),
            fx.ClearLink: lambda e: self.clear_link(),
            fx.SwitchTo: self.switch_to_effect,
            fx.ForgetStored: self.forget_stored,
            fx.LoadEncounter: lambda e: self.load_encounter(e.ident),
            fx.TrimStored: lambda e: self.trim_stored(e.keep),
            fx.AddEncounters: self.add_encounters,
            fx.SetTheme: lambda e: self.set_theme(e.theme),
            fx.Download: lambda e: self.download(e.what),
            fx.ShowShareLink: lambda e: self.show_share_link(e.kind),
            fx.CopyLink: lambda e: browser.copy_link(e.field, e.line),
            fx.Reload: lambda e: window.location.reload(),
            fx.LiveConnect: self.live_connect,
            fx.LiveSend: self.live_send,
            fx.LiveTell: lambda e: self.transport.send(e.text, e.peer),
            fx.LiveLeave: lambda e: self.live_leave(),
            fx.StoreServers: self.store_servers,
            fx.ForgetLive: lambda e: self.keep_live(None),
            fx.KeepLiveTable: lambda e: self.keep_stored(LIVE_TABLE_KEY, e.text),
            fx.OpenDisplay: lambda e: window.open(f"{window.location.pathname}{window.location.search}#display", "roundkeeper-display"),
            fx.ShowLiveLink: self.show_live_link,
            fx.MakeOffer: lambda e: self.later(self._make_offer()),
            fx.AcceptOffer: lambda e: self.later(self._accept_offer(e)),
            fx.ApplyAnswer: lambda e: self.later(self._apply_answer(e)),
            fx.LoadLibrary: lambda e: self.later(self._load_library()),
        }

    async def _load_library(self) -> None:
        """The creature library's file, the site's own (precached by the service worker: offline too)."""
        from pyengine.systems.srd import LIBRARY_FILE

        try:
            response = await window.fetch(str(window.URL.new(f"./{LIBRARY_FILE}", document.baseURI).href))
            if not response.ok:
                self.dispatch(LibraryFailed(f"the file answered {response.status}"))
                return
            text = str(await response.text())
        except JsException as error:
            self.dispatch(LibraryFailed(str(error)[:200] or "no network"))
            return
        self.dispatch(LibraryLoaded(text))

    def journal_failed(self, name: str) -> None:
        """The durable copy (static/journal.js) was refused: said once, like a full storage."""
        if self.journal_said:
            return
        self.journal_said = True
        full = "quota" in name.lower()
        self.say(Notice("error", ("This phone's storage is full: " if full else f"This browser refused the safe copy ({name[:60]}): ")
                        + "changes are still saved, but a browser closed by the phone may lose the last ones. "
                          "Export all keeps a copy; Trim history frees room.", "export-all", "Export all",
                        (("trim-history", "Trim history"),)))

    def say_on_line(self, e: fx.SayOnLine) -> None:
        line = dom.el(e.line)
        if line is not None:  # (its screen may have closed since)
            line.textContent = e.text
            if e.mark:
                line.dataset.state = e.mark

    def later(self, task: Any) -> None:
        asyncio.ensure_future(task)

    # -- the live table with no internet (two codes) ------------------------------------------
    async def _make_offer(self) -> None:
        token = secrets.token_hex(4)
        await self.scanner.allow()  # (its addresses in the code, not hidden names; the answers need the camera anyway)
        try:
            sdp = await self.transport.offer(token)
        except JsException as error:
            self.dispatch(PairingFailed(f"This browser could not make a connection ({str(error)[:200]})."))
            return
        self.dispatch(OfferMade(token, sdp, f"{window.location.origin}{window.location.pathname}"))

    async def _accept_offer(self, e: fx.AcceptOffer) -> None:
        self.keep_time(host=False)
        try:
            sdp = await self.transport.accept(e.sdp)
        except JsException as error:
            self.dispatch(PairingFailed(f"This browser could not take the game master's code ({str(error)[:200]}). "
                                        "Scan it again, or ask for a new one."))
            return
        name = str(self.model.characters[0].get("name", "")) if self.model.characters else ""
        self.dispatch(AnswerMade(e.token, sdp, name, self.device()))

    async def _apply_answer(self, e: fx.ApplyAnswer) -> None:
        try:
            taken = await self.transport.answered(e.token, e.sdp)
        except JsException as error:
            taken = False
            self.dispatch(PairingFailed(f"This browser could not take the player's answer ({str(error)[:200]}): "
                                        "the player scans the new code, then shows the new answer."))
            return
        if not taken:
            self.dispatch(PairingFailed("That code was replaced meanwhile: the player scans the new one."))

    # -- the live table ---------------------------------------------------------------------
    def heard(self, peer: str, text: str | None) -> None:
        """A message from another phone (or, as "display", from this device's other windows)."""
        if peer == "display" and self.model.live.role == "display":
            peer = "gm"  # the display hears the game master's window on the channel
        self.dispatch(PeerSaid(peer, text, live_clock(), self.rng))

    def peer_changed(self, peer: str, joined: bool) -> None:
        self.dispatch(PeerChanged(peer, joined))

    def live_connect(self, e: fx.LiveConnect) -> None:
        if e.role == "display":
            self.transport.post(hello_text(e.hello))
            # Closed (or navigated away): the game master's window stops counting it.
            window.addEventListener("pagehide", dom.proxy(lambda *_: self.transport.post(request_text("bye"))))
        else:
            self.connecting = asyncio.ensure_future(self._connect(e))
        self.keep_time(e.role == "host")

    def keep_time(self, host: bool) -> None:
        """The host (or a window with a table display) says it is there every few seconds; a follower
        checks its clock as often."""
        if self.ticker is None:
            self.ticker = window.setInterval(dom.proxy(self.beat if host else self.tick), BEAT_MS if host else 2000)

    def beat(self) -> None:
        if self.model.live.hosting:
            self.transport.send(beat_text(self.revision, self.session))
            networks = self.transport.networks() if self.model.live.relays or self.model.live.nostr else (-1, -1, -1, -1)
            up = answering(networks)
            if (up, networks) != (self.model.live.relays_up, self.model.live.networks):
                self.dispatch(RelaysChecked(up, networks))
        if self.model.live.display:
            self.transport.post(beat_text(self.revision, self.session))
        if self.model.live.hosting and (self.model.live.limited or self.model.live.limits):
            self.dispatch(LiveTicked(live_clock()))  # the line's counts and a muted phone's time left

    def tick(self) -> None:
        self.dispatch(LiveTicked(live_clock(), self.transport.networks()))

    async def _connect(self, e: fx.LiveConnect) -> str:
        """Into the room; the game master's phone first takes its signing key (the one kept with the
        room, else a new one, kept). Returns the host's public key ("" for a follower)."""
        try:
            public = ""
            if e.role == "host":
                kept = self.stored_live()
                jwk, public = await self.transport.host_key(kept[2] if kept and kept[:2] == (e.room, e.secret) else None)
                self.keep_live((e.room, e.secret, jwk))
            if e.relays or e.nostr:
                await self.transport.connect(e.room, e.secret, e.relays, e.nostr, e.stun, e.host_key or None)
            else:
                await self.transport.load()  # live without the relays: phones join by two codes only
            if e.role == "follow":
                self.took_over()
            return public
        except JsException as error:
            self.say(Notice("error", f"The live table could not connect ({str(error)[:200]}). The fight goes on here; "
                                     "check the connection and open Live table again."))
            return ""

    def took_over(self) -> None:
        """Joined (the early view's join taken over, with the state it had): what was tapped on the early
        view is done now, and answered as any tap; a view still not drawn is drawn as this page has it."""
        taps, self.early_taps = self.early_taps, []
        for action, ident in taps:
            if action == "live-claim":
                self.dispatch(ClaimTapped(ident))
        if self.early_view:
            self.early_view = False
            self.render_sheet()

    def store_servers(self, e: fx.StoreServers) -> None:
        self.servers, self.nostr = (e.relays, e.stun), e.nostr
        self.keep_stored(SERVERS_KEY, json.dumps({"relays": list(e.relays), "stun": list(e.stun), "nostr": list(e.nostr)}))

    def device(self) -> str:
        """This phone's lasting id at live tables: what the game master let it play is kept under it."""
        known = self.store.get(DEVICE_KEY) if self.persistent else None
        if known and 8 <= len(known) <= 40 and known.replace("-", "").replace("_", "").isalnum():
            return known
        made = secrets.token_urlsafe(12)
        try:
            self.store.set(DEVICE_KEY, made)
        except (StorageFull, StorageUnavailable):
            pass
        return made

    def stored_live(self) -> tuple[str, str, str] | None:
        """The hosted room kept for a reload: (room, secret, signing key as JWK text)."""
        raw = self.store.get(LIVE_KEY) if self.persistent else None
        try:
            doc = json.loads(raw) if raw and len(raw) < 2000 else None
            if isinstance(doc, dict) and all(isinstance(doc.get(k), str) for k in ("room", "secret", "key")):
                read_room(f"{doc['room']}.{doc['secret']}", with_key=False)
                return doc["room"], doc["secret"], doc["key"]
        except (ValueError, LiveError):
            pass
        return None

    def keep_stored(self, key: str, text: str) -> None:
        try:
            self.store.set(key, text)
        except (StorageFull, StorageUnavailable):
            pass  # kept for this page

    def keep_live(self, kept: tuple[str, str, str] | None) -> None:
        try:
            if kept is None:
                self.store.remove(LIVE_KEY)
                self.store.remove(LIVE_TABLE_KEY)
            else:
                self.store.set(LIVE_KEY, json.dumps({"room": kept[0], "secret": kept[1], "key": kept[2]}))
        except (StorageFull, StorageUnavailable):
            pass  # the table stays live until this page closes

    def live_send(self, e: fx.LiveSend) -> None:
        self.revision += 1
        text = state_text(e.view, self.revision, [list(i) for i in e.ids], list(e.turn), self.transport.self_id, self.session, e.html, e.pcs)
        if e.peer == "display":
            self.transport.post(text)
            self.keep_time(host=True)
        elif e.peer is not None:
            self.transport.send(text, e.peer)
        else:
            if self.model.live.hosting:
                self.transport.send(text)
            if self.model.live.display:
                self.transport.post(text)
                self.keep_time(host=True)  # the display hears the beats even with no table live

    def live_leave(self) -> None:
        self.transport.leave()
        self.live_link = ""
        if self.ticker is not None:
            window.clearInterval(self.ticker)
            self.ticker = None

    def show_live_link(self, e: fx.ShowLiveLink) -> None:
        asyncio.ensure_future(self._show_live_link(e))

    async def _show_live_link(self, e: fx.ShowLiveLink) -> None:
        """The join link (with the game master's public key, once the room is joined) and its QR code."""
        public = await self.connecting if self.connecting is not None else ""
        if not public:
            return
        relays, stun = self.model.live.relays, self.model.live.stun  # the room's, not a setting saved since
        query = []
        if relays != DEFAULT_RELAYS:
            query.append("relays=" + str(window.encodeURIComponent(",".join(relays) or "none")))
        if self.model.live.nostr != DEFAULT_NOSTR:
            query.append("nostr=" + str(window.encodeURIComponent(",".join(self.model.live.nostr) or "none")))
        if stun != DEFAULT_STUN:
            query.append("stun=" + str(window.encodeURIComponent(",".join(stun) or "none")))
        self.live_link = f"{window.location.origin}{window.location.pathname}{'?' + '&'.join(query) if query else ''}#{e.fragment}.{public}"
        self.show_link(self.live_link)

    def show_link(self, link: str) -> None:
        """The join link in the Live table's field and as its QR code (drawn again with the sheet)."""
        field = dom.el("live-link")
        if field is not None and str(field.value) != link:
            field.value = link
            asyncio.ensure_future(browser.show_qr(link, "live-link", "live-qr", "live-qr-note"))

    # -- storage ---------------------------------------------------------------------------
    def workspace(self) -> Workspace:
        """The stored list of encounters with the model's fight, party and opponents in it."""
        self.ws.current, self.ws.roster, self.ws.templates = self.model.timeline, list(self.model.roster), list(self.model.templates)
        return self.ws

    def save_fight(self) -> None:
        """The fight on screen changed: its line in the list of encounters, then the save."""
        for entry in self.ws.encounters:
            if entry["id"] == self.model.timeline.present.id:
                describe_entry(entry, self.model.timeline)
        self.save()

    def save(self, made_from: int | None = None) -> bool:
        """Store the fight on screen; False when it was not (said), True when it was (or this page
        keeps nothing: storage blocked, said at start). `made_from`: see Persistence.save_timeline."""
        if not self.persistent:
            return True
        before = self.shared
        try:
            self.persistence.save_timeline(self.model.timeline, self.workspace(), made_from)
        except StorageFull:
            self.say(FULL)
            return False
        except ChangedElsewhere:
            self.merge_other_tab(self.model.timeline.present.id)
            return True
        except SchemaError as error:
            self.say(Notice("warn", str(error)))
            return False
        except StorageUnavailable:
            self.say(Notice("error", "The browser stopped letting Roundkeeper save. Export the fight to keep it."))
            return False
        rev = self.persistence.revs.get(self.model.timeline.present.id)
        if rev is not None:
            # What this save was made from: a race lost in the journal is merged from there (merge_other_tab).
            self.base_of[rev] = before
            for old in [r for r in self.base_of if r < rev - 50]:
                del self.base_of[old]
        self.shared = self.model.timeline
        try:
            self.store.set(SNAPSHOT, self.tracker_html() if self.model.ui.selected is None else render.tracker_html(self.model.timeline))
        except (StorageFull, StorageUnavailable):
            pass  # the snapshot is only a faster start; the fight itself is saved
        return True

    def store_collection(self, key: str) -> None:
        """Store one collection of the model (merged with another tab's), and keep what was stored."""
        if not self.persistent:
            return
        try:
            stored = self.persistence.write_collection(key, list(getattr(self.model, COLLECTION_OF[key])))
        except StorageFull:
            self.say(Notice("error", f"Storage is full: the {COLLECTIONS[key].what} could not be saved. "
                                     "Trim history or export to make room.", "trim-history", "Trim history", (("export-all", "Export all"),)))
            return
        except StorageUnavailable:
            self.say(Notice("error", f"The browser stopped letting Roundkeeper save (storage was blocked): the "
                                     f"{COLLECTIONS[key].what} could not be saved. Export all keeps a copy.", "export-all", "Export all"))
            return
        kept: dict[str, Any] = {COLLECTION_OF[key]: tuple(stored)}
        self.model = replace(self.model, **kept)

    def pick_up_other_tab(self, conflict: bool = False) -> None:
        eid = self.model.timeline.present.id
        known, stored = self.persistence.revs.get(eid), self.persistence.stored_rev(eid)
        if self.journaled and known is not None and stored is not None and stored <= known:
            # Another tab's write of a revision this tab stored too: the journal decides who was first,
            # and the one that was not merges its change into the other's (merge_other_tab).
            return
        self.persistence.revs.pop(eid, None)
        timeline, _ = self.load(eid)
        if timeline is not None:
            self.shared = timeline
            self.dispatch(FightChangedElsewhere(timeline, conflict))

    def merge_other_tab(self, eid: str, base: Timeline | None = None, theirs_raw: str | None = None) -> None:
        """Another tab stored this fight at the same moment as this one: our change since `base` (else
        what this tab last stored or took in) is done again on theirs, saved, and said (no tap lost)."""
        if eid != self.model.timeline.present.id:
            return
        if theirs_raw is not None:
            getattr(self.store, "restore", self.store.set)(f"enc:{eid}", theirs_raw)
        ours_rev = self.persistence.revs.pop(eid, 0)
        theirs, _ = self.load(eid)
        if theirs is None:
            return
        their_rev = self.persistence.revs.get(eid, 0)
        merged, said = rebase_changes(base if base is not None else self.shared, self.model.timeline, theirs)
        self.shared = theirs
        self.dispatch(FightChangedElsewhere(merged, merged is theirs and "not" in said, said))
        if merged is not theirs:
            # Numbered past every revision this tab wrote meanwhile (the other tab may have taken one
            # of those in: it takes this one too), made from theirs (what the journal holds).
            self.persistence.revs[eid] = max(their_rev, ours_rev)
            self.save(made_from=their_rev)

    def journal_conflict(self, key: str, rev: int) -> None:
        """The journal found that another tab stored this key first (static/journal.js)."""
        self.later(self._journal_conflict(key, rev))

    async def _journal_conflict(self, key: str, rev: int) -> None:
        name = key[len(self.prefix):] if key.startswith(self.prefix) else key
        raw = dom.py(await window.RK.journal.read(key))
        window.RK.journal.resolved(key)
        if not (name.startswith("enc:") and isinstance(raw, str)):
            return
        eid = name[len("enc:"):]
        if eid == self.model.timeline.present.id:
            self.merge_other_tab(eid, self.base_of.get(rev), str(raw))
        else:
            # A fight not on screen (saved as this tab left it): the other tab's version stands, here too.
            getattr(self.store, "restore", self.store.set)(name, str(raw))
            self.persistence.revs.pop(eid, None)

    def render_sheet_effect(self, e: fx.RenderSheet) -> None:
        screen = screen_of(self.model.ui)
        if not e.collection or (screen is not None and screen.redrawn_for(e.collection)):
            self.render_sheet()

    def pick_up_collection(self, key: str) -> None:
        """Another tab stored a collection (or the list of encounters): show its version."""
        if key == INDEX:
            self.persistence.refresh_index(self.workspace())
            screen = screen_of(self.model.ui)
            if screen is not None and screen.redrawn_for(key):
                self.render_sheet()
            return
        notices: list[Notice] = []
        items = tuple(self.persistence.read_collection(key, notices))
        if key in self.persistence.unreadable:
            # Another tab's write that does not load (set aside above): this tab's own list stands and is stored again.
            ours = getattr(self.model, COLLECTION_OF[key])
            notices = [Notice("error", f"Another tab's copy of the {COLLECTIONS[key].what} could not be read (a copy was set "
                                       "aside): this tab's version was stored again.",
                              "export-all", "Export all")]
            self.store_collection(key)
            items = ours
        for notice in notices:  # another tab's damaged or newer entries: said, not dropped silently
            self.model = notify(self.model, notice)
        self.dispatch(CollectionChanged(key, items))
        if notices:
            self.render_notices()

    def trim_stored(self, keep: int) -> None:
        """Every stored fight but the one on screen keeps its last `keep` undo steps."""
        current = self.model.timeline.present.id
        for entry in self.ws.encounters:
            if entry["id"] == current or entry["id"] in self.ws.locked:
                continue
            timeline, _ = self.persistence.load_timeline(entry["id"], [])
            if timeline is not None and len(timeline.actions) > keep:
                try:
                    self.persistence.save_timeline(timeline.trimmed(keep), self.workspace())
                except (StorageFull, StorageUnavailable, SchemaError):
                    pass

    # -- encounters ------------------------------------------------------------------------
    def switch_to(self, timeline: Timeline, origin: dict[str, Any] | None = None) -> None:
        """Show this fight: the one left is stored (a fresh one never saved yet too), the new one listed."""
        outgoing = self.model.timeline.present.id
        listed = any(e["id"] == outgoing for e in self.ws.encounters)
        if self.persistent and listed and outgoing not in self.ws.locked and self.persistence.stored_rev(outgoing) is None:
            self.save()
        # A selection belongs to the fight it was made in.
        self.model = replace(self.model, timeline=timeline, ui=replace(self.model.ui, selected=None))
        self.shared = timeline
        if not any(e["id"] == timeline.present.id for e in self.ws.encounters):
            self.ws.encounters.append({**describe_entry({"id": timeline.present.id}, timeline), **(origin or {})})
        self.save()
        self.render()
        self.wake.want(timeline.present.started)

    def switch_to_effect(self, effect: fx.SwitchTo) -> None:
        """Over an earlier encounter (its list entry brought up to date, its stored revision
        forgotten), or as a new one listed with where it came from."""
        if effect.replacing is not None:
            self.persistence.revs.pop(effect.replacing, None)
            for entry in self.ws.encounters:
                if entry["id"] == effect.replacing:
                    describe_entry(entry, effect.timeline)
            self.switch_to(effect.timeline)
        else:
            self.switch_to(effect.timeline, dict(effect.origin))

    def load(self, eid: str) -> tuple[Timeline | None, bool]:
        """A stored fight (None when it cannot be read; `locked`: a newer version's); what went wrong is said."""
        notices: list[Notice] = []
        found = self.persistence.load_timeline(eid, notices)
        for notice in notices:
            self.model = notify(self.model, notice)
        if notices:
            self.render_notices()
        return found

    def load_encounter(self, eid: str) -> None:
        timeline, locked = self.load(eid)
        if timeline is None:
            if locked:
                self.ws.locked.add(eid)
            return
        self.switch_to(timeline)

    def forget_stored(self, effect: fx.ForgetStored) -> None:
        """Out of storage and the list; then the first encounter left, else a fresh one."""
        self.persistence.delete_encounter(effect.ident)
        self.ws.encounters = [e for e in self.ws.encounters if e["id"] != effect.ident]
        first = next((e for e in self.ws.encounters if e["id"] not in self.ws.locked), None)
        timeline = self.load(first["id"])[0] if first is not None else None
        self.switch_to(timeline if timeline is not None else effect.fresh)

    def add_encounters(self, effect: fx.AddEncounters) -> None:
        asyncio.ensure_future(self.store_imported(effect.timelines))

    async def store_imported(self, timelines: tuple[Timeline, ...]) -> None:
        """Imported fights: each stored and listed as from a file, one a task (the page answers
        taps between them); the last one stored is shown. What could not be stored (storage full)
        is neither listed nor shown, and said with the count."""
        stored: list[Timeline] = []
        for timeline in timelines:
            if stored:
                self.toasts.show(f"Importing: {len(stored)} of {len(timelines)} stored…", "info", False, self.model.ui.sheet is not None)
                await asyncio.sleep(0)
            entry = {**describe_entry({"id": timeline.present.id}, timeline), "from": "file"}
            self.ws.encounters.append(entry)
            try:
                if self.persistent:
                    self.persistence.save_timeline(timeline, self.workspace())
            except (StorageFull, StorageUnavailable, SchemaError) as error:
                self.ws.encounters.remove(entry)
                if isinstance(error, StorageUnavailable):
                    self.say(Notice("error", "The browser stopped letting Roundkeeper save: the rest of the file was not stored."))
                break  # storage refused one: the next, no smaller, would be refused too
            stored.append(timeline)
        if stored:
            self.switch_to(stored[-1])
        self.toasts.hide()
        self.dispatch(EncountersImported(len(stored), len(timelines)))

    def download(self, what: str) -> None:
        if what == "all":
            dom.download("roundkeeper-all.json", export_all(self.workspace(), self.persistence))
        else:
            dom.download(f"roundkeeper-{slug(self.model.timeline.present.name)}.json", export_encounter(self.model.timeline))

    # -- drawing ---------------------------------------------------------------------------
    def tracker_html(self) -> str:
        """The turn order's HTML, built once per state: the screen and the snapshot share it."""
        (timeline, selected), html = self._tracker_html
        if timeline is not self.model.timeline or selected != self.model.ui.selected:  # identity: comparing timelines would walk them
            html = render.tracker_html(self.model.timeline, self.model.ui.selected)
            self._tracker_html = ((self.model.timeline, self.model.ui.selected), html)
        return html

    def render(self, elsewhere: bool = False) -> None:
        """`elsewhere`: drawn for another tab's change (the open sheet's fields keep what is typed)."""
        if self.page_only:  # the table display: its one screen, and nothing of a tracker
            if self.model.ui.sheet is not None:
                self.render_sheet()
            return
        t = self.model.timeline
        enc = t.present
        if any(n.encounter is not None for n in self.model.notices):
            self.render_notices()  # a notice about a step goes with an undo, or another fight on screen
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
        if self.model.ui.sheet is not None:
            self.render_sheet(typing="fields" if elsewhere else False)

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

    def render_notices(self) -> None:
        dom.set_html("notices", render.notices_html(list(self.model.notices), self.model.timeline))
        live = self.model.live
        waiting = live.requests if live.hosting else ()
        tray, badge = dom.el("request-tray"), dom.el("request-count")
        if tray is not None and badge is not None:
            dom.set_html("request-tray", render.tray_html(waiting) if waiting else "")
            tray.hidden = not (waiting and live.tray)
            badge.hidden = not waiting
            badge.textContent = f"Asks {len(waiting)}"
            badge.setAttribute("aria-label", f"Players' requests: {len(waiting)}")
            badge.setAttribute("aria-expanded", "true" if live.tray else "false")
            document.body.classList.toggle("has-tray", bool(waiting and live.tray))

    def render_rolls(self) -> None:
        dom.set_html("saved-rolls", render.saved_rolls_html(list(self.model.saved_rolls)))
        dom.set_html("roll-history", render.history_html(list(self.model.rolls)))

    def render_roller(self) -> None:
        dom.set_html("roller", render.roller_html())
        self.render_rolls()
        self.odds.refresh()

    def context(self) -> Context:
        """What the screens draw from: the model, the list of encounters, the theme, the storage."""
        return Context(self.model, tuple(self.ws.encounters), frozenset(self.ws.locked), self.model.trash.encounters,
                       str(document.documentElement.dataset.themePref or "system"), self.storage_state(), time.time(),
                       f"{window.location.origin}{window.location.pathname}")

    def render_sheet(self, typing: bool | str = False) -> None:
        """Draw the open screen (web/screens); one whose subject is gone closes or opens another.
        `typing`: drawn a moment after typing stopped (the field typed in keeps what it holds)."""
        screen = screen_of(self.model.ui)
        if screen is None or self.model.ui.sheet is None:
            return
        if self.early_view:
            if self.model.ui.sheet[0] == "live-follow" and self.model.live.view is None:
                return  # the early view stays until there is a view to draw over it (no flash of "waiting")
            self.early_view = False
        drawn = screen.draw(self.context(), self.model.ui.sheet[1])
        if isinstance(drawn, Elsewhere):
            self.dispatch(SheetClosed() if drawn.kind is None else SheetOpened(drawn.kind))
            return
        dom.set_html("sheet-body", drawn, morph=True, typing=typing)
        # The players' view is the page's screen on a player's phone and the table display, not a dialog over a tracker.
        dom.el("sheet").classList.toggle("page", self.model.ui.sheet[0] == "live-follow")
        if self.model.ui.sheet[0] == "live" and self.live_link:
            self.show_link(self.live_link)
        for field, box, note in (("offer-code", "offer-qr", "offer-qr-note"), ("answer-code", "answer-qr", "answer-qr-note"),
                                 ("character-link", "character-qr", "character-qr-note")):
            node = dom.el(field)
            if node is not None and str(node.value):
                self.later(browser.show_qr(str(node.value), field, box, note))
        self.scanner.show(self.model.ui.sheet[1] if self.model.ui.sheet[0] == "scan" else None)

    def show_sheet(self, focus: bool) -> None:
        """A sheet opened: at its top (not where the last one was scrolled), with a history entry of
        its own, so that the phone's Back closes it instead of leaving the app."""
        dom.forget("sheet-body")
        self.render_sheet()
        dialog = dom.el("sheet")
        if self.model.ui.sheet is None:
            return  # what it would show is gone
        if not dialog.open:
            dialog.showModal()
        dom.el("sheet-body").scrollTop = 0
        if not self.sheet_in_history:
            window.history.pushState(window.JSON.parse('{"rkSheet": 1}'), "")  # marked: see close_sheet
            self.sheet_in_history = True
        first = dom.py(dialog.querySelector("input:not([type=file]),select"))
        if first is not None and focus:
            first.focus()

    def close_sheet(self) -> None:
        self.scanner.show(None)
        dialog = dom.el("sheet")
        if dialog.open:
            dialog.close()
        self.toasts.out_of_sheet()
        if self.sheet_in_history:  # its history entry goes too (Back then leaves the app as before)
            self.sheet_in_history = False
            self.backs_pending += 1
            window.history.back()

    def clear_link(self) -> None:
        """The address without the link this page took in (kept in mind: see `consumed`)."""
        if window.location.hash:
            self.consumed.add(str(window.location.hash))
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

    def refuse(self, text: str) -> None:
        """A refusal, said where the tap was: in the open screen (its own error line and a toast at
        the bottom of the sheet), else as a notice."""
        screen = screen_of(self.model.ui)
        node = dom.el(screen.error_line) if screen is not None and screen.error_line else None
        if node is None:
            self.say(Notice("error", text))
            return
        node.textContent = text
        self.toasts.show(text, "error", False, True)

    def fill(self, fields: tuple[tuple[str, str | bool], ...], focus: str | None = None) -> None:
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

    def set_theme(self, theme: str) -> None:
        """The theme picked in the menu: "system" (the phone's setting, followed live), "light" or "dark"."""
        window.RK.applyTheme(theme)
        if self.persistent:
            try:
                self.store.set("theme", theme)
            except (StorageFull, StorageUnavailable):
                pass

    def show_share_link(self, kind: str) -> None:
        """The fight for a co-GM (its whole present state), or the players' read-only view: in the
        field, copied, and drawn as a QR code."""
        field = dom.el("share-field")
        if field is None:
            return
        here = f"{window.location.origin}{window.location.pathname}"
        enc = self.model.timeline.present
        field.value = f"{here}#view={view_payload(enc)}" if kind == "view" else f"{here}#fight={share_payload(enc)}"
        browser.copy_link("share-field", "share-out")
        asyncio.ensure_future(browser.show_qr(str(field.value)))

    # -- keeping the data ------------------------------------------------------------------
    def storage_state(self) -> str:
        if not self.persistent:
            return "blocked"
        if any("trim-history" in dict(n.buttons()) for n in self.model.notices):
            return "full"
        return {True: "kept", False: "may-clear", None: "unknown"}[self.model.storage_kept]

    def ask_to_keep_storage(self) -> None:
        if self.persistent and self.model.storage_kept is not True and self.model.timeline.present.started and not self.asked_to_keep:
            self.asked_to_keep = True
            asyncio.ensure_future(self.check_storage_kept(ask=True))

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
        self.dispatch(StorageKept(kept))

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

    def hints(self) -> None:
        """Once, on a first visit: where a combatant's sheet and the menu are. Safari for iPhone and
        iPad, not opened from the Home Screen: that it clears a site's storage after 7 days."""
        if not self.model.timeline.present.combatants and self.first_time(HINT_FIRST):
            self.model = notify(self.model, FIRST_RUN_HINT)
        if dom.py(getattr(window.navigator, "standalone", None)) is False and self.first_time(HINT_HOME):
            self.model = notify(self.model, Notice(
                "info", "Safari clears a site's saved data after 7 days without a visit. To keep your "
                        "fights, add Roundkeeper to your Home Screen (Share → Add to Home Screen); "
                        "Export all in the menu saves a copy to a file.", "export-all", "Export all"))


def describe_entry(entry: dict[str, Any], timeline: Timeline) -> dict[str, Any]:
    """Bring a list entry up to date with its fight: name, system, round, last played. The time
    is kept to the minute, so most taps leave the stored list of encounters as it was."""
    enc = timeline.present
    entry.update({"name": enc.name, "system": enc.system, "round": enc.round, "at": int(time.time() // 60) * 60_000})
    return entry


def slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")[:40] or "encounter"


# -- the page's events ------------------------------------------------------------------------------

SWIPE_PX = 80  # a downward swipe this long, started while the sheet is scrolled to its top, closes it


class Listeners:
    """The page's events: taps, forms, typing, choices, keys, the sheet's gestures, other tabs,
    links opened on a running page; each to the runtime."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.swipe: dict[str, float] = {}

    def on_click(self, event: JsObject) -> None:
        node = dom.py(event.target.closest("[data-action]"))
        if node is not None and not node.hasAttribute("disabled"):
            self.rt.event("click", str(node.getAttribute("data-action")), node)

    def on_submit(self, event: JsObject) -> None:
        form = event.target
        action = dom.py(form.getAttribute("data-action-submit"))
        if action:
            event.preventDefault()
            self.rt.event("submit", str(action), form)

    def on_input(self, event: JsObject) -> None:
        target = event.target
        if dom.py(target.getAttribute("data-action-change")) == "attack-config" and str(target.type) in ("text", "number", "search"):
            # The attack panel's odds follow what is typed (its sheet redrawn a moment after typing stops).
            self.rt.event("change", "attack-config", target, target)
            return
        self.rt.event("input", str(target.id or ""), target)

    def on_change(self, event: JsObject) -> None:
        target = event.target
        if target.id == "import-file" and target.files.length:
            asyncio.ensure_future(import_file(self.rt, target.files.item(0)))
            target.value = ""
            return
        self.rt.event("change", str(dom.py(target.getAttribute("data-action-change")) or ""), target, target)

    def on_key(self, event: JsObject) -> None:
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

    def on_sheet_close(self, event: JsObject) -> None:
        """Closed by the browser (Escape, the back gesture): the UI state follows. The event comes a
        moment after the close; a sheet opened again since stays open."""
        if not dom.el("sheet").open:
            self.rt.dispatch(SheetClosed())

    def on_sheet_click(self, event: JsObject) -> None:
        """A tap on the backdrop (outside the sheet's box, which the dialog itself receives) closes it."""
        sheet = dom.el("sheet")
        if event.target == sheet:
            box = sheet.getBoundingClientRect()
            if not (box.left <= event.clientX <= box.right and box.top <= event.clientY <= box.bottom):
                self.rt.dispatch(SheetClosed())

    def on_touchstart(self, event: JsObject) -> None:
        touch = event.changedTouches.item(0)
        self.swipe.clear()
        if event.touches.length == 1 and dom.el("sheet-body").scrollTop <= 0 and touch is not None:
            self.swipe["y"], self.swipe["x"] = float(touch.clientY), float(touch.clientX)

    def on_touchend(self, event: JsObject) -> None:
        touch = event.changedTouches.item(0)
        if "y" not in self.swipe or touch is None:
            return
        dy, dx = float(touch.clientY) - self.swipe["y"], abs(float(touch.clientX) - self.swipe["x"])
        self.swipe.clear()
        if dy >= SWIPE_PX and dx < dy / 2:  # mostly down, like pulling the sheet away
            self.rt.dispatch(SheetClosed())

    def on_storage(self, event: JsObject) -> None:
        if self.rt.page_only:
            return  # the table display reads none of the stored fights
        key = dom.py(event.key)
        if key is None or not str(key).startswith(self.rt.prefix):
            return  # cleared, or a sibling site at another path of this origin
        name = str(key)[len(self.rt.prefix):]
        if name == f"enc:{self.rt.model.timeline.present.id}":
            self.rt.pick_up_other_tab()
        elif name in COLLECTIONS or name == INDEX:
            self.rt.pick_up_collection(name)

    def on_visibility(self, event: JsObject) -> None:
        self.rt.wake.hidden()
        self.rt.wake.want(self.rt.model.timeline.present.started)

    def on_log_toggle(self, event: JsObject) -> None:
        dom.forget("log")
        self.rt.render()

    def on_hash_change(self, event: JsObject) -> None:
        open_fragment(self.rt)
        self.rt.render_notices()

    def wire(self) -> None:
        sheet = dom.el("sheet")
        for target, name, listener in (
            (document, "click", self.on_click), (document, "submit", self.on_submit), (document, "input", self.on_input),
            (document, "change", self.on_change), (document, "keydown", self.on_key), (window, "storage", self.on_storage),
            (document, "visibilitychange", self.on_visibility), (dom.el("log-box"), "toggle", self.on_log_toggle),
            (sheet, "close", self.on_sheet_close), (sheet, "click", self.on_sheet_click),
            (sheet, "touchstart", self.on_touchstart), (sheet, "touchend", self.on_touchend),
            (window, "hashchange", self.on_hash_change), (window, "popstate", lambda event: self.rt.back_pressed()),
        ):
            if target is not None:  # (the table display has no log: static/early.mjs took the tracker out)
                dom.on(target, name, listener)


def next_initiative(event: JsObject) -> None:
    """Enter in an initiative field moves on to the next empty one; after the last, the fight starts."""
    event.preventDefault()
    inputs = list(document.querySelectorAll("[data-testid=init-input]"))
    at = next((i for i, n in enumerate(inputs) if n == event.target), len(inputs))
    empty = next((n for n in inputs[at + 1:] if not str(n.value).strip()), None)
    if empty is not None:
        empty.focus()
    else:
        dom.el("init-form").requestSubmit()


LIVE_KEY = "live"  # the hosted live table's room, secret and signing key, while it is live
def live_clock() -> float:
    """The live table's clock, in ms: monotonic (a phone whose time is set back an hour keeps its beats,
    rejoins, answers and rate limits right; the times never leave this page)."""
    return time.monotonic() * 1000 + 1.0


LIVE_TABLE_KEY = "live-table"  # its claims and waiting requests (web/live.live_table_text)
DEVICE_KEY = "live-device"  # this phone's lasting id at live tables
SERVERS_KEY = "live-servers"  # the Live table's connection settings


def live_servers(stored: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The relays and STUN servers (web/params.py: a link picks relays, never a STUN server)."""
    params = window.URLSearchParams.new(window.location.search)
    return chosen_servers(dom.py(params.get("relays")), dom.py(params.get("stun")), stored)


def live_nostr(stored: str | None) -> tuple[str, ...]:
    """The Nostr relays (web/params.py: the link's `?nostr=`, else this phone's settings, else the defaults)."""
    return chosen_nostr(dom.py(window.URLSearchParams.new(window.location.search).get("nostr")), stored)


def open_fragment(rt: Runtime) -> None:
    """A link with a shared fight, a player's character or the players' view: offered, never opened
    unasked (also when the link is opened on a page already running: only the part after # changed)."""
    fragment = str(window.location.hash or "")
    if fragment in rt.consumed:  # back on the entry under a closed sheet: that link was taken in already
        browser.clear_link()
        return
    if fragment.startswith("#fight="):
        rt.dispatch(ShareOffered(fragment[len("#fight="):], tuple(rt.ws.encounters), frozenset(rt.ws.locked)))
    elif fragment.startswith("#character="):
        rt.dispatch(CharacterOffered(fragment[len("#character="):]))
    elif fragment.startswith("#view="):
        rt.dispatch(ViewOpened(fragment[len("#view="):]))
    elif fragment.startswith("#join="):
        # A game master's offer read by the phone's own camera app: this phone answers it (the two-code join).
        rt.clear_link()
        rt.dispatch(CodeRead(fragment, "offer"))
    elif fragment.startswith("#live=") or fragment == "#display":
        # Kept in the address: a reload follows again.
        relays, stun = rt.servers
        name = str(rt.model.characters[0].get("name", "")) if rt.model.characters else ""
        rt.dispatch(LiveFollowed(fragment[len("#live="):] if fragment.startswith("#live=") else "display", relays, stun, name,
                                 device=rt.device(), nostr=rt.nostr))



def say_fixed_dice(seed: str) -> None:
    """`?seed=N` (the tests' and the bench's) makes every roll predictable: said in the header for
    as long as it is in the address, with the way back to random dice (a link someone sends can
    carry it; this page never adds it to a link of its own)."""
    button = document.createElement("button")
    button.type = "button"
    button.id = "fixed-dice"
    button.className = "fixed-dice"
    button.setAttribute("data-testid", "fixed-dice")
    button.textContent = "Fixed dice"
    button.title = f"Every roll on this page is fixed by the address (?seed={seed[:12]}), for testing. Tap for random dice."

    def random_dice(*_: Any) -> None:
        query = window.URLSearchParams.new(window.location.search)
        query.delete("seed")
        rest = str(query.toString())
        window.location.replace(f"{window.location.pathname}{'?' + rest if rest else ''}{window.location.hash}")

    button.addEventListener("click", dom.proxy(random_dice))
    menu = dom.el("menu-button")
    if menu is not None:
        menu.parentNode.insertBefore(button, menu)


def resume_live(rt: Runtime) -> None:
    """The game master's table stays live across a reload of their phone: the same room again."""
    stored = rt.stored_live() if rt.model.live.role == "off" else None
    if stored:
        room, secret, _ = stored
        relays, stun = rt.servers
        kept = rt.store.get(LIVE_TABLE_KEY) if rt.persistent else None
        rt.dispatch(LiveOpened(room, secret, relays, stun, shown=False, kept=kept or "", nostr=rt.nostr))


async def import_file(rt: Runtime, file: JsObject) -> None:
    """An export file, its size checked before it is read (a huge file is never loaded whole), then
    read an encounter a task (a file of many large fights does not freeze the page)."""
    size = int(dom.py(file.size) or 0)
    if size > MAX_IMPORT_BYTES:
        rt.refuse(f"Nothing was imported: the file is too large ({size / 1e6:,.1f} MB; an export is at most "
                  f"{MAX_IMPORT_BYTES / 1e6:,.0f} MB).")
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
            rt.toasts.show(f"Reading the file: {done} encounter{'s' * (done != 1)}…", "info", False, rt.model.ui.sheet is not None)
            await asyncio.sleep(0)
    except EngineError as error:
        rt.toasts.hide()
        rt.refuse(f"Nothing was imported: {error}")
        return
    rt.dispatch(FileImported(found, rt.persistence.new_id(), len(rt.ws.encounters)))


MAX_IMPORT_BYTES = 2 * MAX_DOCUMENT_CHARS  # an export's text at most, as UTF-8 (mostly one byte a character)


runtime: Runtime | None = None  # the page's, once started (the bench reads it)


def start() -> None:
    """Build the runtime from what is stored, draw the page, listen to it, say the engine is ready."""
    global runtime
    rk = window.RK
    prefix = str(rk.prefix)
    store, status = dom.open_store(prefix)
    seed_text = dom.py(window.URLSearchParams.new(window.location.search).get("seed"))
    seed, refused = read_seed(None if seed_text is None else str(seed_text))
    rng = random.Random(seed) if seed is not None else random.Random()
    display = str(window.location.hash or "") == "#display"
    if seed is not None and not display:  # (the display rolls nothing)
        say_fixed_dice(str(seed_text))
    try:
        # The table display (a second window of the game master's) reads nothing stored: not the
        # game master's fight, its hidden foes, nor anything else; it shows what the game master's
        # window sends it, and saves nothing (issue 36).
        rt = Runtime(MemoryStore(), "display", rng, prefix) if display else Runtime(store, status, rng, prefix)
    except Exception as error:  # noqa: BLE001 - whatever is stored, the engine starts
        rt = Runtime(MemoryStore(), "blocked", rng, prefix)
        rt.say(Notice("error", f"The saved data could not be loaded ({type(error).__name__}: {str(error)[:200]}). "
                               "It is left untouched; this page runs without saving. Reload to try again."))
    runtime = rt
    rt.page_only = display
    early = dom.py(getattr(rk, "early", None))
    if early is not None:  # static/early.mjs drew the players' view before the engine was ready: taken over
        early.stop()
        rt.early_view = bool(dom.py(early.shown))
        rt.early_taps = [(str(t[0]), str(t[1])) for t in (early.taps.to_py() or [])][-1:]
        if rt.early_view and display:
            # The display's view comes from the game master's window in a moment; if it does not, this
            # page draws what it has (its own line says how long since the last update).
            window.setTimeout(dom.proxy(rt.took_over), 3000)
    if refused:
        rt.say(Notice("warn", refused))
    journal = dom.py(getattr(rk, "journal", None))
    if journal is not None:
        journal.onError = dom.proxy(lambda name: rt.journal_failed(str(name)))
        journal.onConflict = dom.proxy(lambda key, rev: rt.journal_conflict(str(key), int(rev)))
        rt.journaled = bool(dom.py(getattr(journal, "ok", False)))
        aside = [str(k) for k in (dom.py(getattr(journal, "setAside", None)) or [])]
        if aside:
            rt.say(journal_set_aside(aside))
    guard = dom.py(getattr(rk, "nextTurnGuardMs", None))
    rt.model = replace(rt.model, next_turn_guard=NEXT_TURN_GUARD if guard is None else float(guard) / 1000)
    tracker = dom.el("tracker")
    if tracker is not None:  # (the table display's early view took the tracker out of its page: static/early.mjs)
        tracker.removeAttribute("inert")
    rt.render()
    if not display:
        rt.render_roller()
    window.performance.mark("rk:first-render")
    Listeners(rt).wire()
    for node in (dom.el("undo"), dom.el("redo"), dom.el("next-turn")):
        if node is not None:
            node.setAttribute("data-action", node.id)
    open_fragment(rt)
    resume_live(rt)
    rt.wake.want(rt.model.timeline.present.started or rt.model.live.following)
    rt.hints()
    rt.render_notices()
    asyncio.ensure_future(rt.check_storage_kept(ask=False))
    rt.ask_to_keep_storage()
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


def bench(name: JsObject, arg: JsObject = "") -> str:
    from . import bench as hooks  # only when the benchmark asks: keeps it off the start-up path

    assert runtime is not None
    return hooks.hook(runtime, str(name), str(arg))
