"""The workspace in a key-value store (web/app/storage/records.py's `Store`): encounters with their revisions, the
list of encounters, the collections merged with another tab's, backups of what does not load. Pure
Python: the browser's localStorage is web/page/dom.py's BrowserStore, the tests use a MemoryStore."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from pyengine.documents import Listed
from pyengine.errors import SchemaError
from pyengine.storage import (
    APP,
    SCHEMA_VERSION,
    dumps,
    encounter_from_dict,
    loads,
    migrate,
    timeline_from_dict,
    timeline_to_dict,
)
from pyengine.text import clean_text, quoted
from pyengine.tracker import Action, Timeline, new_encounter
from web.app.storage.records import (
    COLLECTIONS,
    EXPORT_HINT,
    INDEX,
    ROSTER,
    TEMPLATES,
    UNREADABLE,
    ChangedElsewhere,
    Collection,
    Notice,
    StorageFull,
    Store,
    Workspace,
    enc_key,
    index_entries,
    merge,
)

__all__ = ["BACKUP_PREFIX", "Persistence", "version_of"]

BACKUP_PREFIX = "backup:"  # a stored thing that did not load, kept under this prefix (static/journal.js's too)


def version_of(raw: str | None) -> tuple[int | None, str]:
    """A stored fight's revision (None: none, or unreadable) and version (its "vid"; "" when it has none)."""
    if raw is None:
        return None, ""
    try:
        doc = loads(raw, "saved data")
    except SchemaError:
        return None, ""
    if not isinstance(doc, dict):
        return None, ""
    rev, vid = doc.get("rev"), doc.get("vid")
    return (rev if isinstance(rev, int) else None), (vid if isinstance(vid, str) else "")


