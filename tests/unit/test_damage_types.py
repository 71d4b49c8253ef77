"""Damage types in the generic d20 system (SRD 5.1): typed damage read, resistances, immunities and
vulnerabilities on the one damage path, in the attack's roll and its odds; regeneration stopped by
the damage types its text names. Scripted dice give exact results."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from pyengine.damage_types import Defenses, Portion, adjust, read_entry, split_typed
from pyengine.errors import EngineError, RuleError, SchemaError
from pyengine.storage import timeline_from_dict, timeline_to_dict
from pyengine.systems.generic import attack_odds, attack_spec
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.scripted import Scripted

NONMAGICAL = "bludgeoning, piercing, and slashing from nonmagical weapons"


def fight(*combatants: dict) -> Timeline:
    t = Timeline.start(new_encounter("e1"))
    for c in combatants:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": c}, random.Random(1)))
    return t


def cid(t: Timeline, name: str) -> str:
    return next(c.id for c in t.present.combatants if c.name == name)


def do(t: Timeline, kind: str, rng, **args) -> Timeline:
    return t.do(resolve(t.present, kind, args, rng))


def texts(t: Timeline) -> list[str]:
    return [e.text for e in t.logs[t.cursor - 1]]


# -- reading -----------------------------------------------------------------------------------

def test_typed_damage_is_read_part_by_part():
    assert split_typed("2d10+8 piercing + 2d6 fire") == (Portion("2d10+8", "piercing"), Portion("2d6", "fire"))
    assert split_typed("1d8+3 magical slashing") == (Portion("1d8+3", "slashing", ("magical",)),)
    assert split_typed("2d6 Fire + 3") == (Portion("2d6", "fire"), Portion("3"))
    assert split_typed("1d6+4") == (Portion("1d6+4"),)  # untyped: the dice engine's, comments and all
    assert split_typed("1d20+5 Stealth") == (Portion("1d20+5 Stealth"),)


@pytest.mark.parametrize("text, words", [
    ("fire", "needs dice or a number before it"),
    ("2d6 fire cold", "needs dice or a number before it"),
    ("2d6 fire 3", "join parts with +"),
    ("2d6 fire +", "missing after the last +"),
    ("2d fire", "(fire)"),
    (" + ".join(["1 fire"] * 7), "at most 6 typed parts"),
])
def test_wrongly_typed_damage_is_refused_with_a_message(text, words):
    with pytest.raises(RuleError, match=None) as error:
        split_typed(text)
    assert words in str(error.value)


def test_defense_entries_are_read_as_the_srd_writes_them():
    assert read_entry("fire").kinds == {"fire"} and not read_entry("fire").table
    entry = read_entry(NONMAGICAL + " that aren't silvered")
    assert entry.kinds == {"bludgeoning", "piercing", "slashing"} and entry.passed_by == ("magical", "silvered")
    assert read_entry("damage from spells").table  # the table's call: changes nothing by itself
    assert read_entry("piercing from magic weapons wielded by good creatures").table


# -- the SRD's order: immunity, then resistance (down), then vulnerability ----------------------

def test_resistance_halves_rounding_down_immunity_zeroes_vulnerability_doubles():
    d = Defenses(resistances=("fire", "fire"), immunities=("poison",), vulnerabilities=("cold", "fire"))
    assert adjust(d, Portion("", "fire"), 7).after == 6  # halved to 3 (twice resisted counts once), then doubled
    assert adjust(Defenses(resistances=("fire",)), Portion("", "fire"), 7).after == 3
    assert adjust(d, Portion("", "poison"), 40).after == 0
    assert adjust(d, Portion("", "cold"), 5).after == 10
    assert adjust(d, Portion("", "slashing"), 5).after == 5
    nonmagical = Defenses(resistances=(NONMAGICAL,))
    assert adjust(nonmagical, Portion("", "slashing"), 9).after == 4
    assert adjust(nonmagical, Portion("", "slashing", ("magical",)), 9).after == 9
    silvered = Defenses(resistances=(NONMAGICAL + " that aren't silvered",))
    assert adjust(silvered, Portion("", "piercing", ("silvered",)), 9).after == 9
    assert adjust(silvered, Portion("", "piercing", ("adamantine",)), 9).after == 4


def test_typed_damage_on_the_sheet_goes_through_the_one_damage_path():
    t = fight({"name": "Vampire", "max_hp": 100, "defenses": {"resistances": ["necrotic"]}, "stats": {"ac": 16}},
              {"name": "Golem", "max_hp": 50, "defenses": {"immunities": ["fire"], "vulnerabilities": ["cold"]}})
    t = do(t, "damage", None, id=cid(t, "Vampire"), amount=7, parts=[["necrotic", 7, []]])
    assert t.present.get(cid(t, "Vampire")).hp == 97
    assert texts(t)[0] == "Vampire took 3 necrotic damage (resisted: 7 halved)"
    t = do(t, "damage", None, id=cid(t, "Golem"), amount=15, parts=[["fire", 10, []], ["cold", 5, []]])
    assert t.present.get(cid(t, "Golem")).hp == 40
    assert texts(t)[0] == "Golem took 10 damage (0 fire (immune: 10 → 0), 10 cold (vulnerable: 5 doubled))"
    with pytest.raises(RuleError):
        do(t, "damage", None, id=cid(t, "Golem"), amount=5, parts=[["ice", 5, []]])


def test_a_fire_hit_stops_a_trolls_regeneration_at_its_next_turn_and_immunity_does_not():
    troll = {"name": "Troll", "max_hp": 84, "tools": [{"kind": "regeneration", "amount": "10", "stops": "acid, fire"}]}
    t = fight(troll, {"name": "Aria", "side": "party", "pc": True, "max_hp": 30, "initiative": 20})
    t = do(t, "damage", None, id=cid(t, "Troll"), amount=6, parts=[["slashing", 6, []]])
    assert not t.present.get(cid(t, "Troll")).tools[0].paused
    t = do(t, "damage", None, id=cid(t, "Troll"), amount=8, parts=[["fire", 8, []]])
    assert t.present.get(cid(t, "Troll")).tools[0].paused
    assert texts(t)[-1] == "Troll's Regeneration is off at its next turn (fire damage)"
    # A regeneration that names what stops it is not stopped by a type it does not name, nor by 0 damage.
    immune = fight({**troll, "defenses": {"immunities": ["fire"]}})
    immune = do(immune, "damage", None, id=cid(immune, "Troll"), amount=8, parts=[["fire", 8, []]])
    assert not immune.present.get(cid(immune, "Troll")).tools[0].paused


def test_an_attack_rolls_each_typed_part_and_a_crit_doubles_each_parts_dice():
    dragon = {"name": "Dragon", "max_hp": 256, "stats": {"ac": 19},
              "attacks": [{"name": "Bite", "bonus": 14, "damage": "2d10+8 piercing + 2d6 fire"},
                          {"name": "Claw", "bonus": 14, "damage": "2d6+8 slashing"}]}
    t = fight(dragon, {"name": "Salamander", "max_hp": 90, "stats": {"ac": 15},
                       "defenses": {"immunities": ["fire"], "resistances": [NONMAGICAL]}})
    d, s = cid(t, "Dragon"), cid(t, "Salamander")
    hit = do(t, "d20_attack", Scripted([12, 3, 4, 5, 6]), attacker=d, target=s, **{"with": "Bite"})
    args = hit.actions[-1].args
    assert args["damage"] == 26 and args["parts"] == [["piercing", 15, []], ["fire", 11, []]]
    assert args["text"] == "1d20 (12) +14 = 26 vs AC 15: hit; 2d10 (3, 4) + 8 = 15 piercing + 2d6 (5, 6) = 11 fire"
    assert hit.present.get(s).hp == 90 - 7  # 15 piercing resisted (nonmagical) -> 7, fire 0
    assert texts(hit)[0] == "Dragon attacks Salamander (Bite): hit, 26 damage"
    crit = do(t, "d20_attack", Scripted([20, 1, 1, 1, 1, 1, 1, 1, 1]), attacker=d, target=s, **{"with": "Bite"})
    assert crit.actions[-1].args["parts"] == [["piercing", 12, []], ["fire", 4, []]]  # 4d10+8, 4d6
    claw = do(t, "d20_attack", Scripted([15, 2, 3]), attacker=d, target=s, **{"with": "Claw"})
    assert claw.actions[-1].args["parts"] == [["slashing", 13, []]] and claw.present.get(s).hp == 90 - 6
    # Saved and read back, the typed parts replay as played.
    again = timeline_from_dict(timeline_to_dict(hit))
    assert again.present == hit.present


def test_the_odds_count_the_targets_defenses():
    t = fight({"name": "Imp", "max_hp": 10, "stats": {"ac": 10, "to_hit": 5, "damage": "1d4 fire"}},
              {"name": "Devil", "max_hp": 10, "stats": {"ac": 10}, "defenses": {"resistances": ["fire"]}},
              {"name": "Efreet", "max_hp": 10, "stats": {"ac": 10}, "defenses": {"immunities": ["fire"]}})
    spec = attack_spec(t.present, {"attacker": cid(t, "Imp"), "target": cid(t, "Devil")})
    odds = attack_odds(spec)
    # P(hit) 16/20 (a natural 5+ with +5 reaches 10), a 20 crits: 1d4 fire halved -> 0, 1, 1, 2; a crit's 2d4 halved.
    assert Fraction(odds.p_hit).limit_denominator(100) == Fraction(4, 5)
    normal = (0 + 1 + 1 + 2) / 4
    crit = sum((a + b) // 2 for a in range(1, 5) for b in range(1, 5)) / 16
    assert odds.damage.mean == pytest.approx(0.75 * normal + 0.05 * crit)
    immune = attack_odds(attack_spec(t.present, {"attacker": cid(t, "Imp"), "target": cid(t, "Efreet")}))
    assert immune.damage.max == 0
    # Cross-checked by simulation: 20,000 seeded attacks against the devil.
    rng, total = random.Random(11), 0
    for _ in range(20_000):
        hit = do(t, "d20_attack", rng, attacker=cid(t, "Imp"), target=cid(t, "Devil"))
        total += 10 - hit.present.get(cid(t, "Devil")).hp
    assert total / 20_000 == pytest.approx(odds.damage.mean, abs=0.03)


def test_damaged_typed_parts_and_defenses_in_a_file_are_refused():
    t = fight({"name": "Ogre", "max_hp": 59})
    doc = timeline_to_dict(do(t, "damage", None, id=cid(t, "Ogre"), amount=5, parts=[["fire", 5, []]]))
    doc["actions"][-1]["args"]["parts"] = [["fire", 5, ["cursed"]]]
    with pytest.raises(SchemaError):
        timeline_from_dict(doc)
    doc = timeline_to_dict(t)
    doc["base"]["combatants"] = [{"id": "c9", "name": "X", "defenses": {"resistances": "fire"}}]
    with pytest.raises(SchemaError, match="resistances"):
        timeline_from_dict(doc)
    doc["base"]["combatants"] = [{"id": "c9", "name": "X", "attacks": [{"name": "Bite", "bonus": 99, "damage": "1d6"}]}]
    with pytest.raises(SchemaError, match="attack bonus"):
        timeline_from_dict(doc)


def test_a_typed_amount_on_the_sheet_and_a_batch_roll_each_part():
    from web.app.messages import BatchApplied, HitPointsTyped
    from web.app.model import Model
    from web.app.update import update

    t = fight({"name": "Mummy", "max_hp": 58, "defenses": {"vulnerabilities": ["fire"]}},
              {"name": "Ghoul", "max_hp": 22})
    model, _ = update(Model(t), HitPointsTyped("damage", cid(t, "Mummy"), "2d6 fire", Scripted([3, 4])))
    assert model.timeline.present.get(cid(t, "Mummy")).hp == 58 - 14
    assert model.timeline.log()[-1].text == "Mummy took 14 fire damage (vulnerable: 7 doubled)"
    assert model.timeline.log()[-1].roll == "2d6 (3, 4) = 7 fire"
    from dataclasses import replace

    from web.app import ui as state
    model = replace(model, ui=state.selection_toggled(state.selecting_toggled(model.ui), ident=cid(t, "Mummy")))
    model = replace(model, ui=state.selection_toggled(model.ui, ident=cid(t, "Ghoul")))
    model, _ = update(model, BatchApplied("damage", Scripted([6] * 8), "8d6 fire", (cid(t, "Ghoul"),)))
    enc = model.timeline.present
    assert enc.get(cid(t, "Ghoul")).hp == 0  # saved: half of 48 (a creature's floor is 0)
    assert "Ghoul took 24 fire damage (saved: half damage)" in [e.text for e in model.timeline.log()]
    assert enc.get(cid(t, "Mummy")).hp == 0
    assert "Mummy took 96 fire damage (vulnerable: 48 doubled)" in [e.text for e in model.timeline.log()]  # failed: doubled


def test_unknown_things_typed_as_damage_say_why():
    from web.app.effects import Refuse
    from web.app.messages import HitPointsTyped
    from web.app.model import Model
    from web.app.update import update

    t = fight({"name": "Ogre", "max_hp": 59})
    for typed in ("2d6 fire + banana", "fire", "2d6 fire 3"):
        model, effects = update(Model(t), HitPointsTyped("damage", cid(t, "Ogre"), typed, random.Random(1)))
        assert model.timeline is t and isinstance(effects[0], Refuse), typed
    with pytest.raises(EngineError):
        split_typed("2d6 fire fire")
