"""Save format: round trips, migration of real fixture files, refusal of newer and hostile files."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pyengine.errors import SchemaError
from pyengine.storage import (
    MIGRATIONS,
    SCHEMA_VERSION,
    dumps,
    loads,
    migrate,
    timeline_from_dict,
    timeline_to_dict,
)
from pyengine.tracker import Timeline, new_encounter, resolve

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def test_every_old_schema_has_a_fixture_and_a_migration_step():
    # Schema 1 is the first format: every later version must add a step and a fixture of the old one.
    for version in range(1, SCHEMA_VERSION):
        assert version in MIGRATIONS
        assert (FIXTURES / f"encounter-schema{version}.json").exists()
    assert (FIXTURES / f"encounter-schema{SCHEMA_VERSION}.json").exists()


def test_schema1_fixture_loads_with_history_and_undo_position():
    t = timeline_from_dict(fixture("encounter-schema1.json"))
    enc = t.present
    assert enc.name == "Goblin ambush" and enc.round == 1
    assert [(c.name, c.initiative) for c in enc.combatants] == [
        ("Goblin 1", 20), ("Goblin 2", 20), ("Goblin 3", 20), ("Aria", 18)]
    assert enc.active_id == "c1"
    assert len(t.actions) == 7 and t.cursor == 6 and t.can_redo
    assert enc.get("c3").hp == 0
    assert [k.name for k in enc.get("c2").conditions] == ["Frightened"]
    assert any(e.kind == "initiative" and e.roll for e in t.log())


def test_round_trip_is_lossless():
    t = timeline_from_dict(fixture("encounter-schema1.json"))
    again = timeline_from_dict(json.loads(dumps(timeline_to_dict(t))))
    assert again.states == t.states and again.cursor == t.cursor


def test_migrate_is_pure_and_refuses_newer_versions():
    doc = fixture("encounter-schema1.json")
    before = copy.deepcopy(doc)
    migrate(doc)
    assert doc == before
    newer = dict(doc, schema=SCHEMA_VERSION + 1)
    with pytest.raises(SchemaError, match="newer Roundkeeper"):
        migrate(newer)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: {"hello": "world"}, "not a Roundkeeper file"),
        (lambda d: dict(d, schema="1"), "no valid format"),
        (lambda d: dict(d, kind="grocery list"), "does not hold an encounter"),
        (lambda d: _set(d, ["actions", 4, "args", "amount"], 10**100), "does not replay"),
        (lambda d: _set(d, ["actions", 4, "args", "id"], "c999"), "does not replay"),
        (lambda d: _set(d, ["base", "combatants"], [{"id": f"c{i}", "name": "x"} for i in range(1_000_000)]), "at most 500 combatants"),
        (lambda d: _set(d, ["actions", 0, "args", "combatant", "name"], "N" * 100_000), "does not replay"),
        (lambda d: _set(d, ["base", "combatants"], [{"id": "c1", "name": "a", "hp": 10**100}]), "out of range"),
        (lambda d: _set(d, ["cursor"], 99), "does not replay"),
    ],
)
def test_hostile_or_broken_documents_raise_schema_error(mutate, message):
    doc = mutate(fixture("encounter-schema1.json"))
    with pytest.raises(SchemaError, match=message):
        timeline_from_dict(doc)


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


def test_loads_rejects_truncated_and_oversized_text():
    text = (FIXTURES / "encounter-schema1.json").read_text()
    with pytest.raises(SchemaError, match="not valid JSON"):
        loads(text[: len(text) // 2])
    with pytest.raises(SchemaError, match="too large"):
        loads(" " * 6_000_000)


def test_hostile_names_survive_as_plain_text():
    t = Timeline.start(new_encounter("e1"))
    name = '<img src=x onerror=alert(1)>"><script>'
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name}}))
    again = timeline_from_dict(json.loads(dumps(timeline_to_dict(t))))
    assert again.present.combatants[0].name == name


def test_saved_fight_of_20_combatants_after_100_turns_is_small():
    t = Timeline.start(new_encounter("e1", "Big fight"))
    for i in range(20):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": f"Fighter {i}", "init_mod": i % 5, "max_hp": 30}}))
    import random

    t = t.do(resolve(t.present, "start_combat", {}, random.Random(1)))
    for i in range(100):
        t = t.do(resolve(t.present, "next_turn"))
        if i % 10 == 0:
            t = t.do(resolve(t.present, "damage", {"id": f"c{i % 20 + 1}", "amount": 3}))
    size = len(dumps(timeline_to_dict(t)))
    assert size < 100_000, size


def test_encounter_round_trip_keeps_zero_hp_and_conditions():
    from pyengine.storage import encounter_from_dict, encounter_to_dict

    t = timeline_from_dict(fixture("encounter-schema1.json"))
    again = encounter_from_dict(json.loads(dumps(encounter_to_dict(t.present))))
    assert again == t.present
    assert again.get("c3").hp == 0
