"""Saving and loading the workspace (encounters, roster, saved opponents, rolls) through a small
key-value store, so that a fight is never lost.

Pure Python (no js import): the browser store lives in web/dom.py, tests use MemoryStore.
- A save that cannot be read is copied to a backup key (nothing is deleted) and what can be
  recovered (the encounter and the longest part of its history that replays) is loaded.
- A save from a newer app is never overwritten.
- A full store (quota) leaves the last good save as it was; the app asks before trimming history.
- Every encounter save carries a revision; a newer revision from another tab is loaded, not
  overwritten. Every other stored collection (the list of encounters, saved rolls, roll history,
  roster, saved opponents) is read, merged with what another tab wrote meanwhile, and written.
- Whatever a stored key holds, loading never fails: a key that does not load (too deep, not JSON,
  wrong shape, does not replay) is copied to a backup key, and the user is told what was set aside.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from pyengine.characters import CHARACTER_VERSION, MAX_CHARACTERS, character_from_dict, character_to_dict
from pyengine.errors import EngineError, SchemaError
from pyengine.record import Record
from pyengine.storage import (
    APP,
    SCHEMA_VERSION,
    dumps,
    encounter_from_dict,
    encounter_to_dict,
    loads,
    migrate,
    pack,
    timeline_from_dict,
    timeline_to_dict,
    unpack,
)
from pyengine.text import clean_text, quoted
from pyengine.tools import new_tool, tool_spec
from pyengine.tracker import Action, Encounter, Timeline, new_encounter, validated_fields

__all__ = [
    "StorageFull",
    "StorageUnavailable",
    "ChangedElsewhere",
    "Store",
    "MemoryStore",
    "Notice",
    "Workspace",
    "Persistence",
    "Collection",
    "COLLECTIONS",
    "CHARACTERS",
    "import_characters",
    "Imported",
    "read_import",
    "reading_import",
    "merge",
    "entry_details",
]

INDEX = "index"
ROSTER = "roster"
TEMPLATES = "templates"
ROLLS = "rolls"
SAVED_ROLLS = "saved_rolls"
CHARACTERS = "characters"
SNAPSHOT = "snapshot"
MAX_ROLL_HISTORY = 100
# What goes wrong with stored data that is not ours to trust: none of it may stop the app starting.
UNREADABLE = (EngineError, ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError,
              StopIteration, OverflowError)
EXPORT_HINT = "Menu → Export all saves everything to a file, the set-aside copy included."


class StorageFull(Exception):
    """The store refused a write for lack of space."""


class StorageUnavailable(Exception):
    """The store cannot be used at all (blocked, private mode)."""


class ChangedElsewhere(SchemaError):
    """Another tab saved this fight since this tab read it: this tab's change is not written."""


class Store(Protocol):
    def get(self, key: str) -> str | None: ...
    def set(self, key: str, value: str) -> None: ...
    def remove(self, key: str) -> None: ...
    def keys(self) -> list[str]: ...


class MemoryStore:
    """An in-memory store (tests, and the fallback when the browser refuses storage)."""

    def __init__(self, data: dict[str, str] | None = None, quota: int | None = None) -> None:
        self.data = dict(data or {})
        self.quota = quota

    def get(self, key: str) -> str | None:
        return self.data.get(key)

    def set(self, key: str, value: str) -> None:
        if self.quota is not None:
            used = sum(len(k) + len(v) for k, v in self.data.items() if k != key)
            if used + len(key) + len(value) > self.quota:
                raise StorageFull(key)
        self.data[key] = value

    def remove(self, key: str) -> None:
        self.data.pop(key, None)

    def keys(self) -> list[str]:
        return list(self.data)


@dataclass(frozen=True)
class Notice:
    """A message for the user; `action` names a button the UI offers with it."""

    level: str
    text: str
    action: str | None = None
    action_label: str | None = None
    more: tuple[tuple[str, str], ...] = ()  # further (action, label) buttons
    # A notice about a step of one fight ("Dax joined the fight") is shown with that fight only, and
    # while the step is done (undo it and the notice goes): the fight, the step's position, the step.
    encounter: str | None = None
    step: int = 0
    cause: Any = None

    def about(self, timeline: Any) -> Notice:
        """This notice, tied to the last step of `timeline`."""
        return replace(self, encounter=timeline.present.id, step=timeline.cursor,
                       cause=timeline.actions[timeline.cursor - 1] if timeline.cursor else None)

    def shown_with(self, timeline: Any) -> bool:
        """Whether it belongs on screen beside `timeline` (always, when it is about no fight)."""
        if self.encounter is None:
            return True
        return bool(self.encounter == timeline.present.id and 0 < self.step <= timeline.cursor
                    and timeline.actions[self.step - 1] == self.cause)

    def buttons(self) -> list[tuple[str, str]]:
        first = [(self.action, self.action_label or self.action)] if self.action else []
        return first + list(self.more)


