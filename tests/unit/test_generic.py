"""Generic d20: AC as a stat, death saves for a dying player character (SRD), the concentration
reminder, and damage / healing / conditions on several combatants as one undoable step."""

from __future__ import annotations

import pytest

from pyengine.errors import RuleError
from pyengine.systems.generic import concentration_dc, death_save_outcome
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.helpers import step
from tests.unit.scripted import Scripted


def fight() -> Timeline:
    t = Timeline.start(new_encounter("e1"))
    for name, fields in (("Aria", {"pc": True, "side": "party", "max_hp": 12, "stats": {"ac": 15}}),
                         ("Goblin", {"max_hp": 7}), ("Goblin", {"max_hp": 7}), ("Mage", {"max_hp": 30})):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, **fields}}))
    return t


@pytest.mark.parametrize("face, outcome", [(20, (0, 0, True)), (1, (0, 2, False)), (10, (1, 0, False)), (9, (0, 1, False))])
def test_one_death_save(face, outcome):
    assert death_save_outcome(face) == outcome


def test_death_saves_count_to_stable_and_a_20_brings_the_character_back():
    t = step(fight(), "damage", id="c1", amount=12)
    aria = t.present.get("c1")
    assert aria.hp == 0 and (aria.stat("death_successes"), aria.stat("death_failures")) == (0, 0)
    t = step(t, "death_save", Scripted([12]), id="c1")
    t = step(t, "death_save", Scripted([1]), id="c1")  # a 1: two failures
    assert t.log()[-1].text == "Aria rolls a 1 on a death save: two failures (1 ✓, 2 ✗)"
    t = step(t, "death_save", id="c1", result="success")  # rolled at the table
    t = step(t, "death_save", Scripted([15]), id="c1")
    assert t.present.get("c1").stat("stable") and t.log()[-1].text.endswith("Aria is stable")
    with pytest.raises(RuleError, match="not dying"):
        resolve(t.present, "death_save", {"id": "c1"}, Scripted([]))
    # Damage wakes a stable character: dying again, one failure more.
    t = step(t, "damage", id="c1", amount=1)
    assert not t.present.get("c1").stat("stable") and t.present.get("c1").stat("death_failures") == 3
    assert t.present.get("c1").stat("dead") and "Aria dies" in t.log()[-1].text
    back = step(step(fight(), "damage", id="c1", amount=12), "death_save", Scripted([20]), id="c1")
    assert back.present.get("c1").hp == 1 and back.log()[-1].roll == "1d20 (20) = 20"


def test_only_a_dying_player_character_saves():
    t = step(fight(), "damage", id="c2", amount=7)  # a goblin at 0: no death saves
    with pytest.raises(RuleError, match="not dying"):
        resolve(t.present, "death_save", {"id": "c2"}, Scripted([]))


def test_a_fresh_count_each_time_the_character_drops():
    t = step(step(fight(), "damage", id="c1", amount=12), "death_save", id="c1", result="failure")
    t = step(step(t, "heal", id="c1", amount=3), "damage", id="c1", amount=5)
    assert (t.present.get("c1").stat("death_successes"), t.present.get("c1").stat("death_failures")) == (0, 0)


@pytest.mark.parametrize("damage, dc", [(5, 10), (21, 10), (22, 11), (60, 30)])
def test_concentration_dc_is_ten_or_half_the_damage(damage, dc):
    assert concentration_dc(damage) == dc


def test_a_concentrating_creature_is_reminded_of_its_save():
    t = step(fight(), "add_condition", id="c4", name="Concentrating", until="never")
    t = step(t, "damage", id="c4", amount=25)
    assert t.log()[-1].text == "Mage is concentrating: Constitution save DC 12 to keep it"
    t = step(t, "damage", id="c2", amount=3)
    assert "concentrating" not in t.log()[-1].text


