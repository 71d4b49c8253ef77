"""My characters: the save format (checked, versioned, migrated), limits, the payloads that hand a
character or a fight's view to another phone, and the practice encounter an attack is rolled on."""

from __future__ import annotations

import json
import random

import pytest

from pyengine import characters as ch
from pyengine.characters import (
    MAX_ATTACKS,
    ME_ID,
    TARGET_ID,
    Character,
    NamedAttack,
    character_from_dict,
    character_payload,
    character_to_dict,
    combatant_fields,
    practice_encounter,
    read_character,
)
from pyengine.errors import EngineError, RuleError, SchemaError
from pyengine.handoff import health_word, read_view, table_view, view_payload
from pyengine.model import Combatant
from pyengine.rules import get_system
from pyengine.tracker import Timeline, apply_action, new_encounter, resolve


def doc(**changes) -> dict:
    base = {"v": 1, "id": "k1", "name": "Aldric", "system": "realms", "max_hp": 20, "init_mod": 2,
            "stats": {"skills": "melee fighting, slashing", "str": 2, "ranged": False},
            "attacks": [{"name": "Longsword", "stats": {"damage_type": "edged"}, "config": {"cover": "half", "sneak": True}},
                        {"name": "Bow", "stats": {"ranged": True, "skills": "archery"}, "config": {}}]}
    return {**base, **changes}


def test_round_trip_keeps_everything():
    c = character_from_dict(doc())
    assert c.attacks[0] == NamedAttack("Longsword", {"damage_type": "edged"}, {"cover": "half", "sneak": True})
    assert character_from_dict(json.loads(json.dumps(character_to_dict(c)))) == c
    assert read_character(character_payload(c)) == c
    assert read_character(f"https://x.example/roundkeeper/#character={character_payload(c)}") == c  # the link itself


@pytest.mark.parametrize("changes, message", [
    ({"name": ""}, "needs a name"),
    ({"name": "x" * 61}, "too long"),
    ({"system": "chess"}, "chess"),
    ({"stats": {"str": "lots"}}, "whole number"),
    ({"stats": {"str": 99}}, "from -10 to 20"),
    ({"stats": {"wings": 2}}, "no stat 'wings'"),
    ({"stats": {"skills": "x" * 101}}, "too long"),
    ({"max_hp": 0}, "Max HP"),
    ({"attacks": [{"name": f"A{i}"} for i in range(MAX_ATTACKS + 1)]}, f"at most {MAX_ATTACKS} attacks"),
    ({"attacks": [{"name": "Big", "config": {"riders": "x" * 101}}]}, "too long"),
    ({"attacks": [{"name": "Odd", "config": {"nested": {"a": 1}}}]}, "unreadable"),
    ({"v": 2}, "newer Roundkeeper"),
    ({"v": "1"}, "format number"),
    ({"id": ""}, "valid id"),
])
def test_bad_characters_are_refused_with_a_message(changes, message):
    with pytest.raises(EngineError, match=message):
        character_from_dict(doc(**changes))


def test_hostile_names_are_kept_as_text_and_cleaned_of_control_characters():
    c = character_from_dict(doc(name="<img src=x onerror=alert(1)>\u202e"))
    assert c.name == "<img src=x onerror=alert(1)>"


def test_a_migration_step_runs_for_an_older_format(monkeypatch):
    """Format 1 is the first; the machinery a format 2 will use brings an old character up step by step."""
    monkeypatch.setattr(ch, "CHARACTER_VERSION", 2)
    monkeypatch.setitem(ch.CHARACTER_MIGRATIONS, 1, lambda d: {**d, "v": 2, "name": d["name"].title()})
    old = doc(name="aldric the bold")
    assert character_from_dict(old).name == "Aldric The Bold"
    assert old["name"] == "aldric the bold"  # pure: the stored document is not changed
    assert character_to_dict(character_from_dict(old))["v"] == 2


@pytest.mark.parametrize("payload", ["", "%%%", "x" * 30_000, "eJzLSM3JyQcABiwCFQ"])
def test_damaged_codes_say_so(payload):
    with pytest.raises(SchemaError):
        read_character(payload)


def test_a_code_that_unpacks_to_a_huge_document_is_refused_without_unpacking_it_all():
    import base64
    import zlib

    bomb = base64.urlsafe_b64encode(zlib.compress(b"[" * 5_000_000, 9)).decode()
    assert len(bomb) < 20_000
    with pytest.raises(SchemaError):
        read_character(bomb)


def test_the_character_joins_a_fight_as_a_party_pc_with_its_first_weapon():
    c = character_from_dict(doc())
    fields = combatant_fields(c, c.attack(1))
    assert fields["side"] == "party" and fields["pc"] and fields["hp"] == fields["max_hp"] == 20
    assert fields["stats"]["skills"] == "archery" and fields["stats"]["str"] == 2
    t = Timeline.start(new_encounter("e1", "Fight", "realms"))
    t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}))
    assert t.present.combatants[0].stat("ranged") is True


