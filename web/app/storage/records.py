"""Saving and loading the workspace (encounters, roster, saved opponents, rolls) through a small
key-value store, so that a fight is never lost.

Pure Python (no js import): the browser store lives in web/page/dom.py, tests use MemoryStore.
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

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from pyengine.characters import CHARACTER_VERSION, MAX_CHARACTERS, character_from_dict, character_to_dict
from pyengine.documents import Listed, Rolled, SavedRoll
from pyengine.errors import EngineError, SchemaError
from pyengine.storage import (
    loads,
)
from pyengine.text import clean_text
from pyengine.tools import new_tool, tool_spec
from pyengine.tracker import Timeline, validated_fields

__all__ = [
    "StorageFull",
    "StorageUnavailable",
    "ChangedElsewhere",
    "Store",
    "MemoryStore",
    "Notice",
    "Workspace",
    "Collection",
    "COLLECTIONS",
    "CHARACTERS",
    "merge",
    "entry_details",
    "enc_key",
    "index_entries",
    "EXPORT_HINT",
    "INDEX",
    "ROSTER",
    "TEMPLATES",
    "ROLLS",
    "SAVED_ROLLS",
    "CHARACTERS",
    "SNAPSHOT",
    "HINT_HOME",
    "HINT_FIRST",
    "MAX_ROLL_HISTORY",
    "character_entry",
    "person_entry",
    "UNREADABLE",
]

INDEX = "index"
ROSTER = "roster"
TEMPLATES = "templates"
ROLLS = "rolls"
SAVED_ROLLS = "saved_rolls"
CHARACTERS = "characters"
SNAPSHOT = "snapshot"
HINT_HOME = "hint:home-screen"  # the one-time "add to Home Screen" hint was shown
HINT_FIRST = "hint:first-run"  # the one-time "tap a row, ☰ is the menu" hint was shown
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
    testid: str = ""  # its text's test id, for a notice the tests look for by name (the backup offer)

    def about(self, timeline: Timeline) -> Notice:
        """This notice, tied to the last step of `timeline`."""
        return replace(self, encounter=timeline.present.id, step=timeline.cursor,
                       cause=timeline.actions[timeline.cursor - 1] if timeline.cursor else None)

    def shown_with(self, timeline: Timeline) -> bool:
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
    encounters: list[Listed]                    # in the user's order
    current: Timeline
    roster: list[dict[str, Any]] = field(default_factory=list)
    templates: list[dict[str, Any]] = field(default_factory=list)
    locked: set[str] = field(default_factory=set)  # ids saved by a newer app: never written


def enc_key(eid: str) -> str:
    return f"enc:{eid}"


T = TypeVar("T")
ORIGINS = ("link", "file")


def _count(value: object, limit: int) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= limit else None


def entry_details(e: dict[object, object], entry: Listed) -> Listed:
    """`entry` with what the list of encounters shows beside a name, read from a stored entry `e`
    and checked: system, round, when last played (ms), where it came from (a shared link or a
    file) and the shared fight's own id."""
    system, rounds, at, origin, source = e.get("system"), _count(e.get("round"), 10**6), _count(e.get("at"), 10**15), e.get("from"), e.get("source")
    if isinstance(system, str) and len(system) <= 40:
        entry["system"] = system
    if rounds is not None:
        entry["round"] = rounds
    if at is not None:
        entry["at"] = at
    if isinstance(origin, str) and origin in ORIGINS:
        entry["from"] = origin
    if isinstance(source, str) and len(source) <= 40:
        entry["source"] = source
    return entry


def index_entries(raw: str) -> tuple[list[Listed], str | None]:
    """A stored list of encounters: its entries (checked; odd ones dropped) and the current id.
    Raises SchemaError if it does not load as one."""
    index = loads(raw, "saved data")
    if not (isinstance(index, dict) and isinstance(index.get("encounters"), list)):
        raise SchemaError("it is not a list of encounters")
    entries: list[Listed] = []
    ids: set[str] = set()
    for e in index["encounters"][:1000]:
        eid = e.get("id") if isinstance(e, dict) else None
        if isinstance(e, dict) and isinstance(eid, str) and 0 < len(eid) <= 40 and eid not in ids:
            ids.add(eid)
            name = e.get("name")
            entries.append(entry_details(e, {"id": eid, "name": clean_text(name[:100]) if isinstance(name, str) else eid}))
    current = index.get("current")
    return entries, current if isinstance(current, str) else None


def _text(value: object, limit: int) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise SchemaError("unreadable text")
    return value


def _roll_entry(item: object) -> Rolled:
    if not isinstance(item, dict) or isinstance(item.get("total"), bool) or not isinstance(item.get("total"), int):
        raise SchemaError("unreadable roll")
    at = item.get("at", 0)
    entry: Rolled = {"expr": clean_text(_text(item.get("expr"), 1000)), "total": item["total"], "text": clean_text(_text(item.get("text"), 50_000)),
             "at": at if isinstance(at, int) and not isinstance(at, bool) else 0}
    label = item.get("label")
    if isinstance(label, str) and label:  # a character's attack: who, with what, at what
        entry["label"] = clean_text(label)[:200]
    for key in ("crits", "fumbles"):  # how many kept dice counted as critical / fumbles (cs, cf, or a d20's 20 / 1)
        count = item.get(key, 0)
        if isinstance(count, int) and not isinstance(count, bool) and 0 < count <= 10_000:
            entry[key] = count
    return entry


def _saved_roll(item: object) -> SavedRoll:
    if not isinstance(item, dict):
        raise SchemaError("unreadable saved roll")
    return {"name": clean_text(_text(item.get("name"), 60)) or "Roll", "expr": clean_text(_text(item.get("expr"), 1000))}


def character_entry(item: Any) -> dict[str, Any]:
    """A stored character, checked (and brought up to the current format): see pyengine.characters."""
    return character_to_dict(character_from_dict(item))


def person_entry(item: object) -> dict[str, Any]:
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
    check: Callable[[object], Mapping[str, object]]  # an item read back (a TypedDict of persist, or a checked document)
    identity: Callable[[dict[str, Any]], Any]
    limit: int
    newest_first: bool = False  # ordered by "at", newest first (the roll history)
    newer: Callable[[object], bool] | None = None  # an entry a newer version wrote: kept as it is through our writes


def _newer_character(item: object) -> bool:
    version = item.get("v") if isinstance(item, dict) else None
    return isinstance(version, int) and not isinstance(version, bool) and version > CHARACTER_VERSION


COLLECTIONS = {
    ROLLS: Collection(ROLLS, "roll history", _roll_entry, lambda r: (r["at"], r["expr"], r["total"], r["text"]),
                      MAX_ROLL_HISTORY, newest_first=True),
    SAVED_ROLLS: Collection(SAVED_ROLLS, "saved rolls", _saved_roll, lambda r: r["name"], 200),
    ROSTER: Collection(ROSTER, "party roster", person_entry, lambda p: p.get("name"), 500),
    TEMPLATES: Collection(TEMPLATES, "saved opponents", person_entry, lambda p: p.get("name"), 500),
    CHARACTERS: Collection(CHARACTERS, "characters", character_entry, lambda c: c["id"], MAX_CHARACTERS, newer=_newer_character),
}


def merge(base: Sequence[T], ours: Sequence[T], theirs: Sequence[T], identity: Callable[[T], Hashable]) -> list[T]:
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
