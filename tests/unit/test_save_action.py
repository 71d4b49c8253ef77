"""Issue 52, section 2: a save effect on several targets at once (the generic system's `d20_save`), and
the save a hit asks for (an attack's rider), with scripted dice and exact results."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import pytest

from pyengine.damage_types import Defenses, split_typed
from pyengine.errors import RuleError
from pyengine.systems.generic import attack_odds, attack_spec
from pyengine.systems.saving_throws import SaveMode, save_odds
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.scripted import Scripted

BREATH = {"name": "Fire Breath", "ability": "dex", "dc": 17, "success": "half", "damage": "16d6 fire"}
SIXTEEN = [3] * 16   # 16d6 fire: 48


def fight(*fields: dict) -> tuple[Timeline, dict[str, str]]:
    t = Timeline.start(new_encounter("e1", "Saves"))
    for i, f in enumerate(fields):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"initiative": 20 - i, **f}}))
    ids = {c.name: c.id for c in t.present.combatants}
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(1)))
    return t, ids


DRAGON = {"name": "Young Red Dragon", "max_hp": 178, "stats": {"save_dex": 4},
          "save_actions": [BREATH], "tools": [{"kind": "recharge", "name": "Fire Breath", "low": 5}]}
PARTY = [{"name": "Aria", "side": "party", "pc": True, "max_hp": 30, "stats": {"save_dex": 5},
          "defenses": {"resistances": ["fire"]}},
         {"name": "Bram", "side": "party", "pc": True, "max_hp": 40, "stats": {"save_dex": 1}}]
GOBLINS = [{"name": f"Goblin {n}", "max_hp": 7, "stats": {"save_dex": 2}} for n in (1, 2)]


def test_fire_breath_on_two_goblins_and_two_characters_is_one_step_and_one_undo():
    t, ids = fight(DRAGON, *PARTY, *GOBLINS)
    targets = [{"id": ids["Goblin 1"]}, {"id": ids["Goblin 2"]}, {"id": ids["Aria"], "d20": 14}, {"id": ids["Bram"], "total": 9}]
    # The damage once (16 dice), then a d20 for each goblin (Aria's and Bram's are typed).
    action = resolve(t.present, "d20_save", {"source": ids["Young Red Dragon"], "effect": BREATH, "targets": targets},
                     Scripted([*SIXTEEN, 15, 3]))
    results = {r["id"]: r for r in action.args["results"]}
    assert [(results[ids[n]]["total"], results[ids[n]]["saved"]) for n in ("Goblin 1", "Goblin 2", "Aria", "Bram")] == [
        (17, True), (5, False), (19, True), (9, False)]
    before = t.present
    t = t.do(action)
    hp = {n: t.present.get(ids[n]).hp for n in ("Goblin 1", "Goblin 2", "Aria", "Bram")}
    assert hp == {"Goblin 1": 0, "Goblin 2": 0, "Aria": 30 - 12, "Bram": 0}   # 24 saved; Aria's resisted again: 12
    lines = [e.text for e in t.logs[t.cursor - 1]]
    assert lines[0].startswith("Young Red Dragon's Fire Breath (DC 17 Dexterity, 16d6 fire, half on a success) on Goblin 1, Goblin 2, Aria, Bram")
    assert "Goblin 1: Dex save 17 vs DC 17, succeeded" in lines
    assert "Goblin 2: Dex save 5 vs DC 17, failed" in lines
    assert "Aria: Dex save 19 vs DC 17, succeeded (typed)" in lines
    assert "Aria took 12 fire damage from Young Red Dragon (saved: half damage; resisted: 24 halved)" in lines
    assert "Bram took 48 fire damage from Young Red Dragon" in lines
    assert "Goblin 2 dies: instant death (41 damage past 0 HP, maximum 7)" in lines
    assert "Bram dies: instant death (48 damage past 0 HP, maximum 40)" not in lines   # 48 - 40 = 8 past 0: dying
    assert t.present.get(ids["Bram"]).stat("death_failures") == 0
    assert t.undo().present == before


def test_a_paralyzed_target_fails_and_legendary_resistance_turns_a_failure_into_a_success():
    boss = {"name": "Lich", "max_hp": 135, "stats": {"save_dex": 2},
            "tools": [{"kind": "uses", "name": "Legendary Resistance", "most": 3}]}
    stiff = {"name": "Statue", "max_hp": 20, "stats": {"save_dex": 30}}
    t, ids = fight(DRAGON, boss, stiff)
    t = t.do(resolve(t.present, "add_condition", {"id": ids["Statue"], "name": "Paralyzed", "until": "never"}))
    action = resolve(t.present, "d20_save", {"effect": BREATH, "targets": [{"id": ids["Lich"], "legendary": True}, {"id": ids["Statue"]}]},
                     Scripted([*SIXTEEN, 2]))
    assert [r["saved"] for r in action.args["results"]] == [False, False] and action.args["results"][1]["auto_fail"]
    t = t.do(action)
    lich = t.present.get(ids["Lich"])
    assert lich.hp == 135 - 24 and lich.tools[0].left == 2
    assert t.present.get(ids["Statue"]).hp == 0
    assert any("spends a Legendary Resistance" in e.text for e in t.log())
    assert any(e.text == "Statue: Dex save vs DC 17, failed automatically" for e in t.log())
    for _ in range(2):  # the two uses left
        t = t.do(resolve(t.present, "d20_save", {"effect": BREATH, "targets": [{"id": ids["Lich"], "legendary": True}]}, Scripted([*SIXTEEN, 1])))
    assert t.present.get(ids["Lich"]).tools[0].left == 0
    with pytest.raises(RuleError, match="no Legendary Resistance left"):
        t.do(resolve(t.present, "d20_save", {"effect": BREATH, "targets": [{"id": ids["Lich"], "legendary": True}]}, Scripted([*SIXTEEN, 1])))


def test_fire_through_a_save_stops_a_trolls_regeneration_and_a_concentrating_target_is_reminded():
    troll = {"name": "Troll", "max_hp": 84, "stats": {"save_dex": 1},
             "tools": [{"kind": "regeneration", "amount": "10", "stops": "acid, fire"}]}
    mage = {"name": "Mage", "side": "party", "pc": True, "max_hp": 40, "stats": {"save_dex": 2}}
    t, ids = fight(DRAGON, troll, mage)
    t = t.do(resolve(t.present, "add_condition", {"id": ids["Mage"], "name": "Concentrating", "until": "never"}))
    t = t.do(resolve(t.present, "d20_save", {"effect": BREATH, "targets": [{"id": ids["Troll"]}, {"id": ids["Mage"]}]},
                     Scripted([*SIXTEEN, 20, 1])))
    assert t.present.get(ids["Troll"]).tools[0].paused
    assert any(e.kind == "concentration" and "DC 24" in e.text for e in t.log())


def test_a_failed_save_gives_its_condition_with_its_duration_source_and_repeated_save():
    glare = {"name": "Claws paralysis", "ability": "con", "dc": 10, "condition": "Paralyzed", "rounds": 10, "repeat": True}
    t, ids = fight({"name": "Ghoul", "max_hp": 22}, {"name": "Aria", "side": "party", "pc": True, "max_hp": 30, "stats": {"save_con": 1}})
    t = t.do(resolve(t.present, "d20_save", {"source": ids["Ghoul"], "effect": glare, "targets": [{"id": ids["Aria"]}]}, Scripted([4])))
    aria = t.present.get(ids["Aria"])
    (k,) = aria.conditions
    assert (k.name, k.source_id, k.save, k.duration.event, k.duration.anchor_id, k.duration.remaining) == (
        "Paralyzed", ids["Ghoul"], ("con", 10), "start", ids["Ghoul"], 10)
    assert "Con save DC 10 at the end of each of its turns" in k.note
    immune = {"name": "Zombie", "max_hp": 22, "defenses": {"condition_immunities": ["paralyzed"]}}
    t, ids = fight({"name": "Ghoul", "max_hp": 22}, immune)
    t = t.do(resolve(t.present, "d20_save", {"effect": glare, "targets": [{"id": ids["Zombie"]}]}, Scripted([4])))
    assert t.present.get(ids["Zombie"]).conditions == () and t.log()[-1].text == "Zombie is immune to paralyzed"


def test_bad_requests_are_refused_with_a_message():
    t, ids = fight(DRAGON, *GOBLINS)
    for args, message in (({"effect": BREATH, "targets": []}, "1 to 50 targets"),
                          ({"effect": BREATH, "targets": [{"id": "nobody"}]}, "no longer in this encounter"),
                          ({"effect": BREATH, "targets": [{"id": ids["Goblin 1"]}, {"id": ids["Goblin 1"]}]}, "a target twice"),
                          ({"effect": {**BREATH, "dc": 99}, "targets": [{"id": ids["Goblin 1"]}]}, "DC is a whole number"),
                          ({"effect": {**BREATH, "damage": "16d6 jelly"}, "targets": [{"id": ids["Goblin 1"]}]}, "not a damage type"),
                          ({"effect": BREATH, "targets": [{"id": ids["Goblin 1"], "d20": 21}]}, "typed d20"),
                          ({"effect": BREATH, "targets": [{"id": ids["Goblin 1"], "cover": "total"}]}, "Cover")):
        with pytest.raises(RuleError, match=message):
            t.do(resolve(t.present, "d20_save", args, random.Random(1)))


def test_half_cover_adds_2_to_a_dexterity_save():
    t, ids = fight(DRAGON, *GOBLINS)
    action = resolve(t.present, "d20_save", {"effect": BREATH, "targets": [{"id": ids["Goblin 1"], "cover": "half"}]}, Scripted([*SIXTEEN, 13]))
    assert action.args["results"][0]["total"] == 13 + 2 + 2 and action.args["results"][0]["saved"]


ASSASSIN = {"name": "Assassin", "max_hp": 78, "attacks": [{"name": "Shortsword", "bonus": 6, "damage": "1d6+3 piercing",
            "rider": {"name": "Shortsword", "ability": "con", "dc": 15, "success": "half", "damage": "7d6 poison"}}]}


def test_the_assassins_hit_then_its_poison_save():
    t, ids = fight(ASSASSIN, {"name": "Aria", "side": "party", "pc": True, "max_hp": 60, "stats": {"ac": 14, "save_con": 2}})
    # d20 15 hits; 1d6 = 4 (7 piercing); Aria's Con save: d20 10 + 2 = 12, failed; 7d6 = 7 x 3 = 21 poison.
    action = resolve(t.present, "d20_attack", {"attacker": ids["Assassin"], "target": ids["Aria"], "with": "Shortsword"},
                     Scripted([15, 4, 10, 3, 3, 3, 3, 3, 3, 3]))
    t = t.do(action)
    assert t.present.get(ids["Aria"]).hp == 60 - 7 - 21
    texts = [e.text for e in t.logs[t.cursor - 1]]
    assert "Shortsword: Aria: Con save 12 vs DC 15, failed" in texts and "Aria took 21 poison damage from Assassin" in texts
    miss = resolve(t.present, "d20_attack", {"attacker": ids["Assassin"], "target": ids["Aria"], "with": "Shortsword"}, Scripted([2]))
    assert "rider" not in miss.args


def test_the_assassins_attack_chart_counts_the_poison_only_through_the_save():
    t, ids = fight(ASSASSIN, {"name": "Aria", "side": "party", "pc": True, "max_hp": 60, "stats": {"ac": 14, "save_con": 2}})
    odds = attack_odds(attack_spec(t.present, {"attacker": ids["Assassin"], "target": ids["Aria"], "with": "Shortsword"}))
    # Brute force: every d20, every face of the weapon's 1d6 (doubled on a 20), and the poison's 7d6 sums
    # with the save: fail (d20 + 2 < 15: 12 in 20) whole, else half rounded down.
    poison: dict[int, Fraction] = {}
    sums: dict[int, int] = {0: 1}
    for _ in range(7):
        sums = {s + f: sums.get(s + f - 0, 0) for s in range(0, 43) for f in range(1, 7) if sums.get(s)} or sums
    ways = {0: 1}
    for _ in range(7):
        nxt: dict[int, int] = {}
        for total, count in ways.items():
            for face in range(1, 7):
                nxt[total + face] = nxt.get(total + face, 0) + count
        ways = nxt
    for value, count in ways.items():
        p = Fraction(count, 6 ** 7)
        poison[value] = poison.get(value, Fraction(0)) + Fraction(12, 20) * p
        poison[value // 2] = poison.get(value // 2, Fraction(0)) + Fraction(8, 20) * p
    expected: dict[int, Fraction] = {}
    for d20 in range(1, 21):
        hit, crit = d20 == 20 or (d20 != 1 and d20 + 6 >= 14), d20 == 20
        if not hit:
            expected[0] = expected.get(0, Fraction(0)) + Fraction(1, 20)
            continue
        for faces in product(range(1, 7), repeat=2 if crit else 1):
            weapon = sum(faces) + 3
            for v, p in poison.items():
                key = weapon + v
                expected[key] = expected.get(key, Fraction(0)) + Fraction(1, 20) * Fraction(1, 6 ** len(faces)) * p
    got = dict(odds.damage.pmf)
    assert set(got) == {k for k, v in expected.items() if v}
    assert max(abs(got[k] - float(v)) for k, v in expected.items()) < 1e-12
    alone = save_odds(SaveMode(), 2, 15, split_typed("7d6 poison"), Defenses(), "half")
    assert alone.p_fail == pytest.approx(0.6)


def test_the_ghouls_claws_paralyze_on_a_failed_save():
    ghoul = {"name": "Ghoul", "max_hp": 22, "attacks": [{"name": "Claws", "bonus": 4, "damage": "2d4+2 slashing",
             "rider": {"name": "Claws", "ability": "con", "dc": 10, "condition": "Paralyzed", "rounds": 10, "repeat": True}}]}
    t, ids = fight(ghoul, {"name": "Aria", "side": "party", "pc": True, "max_hp": 30, "stats": {"ac": 12, "save_con": 0}})
    t = t.do(resolve(t.present, "d20_attack", {"attacker": ids["Ghoul"], "target": ids["Aria"]}, Scripted([12, 2, 2, 6])))
    aria = t.present.get(ids["Aria"])
    assert aria.hp == 30 - 6 and [k.name for k in aria.conditions] == ["Paralyzed"] and aria.conditions[0].save == ("con", 10)


def test_the_repeated_save_at_the_end_of_its_turn_ends_the_condition_on_a_success():
    glare = {"name": "Claws", "ability": "con", "dc": 10, "condition": "Paralyzed", "rounds": 10, "repeat": True}
    t, ids = fight({"name": "Ghoul", "max_hp": 22}, {"name": "Aria", "side": "party", "pc": True, "max_hp": 30, "stats": {"save_con": 1}})
    t = t.do(resolve(t.present, "d20_save", {"source": ids["Ghoul"], "effect": glare, "targets": [{"id": ids["Aria"]}]}, Scripted([4])))
    (k,) = t.present.get(ids["Aria"]).conditions
    from pyengine.systems.saving_throws import repeat_odds
    assert repeat_odds(t.present.get(ids["Aria"]), "con", 10)[2] == pytest.approx(12 / 20)   # d20 + 1 >= 10
    t = t.do(resolve(t.present, "repeat_save", {"id": ids["Aria"], "condition": k.id}, Scripted([8])))
    assert t.log()[-1].text == "Aria: Con save 9 vs DC 10 to end Paralyzed: failed, still paralyzed"
    assert [x.name for x in t.present.get(ids["Aria"]).conditions] == ["Paralyzed"]
    t = t.do(resolve(t.present, "repeat_save", {"id": ids["Aria"], "condition": k.id, "d20": 9}))
    assert t.log()[-1].text == "Aria: Con save 10 vs DC 10 (typed) to end Paralyzed: succeeded, Paralyzed ends"
    assert t.present.get(ids["Aria"]).conditions == ()
    with pytest.raises(RuleError, match="no longer has that condition"):
        t.do(resolve(t.present, "repeat_save", {"id": ids["Aria"], "condition": k.id}, Scripted([8])))
    assert t.undo().present.get(ids["Aria"]).conditions == (k,)
