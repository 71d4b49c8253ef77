"""Saving and loading the workspace (encounters, roster, saved opponents, rolls) through a small
key-value store, so that a fight is never lost.

Pure Python (no js import): the browser store lives in web/dom.py, tests use MemoryStore.
- A save that cannot be read is copied to a backup key (nothing is deleted) and what can be
  recovered (the encounter and the longest part of its history that replays) is loaded.
- A save from a newer app is never overwritten.
- A full store (quota) leaves the last good save as it was; the app asks before trimming history.
- Every encounter save carries a revision; a newer revision from another tab is loaded, not
  overwritten.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from pyengine.errors import EngineError, SchemaError
from pyengine.storage import (
    APP, SCHEMA_VERSION, dumps, encounter_from_dict, encounter_to_dict, loads, migrate,
    timeline_from_dict, timeline_to_dict,
)
from pyengine.tracker import Action, Encounter, Timeline, new_encounter

__all__ = [
    "StorageFull",
    "StorageUnavailable",
    "Store",
    "MemoryStore",
    "Notice",
    "Workspace",
    "Persistence",
]

INDEX = "index"
ROSTER = "roster"
TEMPLATES = "templates"
ROLLS = "rolls"
SAVED_ROLLS = "saved_rolls"
SNAPSHOT = "snapshot"
MAX_ROLL_HISTORY = 100


class StorageFull(Exception):
    """The store refused a write for lack of space."""


class StorageUnavailable(Exception):
    """The store cannot be used at all (blocked, private mode)."""


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


@dataclass
class Workspace:
    encounters: list[dict]            # [{"id", "name"}] in the user's order
    current: Timeline
    roster: list[dict] = field(default_factory=list)
    templates: list[dict] = field(default_factory=list)
    locked: set[str] = field(default_factory=set)  # ids saved by a newer app: never written


def _enc_key(eid: str) -> str:
    return f"enc:{eid}"


class Persistence:
    def __init__(self, store: Store, clock=time.time) -> None:
        self.store = store
        self.clock = clock
        self.revs: dict[str, int] = {}
        self._index_written: str | None = None

    # -- reading ---------------------------------------------------------------------------
    def backup(self, key: str, raw: str) -> str:
        name = f"backup:{int(self.clock() * 1000)}:{key}"
        try:
            self.store.set(name, raw)
        except StorageFull:
            return ""
        return name

    def _read_json(self, key: str, notices: list[Notice], what: str) -> Any:
        raw = self.store.get(key)
        if raw is None:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            where = self.backup(key, raw)
            notices.append(Notice("error", f"The saved {what} could not be read; a copy was kept{' under ' + where if where else ''} and a fresh one started."))
            return None

    def load_timeline(self, eid: str, notices: list[Notice]) -> tuple[Timeline | None, bool]:
        """(timeline or None, locked): locked means a newer app saved it and we must not write it."""
        key = _enc_key(eid)
        raw = self.store.get(key)
        if raw is None:
            return None, False
        try:
            doc = loads(raw)
        except SchemaError:
            where = self.backup(key, raw)
            notices.append(Notice("error", f"A saved encounter was damaged and could not be read. A copy was kept ({where or 'no room for a copy'})."))
            return None, False
        if isinstance(doc, dict) and isinstance(doc.get("schema"), int) and doc.get("app") == APP and doc["schema"] > SCHEMA_VERSION:
            notices.append(Notice("warn", f"“{str(doc.get('name') or doc.get('base', {}).get('name', 'An encounter'))[:60]}” was saved by a newer version of Roundkeeper. It is left untouched: reload to update the app.", "reload", "Reload"))
            return None, True
        try:
            timeline = timeline_from_dict(doc)
            self.revs[eid] = int(doc.get("rev", 0)) if isinstance(doc.get("rev", 0), int) else 0
            return timeline, False
        except SchemaError as error:
            where = self.backup(key, raw)
            recovered = self._recover(doc)
            if recovered is None:
                notices.append(Notice("error", f"A saved encounter could not be read ({error}). A copy was kept ({where})."))
                return None, False
            lost = len(doc.get("actions", [])) - len(recovered.actions)
            notices.append(Notice("warn", f"A saved encounter was partly damaged ({error}). Recovered it with {len(recovered.actions)} steps of history ({lost} lost); the original was kept ({where})."))
            return recovered, False

    def _recover(self, doc: Any) -> Timeline | None:
        """The encounter and the longest prefix of its history that still replays."""
        try:
            doc = migrate(doc)
            base = encounter_from_dict(doc.get("base"))
        except (EngineError, AttributeError):
            return None
        timeline = Timeline.start(base)
        for a in doc.get("actions", []) if isinstance(doc.get("actions"), list) else []:
            try:
                if not isinstance(a, dict):
                    break
                timeline = timeline.do(Action(str(a.get("kind")), dict(a.get("args", {}))))
            except (EngineError, KeyError, TypeError, ValueError, IndexError, StopIteration):
                break
        return timeline

    def load_workspace(self) -> tuple[Workspace, list[Notice]]:
        notices: list[Notice] = []
        index = self._read_json(INDEX, notices, "list of encounters")
        if not isinstance(index, dict) or not isinstance(index.get("encounters"), list):
            if index is not None:
                self.backup(INDEX, self.store.get(INDEX) or "")
                notices.append(Notice("error", "The list of encounters was damaged; it was rebuilt from the saved encounters."))
            index = {"encounters": [], "current": None}
            # Rebuild from whatever encounters are stored.
            for key in self.store.keys():
                if key.startswith("enc:"):
                    index["encounters"].append({"id": key[4:], "name": key[4:]})
        entries = [e for e in index["encounters"] if isinstance(e, dict) and isinstance(e.get("id"), str)]
        current_id = index.get("current") if isinstance(index.get("current"), str) else None
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
        roster = self._read_json(ROSTER, notices, "party roster")
        templates = self._read_json(TEMPLATES, notices, "saved opponents")
        ws = Workspace(
            encounters=entries, current=current,
            roster=roster if isinstance(roster, list) else [],
            templates=templates if isinstance(templates, list) else [],
            locked=locked,
        )
        return ws, notices

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
            doc = json.loads(raw)
        except ValueError:
            return None
        return doc.get("rev") if isinstance(doc, dict) and isinstance(doc.get("rev"), int) else None

    def save_timeline(self, timeline: Timeline, ws: Workspace) -> None:
        """Write the encounter; raises StorageFull (nothing written) or SchemaError (conflict)."""
        eid = timeline.present.id
        if eid in ws.locked:
            raise SchemaError("This encounter was saved by a newer version and is not overwritten.")
        stored = self.stored_rev(eid)
        known = self.revs.get(eid)
        if stored is not None and known is not None and stored > known:
            raise SchemaError("This fight was changed in another tab.")
        rev = (known or stored or 0) + 1
        doc = timeline_to_dict(timeline)
        doc["rev"] = rev
        doc["name"] = timeline.present.name
        self.store.set(_enc_key(eid), dumps(doc))
        self.revs[eid] = rev
        self.save_index(ws)

    def save_index(self, ws: Workspace) -> None:
        doc = {"app": APP, "schema": SCHEMA_VERSION, "kind": "index", "current": ws.current.present.id,
               "encounters": ws.encounters}
        text = dumps(doc)
        if text != self._index_written:  # most taps change the fight, not the list of fights
            self.store.set(INDEX, text)
            self._index_written = text

    def save_list(self, key: str, items: list) -> None:
        self.store.set(key, dumps(items))

    def delete_encounter(self, eid: str) -> str | None:
        raw = self.store.get(_enc_key(eid))
        self.store.remove(_enc_key(eid))
        self.revs.pop(eid, None)
        return raw

    def restore_encounter(self, eid: str, raw: str) -> None:
        self.store.set(_enc_key(eid), raw)

    def read_list(self, key: str) -> list:
        raw = self.store.get(key)
        try:
            value = json.loads(raw) if raw else []
        except ValueError:
            self.backup(key, raw or "")
            return []
        return value if isinstance(value, list) else []


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
    return json.dumps(doc, indent=1, ensure_ascii=False)


def parse_import(text: str) -> tuple[list[Timeline], list[dict], list[dict]]:
    """Everything in an exported file, fully checked; raises SchemaError and changes nothing."""
    doc = migrate(loads(text))
    kind = doc.get("kind")
    if kind == "encounter":
        return [timeline_from_dict(doc)], [], []
    if kind == "workspace":
        encounters = doc.get("encounters")
        if not isinstance(encounters, list) or len(encounters) > 200:
            raise SchemaError("The file's list of encounters is unreadable.")
        timelines = [timeline_from_dict(e) for e in encounters]
        roster = _people(doc.get("roster", []), "party roster")
        templates = _people(doc.get("templates", []), "saved opponents")
        return timelines, roster, templates
    raise SchemaError("This Roundkeeper file holds nothing to import.")


def _people(items: Any, what: str) -> list[dict]:
    from pyengine.tracker import _validated_fields  # the same checks as typing them in

    if not isinstance(items, list) or len(items) > 500:
        raise SchemaError(f"The file's {what} is unreadable.")
    out = []
    for item in items:
        if not isinstance(item, dict):
            raise SchemaError(f"An entry of the {what} is unreadable.")
        try:
            out.append(_validated_fields({k: v for k, v in item.items() if k != "count"}))
        except EngineError as error:
            raise SchemaError(f"{what}: {error}") from None
    return out


def rebase(timeline: Timeline, new_id: str, name: str | None = None) -> Timeline:
    """A copy of a fight (history included) under a fresh id."""
    from dataclasses import replace

    base = replace(timeline.base, id=new_id, name=name or timeline.base.name)
    copy = Timeline.start(base, timeline.actions, timeline.cursor)
    return copy


def share_payload(encounter: Encounter) -> str:
    """The fight's present state, compressed for a URL fragment."""
    import base64
    import zlib

    raw = dumps({"app": APP, "schema": SCHEMA_VERSION, "kind": "encounter", "base": encounter_to_dict(encounter), "actions": [], "cursor": 0})
    return base64.urlsafe_b64encode(zlib.compress(raw.encode(), 9)).decode().rstrip("=")


def read_share(payload: str) -> Timeline:
    import base64
    import binascii
    import zlib

    if len(payload) > 200_000:
        raise SchemaError("The shared link is too long.")
    try:
        data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        decoder = zlib.decompressobj()
        raw = decoder.decompress(data, 2_000_000)
        if decoder.unconsumed_tail:
            raise SchemaError("The shared fight is too large.")
    except (binascii.Error, zlib.error, ValueError):
        raise SchemaError("The shared link is damaged (it may have been cut short).") from None
    return timeline_from_dict(loads(raw.decode("utf-8", "replace")))