@dataclass
class Workspace:
    encounters: list[dict[str, Any]]            # [{"id", "name"}] in the user's order
    current: Timeline
    roster: list[dict[str, Any]] = field(default_factory=list)
    templates: list[dict[str, Any]] = field(default_factory=list)
    locked: set[str] = field(default_factory=set)  # ids saved by a newer app: never written


def _enc_key(eid: str) -> str:
    return f"enc:{eid}"


ORIGINS = ("link", "file")


def entry_details(e: dict[str, Any]) -> dict[str, Any]:
    """What the list of encounters shows beside a name, checked: system, round, when last played
    (ms), where it came from (a shared link or a file) and the shared fight's own id."""
    out: dict[str, Any] = {}
    if isinstance(e.get("system"), str) and len(e["system"]) <= 40:
        out["system"] = e["system"]
    for key, limit in (("round", 10**6), ("at", 10**15)):
        if isinstance(e.get(key), int) and not isinstance(e.get(key), bool) and 0 <= e[key] <= limit:
            out[key] = e[key]
    if e.get("from") in ORIGINS:
        out["from"] = e["from"]
    if isinstance(e.get("source"), str) and len(e["source"]) <= 40:
        out["source"] = e["source"]
    return out


def _index_entries(raw: str) -> tuple[list[dict[str, Any]], str | None]:
    """A stored list of encounters: its entries (checked; odd ones dropped) and the current id.
    Raises SchemaError if it does not load as one."""
    index = loads(raw, "saved data")
    if not (isinstance(index, dict) and isinstance(index.get("encounters"), list)):
        raise SchemaError("it is not a list of encounters")
    entries: list[dict[str, Any]] = []
    ids: set[str] = set()
    for e in index["encounters"][:1000]:
        if isinstance(e, dict) and isinstance(e.get("id"), str) and 0 < len(e["id"]) <= 40 and e["id"] not in ids:
            ids.add(e["id"])
            name = e.get("name")
            entries.append({"id": e["id"], "name": clean_text(name[:100]) if isinstance(name, str) else e["id"],
                            **entry_details(e)})
    current = index.get("current")
    return entries, current if isinstance(current, str) else None


def _text(value: Any, limit: int) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise SchemaError("unreadable text")
    return value


def _roll_entry(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict) or isinstance(item.get("total"), bool) or not isinstance(item.get("total"), int):
        raise SchemaError("unreadable roll")
    at = item.get("at", 0)
    entry = {"expr": clean_text(_text(item.get("expr"), 1000)), "total": item["total"], "text": clean_text(_text(item.get("text"), 50_000)),
             "at": at if isinstance(at, int) and not isinstance(at, bool) else 0}
    label = item.get("label")
    if isinstance(label, str) and label:  # a character's attack: who, with what, at what
        entry["label"] = clean_text(label)[:200]
    for key in ("crits", "fumbles"):  # how many kept dice counted as critical / fumbles (cs, cf, or a d20's 20 / 1)
        count = item.get(key, 0)
        if isinstance(count, int) and not isinstance(count, bool) and 0 < count <= 10_000:
            entry[key] = count
    return entry