def test_a_fireball_on_several_is_one_step_with_half_damage_on_a_save():
    t = fight()
    before = len(t.actions)
    t = step(t, "batch", actions=[{"kind": "damage", "args": {"id": "c2", "amount": 14}},
                                  {"kind": "damage", "args": {"id": "c3", "amount": 7, "half": True}},
                                  {"kind": "add_condition", "args": {"id": "c4", "name": "Prone", "until": "never"}}])
    assert len(t.actions) == before + 1
    assert [t.present.get(c).hp for c in ("c2", "c3")] == [0, 0] and t.present.get("c4").conditions
    assert "Goblin took 7 damage (saved: half damage)" in [e.text for e in t.log()]
    assert t.undo().present == fight().present


@pytest.mark.parametrize("actions, message", [
    ([], "1 to 50"),
    ([{"kind": "remove_combatant", "args": {"id": "c2"}}], "Only damage, healing and conditions"),
    ([{"kind": "damage", "args": {"id": "c2", "amount": 3}}, {"kind": "damage", "args": {"id": "c9", "amount": 3}}], "no longer"),
    ("fireball", "1 to 50"),
])
def test_a_batch_is_refused_whole(actions, message):
    t = fight()
    with pytest.raises(RuleError, match=message):
        step(t, "batch", actions=actions)
    assert t.present.get("c2").hp == 7


# -- the d20 attack ----------------------------------------------------------------------------

def _duel(attacker_stats: dict, ac: int = 13, hp: int = 12):
    from pyengine.tracker import Timeline, new_encounter, resolve

    t = Timeline.start(new_encounter("e1", "Duel", "generic"))
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Ana", "side": "party", "pc": True, "max_hp": 20,
                                                                  "stats": attacker_stats}}))
    return t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Orc", "max_hp": hp, "stats": {"ac": ac}}}))


@pytest.mark.parametrize("adv, cover, bonus, crit_on", [("", "none", 5, 20), ("adv", "half", 3, 19), ("dis", "three-quarters", 8, 20),
                                                       ("", "none", -2, 18)])
def test_d20_attack_odds_match_enumeration(adv, cover, bonus, crit_on):
    from fractions import Fraction
    from itertools import product

    from pyengine.systems.generic import attack_odds, attack_spec

    t = _duel({"to_hit": bonus, "damage": "1d4+1", "crit_on": crit_on})
    odds = attack_odds(attack_spec(t.present, {"attacker": "c1", "target": "c2", "adv": adv, "cover": cover}))
    ac = 13 + {"none": 0, "half": 2, "three-quarters": 5}[cover]
    expected: dict[int, Fraction] = {}
    p_hit = p_crit = Fraction(0)
    rolls = list(product(range(1, 21), repeat=2)) if adv else [(n,) for n in range(1, 21)]
    for faces in rolls:
        natural = max(faces) if adv == "adv" else min(faces) if adv == "dis" else faces[0]
        p = Fraction(1, 20 ** len(faces))
        crit = natural >= crit_on
        hit = crit or (natural != 1 and natural + bonus >= ac)
        p_hit += p if hit else 0
        p_crit += p if crit else 0
        if not hit:
            expected[0] = expected.get(0, Fraction(0)) + p
            continue
        for dice in product(range(1, 5), repeat=2 if crit else 1):
            q = p / 4 ** len(dice)
            expected[sum(dice) + 1] = expected.get(sum(dice) + 1, Fraction(0)) + q
    assert odds.p_hit == pytest.approx(float(p_hit), abs=1e-12) and odds.p_crit == pytest.approx(float(p_crit), abs=1e-12)
    assert set(odds.damage.pmf) == set(expected)
    for v, p in expected.items():
        assert odds.damage.pmf[v] == pytest.approx(float(p), abs=1e-12)


