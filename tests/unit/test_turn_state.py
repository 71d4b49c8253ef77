"""Every fight a link, a file or storage may hold is either refused when read, or can be played:
each system checks its own turn state (System.check_turn_state), and fuzzed fights that pass the
checks go on for a few turns (next turn, an attack, undo) with no exception but the engine's refusals."""

from __future__ import annotations

import json
import os
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyengine.errors import EngineError, SchemaError
from pyengine.rules import get_system, systems
from pyengine.storage import encounter_from_dict, encounter_to_dict
from pyengine.tracker import Timeline, resolve
from tests.fights import FIGHTS, play
from web.app.exchange import read_share, share_payload

SYSTEMS = sorted(s.name for s in systems())
ATTACK = {"generic": "d20_attack", "laurels": "ll_attack", "realms": "er_attack", "strife": "ros_attack"}


def states(name: str) -> list[dict]:
    """The scripted fight of a system at every step, as stored."""
    t = play(name, FIGHTS[name])
    out = []
    while True:
        out.append(encounter_to_dict(t.present))
        if not t.can_undo:
            return out
        t = t.undo()


STATES = {name: states(name) for name in SYSTEMS}


def test_a_laurels_link_whose_started_fight_has_no_side_roll_is_refused_when_opened():
    """The crafted link of the audit: it passed the checks, showed the fight, and every Next turn raised KeyError 'side'."""
    started = next(d for d in STATES["laurels"] if d.get("round", 0) > 0 and d.get("turn"))
    crafted = {**started, "turn": {}}
    with pytest.raises(SchemaError, match="side initiative"):
        encounter_from_dict(crafted)
    real = encounter_from_dict(started)
    assert read_share(share_payload(real)).present.round == started["round"]  # the real one still opens
    with pytest.raises(SchemaError, match="side initiative"):
        read_share(share_payload(replace(real, turn=())))  # the link as the audit crafted it


@pytest.mark.parametrize("turn", [
    {"side": "party"},                                               # a side but no roll
    {"face": 9, "first": "party", "surprised": None, "side": "party", "text": "x"},
    {"face": 3, "first": "dragons", "surprised": None, "side": "party", "text": "x"},
    {"face": True, "first": "party", "surprised": None, "side": "party", "text": "x"},
    {"face": 3, "first": "party", "surprised": None, "side": "party", "text": "x", "extra": 1},
])
def test_a_side_roll_that_is_not_one_is_refused(turn):
    started = next(d for d in STATES["laurels"] if d.get("round", 0) > 0 and d.get("turn"))
    with pytest.raises(SchemaError):
        encounter_from_dict({**started, "turn": turn})


@pytest.mark.parametrize("turn", [
    {"parts": "action"}, {"parts": ["fly"]}, {"acting": "nobody"}, {"returns": [["x"]]}, {"attacks": [[1, 2]]},
    {"unknown": []},
])
def test_a_strife_checklist_that_is_not_one_is_refused(turn):
    started = next(d for d in STATES["strife"] if d.get("round", 0) > 0)
    with pytest.raises(SchemaError):
        encounter_from_dict({**started, "turn": turn})


def test_an_initiative_fight_keeps_no_turn_state_and_a_started_one_names_its_turn():
    started = next(d for d in STATES["generic"] if d.get("round", 0) > 0)
    with pytest.raises(SchemaError):
        encounter_from_dict({**started, "turn": {"side": "party"}})
    with pytest.raises(SchemaError, match="whose turn"):
        encounter_from_dict({k: v for k, v in started.items() if k != "active"})


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 8), st.sampled_from(["party", "opponents", "x", ""]),
                   st.lists(st.sampled_from(["party", "rest", "action", "instant", "c1", "c2", "zz"]), max_size=3),
                   st.lists(st.lists(st.sampled_from(["c1", "c2", "main", "zz"]), max_size=3), max_size=2))
KEYS = st.sampled_from(["face", "first", "surprised", "side", "text", "acting", "acted", "parts", "free", "bottom",
                        "returns", "action_kinds", "attacks"])