def _saved_roll(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise SchemaError("unreadable saved roll")
    return {"name": clean_text(_text(item.get("name"), 60)) or "Roll", "expr": clean_text(_text(item.get("expr"), 1000))}


def _character(item: Any) -> dict[str, Any]:
    """A stored character, checked (and brought up to the current format): see pyengine.characters."""
    return character_to_dict(character_from_dict(item))


def _person(item: Any) -> dict[str, Any]:
    """A saved party member or opponent, checked as typed fields; its turn tools as tools."""
    if not isinstance(item, dict):
        raise SchemaError("unreadable entry")
    person = validated_fields({k: v for k, v in item.items() if k != "count"})
    if "tools" in person:
        person["tools"] = [tool_spec(new_tool("t0", spec)) for spec in person["tools"]]
    return person


@dataclass(frozen=True)
class Collection:
    """A stored list: how to check one item, what makes two items the same, its size and order."""

    key: str
    what: str
    check: Callable[[Any], dict[str, Any]]
    identity: Callable[[dict[str, Any]], Any]
    limit: int
    newest_first: bool = False  # ordered by "at", newest first (the roll history)
    newer: Callable[[Any], bool] | None = None  # an entry a newer version wrote: kept as it is through our writes


def _newer_character(item: Any) -> bool:
    version = item.get("v") if isinstance(item, dict) else None
    return isinstance(version, int) and not isinstance(version, bool) and version > CHARACTER_VERSION


COLLECTIONS = {
    ROLLS: Collection(ROLLS, "roll history", _roll_entry, lambda r: (r["at"], r["expr"], r["total"], r["text"]),
                      MAX_ROLL_HISTORY, newest_first=True),
    SAVED_ROLLS: Collection(SAVED_ROLLS, "saved rolls", _saved_roll, lambda r: r["name"], 200),
    ROSTER: Collection(ROSTER, "party roster", _person, lambda p: p.get("name"), 500),
    TEMPLATES: Collection(TEMPLATES, "saved opponents", _person, lambda p: p.get("name"), 500),
    CHARACTERS: Collection(CHARACTERS, "characters", _character, lambda c: c["id"], MAX_CHARACTERS, newer=_newer_character),
}


def merge(base: list[Any], ours: list[Any], theirs: list[Any], identity: Callable[[Any], Any]) -> list[Any]:
    """Three-way merge of a list: what another tab stored (`theirs`), with what this tab added,
    changed and removed since it last read `base`. Nothing either side did is lost."""
    base_items = {identity(x): x for x in base}
    our_items = {identity(x): x for x in ours}
    removed = base_items.keys() - our_items.keys()
    changed = {k: x for k, x in our_items.items() if k in base_items and base_items[k] != x}
    out = [changed.get(identity(x), x) for x in theirs if identity(x) not in removed]
    present = {identity(x) for x in out}
    out += [x for k, x in our_items.items() if k not in base_items and k not in present]
    return out


class Persistence:
    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.revs: dict[str, int] = {}
        self.seen: dict[str, str | None] = {}   # per collection key: the text last read or written
        self.base: dict[str, list[Any]] = {}         # per collection key: the items last read or written
        self.newer: dict[str, list[Any]] = {}        # per collection key: entries a newer version wrote (kept as they are)
        self.unreadable: set[str] = set()             # collection keys whose stored value did not load when last read

    # -- reading ---------------------------------------------------------------------------
    def backup(self, key: str, raw: str) -> str:
        """Copy a stored value aside (once: the same value of the same key is kept only once)."""
        for existing in self.store.keys():
            if existing.startswith("backup:") and existing.endswith(f":{key}") and self.store.get(existing) == raw:
                return existing
        name = f"backup:{int(self.clock() * 1000)}:{key}"
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

    def load_timeline(self, eid: str, notices: list[Notice]) -> tuple[Timeline | None, bool]:
        """(timeline or None, locked): locked means a newer app saved it and we must not write it."""
        key = _enc_key(eid)
        raw = self.store.get(key)
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

    def _read_index(self, notices: list[Notice]) -> tuple[list[dict[str, Any]], str | None]:
        """The stored list of encounters and the current id; one that does not load is set aside
        (the list is then rebuilt from the saved encounters)."""
        raw = self.store.get(INDEX)
        self.seen[INDEX] = raw
        if raw is None:
            return [], None
        try:
            return _index_entries(raw)
        except SchemaError as error:
            self.set_aside(INDEX, raw, notices, "list of encounters", f"{error}; it was rebuilt from the saved encounters")
            return [], None

    def _merge_stored_index(self, ws: Workspace, stored: str | None) -> None:
        """Merge the list of encounters another tab stored into ours (by id)."""
        try:
            theirs = _index_entries(stored)[0] if stored is not None else []
        except SchemaError:
            theirs = []
        ws.encounters = merge(self.base.get(INDEX, []), ws.encounters, theirs, lambda e: e["id"])

    def _stored_name(self, eid: str) -> str:
        try:
            doc = loads(self.store.get(_enc_key(eid)) or "", "saved data")
            name = doc.get("name") or doc["base"]["name"]
            return clean_text(name[:100]) if isinstance(name, str) and name.strip() else eid
        except UNREADABLE:
            return eid

    def new_id(self) -> str:
        stamp = int(self.clock() * 1000)
        eid = f"e{stamp:x}"
        n = 0
        while self.store.get(_enc_key(eid)) is not None:
            n += 1
            eid = f"e{stamp:x}-{n}"
        return eid

    # -- writing ---------------------------------------------------------------------------
    def stored_rev(self, eid: str) -> int | None:
        raw = self.store.get(_enc_key(eid))
        if raw is None:
            return None
        try:
            doc = loads(raw, "saved data")
        except SchemaError:
            return None
        return doc.get("rev") if isinstance(doc, dict) and isinstance(doc.get("rev"), int) else None

    def save_timeline(self, timeline: Timeline, ws: Workspace, made_from: int | None = None) -> None:
        """Write the encounter; raises StorageFull (nothing written), ChangedElsewhere (another tab
        saved it meanwhile) or SchemaError (saved by a newer version: never overwritten).
        `made_from`: the revision this write is made from, when not the one before it (a merge over
        another tab's version, numbered past every revision this tab wrote meanwhile)."""
        eid = timeline.present.id
        if eid in ws.locked:
            raise SchemaError("This encounter was saved by a newer version and is not overwritten.")
        stored = self.stored_rev(eid)
        known = self.revs.get(eid)
        if stored is not None and known is not None and stored > known:
            raise ChangedElsewhere("This fight was changed in another tab.")
        rev = (known or stored or 0) + 1
        doc = timeline_to_dict(timeline)
        doc["rev"] = rev
        doc["name"] = timeline.present.name
        self.store.set(_enc_key(eid), dumps(doc))
        claim = getattr(self.store, "claim", None)
        if claim is not None:
            # The durable journal takes this write only over the version it was made from (static/journal.js):
            # another tab that stored its own at the same moment is found there, atomically.
            claim(_enc_key(eid), rev, rev - 1 if made_from is None else made_from)
        self.revs[eid] = rev
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
        raw = self.store.get(_enc_key(eid))
        self.store.remove(_enc_key(eid))
        self.revs.pop(eid, None)
        return raw

    def restore_encounter(self, eid: str, raw: str) -> None:
        self.store.set(_enc_key(eid), raw)

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
            if key.startswith("backup:"):
                out.append({"key": key, "raw": self.store.get(key) or ""})
        return out


# -- export / import / share ---------------------------------------------------------------

def export_encounter(timeline: Timeline) -> str:
    return json.dumps(timeline_to_dict(timeline), indent=1, ensure_ascii=False)


def export_all(ws: Workspace, persistence: Persistence) -> str:
    encounters = []
    for entry in ws.encounters:
        if entry["id"] == ws.current.present.id:
            encounters.append(timeline_to_dict(ws.current))
            continue
        timeline, _ = persistence.load_timeline(entry["id"], [])
        if timeline is not None:
            encounters.append(timeline_to_dict(timeline))
    doc = {"app": APP, "schema": SCHEMA_VERSION, "kind": "workspace", "encounters": encounters,
           "roster": ws.roster, "templates": ws.templates}
    try:
        characters, _ = persistence._parse_collection(COLLECTIONS[CHARACTERS], persistence.store.get(CHARACTERS))
    except SchemaError:
        characters = []  # a damaged list was set aside when read: the set-aside copy goes below
    if characters:
        doc["characters"] = characters
    set_aside = persistence.backups()
    if set_aside:
        doc["set_aside"] = set_aside  # kept as it was stored, for whoever can repair it; not imported
    return json.dumps(doc, indent=1, ensure_ascii=False)


class Imported(Record):
    """Everything an export file brings, fully checked."""

    timelines: tuple[Timeline, ...]
    roster: tuple[dict[str, Any], ...]
    templates: tuple[dict[str, Any], ...]
    characters: tuple[dict[str, Any], ...]


def reading_import(text: str) -> Generator[int, None, Imported]:
    """Read an export file a step at a time: yields after each encounter replayed (the count so
    far; the page answers taps between steps), returns what the file holds. Raises SchemaError or
    RuleError, having changed nothing."""
    doc = migrate(loads(text, "file"))
    kind = doc.get("kind")
    if kind == "encounter":
        return Imported((timeline_from_dict(doc),), (), (), ())
    if kind != "workspace":
        raise SchemaError("This Roundkeeper file holds nothing to import.")
    encounters = doc.get("encounters")
    if not isinstance(encounters, list) or len(encounters) > 200:
        raise SchemaError("The file's list of encounters is unreadable.")
    roster = _people(doc.get("roster", []), "party roster")
    templates = _people(doc.get("templates", []), "saved opponents")
    items = doc.get("characters", [])
    if not isinstance(items, list) or len(items) > MAX_CHARACTERS:
        raise SchemaError("The file's characters are unreadable.")
    characters = tuple(_character(item) for item in items)
    timelines = []
    for encounter in encounters:
        timelines.append(timeline_from_dict(encounter))
        yield len(timelines)
    return Imported(tuple(timelines), tuple(roster), tuple(templates), characters)


def read_import(text: str) -> Imported:
    """An export file read at once (see reading_import)."""
    steps = reading_import(text)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            found: Imported = done.value
            return found


def parse_import(text: str) -> tuple[list[Timeline], list[dict[str, Any]], list[dict[str, Any]]]:
    """Everything in an exported file, fully checked; raises SchemaError and changes nothing."""
    found = read_import(text)
    return list(found.timelines), list(found.roster), list(found.templates)


def import_characters(text: str) -> list[dict[str, Any]]:
    """The characters in an exported file (none in a single fight's file), fully checked; raises
    SchemaError or RuleError and changes nothing."""
    return list(read_import(text).characters)


def _people(items: Any, what: str) -> list[dict[str, Any]]:
    if not isinstance(items, list) or len(items) > 500:
        raise SchemaError(f"The file's {what} is unreadable.")
    out = []
    for item in items:
        try:
            out.append(_person(item))
        except EngineError as error:
            raise SchemaError(f"{what}: {error}") from None
    return out


def rebase(timeline: Timeline, new_id: str, name: str | None = None) -> Timeline:
    """A copy of a fight (history included) under a fresh id. Without a new name nothing is
    replayed (an action never reads the encounter's id): each kept state takes the id."""
    if name is None:
        states = tuple(replace(s, id=new_id) for s in timeline.states)
        return replace(timeline, base=replace(timeline.base, id=new_id), states=states)
    base = replace(timeline.base, id=new_id, name=name)
    return Timeline.start(base, timeline.actions, timeline.cursor)


def share_payload(encounter: Encounter) -> str:
    """The fight's present state, compressed for a URL fragment."""
    return pack({"app": APP, "schema": SCHEMA_VERSION, "kind": "encounter", "base": encounter_to_dict(encounter), "actions": [], "cursor": 0})


def read_share(payload: str) -> Timeline:
    doc = unpack(payload, "the link's shared fight", 200_000, 2_000_000)
    try:
        return timeline_from_dict(doc)
    except SchemaError:
        raise
    except UNREADABLE:
        raise SchemaError("The link holds a fight that does not replay.") from None


def _same(a: tuple[Action, ...], b: tuple[Action, ...]) -> bool:
    """Two lists of actions alike as stored (one may have come back from JSON)."""
    return len(a) == len(b) and all(x is y or dumps(x.to_dict()) == dumps(y.to_dict()) for x, y in zip(a, b, strict=True))


def rebase_changes(base: Timeline | None, ours: Timeline, theirs: Timeline) -> tuple[Timeline, str]:
    """Two tabs changed one fight at the same moment, from `base`; `theirs` was stored first. What
    this tab did since `base` is done again on theirs: new actions (a tap, a redo) one by one, each
    through the rules (one they now refuse stops there); an Undo only when theirs left the fight
    where it was. Returns the fight to show and what to say of it."""
    if base is None or not (base.base is theirs.base or dumps(encounter_to_dict(base.base)) == dumps(encounter_to_dict(theirs.base))):
        return theirs, "This fight was changed in another tab at the same moment. Showing that version; your last change here was not saved."
    if ours.cursor == base.cursor and _same(ours.actions, base.actions):
        return theirs, "Updated with a change made in another tab."
    n = base.cursor
    if ours.cursor >= n and _same(ours.actions[:n], base.actions[:n]):
        merged, done, new = theirs, 0, ours.actions[n:ours.cursor]
        for action in new:
            try:
                merged = merged.do(action)
            except EngineError:
                break
            done += 1
        if done == len(new):
            return merged, "Merged with a change made in another tab at the same moment: both are kept."
        return merged, (f"Merged with a change made in another tab at the same moment; {len(new) - done} of your last "
                        "changes here could not follow it (the rules refused them).")
    if ours.cursor < n and _same(ours.actions, base.actions) and theirs.cursor == n and _same(theirs.actions[:n], base.actions[:n]):
        return replace(theirs, cursor=ours.cursor), "Merged with a change made in another tab at the same moment: both are kept."
    return theirs, ("Your Undo here was not applied: the fight was changed in another tab at the same moment. Showing that version."
                    if ours.cursor < n else
                    "This fight was changed in another tab at the same moment. Showing that version; your last change here was not saved.")
