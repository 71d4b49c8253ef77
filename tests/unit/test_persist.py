"""Never lose a fight: saving through a store, damaged saves, newer saves, a full store, two tabs,
imports, share links. Runs the browser layer's persistence on CPython with MemoryStore."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pyengine.errors import SchemaError
from pyengine.storage import SCHEMA_VERSION, timeline_from_dict
from pyengine.tracker import Timeline, new_encounter, resolve
from web.app.exchange import export_all, export_encounter, parse_import, read_share, share_payload
from web.app.storage.records import MemoryStore, StorageFull
from web.app.storage.workspace import Persistence

FIXTURE = (Path(__file__).parent / "fixtures" / "encounter-schema1.json").read_text()


def clock():
    clock.now += 1
    return clock.now


clock.now = 1_700_000_000.0


def workspace(store):
    p = Persistence(store, clock)
    ws, notices = p.load_workspace()
    return p, ws, notices


def with_fighter(ws, name="Aria"):
    t = ws.current
    return t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "max_hp": 10}}))


def test_fresh_store_starts_an_encounter_and_saves_every_change():
    store = MemoryStore()
    p, ws, notices = workspace(store)
    assert notices == [] and ws.current.present.combatants == ()
    ws.current = with_fighter(ws)
    p.save_timeline(ws.current, ws)
    _, again, notices = workspace(store)
    assert notices == []
    assert [c.name for c in again.current.present.combatants] == ["Aria"]
    assert again.current.can_undo  # the undo history survives a reload


def test_corrupt_save_is_kept_aside_and_the_rest_recovered():
    store = MemoryStore()
    p, ws, _ = workspace(store)
    ws.current = with_fighter(ws)
    p.save_timeline(ws.current, ws)
    eid = ws.current.present.id
    raw = store.get(f"enc:{eid}")
    store.set(f"enc:{eid}", raw[: len(raw) // 2])  # truncated write
    _, again, notices = workspace(store)
    backups = [k for k in store.keys() if k.startswith("backup:")]
    assert backups and store.get(backups[0]) == raw[: len(raw) // 2]
    assert any("damaged" in n.text for n in notices)
    assert again.current.present.combatants == ()  # a fresh start; the damaged copy is kept


def test_partly_damaged_history_recovers_the_good_prefix():
    store = MemoryStore()
    doc = json.loads(FIXTURE)
    doc["actions"][5]["kind"] = "teleport"  # a step that no longer replays
    store.set("enc:e18c0a1b2c3d", json.dumps(doc))
    store.set("index", json.dumps({"app": "roundkeeper", "schema": 1, "kind": "index", "current": "e18c0a1b2c3d",
                                   "encounters": [{"id": "e18c0a1b2c3d", "name": "Goblin ambush"}]}))
    _, ws, notices = workspace(store)
    assert len(ws.current.actions) == 5
    assert ws.current.present.get("c3").hp == 0  # the damage before the broken step is kept
    assert any("Recovered" in n.text for n in notices)
    assert any(k.startswith("backup:") for k in store.keys())


def test_newer_save_is_never_overwritten():
    store = MemoryStore()
    doc = json.loads(FIXTURE)
    doc["schema"] = SCHEMA_VERSION + 1
    newer = json.dumps(doc)
    store.set("enc:e18c0a1b2c3d", newer)
    store.set("index", json.dumps({"app": "roundkeeper", "schema": 1, "kind": "index", "current": "e18c0a1b2c3d",
                                   "encounters": [{"id": "e18c0a1b2c3d", "name": "Goblin ambush"}]}))
    p, ws, notices = workspace(store)
    assert "e18c0a1b2c3d" in ws.locked
    assert ws.current.present.id != "e18c0a1b2c3d"
    assert any("newer version" in n.text for n in notices)
    ws.current = with_fighter(ws)
    p.save_timeline(ws.current, ws)
    assert store.get("enc:e18c0a1b2c3d") == newer
    locked = Timeline.start(new_encounter("e18c0a1b2c3d"))
    with pytest.raises(SchemaError):
        p.save_timeline(locked, ws)
    assert store.get("enc:e18c0a1b2c3d") == newer


def test_full_store_keeps_the_last_good_save():
    store = MemoryStore(quota=6_000)
    p, ws, _ = workspace(store)
    ws.current = with_fighter(ws)
    p.save_timeline(ws.current, ws)
    eid = ws.current.present.id
    good = store.get(f"enc:{eid}")
    t = ws.current
    with pytest.raises(StorageFull):
        for i in range(200):
            t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": f"Minion {i}"}}))
            ws.current = t
            p.save_timeline(t, ws)
            good = store.get(f"enc:{eid}")
    assert store.get(f"enc:{eid}") == good
    json.loads(good)  # intact
    # With the user's consent, trimming the history makes room again.
    ws.current = t.trimmed(0)
    small = MemoryStore(quota=60_000)
    Persistence(small, clock).save_timeline(ws.current, ws)


def test_another_tabs_newer_revision_is_not_overwritten():
    store = MemoryStore()
    p1, ws1, _ = workspace(store)
    ws1.current = with_fighter(ws1)
    p1.save_timeline(ws1.current, ws1)
    p2, ws2, _ = workspace(store)  # a second tab
    ws2.current = with_fighter(ws2, "Bors")
    p2.save_timeline(ws2.current, ws2)
    ws1.current = with_fighter(ws1, "Cato")
    with pytest.raises(SchemaError, match="another tab"):
        p1.save_timeline(ws1.current, ws1)
    saved = json.loads(store.get(f"enc:{ws1.current.present.id}"))
    assert saved["actions"][-1]["args"]["combatant"]["name"] == "Bors"


def test_import_of_export_round_trips_and_bad_files_change_nothing():
    store = MemoryStore()
    p, ws, _ = workspace(store)
    ws.current = with_fighter(ws)
    timelines, _, _ = parse_import(export_encounter(ws.current))
    assert timelines[0].present == ws.current.present
    everything = export_all(ws, p)
    timelines, roster, templates = parse_import(everything)
    assert len(timelines) == 1
    for bad in ["", "{", '{"app": "other"}', json.dumps({"app": "roundkeeper", "schema": 1, "kind": "workspace", "encounters": "x"}),
                FIXTURE[:200], json.dumps({"app": "roundkeeper", "schema": 1, "kind": "workspace", "encounters": [],
                                           "roster": [{"name": "x" * 100_000}]})]:
        with pytest.raises(SchemaError):
            parse_import(bad)


def test_a_fight_rebased_under_a_fresh_id_is_the_replayed_fight():
    """An imported fight takes a fresh id without a replay: every state and the undo position are
    what replaying its actions from the renamed base gives."""
    from web.app.exchange import rebase
    from web.page.bench import big_fight

    fight = big_fight(40).undo()
    fast = rebase(fight, "e-new")
    slow = Timeline.start(replace(fight.base, id="e-new"), fight.actions, fight.cursor)
    assert fast.states == slow.states and fast.logs == slow.logs and fast.cursor == slow.cursor == fight.cursor
    assert fast.present.id == "e-new" and fight.present.id != "e-new"
    assert rebase(fight, "e-copy", "Copy").present.name == "Copy"


def test_an_export_file_is_read_an_encounter_a_step():
    """The page reads a file in steps (it answers taps between them): one step per encounter, and
    what the steps return is what the file holds; a damaged encounter refuses the whole file."""
    from web.app.exchange import reading_import

    store = MemoryStore()
    p, ws, _ = workspace(store)
    ws.current = with_fighter(ws)
    doc = json.loads(export_all(ws, p))
    doc["encounters"] = doc["encounters"] * 3
    steps = reading_import(json.dumps(doc))
    assert [next(steps), next(steps), next(steps)] == [1, 2, 3]
    with pytest.raises(StopIteration) as done:
        next(steps)
    assert [t.present for t in done.value.value.timelines] == [ws.current.present] * 3
    doc["encounters"][2] = {**doc["encounters"][2], "actions": [{"kind": "no such action", "args": {}}]}
    steps = reading_import(json.dumps(doc))
    assert [next(steps), next(steps)] == [1, 2]
    with pytest.raises(SchemaError):
        next(steps)


def test_characters_are_a_collection_two_tabs_merge_and_export_all_carries():
    from pyengine.characters import Character, character_to_dict
    from web.app.exchange import import_characters
    from web.app.storage.records import CHARACTERS

    store = MemoryStore()
    p1, ws, _ = workspace(store)
    p2, _, _ = workspace(store)
    first = character_to_dict(Character("k1", "Aldric", "realms", 20, 0, {"str": 2}))
    second = character_to_dict(Character("k2", "Mira", "strife", 30, 1, {"hit": 10}))
    assert p1.read_collection(CHARACTERS, []) == [] == p2.read_collection(CHARACTERS, [])
    p1.write_collection(CHARACTERS, [first])
    merged = p2.write_collection(CHARACTERS, [second])  # the other tab added one meanwhile: both stay
    assert {c["name"] for c in merged} == {"Aldric", "Mira"}
    store.set(CHARACTERS, json.dumps([first, {"v": 1, "id": "k3", "name": "", "system": "realms"}]))  # one damaged
    notices: list = []
    assert [c["name"] for c in p1.read_collection(CHARACTERS, notices)] == ["Aldric"] and notices  # set aside, said
    assert [c["name"] for c in import_characters(export_all(ws, p1))] == ["Aldric"]
    assert import_characters(export_encounter(ws.current)) == []


def test_share_link_payload_round_trips_and_rejects_damage():
    t = timeline_from_dict(json.loads(FIXTURE))
    assert t.present.get("c3").hp == 0  # a downed goblin must stay down
    payload = share_payload(t.present)
    assert len(payload) < 2000
    shared = read_share(payload)
    assert shared.present == t.present
    with pytest.raises(SchemaError):
        read_share(payload[: len(payload) // 2])
    with pytest.raises(SchemaError):
        read_share("!!!not base64!!!")


# -- two tabs at the same moment: this tab's change done again on the other's --------------------

def _tabs():
    import random as _random

    from pyengine.tracker import resolve as _resolve
    from tests.unit.test_update import PARTY
    from tests.unit.test_update import fight as _fight

    base = _fight(*PARTY, started=True).timeline

    def step(t, kind, fields=None):
        return t.do(_resolve(t.present, kind, fields or {}, _random.Random(0)))
    return base, step


def test_a_next_turn_in_each_tab_at_the_same_moment_keeps_both():
    from web.app.exchange import rebase_changes

    base, step = _tabs()
    ours, theirs = step(base, "next_turn"), step(base, "next_turn")
    merged, said = rebase_changes(base, ours, theirs)
    assert merged.cursor == base.cursor + 2 and "both are kept" in said
    assert merged.present == step(step(base, "next_turn"), "next_turn").present


def test_theirs_came_back_through_json_and_still_merges():
    from pyengine.storage import dumps, timeline_from_dict, timeline_to_dict
    from web.app.exchange import rebase_changes

    base, step = _tabs()
    base = timeline_from_dict(json.loads(dumps(timeline_to_dict(base))))
    ours = step(base, "next_turn")
    theirs = timeline_from_dict(json.loads(dumps(timeline_to_dict(step(base, "next_turn")))))
    merged, _ = rebase_changes(base, ours, theirs)
    assert merged.cursor == base.cursor + 2


def test_an_undo_here_while_the_other_tab_went_on_is_refused_and_said():
    from web.app.exchange import rebase_changes

    base, step = _tabs()
    base = step(base, "next_turn")
    ours, theirs = base.undo(), step(base, "next_turn")
    merged, said = rebase_changes(base, ours, theirs)
    assert merged is theirs and "Undo here was not applied" in said
    # ... and a Next turn here while the other tab undid: the undo stays, our turn follows it.
    ours, theirs = step(base, "next_turn"), base.undo()
    merged, said = rebase_changes(base, ours, theirs)
    assert merged.cursor == theirs.cursor + 1 and merged.actions[:theirs.cursor] == theirs.actions[:theirs.cursor]


def test_nothing_new_here_takes_theirs_and_no_base_refuses():
    from web.app.exchange import rebase_changes

    base, step = _tabs()
    theirs = step(base, "next_turn")
    assert rebase_changes(base, base, theirs) == (theirs, "Updated with a change made in another tab.")
    merged, said = rebase_changes(None, step(base, "next_turn"), theirs)
    assert merged is theirs and "was not saved" in said


def test_a_character_a_newer_version_wrote_is_kept_through_this_versions_saves_and_said():
    from pyengine.characters import CHARACTER_VERSION
    from web.app.storage.records import CHARACTERS, MemoryStore
    from web.app.storage.workspace import Persistence

    store = MemoryStore()
    newer = {"v": CHARACTER_VERSION + 1, "id": "k-new", "name": "From the future", "shape": "unknown to us"}
    store.set(CHARACTERS, json.dumps([newer]))
    p = Persistence(store)
    notices: list = []
    assert p.read_collection(CHARACTERS, notices) == []
    assert len(notices) == 1 and "newer version" in notices[0].text and notices[0].action == "reload"
    mine = {"v": CHARACTER_VERSION, "id": "k1", "name": "Cyra", "system": "generic", "stats": {}, "attacks": []}
    p.write_collection(CHARACTERS, [mine])
    stored = json.loads(store.get(CHARACTERS))
    assert newer in stored and any(c.get("name") == "Cyra" for c in stored)