@st.composite
def fuzzed(draw):
    name = draw(st.sampled_from(SYSTEMS))
    doc = json.loads(json.dumps(draw(st.sampled_from(STATES[name]))))
    ids = [c["id"] for c in doc.get("combatants", [])]
    for _ in range(draw(st.integers(1, 4))):
        what = draw(st.sampled_from(["turn", "turn-key", "round", "active", "drop", "hp", "flags"]))
        if what == "turn":
            doc["turn"] = draw(st.dictionaries(KEYS, VALUES, max_size=5))
        elif what == "turn-key" and isinstance(doc.get("turn"), dict):
            doc["turn"][draw(KEYS)] = draw(VALUES)
        elif what == "round":
            doc["round"] = draw(st.integers(0, 3))
        elif what == "active":
            doc["active"] = draw(st.sampled_from([None, "zz", *ids]))
        elif what == "drop" and doc.get("combatants"):
            doc["combatants"].pop(draw(st.integers(0, len(doc["combatants"]) - 1)))
        elif what == "hp" and doc.get("combatants"):
            doc["combatants"][0]["hp"] = draw(st.integers(-50, 50))
        elif what == "flags" and doc.get("combatants"):
            doc["combatants"][0]["flags"] = draw(st.lists(st.sampled_from(["done", "hidden", "parry", "x"]), max_size=3))
    return name, doc


@settings(max_examples=int(os.environ.get("RK_FUZZ", "400")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzzed(), st.integers(0, 10**6))
def test_every_fuzzed_fight_that_is_accepted_can_be_played(case, seed):
    name, doc = case
    try:
        enc = encounter_from_dict(doc)
    except SchemaError:
        return  # refused when read: fine
    rng = random.Random(seed)
    t = Timeline.start(enc)
    ids = [c.id for c in enc.combatants]
    for kind, args in (("next_turn", {}), (ATTACK[name], {"attacker": enc.active_id or (ids[0] if ids else "zz"),
                                                           "target": ids[-1] if ids else "zz"}),
                       ("next_turn", {}), ("start_combat", {}), ("next_turn", {})):
        try:
            t = t.do(resolve(t.present, kind, args, rng))
        except EngineError:
            continue  # the engine's refusal: said to the user, nothing broken
    while t.can_undo:
        t = t.undo()
    assert get_system(name).name == name


def test_format_characters_are_cleaned_from_every_text_read_back():
    """Condition names and notes, combatant notes, flags, text stats, roll labels and expressions:
    cleaned as they are read from a link, a file or storage, as typed text is."""
    from web.app.storage.records import _roll_entry, _saved_roll

    rlo, zw = "\u202e", "\u200b"
    started = json.loads(json.dumps(next(d for d in STATES["generic"] if d.get("combatants"))))
    c = started["combatants"][0]
    c["notes"] = f"a{rlo}b"
    c["flags"] = [f"hid{zw}den"]
    c["stats"] = {**c.get("stats", {}), "weapon": f"Axe{rlo}"}
    c["conditions"] = [{"id": "k1", "name": f"Poi{zw}soned", "note": f"until{rlo} dawn"}]
    enc = encounter_from_dict(started)
    got = enc.combatants[0]
    assert got.notes == "ab" and got.flags == ("hidden",) and dict(got.stats)["weapon"] == "Axe"
    assert (got.conditions[0].name, got.conditions[0].note) == ("Poisoned", "until dawn")
    entry = _roll_entry({"expr": f"1d20{zw}+5", "total": 9, "text": f"1d20 (4){rlo} + 5", "label": f"Cyra{rlo}"})
    assert (entry["expr"], entry["text"], entry["label"]) == ("1d20+5", "1d20 (4) + 5", "Cyra")
    assert _saved_roll({"name": f"Sword{zw}", "expr": f"1d8{rlo}"}) == {"name": "Sword", "expr": "1d8"}