def test_d20_attack_rolls_scripted_dice_and_applies_through_the_damage_rules():
    from pyengine.tracker import resolve
    from tests.unit.scripted import Scripted

    t = _duel({"to_hit": 4, "damage": "1d8+2"})
    hit = resolve(t.present, "d20_attack", {"attacker": "c1", "target": "c2"}, Scripted([12, 5]))
    assert hit.args["text"] == "1d20 (12) +4 = 16 vs AC 13: hit; 1d8 (5) + 2 = 7" and hit.args["damage"] == 7
    crit = resolve(t.present, "d20_attack", {"attacker": "c1", "target": "c2", "adv": "adv"}, Scripted([3, 20, 8, 6]))
    assert crit.args["crit"] and crit.args["damage"] == 16 and "2d8 (8, 6) + 2 = 16 (dice doubled)" in crit.args["text"]
    fumble = resolve(t.present, "d20_attack", {"attacker": "c1", "target": "c2", "modifier": "30"}, Scripted([1]))
    assert not fumble.args["hit"] and fumble.args["damage"] == 0  # a natural 1 misses, whatever the bonus
    after = t.do(crit)
    assert after.present.get("c2").hp == 0 and after.log()[-1].text == "Orc dies"  # the floor at 0; a monster at 0 dies (SRD)
    assert after.undo().present.get("c2").hp == 12  # one undoable step


@pytest.mark.parametrize("args, message", [({"cover": "complete"}, "complete cover"), ({"modifier": "lots"}, "whole number"),
                                           ({"target": "c1"}, "itself")])
def test_d20_attack_refusals(args, message):
    from pyengine.errors import RuleError
    from pyengine.tracker import resolve

    t = _duel({"to_hit": 4})
    with pytest.raises(RuleError, match=message):
        resolve(t.present, "d20_attack", {"attacker": "c1", "target": "c2", **args})
    t2 = _duel({"damage": "1d6+"})
    with pytest.raises(RuleError, match="damage"):
        resolve(t2.present, "d20_attack", {"attacker": "c1", "target": "c2"})


def test_initiative_again_every_round_as_an_option_of_the_generic_system():
    """The table's variant: each new round everyone rolls d20 + modifier again and the order follows."""
    t = Timeline.start(new_encounter("e1", "Pit", system="generic", initiative="every_round"))
    for name, mod in (("Aria", 3), ("Goblin", 2), ("Ogre", 0)):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "init_mod": mod, "max_hp": 9}}))
    t = t.do(resolve(t.present, "start_combat", {}, Scripted([10, 5, 1])))  # Aria 13, Goblin 7, Ogre 1
    assert [c.name for c in t.present.combatants] == ["Aria", "Goblin", "Ogre"]
    for _ in range(2):
        t = t.do(resolve(t.present, "next_turn", {}, Scripted([])))
    t = t.do(resolve(t.present, "next_turn", {}, Scripted([1, 4, 20])))  # round 2: Aria 4, Goblin 6, Ogre 20
    assert t.present.round == 2 and [c.name for c in t.present.combatants] == ["Ogre", "Goblin", "Aria"]
    assert t.present.active_id == t.present.combatants[0].id
    assert [e.text for e in t.logs[t.cursor - 1] if e.kind == "initiative"] == [
        "Aria rolled 4 for initiative", "Goblin rolled 6 for initiative", "Ogre rolled 20 for initiative"]
    once = Timeline.start(new_encounter("e2", "Pit", system="generic"))
    for name, mod in (("Aria", 3), ("Goblin", 2)):
        once = once.do(resolve(once.present, "add_combatant", {"combatant": {"name": name, "init_mod": mod, "max_hp": 9}}))
    once = once.do(resolve(once.present, "start_combat", {}, Scripted([10, 5])))
    for _ in range(2):
        once = once.do(resolve(once.present, "next_turn", {}, Scripted([])))  # no dice: the SRD rolls once
    assert once.present.round == 2 and [c.name for c in once.present.combatants] == ["Aria", "Goblin"]
