"""Never brick: whatever a link, a file or a stored key holds, the engine starts, what does not load
is set aside with a message, and every stored collection merges another tab's changes."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import pytest

from pyengine.errors import RuleError, SchemaError
from pyengine.storage import MAX_JSON_DEPTH, check_json_depth, depth, loads, timeline_from_dict, timeline_to_dict
from pyengine.text import clean_text
from pyengine.tracker import MAX_COMBATANTS, Timeline, new_encounter, resolve, too_many_combatants
from web.app.exchange import export_all, parse_import, read_share, share_payload
from web.app.storage.records import CHARACTERS, COLLECTIONS, INDEX, ROLLS, ROSTER, SAVED_ROLLS, TEMPLATES, MemoryStore, merge
from web.app.storage.workspace import Persistence

FIXTURE = (Path(__file__).parent / "fixtures" / "encounter-schema1.json").read_text()


def clock():
    clock.now += 1
    return clock.now


clock.now = 1_800_000_000.0


def nested(n: int, inner: str = "1") -> str:
    return "[" * n + inner + "]" * n


def link(text: str) -> str:
    return base64.urlsafe_b64encode(zlib.compress(text.encode(), 9)).decode().rstrip("=")


# -- nesting is refused before any parser recurses ----------------------------------------

def test_depth_scan_counts_brackets_outside_strings_only():
    check_json_depth(json.dumps({"a": "[[[[[[[[[[" * 10, "b": ["\\\"[[[[", {"c": "]]]"}]}), 3)
    with pytest.raises(SchemaError, match="too deeply"):
        check_json_depth(nested(4), 3)
    check_json_depth(nested(3), 3)
    check_json_depth('"\\\\"' + nested(2), 2)  # an escaped backslash ends before the quote


def test_a_short_link_of_arrays_nested_6000_deep_is_refused_with_a_message_about_a_link():
    payload = link(nested(6000))
    assert len(payload) < 80
    with pytest.raises(SchemaError) as info:
        read_share(payload)
    assert "link" in str(info.value) and "file" not in str(info.value)


def test_an_import_of_200_kb_of_nested_arrays_is_refused():
    with pytest.raises(SchemaError, match="too deeply"):
        parse_import(nested(100_000))


def test_a_fight_whose_turn_state_nests_deeply_is_refused_before_it_can_be_stored():
    doc = json.loads(FIXTURE)
    value: object = 1
    for _ in range(MAX_JSON_DEPTH - 5):  # under the text's bound, over the turn state's
        value = [value]
    doc["base"]["turn"] = {"x": value}
    with pytest.raises(SchemaError, match="turn state"):
        read_share(link(json.dumps(doc)))
    deeper = json.loads(FIXTURE)
    deeper["base"]["turn"] = {"x": json.loads(nested(200))}
    with pytest.raises(SchemaError, match="too deeply"):
        read_share(link(json.dumps(deeper)))


def test_whatever_is_accepted_can_be_saved_exported_and_read_again():
    t = timeline_from_dict(json.loads(FIXTURE))
    text = json.dumps(timeline_to_dict(t))
    assert depth(json.loads(text)) < MAX_JSON_DEPTH // 2
    store = MemoryStore()
    p = Persistence(store, clock)
    ws, _ = p.load_workspace()
    ws.current = t
    ws.encounters = [{"id": t.present.id, "name": t.present.name}]
    p.save_timeline(t, ws)
    again = parse_import(export_all(ws, p))
    assert again[0][0].present == t.present


def test_depth_of_values_is_iterative():
    deep: object = 0
    for _ in range(100_000):
        deep = [deep]
    assert depth(deep) == 100_000
    assert depth({"a": [1, {"b": []}]}) == 4 and depth(5) == 0


# -- stored data never stops the start ------------------------------------------------------

BAD_VALUES = [nested(6000), nested(20, '"x"'), "{", "7", '"text"', "[1, 2, 3]", '{"app": "roundkeeper", "schema": 1}',
              json.dumps({"app": "roundkeeper", "schema": 1, "kind": "encounter", "base": {"turn": {"x": json.loads(nested(30))}}})]


@pytest.mark.parametrize("key", [INDEX, ROLLS, SAVED_ROLLS, ROSTER, TEMPLATES, CHARACTERS, "enc:e1"])
@pytest.mark.parametrize("value", BAD_VALUES)
def test_any_value_under_any_key_loads_or_is_set_aside(key, value):
    store = MemoryStore({key: value})
    if key == "enc:e1":
        store.set(INDEX, json.dumps({"encounters": [{"id": "e1", "name": "Kept"}], "current": "e1"}))
    p = Persistence(store, clock)
    ws, notices = p.load_workspace()
    for collection in (ROLLS, SAVED_ROLLS, CHARACTERS):  # what the app reads at start
        p.read_collection(collection, notices)
    assert ws.current is not None and ws.current.present.combatants == ()
    backups = [k for k in store.keys() if k.startswith("backup:")]
    assert any(store.get(b) == value for b in backups)  # none of these values is readable as that key
    assert any("set aside" in n.text and "Export all" in n.text for n in notices)
    assert store.get(key) == value  # never deleted


def test_a_roll_history_with_foreign_entries_keeps_the_good_ones_and_sets_the_rest_aside():
    good = {"expr": "1d20", "total": 12, "text": "1d20 (12) = 12", "at": 5}
    store = MemoryStore({ROLLS: json.dumps([good, 1, {"expr": None}, "x"])})
    p = Persistence(store, clock)
    notices: list = []
    assert p.read_collection(ROLLS, notices) == [good]
    assert any("3 entries of the saved roll history" in n.text for n in notices)
    assert [n.action for n in notices] == ["export-all"]


def test_an_index_naming_a_missing_encounter_says_so_and_recovers_what_exists():
    t = timeline_from_dict(json.loads(FIXTURE))
    store = MemoryStore()
    store.set("enc:e18c0a1b2c3d", json.dumps({**timeline_to_dict(t), "name": "Goblin ambush"}))
    store.set("enc:orphan1", json.dumps({**timeline_to_dict(Timeline.start(new_encounter("orphan1", "Lost cave"))),
                                          "name": "Lost cave"}))
    store.set(INDEX, json.dumps({"app": "roundkeeper", "schema": 1, "kind": "index", "current": "gone",
                                 "encounters": [{"id": "gone", "name": "Vanished"}, {"id": "e18c0a1b2c3d", "name": "Goblin ambush"}]}))
    ws, notices = Persistence(store, clock).load_workspace()
    names = [e["name"] for e in ws.encounters]
    assert names == ["Goblin ambush", "Lost cave"]
    assert ws.current.present.name == "Goblin ambush"
    assert any("Vanished" in n.text and "not in storage" in n.text for n in notices)
    assert any("missing from the list" in n.text for n in notices)


# -- two tabs: every collection merges --------------------------------------------------------

def test_saved_rolls_from_two_tabs_are_both_kept():
    store = MemoryStore()
    a, b = Persistence(store, clock), Persistence(store, clock)
    rolls_a = a.read_collection(SAVED_ROLLS, [])
    rolls_b = b.read_collection(SAVED_ROLLS, [])
    rolls_a = a.write_collection(SAVED_ROLLS, rolls_a + [{"name": "Sword", "expr": "1d8+3"}])
    rolls_b = b.write_collection(SAVED_ROLLS, rolls_b + [{"name": "Bow", "expr": "1d6+2"}])
    assert [r["name"] for r in rolls_b] == ["Sword", "Bow"]
    assert [r["name"] for r in json.loads(store.get(SAVED_ROLLS))] == ["Sword", "Bow"]
    # A deletion in one tab is not undone by the other's next write.
    rolls_a = a.write_collection(SAVED_ROLLS, [r for r in a.read_collection(SAVED_ROLLS, []) if r["name"] != "Sword"])
    rolls_b = b.write_collection(SAVED_ROLLS, rolls_b + [{"name": "Axe", "expr": "1d12"}])
    assert [r["name"] for r in rolls_b] == ["Bow", "Axe"]


def test_new_encounters_in_two_tabs_are_all_listed():
    store = MemoryStore()
    a = Persistence(store, clock)
    ws_a, _ = a.load_workspace()
    a.save_timeline(ws_a.current, ws_a)
    b = Persistence(store, clock)
    ws_b, _ = b.load_workspace()
    for p, ws, name in ((a, ws_a, "From A"), (b, ws_b, "From B")):
        t = Timeline.start(new_encounter(p.new_id(), name))
        ws.current = t
        ws.encounters.append({"id": t.present.id, "name": name})
        p.save_timeline(t, ws)
    stored = json.loads(store.get(INDEX))["encounters"]
    assert len(stored) == 3 and [e["name"] for e in stored][1:] == ["From A", "From B"]
    assert len([k for k in store.keys() if k.startswith("enc:")]) == 3
    a.refresh_index(ws_a)
    assert [e["name"] for e in ws_a.encounters] == [e["name"] for e in stored]


def test_roll_histories_of_two_tabs_merge_newest_first():
    store = MemoryStore()
    a, b = Persistence(store, clock), Persistence(store, clock)
    a.read_collection(ROLLS, [])
    b.read_collection(ROLLS, [])
    roll = lambda at, total: {"expr": "1d20", "total": total, "text": f"1d20 ({total}) = {total}", "at": at}  # noqa: E731
    a.write_collection(ROLLS, [roll(1, 5)])
    merged = b.write_collection(ROLLS, [roll(2, 17)])
    assert [r["total"] for r in merged] == [17, 5]


def test_merge_keeps_both_sides():
    key = lambda x: x["k"]  # noqa: E731
    base = [{"k": 1, "v": 0}, {"k": 2, "v": 0}]
    ours = [{"k": 1, "v": 9}, {"k": 3, "v": 0}]                   # changed 1, removed 2, added 3
    theirs = [{"k": 1, "v": 0}, {"k": 2, "v": 0}, {"k": 4, "v": 0}]  # added 4
    assert merge(base, ours, theirs, key) == [{"k": 1, "v": 9}, {"k": 4, "v": 0}, {"k": 3, "v": 0}]
    assert set(COLLECTIONS) == {ROLLS, SAVED_ROLLS, ROSTER, TEMPLATES, CHARACTERS}


# -- one limit for combatants ---------------------------------------------------------------

def test_the_combatant_limit_is_the_same_where_added_and_where_read():
    t = Timeline.start(new_encounter("e1", "Horde"))
    for _ in range(MAX_COMBATANTS // 50):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Orc"}, "count": 50}))
    assert len(t.present.combatants) == MAX_COMBATANTS
    with pytest.raises(RuleError) as added:
        resolve(t.present, "add_combatant", {"combatant": {"name": "Orc"}, "count": 1})
    assert str(added.value) == too_many_combatants(MAX_COMBATANTS + 1)
    doc = timeline_to_dict(t)
    doc["base"]["combatants"] = doc["base"]["combatants"] * 0 + [
        {"id": f"c{i}", "name": "Orc"} for i in range(1, MAX_COMBATANTS + 2)]
    with pytest.raises(SchemaError) as read:
        timeline_from_dict(doc)
    assert str(read.value) == too_many_combatants(MAX_COMBATANTS + 1)
    # The full fight itself still saves, shares and loads.
    assert len(read_share(share_payload(t.present)).present.combatants) == MAX_COMBATANTS


# -- invisible characters -------------------------------------------------------------------

def test_invisible_and_bidi_characters_are_stripped_from_user_text():
    assert clean_text("Bo\u200bb") == "Bob"
    assert clean_text("\u202eevil\u202c name\u2066") == "evil name"
    assert clean_text("a\u00adb\ufeff\u2060c") == "abc"
    assert clean_text("👩\u200d🚀") == "👩\u200d🚀"
    t = Timeline.start(new_encounter("e1", "X"))
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Gob\u200blin"}}))
    t = t.do(resolve(t.present, "rename", {"name": "\u202eAmbush"}))
    assert t.present.combatants[0].name == "Goblin" and t.present.name == "Ambush"


def test_loads_names_the_source_in_its_messages():
    with pytest.raises(SchemaError, match="The link is not valid JSON"):
        loads("{", "link")
    with pytest.raises(SchemaError, match="The file is not valid JSON"):
        loads("{")