class Persistence:
    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.revs: dict[str, int] = {}
        self.vids: dict[str, str] = {}   # per fight: the version this tab last wrote or read (its "vid"; "" for none)
        self.seen: dict[str, str | None] = {}   # per collection key: the text last read or written
        self.base: dict[str, list[Any]] = {}         # per collection key: the items last read or written
        self.newer: dict[str, list[Any]] = {}        # per collection key: entries a newer version wrote (kept as they are)
        self.unreadable: set[str] = set()             # collection keys whose stored value did not load when last read

    # -- reading ---------------------------------------------------------------------------
    def backup(self, key: str, raw: str) -> str:
        """Copy a stored value aside (once: the same value of the same key is kept only once)."""
        for existing in self.store.keys():
            if existing.startswith(BACKUP_PREFIX) and existing.endswith(f":{key}") and self.store.get(existing) == raw:
                return existing
        name = f"{BACKUP_PREFIX}{int(self.clock() * 1000)}:{key}"
        try:
            self.store.set(name, raw)
        except StorageFull:
            return ""
        return name

    def set_aside(self, key: str, raw: str, notices: list[Notice], what: str, why: str = "") -> None:
        """Copy a stored value that does not load to a backup key, and say so."""
        where = self.backup(key, raw)
        kept = f"a copy was kept as {where}" if where else "there was no room to keep a copy"
        notices.append(Notice("error", f"The saved {what} could not be read{': ' + why if why else ''}. It was set aside "
                                       f"({kept}) and the app started without it. {EXPORT_HINT}", "export-all", "Export all"))

    # -- collections -------------------------------------------------------------------------
    def _parse_collection(self, spec: Collection, raw: str | None) -> tuple[list[Any], int]:
        """(the items that load, how many did not); raises SchemaError if the whole value does not."""
        if raw is None:
            return [], 0
        value = loads(raw, "saved data")
        if not isinstance(value, list):
            raise SchemaError("it is not a list")
        good, newer = [], []
        for item in value[: spec.limit * 2]:
            if spec.newer is not None and spec.newer(item):
                newer.append(item)
                continue
            try:
                good.append(spec.check(item))
            except UNREADABLE:
                continue
        self.newer[spec.key] = newer[:spec.limit]
        return good[: spec.limit], len(value) - len(good[: spec.limit]) - len(newer)

    def read_collection(self, key: str, notices: list[Notice]) -> list[Any]:
        spec = COLLECTIONS[key]
        raw = self.store.get(key)
        try:
            items, bad = self._parse_collection(spec, raw)
        except SchemaError as error:
            self.set_aside(key, raw or "", notices, spec.what, str(error))
            self.unreadable.add(key)
            items, bad = [], 0
        else:
            self.unreadable.discard(key)
            if bad:
                where = self.backup(key, raw or "")
                notices.append(Notice("warn", f"{bad} entr{'y' if bad == 1 else 'ies'} of the saved {spec.what} could not be "
                                              f"read and {'was' if bad == 1 else 'were'} set aside"
                                              f"{' (' + where + ')' if where else ''}. {EXPORT_HINT}", "export-all", "Export all"))
        kept = len(self.newer.get(key, []))
        if kept:
            notices.append(Notice("warn", f"{kept} of the saved {spec.what} {'was' if kept == 1 else 'were'} saved by a newer "
                                          "version of Roundkeeper (another tab, or another copy of the app): kept as "
                                          f"{'it is' if kept == 1 else 'they are'}, not shown here. Reload to update the app.",
                                  "reload", "Reload"))
        self.seen[key] = raw
        self.base[key] = list(items)
        return items

    def write_collection(self, key: str, items: list[Any]) -> list[Any]:
        """Store a collection; if another tab changed it since we read it, merge both changes first.
        Returns what was stored (the caller keeps that). Raises StorageFull or StorageUnavailable."""
        spec = COLLECTIONS[key]
        stored = self.store.get(key)
        if stored != self.seen.get(key):
            try:
                theirs, _ = self._parse_collection(spec, stored)
            except SchemaError:
                theirs = []
            items = merge(self.base.get(key, []), items, theirs, spec.identity)
        if spec.newest_first:
            items = sorted(items, key=lambda r: -r.get("at", 0))
        items = items[: spec.limit]
        text = dumps(items + self.newer.get(key, [])[: max(0, spec.limit - len(items))])  # a newer version's, kept
        self.store.set(key, text)
        self.seen[key] = text
        self.base[key] = list(items)
        return items

    def load_timeline(self, eid: str, notices: list[Notice], raw: str | None = None) -> tuple[Timeline | None, bool]:
        """(timeline or None, locked): locked means a newer app saved it and we must not write it.
        `raw`: the stored text to read (the journal's), instead of the store's."""
        key = enc_key(eid)
        raw = self.store.get(key) if raw is None else raw
        if raw is None:
            return None, False
        try:
            doc = loads(raw, "saved data")
        except SchemaError as error:
            where = self.backup(key, raw)
            notices.append(Notice("error", f"A saved encounter was damaged and could not be read ({error}). It was set aside "
                                           f"({where or 'no room for a copy'}). {EXPORT_HINT}", "export-all", "Export all"))
            return None, False
        if isinstance(doc, dict) and isinstance(doc.get("schema"), int) and doc.get("app") == APP and doc["schema"] > SCHEMA_VERSION:
            notices.append(Notice("warn", f"{quoted(str(doc.get('name') or doc.get('base', {}).get('name', 'An encounter'))[:60])} was saved by a newer version of Roundkeeper. It is left untouched: reload to update the app.", "reload", "Reload"))
            return None, True
        try:
            timeline = timeline_from_dict(doc)
            self.revs[eid] = int(doc.get("rev", 0)) if isinstance(doc.get("rev", 0), int) else 0
            self.vids[eid] = doc["vid"] if isinstance(doc.get("vid"), str) else ""
            return timeline, False
        except UNREADABLE as error:
            where = self.backup(key, raw)
            recovered = self._recover(doc)
            if recovered is None:
                notices.append(Notice("error", f"A saved encounter could not be read ({error}). It was set aside ({where}). "
                                               f"{EXPORT_HINT}", "export-all", "Export all"))
                return None, False
            lost = len(doc.get("actions", [])) - len(recovered.actions)
            notices.append(Notice("warn", f"A saved encounter was partly damaged ({error}). Recovered it with {len(recovered.actions)} steps of history ({lost} lost); the original was kept ({where})."))
            return recovered, False

    def _recover(self, doc: Any) -> Timeline | None:
        """The encounter and the longest prefix of its history that still replays."""
        try:
            doc = migrate(doc)
            base = encounter_from_dict(doc.get("base"))
        except UNREADABLE:
            return None
        timeline = Timeline.start(base)
        for a in doc.get("actions", []) if isinstance(doc.get("actions"), list) else []:
            try:
                if not isinstance(a, dict):
                    break
                timeline = timeline.do(Action(str(a.get("kind")), dict(a.get("args", {}))))
            except UNREADABLE:
                break
        return timeline

    def load_workspace(self) -> tuple[Workspace, list[Notice]]:
        notices: list[Notice] = []
        entries, current_id = self._read_index(notices)
        stored = [key[4:] for key in self.store.keys() if key.startswith("enc:")]
        missing = [e for e in entries if e["id"] not in stored]
        if missing:
            names = ", ".join(quoted(e['name'][:40]) for e in missing[:5]) + (" …" if len(missing) > 5 else "")
            notices.append(Notice("warn", f"The list of encounters named {len(missing)} that {'is' if len(missing) == 1 else 'are'} "
                                          f"not in storage ({names}); {'it was' if len(missing) == 1 else 'they were'} taken off "
                                          f"the list. Everything else that was saved is here."))
            entries = [e for e in entries if e["id"] in stored]
        listed = {e["id"] for e in entries}
        orphans = [eid for eid in stored if eid not in listed]
        for eid in orphans:
            entries.append({"id": eid, "name": self._stored_name(eid)})
        if orphans and self.store.get(INDEX) is not None:
            notices.append(Notice("info", f"Found {len(orphans)} saved encounter{'s' * (len(orphans) != 1)} missing from the list; "
                                          f"{'it is' if len(orphans) == 1 else 'they are'} back on it."))
        locked: set[str] = set()
        current: Timeline | None = None
        order = sorted(entries, key=lambda e: e["id"] != current_id)
        for entry in order:
            timeline, is_locked = self.load_timeline(entry["id"], notices)
            if is_locked:
                locked.add(entry["id"])
                continue
            if timeline is not None:
                current = timeline
                entry["name"] = timeline.present.name
                break
        if current is None:
            eid = self.new_id()
            current = Timeline.start(new_encounter(eid, "Encounter 1"))
            entries.append({"id": eid, "name": current.present.name})
        ws = Workspace(
            encounters=entries, current=current,
            roster=self.read_collection(ROSTER, notices),
            templates=self.read_collection(TEMPLATES, notices),
            locked=locked,
        )
        self.base[INDEX] = [dict(e) for e in entries]
        return ws, notices

    def _read_index(self, notices: list[Notice]) -> tuple[list[Listed], str | None]:
        """The stored list of encounters and the current id; one that does not load is set aside
        (the list is then rebuilt from the saved encounters)."""
        raw = self.store.get(INDEX)
        self.seen[INDEX] = raw
        if raw is None:
            return [], None
        try:
            return index_entries(raw)
        except SchemaError as error:
            self.set_aside(INDEX, raw, notices, "list of encounters", f"{error}; it was rebuilt from the saved encounters")
            return [], None

    def _merge_stored_index(self, ws: Workspace, stored: str | None) -> None:
        """Merge the list of encounters another tab stored into ours (by id)."""
        try:
            theirs = index_entries(stored)[0] if stored is not None else []
        except SchemaError:
            theirs = []
        ws.encounters = merge(self.base.get(INDEX, []), ws.encounters, theirs, lambda e: e["id"])

    def _stored_name(self, eid: str) -> str:
        try:
            doc = loads(self.store.get(enc_key(eid)) or "", "saved data")
            name = doc.get("name") or doc["base"]["name"]
            return clean_text(name[:100]) if isinstance(name, str) and name.strip() else eid
        except UNREADABLE:
            return eid

    def new_id(self) -> str:
        stamp = int(self.clock() * 1000)
        eid = f"e{stamp:x}"
        n = 0
        while self.store.get(enc_key(eid)) is not None:
            n += 1
            eid = f"e{stamp:x}-{n}"
        return eid

    # -- writing ---------------------------------------------------------------------------
    def stored_rev(self, eid: str) -> int | None:
        return self.stored_version(eid)[0]

    def stored_version(self, eid: str) -> tuple[int | None, str]:
        """The stored fight's revision and version (web/app/storage/workspace.version_of)."""
        return version_of(self.store.get(enc_key(eid)))

    def waiting(self, eid: str) -> bool:
        """The journal has not answered this tab's last write of the fight (or refused it, not merged yet)."""
        busy = getattr(self.store, "busy", None)
        return busy is not None and bool(busy(enc_key(eid)))

    def save_timeline(self, timeline: Timeline, ws: Workspace, made_from: str | None = None) -> None:
        """Write the encounter; raises StorageFull (nothing written), ChangedElsewhere (another tab
        saved it meanwhile) or SchemaError (saved by a newer version: never overwritten).

        Each write is a version of its own ("vid", beside its revision number), made from the version
        this tab last wrote or read, or `made_from` (a merge over another tab's version). The durable
        journal takes it only over that version (static/journal.js): another tab that stored its own
        at the same moment is found there, atomically, and this tab merges (web/app/storage/keeper). While the
        journal has not answered this tab's last write of the fight (`waiting`), a newer revision another
        tab left in localStorage is not merged here: which of the two came first is the journal's to say."""
        eid = timeline.present.id
        if eid in ws.locked:
            raise SchemaError("This encounter was saved by a newer version and is not overwritten.")
        stored = self.stored_rev(eid)
        known = self.revs.get(eid)
        if stored is not None and known is not None and stored > known and not self.waiting(eid):
            raise ChangedElsewhere("This fight was changed in another tab.")
        rev = max(known or 0, stored or 0) + 1
        vid = secrets.token_hex(6)
        doc = timeline_to_dict(timeline)
        doc["rev"] = rev
        doc["vid"] = vid
        doc["name"] = timeline.present.name
        self.store.set(enc_key(eid), dumps(doc))
        claim = getattr(self.store, "claim", None)
        if claim is not None:
            claim(enc_key(eid), vid, self.vids.get(eid, "") if made_from is None else made_from)
        self.revs[eid] = rev
        self.vids[eid] = vid
        self.save_index(ws)

    def save_index(self, ws: Workspace) -> None:
        """The list of encounters, merged with what another tab listed meanwhile (by id)."""
        stored = self.store.get(INDEX)
        if stored != self.seen.get(INDEX):
            self._merge_stored_index(ws, stored)
        doc = {"app": APP, "schema": SCHEMA_VERSION, "kind": "index", "current": ws.current.present.id,
               "encounters": ws.encounters}
        text = dumps(doc)
        if stored != text:  # most taps change the fight, not the list of fights
            self.store.set(INDEX, text)
        self.seen[INDEX] = text
        self.base[INDEX] = [dict(e) for e in ws.encounters]

    def delete_encounter(self, eid: str) -> str | None:
        raw = self.store.get(enc_key(eid))
        self.store.remove(enc_key(eid))
        self.revs.pop(eid, None)
        self.vids.pop(eid, None)
        return raw

    def restore_encounter(self, eid: str, raw: str) -> None:
        self.store.set(enc_key(eid), raw)

    def refresh_index(self, ws: Workspace) -> None:
        """Take in the list of encounters another tab stored (merged with ours, by id)."""
        stored = self.store.get(INDEX)
        if stored == self.seen.get(INDEX):
            return
        self._merge_stored_index(ws, stored)
        self.seen[INDEX] = stored
        if not any(e["id"] == ws.current.present.id for e in ws.encounters):
            ws.encounters.append({"id": ws.current.present.id, "name": ws.current.present.name})
        self.base[INDEX] = [dict(e) for e in ws.encounters]

    def backups(self) -> list[dict[str, Any]]:
        """Everything set aside, for Export all."""
        out = []
        for key in self.store.keys():
            if key.startswith(BACKUP_PREFIX):
                out.append({"key": key, "raw": self.store.get(key) or ""})
        return out
