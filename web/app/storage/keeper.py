"""What this page keeps in the browser's storage: the fights (each with the list of encounters), the
collections, the live table's room, the small marks. The runtime performs the storage effects here;
nothing here touches the page (the store is web/app/storage/records's `Store`: the browser's localStorage, or a
`MemoryStore` in the tests), so the whole chain (save, another tab's write, the merge, the journal's
race) runs in CPython with a given store.

What it learns that the page must show goes back as a message to `dispatch` (a notice, another
tab's fight, the collection as stored); it never holds the Model: each call is given the one it
acts on.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from typing import Any, assert_never

from pyengine.documents import Listed
from pyengine.errors import SchemaError
from pyengine.live import LiveError, read_room
from pyengine.tracker import Timeline
from web.app import effects as fx
from web.app.exchange import export_all, export_encounter, rebase_changes
from web.app.messages import CollectionChanged, CollectionStored, FightChangedElsewhere, FightShown, JournalAnswered, Message, Noticed
from web.app.model import Model
from web.app.storage.records import (
    CHARACTERS,
    COLLECTIONS,
    HINT_FIRST,
    HINT_HOME,
    INDEX,
    ROLLS,
    SAVED_ROLLS,
    SNAPSHOT,
    ChangedElsewhere,
    MemoryStore,
    Notice,
    StorageFull,
    StorageUnavailable,
    Store,
    Workspace,
)
from web.app.storage.workspace import Persistence, version_of
from web.app.update import COLLECTION_OF

__all__ = ["Keeper", "stored_time", "LAST_EXPORT_KEY", "describe_entry", "slug", "FULL", "LIVE_KEY", "LIVE_TABLE_KEY", "DEVICE_KEY", "SERVERS_KEY",
           "HINT_HOME", "HINT_FIRST", "valid_device"]

LAST_EXPORT_KEY = "last-export"  # when this device last made a backup (Export all), wall-clock seconds
LIVE_KEY = "live"  # the hosted live table's room, secret and signing key, while it is live
LIVE_TABLE_KEY = "live-table"  # its claims and waiting requests (web/app/live_status.live_table_text)
DEVICE_KEY = "live-device"  # this phone's lasting id at live tables
SERVERS_KEY = "live-servers"  # the Live table's connection settings
MAX_BASES = 50  # versions whose base is kept for a race the journal finds later
FULL = Notice("error", "Storage is full: this change is on screen but NOT saved; the last good save is kept. "
                       "Trim old undo history to make room?", "trim-history", "Trim history", (("export-all", "Export all"),))


def _ignore(_: Message) -> None:
    return None


class Keeper:
    """The stored fights and collections, and what this page last knew of them (the merge bases)."""

    def __init__(self, store: Store, status: str) -> None:
        """status: how the browser's storage answered at start: "ok", "full", "blocked" (or "display":
        the table display's page, which keeps nothing)."""
        self.store, self.persistent = store, status != "blocked"
        self.persistence = Persistence(store)
        self.dispatch: Callable[[Message], Any] = _ignore
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
        self.collections, self.notices = collections, tuple(notices)
        self.shared: Timeline | None = self.ws.current  # the fight as this tab last stored it or took it in
        self.base_of: dict[str, Timeline | None] = {}   # version stored (its vid) -> what it was made from
        self.journaled = False  # the durable journal (IndexedDB) answers: it decides same-moment races
        self.deferred: set[str] = set()  # fights another tab stored while the journal had not answered ours
        # The turn order's HTML for the start-up snapshot (the runtime gives its cached one).
        self.snapshot: Callable[[Timeline], str] = _tracker_html

    def first_model(self) -> Model:
        """The Model this page starts from: the fight on screen, the collections and what was said reading them."""
        return Model(self.ws.current, rolls=self.collections.get(ROLLS, ()), saved_rolls=self.collections.get(SAVED_ROLLS, ()),
                     characters=self.collections.get(CHARACTERS, ()), roster=tuple(self.ws.roster),
                     templates=tuple(self.ws.templates), notices=self.notices)

    def say(self, *notices: Notice) -> None:
        if notices:
            self.dispatch(Noticed(notices))

    # -- the fight on screen ------------------------------------------------------------------
    def perform(self, effect: fx.StorageEffect, model: Model) -> None:
        """Carry out one storage effect with the model that asked for it (web/page/runtime.perform hands
        each of these here, and so do the tests' tabs)."""
        match effect:
            case fx.SaveFight():
                self.save_fight(model, effect.made_from)
            case fx.StoreCollection():
                self.store_collection(model, effect.key)
            case fx.SwitchTo():
                if effect.replacing is not None:
                    self.replace_with(model, effect.timeline, effect.replacing)
                else:
                    self.switch_to(model, effect.timeline, dict(effect.origin))
            case fx.ForgetStored():
                self.forget(model, effect.ident, effect.fresh)
            case fx.LoadEncounter():
                self.load_encounter(model, effect.ident)
            case fx.TrimStored():
                self.trim_stored(model, effect.keep)
            case fx.PickUpStored():
                if effect.name == f"enc:{model.timeline.present.id}":
                    self.pick_up_other_tab(model)
                else:
                    self.pick_up_collection(model, effect.name)
            case fx.MergeRefused():
                self.journal_conflict(model, effect.name, effect.vid, effect.raw)
                # Answered after the merge's own message (FightChangedElsewhere, queued first): the
                # journal is settled on the fight as merged, never on the one before it.
                self.dispatch(JournalAnswered(effect.name))
            case fx.SettleJournal():
                self.journal_settled(model, effect.name)
            case _:
                assert_never(effect)

    def workspace(self, model: Model) -> Workspace:
        """The stored list of encounters with the model's fight, party and opponents in it."""
        self.ws.current, self.ws.roster, self.ws.templates = model.timeline, list(model.roster), list(model.templates)
        return self.ws

    def save_fight(self, model: Model, made_from: str | None = None) -> bool:
        """The fight on screen changed: its line in the list of encounters, then the save."""
        for entry in self.ws.encounters:
            if entry["id"] == model.timeline.present.id:
                describe_entry(entry, model.timeline)
        return self.save(model, made_from)

    def save(self, model: Model, made_from: str | None = None) -> bool:
        """Store the model's fight; False when it was not (said), True when it was (or this page
        keeps nothing: storage blocked, said at start). `made_from`: see Persistence.save_timeline."""
        if not self.persistent:
            return True
        before = self.shared
        try:
            self.persistence.save_timeline(model.timeline, self.workspace(model), made_from)
        except StorageFull:
            self.say(FULL)
            return False
        except ChangedElsewhere:
            self.merge_other_tab(model, model.timeline.present.id)
            return True
        except SchemaError as error:
            self.say(Notice("warn", str(error)))
            return False
        except StorageUnavailable:
            self.say(Notice("error", "The browser stopped letting Roundkeeper save. Export the fight to keep it."))
            return False
        vid = self.persistence.vids.get(model.timeline.present.id)
        if vid:
            # What this save was made from: a race lost in the journal is merged from there (merge_other_tab).
            self.base_of[vid] = before
            while len(self.base_of) > MAX_BASES:
                del self.base_of[next(iter(self.base_of))]
        self.shared = model.timeline
        self.keep(SNAPSHOT, self.snapshot(model.timeline))  # only a faster start: the fight itself is saved
        return True

    def pick_up_other_tab(self, model: Model, conflict: bool = False) -> None:
        """Another tab stored the fight on screen (a storage event): its version is shown. While the
        journal has not answered this tab's own write of it, nothing is taken in (it is looked at
        again when the journal has answered, `journal_settled`): the fight on screen must stay what
        this tab's last write was made from plus this tab's own changes, or a race the journal then
        finds would do the other tab's changes again on their own version and lose ours."""
        eid = model.timeline.present.id
        if self.journaled and self.persistence.waiting(eid):
            self.deferred.add(eid)
            return
        self.deferred.discard(eid)
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

    def journal_settled(self, model: Model, name: str) -> None:
        """The journal answered every write of `name` (a key without the site's prefix) this tab made:
        another tab's version that came meanwhile is looked at now."""
        eid = name[len("enc:"):] if name.startswith("enc:") else ""
        if eid in self.deferred and not self.persistence.waiting(eid):
            self.deferred.discard(eid)
            if eid == model.timeline.present.id:
                self.pick_up_other_tab(model)

    def merge_other_tab(self, model: Model, eid: str, base: Timeline | None = None, theirs_raw: str | None = None) -> None:
        """Another tab stored this fight at the same moment as this one: our change since `base` (else
        what this tab last stored or took in) is done again on theirs, saved, and said (no tap lost)."""
        if eid != model.timeline.present.id:
            return
        if theirs_raw is not None and self.behind_journal(eid, theirs_raw):
            self.restore(f"enc:{eid}", theirs_raw)
        ours_rev = self.persistence.revs.pop(eid, 0)
        theirs, _ = self.load(eid, theirs_raw)
        if theirs is None:
            return
        their_rev = self.persistence.revs.get(eid, 0)
        merged, said = rebase_changes(base if base is not None else self.shared, model.timeline, theirs)
        self.shared = theirs
        if merged is theirs:
            self.dispatch(FightChangedElsewhere(merged, "not" in said, said))
            return
        # Numbered past every revision this tab wrote meanwhile (the other tab may have taken one of
        # those in: it takes this one too), made from theirs (what the journal holds): the message's
        # update saves it (SaveFight(made_from)).
        self.persistence.revs[eid] = max(their_rev, ours_rev)
        self.dispatch(FightChangedElsewhere(merged, False, said, made_from=self.persistence.vids.get(eid, "")))

    def behind_journal(self, eid: str, raw: str) -> bool:
        """localStorage's copy of the fight is not newer than the journal's `raw`: it is this tab's own
        (refused) write, or older, or none. Another tab's newer write is left there: the journal has
        not answered it yet, and this tab takes it in once it has (journal_settled)."""
        here, vid = self.persistence.stored_version(eid)
        theirs = version_of(raw)[0]
        return here is None or vid in self.base_of or theirs is None or here <= theirs

    def journal_conflict(self, model: Model, name: str, vid: str, raw: str) -> None:
        """The journal refused this tab's version `vid` of `name` (a key without the site's prefix):
        another tab stored its own first; `raw`: the version the journal holds."""
        if not name.startswith("enc:"):
            return
        eid = name[len("enc:"):]
        if eid == model.timeline.present.id:
            self.merge_other_tab(model, eid, self.base_of.get(vid), raw)
        else:
            # A fight not on screen (saved as this tab left it): the other tab's version stands, here too.
            self.restore(name, raw)
            self.persistence.revs.pop(eid, None)
            self.persistence.vids.pop(eid, None)

    def restore(self, key: str, raw: str) -> None:
        getattr(self.store, "restore", self.store.set)(key, raw)

    # -- the collections ------------------------------------------------------------------------
    def store_collection(self, model: Model, key: str) -> None:
        """Store one collection of the model (merged with another tab's); what was stored is the model's."""
        if not self.persistent:
            return
        try:
            stored = self.persistence.write_collection(key, list(getattr(model, COLLECTION_OF[key])))
        except StorageFull:
            self.say(Notice("error", f"Storage is full: the {COLLECTIONS[key].what} could not be saved. "
                                     "Trim history or export to make room.", "trim-history", "Trim history", (("export-all", "Export all"),)))
            return
        except StorageUnavailable:
            self.say(Notice("error", f"The browser stopped letting Roundkeeper save (storage was blocked): the "
                                     f"{COLLECTIONS[key].what} could not be saved. Export all keeps a copy.", "export-all", "Export all"))
            return
        self.dispatch(CollectionStored(key, tuple(stored)))

    def pick_up_collection(self, model: Model, key: str) -> None:
        """Another tab stored a collection (or the list of encounters): its version is shown."""
        if key == INDEX:
            self.persistence.refresh_index(self.workspace(model))
            self.dispatch(CollectionChanged(key, ()))
            return
        notices: list[Notice] = []
        items = tuple(self.persistence.read_collection(key, notices))
        if key in self.persistence.unreadable:
            # Another tab's write that does not load (set aside above): this tab's own list stands and is stored again.
            items = getattr(model, COLLECTION_OF[key])
            notices = [Notice("error", f"Another tab's copy of the {COLLECTIONS[key].what} could not be read (a copy was set "
                                       "aside): this tab's version was stored again.", "export-all", "Export all")]
            self.store_collection(model, key)
        self.say(*notices)  # another tab's damaged or newer entries: said, not dropped silently
        self.dispatch(CollectionChanged(key, items))

    # -- encounters -----------------------------------------------------------------------------
    def load(self, eid: str, raw: str | None = None) -> tuple[Timeline | None, bool]:
        """A stored fight (None when it cannot be read; `locked`: a newer version's); what went wrong is
        said. `raw`: the fight as the journal holds it, instead of localStorage's."""
        notices: list[Notice] = []
        found = self.persistence.load_timeline(eid, notices, raw)
        self.say(*notices)
        return found

    def switch_to(self, model: Model, timeline: Timeline, origin: dict[str, str] | None = None) -> None:
        """Show this fight: the one left is stored (a fresh one never saved yet too), the new one listed
        (FightShown's update shows it and asks for its save)."""
        outgoing = model.timeline.present.id
        listed = any(e["id"] == outgoing for e in self.ws.encounters)
        if self.persistent and listed and outgoing not in self.ws.locked and self.persistence.stored_rev(outgoing) is None:
            self.save(model)
        self.shared = timeline
        if not any(e["id"] == timeline.present.id for e in self.ws.encounters):
            entry = describe_entry({"id": timeline.present.id, "name": timeline.present.name}, timeline)
            if origin and "from" in origin:
                entry["from"] = origin["from"]
            if origin and "source" in origin:
                entry["source"] = origin["source"]
            self.ws.encounters.append(entry)
        self.dispatch(FightShown(timeline))

    def replace_with(self, model: Model, timeline: Timeline, replacing: str) -> None:
        """Over an earlier encounter: its list entry brought up to date, its stored revision forgotten."""
        self.persistence.revs.pop(replacing, None)
        self.persistence.vids.pop(replacing, None)
        for entry in self.ws.encounters:
            if entry["id"] == replacing:
                describe_entry(entry, timeline)
        self.switch_to(model, timeline)

    def load_encounter(self, model: Model, eid: str) -> None:
        timeline, locked = self.load(eid)
        if timeline is None:
            if locked:
                self.ws.locked.add(eid)
            return
        self.switch_to(model, timeline)

    def forget(self, model: Model, eid: str, fresh: Timeline) -> None:
        """Out of storage and the list; then the first encounter left, else `fresh`."""
        self.persistence.delete_encounter(eid)
        self.ws.encounters = [e for e in self.ws.encounters if e["id"] != eid]
        first = next((e for e in self.ws.encounters if e["id"] not in self.ws.locked), None)
        timeline = self.load(first["id"])[0] if first is not None else None
        self.switch_to(model, timeline if timeline is not None else fresh)

    def store_imported(self, model: Model, timeline: Timeline) -> bool:
        """An imported fight stored and listed as from a file; False (and not listed) when storage
        refused it (a refusal of the browser's said)."""
        entry = describe_entry({"id": timeline.present.id, "name": timeline.present.name, "from": "file"}, timeline)
        self.ws.encounters.append(entry)
        try:
            if self.persistent:
                self.persistence.save_timeline(timeline, self.workspace(model))
        except (StorageFull, StorageUnavailable, SchemaError) as error:
            self.ws.encounters.remove(entry)
            if isinstance(error, StorageUnavailable):
                self.say(Notice("error", "The browser stopped letting Roundkeeper save: the rest of the file was not stored."))
            return False
        return True

    def trim_stored(self, model: Model, keep: int) -> None:
        """Every stored fight but the one on screen keeps its last `keep` undo steps."""
        current = model.timeline.present.id
        for entry in self.ws.encounters:
            if entry["id"] == current or entry["id"] in self.ws.locked:
                continue
            timeline, _ = self.persistence.load_timeline(entry["id"], [])
            if timeline is not None and len(timeline.actions) > keep:
                try:
                    self.persistence.save_timeline(timeline.trimmed(keep), self.workspace(model))
                except (StorageFull, StorageUnavailable, SchemaError):
                    pass

    def export(self, model: Model, what: str) -> tuple[str, str]:
        """(file name, text) of an export: "all", or the fight on screen."""
        if what == "all":
            return "roundkeeper-all.json", export_all(self.workspace(model), self.persistence)
        return f"roundkeeper-{slug(model.timeline.present.name)}.json", export_encounter(model.timeline)

    # -- small things kept -----------------------------------------------------------------------
    def get(self, key: str) -> str | None:
        return self.store.get(key) if self.persistent else None

    def keep(self, key: str, text: str) -> bool:
        """Stored, or not (full, blocked): kept for this page only, as the caller says."""
        if not self.persistent:
            return False
        try:
            self.store.set(key, text)
        except (StorageFull, StorageUnavailable):
            return False
        return True

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

    def storage_state(self, model: Model) -> str:
        if not self.persistent:
            return "blocked"
        if any("trim-history" in dict(n.buttons()) for n in model.notices):
            return "full"
        return {True: "kept", False: "may-clear", None: "unknown"}[model.storage_kept]

    def device(self) -> str:
        """This phone's lasting id at live tables: what the game master let it play is kept under it."""
        known = self.get(DEVICE_KEY)
        if known is not None and valid_device(known):
            return known
        made = secrets.token_urlsafe(12)
        self.keep(DEVICE_KEY, made)
        return made

    def stored_live(self) -> tuple[str, str, str] | None:
        """The hosted room kept for a reload: (room, secret, signing key as JWK text)."""
        raw = self.get(LIVE_KEY)
        try:
            doc = json.loads(raw) if raw and len(raw) < 2000 else None
            if isinstance(doc, dict) and all(isinstance(doc.get(k), str) for k in ("room", "secret", "key")):
                read_room(f"{doc['room']}.{doc['secret']}", with_key=False)
                return doc["room"], doc["secret"], doc["key"]
        except (ValueError, LiveError):
            pass
        return None

    def keep_live(self, kept: tuple[str, str, str] | None) -> None:
        """The hosted room (with its key) kept for a reload; None: the table is no longer live."""
        try:
            if kept is None:
                self.store.remove(LIVE_KEY)
                self.store.remove(LIVE_TABLE_KEY)
            else:
                self.store.set(LIVE_KEY, json.dumps({"room": kept[0], "secret": kept[1], "key": kept[2]}))
        except (StorageFull, StorageUnavailable):
            pass  # the table stays live until this page closes

    def keep_servers(self, relays: tuple[str, ...], stun: tuple[str, ...], nostr: tuple[str, ...]) -> None:
        self.keep(SERVERS_KEY, json.dumps({"relays": list(relays), "stun": list(stun), "nostr": list(nostr)}))


def valid_device(known: str) -> bool:
    """A lasting id this page could have made (8–40 URL-safe characters): anything else is made anew."""
    return 8 <= len(known) <= 40 and known.replace("-", "").replace("_", "").isalnum() and known.isascii()


def _tracker_html(timeline: Timeline) -> str:
    from web.app.render import tracker_html

    return tracker_html(timeline)


def describe_entry(entry: Listed, timeline: Timeline, now: float | None = None) -> Listed:
    """Bring a list entry up to date with its fight: name, system, round, last played. The time
    is kept to the minute, so most taps leave the stored list of encounters as it was."""
    enc = timeline.present
    at = time.time() if now is None else now
    entry.update({"name": enc.name, "system": enc.system, "round": enc.round, "at": int(at // 60) * 60_000})
    return entry


def slug(name: str) -> str:
    """A fight's name as a file name's part.

    >>> slug("The Goblins' Cave! (2)")
    'the-goblins--cave---2'
    >>> slug("   ")
    'encounter'
    """
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")[:40] or "encounter"


def stored_time(text: str | None) -> float | None:
    """A kept wall-clock time (LAST_EXPORT_KEY): None for never, or for what cannot be one."""
    try:
        value = float(text) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and 0 < value < 1e11 else None