@pytest.mark.parametrize("system, stats, target, kind", [
    ("realms", {"skills": "melee fighting"}, {"ac": 12}, "er_attack"),
    ("laurels", {"level": 2, "str": 1}, {"armour": 1}, "ll_attack"),
    ("strife", {"hit": 10, "weapon": "1d8"}, {"ac": 40}, "ros_attack"),
])
def test_the_practice_encounter_lets_the_systems_own_attack_roll(system, stats, target, kind):
    c = Character("k9", "Hero", system, 20, 0, stats)
    enc = practice_encounter(c, None, target, 15)
    assert enc.started and enc.active_id == ME_ID
    assert enc.get(TARGET_ID).hp == 15 and dict(enc.get(TARGET_ID).stats) == target
    first = resolve(enc, kind, {"attacker": ME_ID, "target": TARGET_ID}, random.Random(5))
    again = resolve(enc, kind, {"attacker": ME_ID, "target": TARGET_ID}, random.Random(5))
    assert first.args == again.args and first.args.get("text")  # seeded: the same dice
    apply_action(enc, first)  # and it applies (the screen never does; it only shows it)


def test_target_stats_are_checked_like_any_combatant_stats():
    c = Character("k9", "Hero", "realms", 20, 0, {})
    with pytest.raises(RuleError):
        practice_encounter(c, None, {"ac": "high"})


# -- the players' read-only view ---------------------------------------------------------------------

def fight():
    t = Timeline.start(new_encounter("e1", "Crypt <b>", "generic"))
    for name, hp, side, init in (("Aldric", 30, "party", 18), ("Goblin", 10, "opponents", 12), ("Ogre", 40, "opponents", 5)):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "max_hp": hp, "side": side, "initiative": init,
                                                                      "pc": side == "party"}}))
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(1)))
    t = t.do(resolve(t.present, "damage", {"id": "c3", "amount": 25}))
    return t.do(resolve(t.present, "add_condition", {"id": "c2", "name": "Prone"}))


def test_the_view_shows_the_party_in_numbers_and_the_opponents_in_words():
    view = read_view(view_payload(fight().present))
    assert view["name"] == "Crypt <b>" and view["round"] == 1 and view["now"] == "Aldric" and view["next"] == "Goblin"
    aldric, goblin, ogre = view["rows"]
    assert aldric[:4] == ["Aldric", "p", 30, 30]
    assert goblin[2:7] == [None, None, "unhurt", ["Prone"], "next"]
    assert ogre[2:5] == [None, None, "bloodied"] and "40" not in json.dumps(ogre)


@pytest.mark.parametrize("hp, word", [(10, "unhurt"), (9, "hurt"), (5, "bloodied"), (1, "bloodied"), (0, "down"), (None, "")])
def test_health_words(hp, word):
    assert health_word(Combatant(id="c1", name="X", hp=hp, max_hp=10 if hp is not None else None), get_system("generic")) == word


def test_a_view_payload_stays_small_and_damaged_views_are_refused():
    assert len(view_payload(fight().present)) < 300
    table = table_view(fight().present)
    import base64
    import zlib

    def packed(d) -> str:
        return base64.urlsafe_b64encode(zlib.compress(json.dumps(d).encode())).decode()

    for bad in ({**table, "v": 9}, {**table, "rows": [["x", "q", None, None, "", [], ""]]},
                {**table, "rows": [["x", "o", None, None, "dead-ish", [], ""]]}, {**table, "rows": "nope"}):
        with pytest.raises(SchemaError):
            read_view(packed(bad))
    with pytest.raises(SchemaError):
        read_view("not a view")


def test_a_strife_character_joins_with_its_resources_full():
    c = character_from_dict({"v": 1, "id": "k2", "name": "Mira", "system": "strife", "stats": {"vigor_max": 12, "hit": 10}})
    assert combatant_fields(c)["stats"]["vigor"] == 12


def test_a_generic_character_joins_with_its_attacks_by_name_and_its_saves():
    """Issue 52: the phone's Attack panel offers the character's named attacks (its own state's "atk"),
    and its save bonuses come with it; an attack the fight cannot read stays the character's own."""
    from pyengine.handoff import pc_state

    c = character_from_dict({"v": 1, "id": "k2", "name": "Aria", "system": "generic", "max_hp": 30, "init_mod": 3,
                             "stats": {"ac": 15, "save_dex": 5, "save_wis": 1},
                             "attacks": [{"name": "Rapier", "stats": {"to_hit": 7, "damage": "1d8+4 piercing"}, "config": {}},
                                         {"name": "Fire Bolt", "stats": {"to_hit": 6, "damage": "2d10 fire"}, "config": {}},
                                         {"name": "Odd", "stats": {"to_hit": 1, "damage": "2d6 fire fire"}, "config": {}}]})
    fields = combatant_fields(c, c.attack(0))
    assert fields["attacks"] == [{"name": "Rapier", "bonus": 7, "damage": "1d8+4 piercing"},
                                 {"name": "Fire Bolt", "bonus": 6, "damage": "2d10 fire"}]
    t = Timeline.start(new_encounter("e1", "Fight"))
    t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}))
    aria = t.present.combatants[0]
    assert aria.stat("save_dex") == 5 and [a.name for a in aria.attacks] == ["Rapier", "Fire Bolt"]
    assert next(iter(pc_state(t.present).values()))["atk"] == ["Rapier", "Fire Bolt"]
    assert "attacks" not in combatant_fields(character_from_dict(doc()))   # Enchanted Realms' attacks are its own
