"""A fight or everything as a file (export, and an import read a piece at a time), a fight as a
link (share), and two tabs' changes to one fight merged (`rebase_changes`). Pure Python: what is read
is checked as every stored thing is (web/app/storage/records.py)."""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import replace
from typing import Any

from pyengine.characters import MAX_CHARACTERS
from pyengine.errors import EngineError, SchemaError
from pyengine.record import Record
from pyengine.steps import finished
from pyengine.storage import (
    APP,
    SCHEMA_VERSION,
    dumps,
    encounter_to_dict,
    loads,
    migrate,
    pack,
    timeline_from_dict,
    timeline_to_dict,
    unpack,
)
from pyengine.tracker import Action, Encounter, Timeline
from web.app.storage.records import CHARACTERS, COLLECTIONS, UNREADABLE, Workspace, character_entry, person_entry
from web.app.storage.workspace import Persistence

__all__ = ["export_encounter", "export_all", "Imported", "reading_import", "read_import", "parse_import", "import_characters",
           "rebase", "share_payload", "read_share", "rebase_changes"]


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
    characters = tuple(character_entry(item) for item in items)
    timelines = []
    for encounter in encounters:
        timelines.append(timeline_from_dict(encounter))
        yield len(timelines)
    return Imported(tuple(timelines), tuple(roster), tuple(templates), characters)


def read_import(text: str) -> Imported:
    """An export file read at once (see reading_import)."""
    return finished(reading_import(text))


def parse_import(text: str) -> tuple[list[Timeline], list[dict[str, Any]], list[dict[str, Any]]]:
    """Everything in an exported file, fully checked; raises SchemaError and changes nothing."""
    found = read_import(text)
    return list(found.timelines), list(found.roster), list(found.templates)


def import_characters(text: str) -> list[dict[str, Any]]:
    """The characters in an exported file (none in a single fight's file), fully checked; raises
    SchemaError or RuleError and changes nothing."""
    return list(read_import(text).characters)


def _people(items: object, what: str) -> list[dict[str, Any]]:
    if not isinstance(items, list) or len(items) > 500:
        raise SchemaError(f"The file's {what} is unreadable.")
    out = []
    for item in items:
        try:
            out.append(person_entry(item))
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
