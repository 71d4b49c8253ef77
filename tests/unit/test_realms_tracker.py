"""Enchanted Realms in the tracker: d10 initiative with d20 roll-offs (3-way ties), the every-round
option, reactions / Defend / At the ready clearing at the right moment, attacks built from the
combatants (conditions derive advantage), next-round crit awards, saves, competitions, chase,
defense rolls, undo and save/load."""

from __future__ import annotations

import pytest

from pyengine.errors import RuleError
from pyengine.storage import dumps, loads, timeline_from_dict, timeline_to_dict
from pyengine.systems.realms import build_attack
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.helpers import active, ids, order, step
from tests.unit.scripted import Scripted

ROSTER = [
    ("Aldric", {"side": "party", "pc": True, "init_mod": 2, "max_hp": 12,
                "stats": {"ac": 14, "str": 2, "weight": 1, "skills": "melee fighting, slashing", "damage_type": "edged", "body_mod": 2}}),
    ("Bryn", {"side": "party", "pc": True, "init_mod": 1, "max_hp": 9,
              "stats": {"ac": 12, "agi": 3, "skills": "ranged fighting", "damage_type": "piercing", "ranged": True, "speed": 40}}),
    ("Ghoul", {"side": "opponents", "init_mod": 0, "max_hp": 10,
               "stats": {"ac": 12, "ac_types": "blunt 14", "skills": "melee fighting", "resistant": "edged", "damage_type": "necrotic"}}),
    ("Bat", {"side": "opponents", "init_mod": 3, "max_hp": 3, "stats": {"ac": 10, "skills": "melee fighting", "size": 1}}),
]


def fight(**options) -> Timeline:
    t = Timeline.start(new_encounter("e1", "Crypt", system="realms", **options))
    for name, fields in ROSTER:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, **fields}}))
    return t


def test_d10_initiative_and_a_three_way_tie_rolled_off_on_d20():
    # d10: Aldric 6+2=8, Bryn 7+1=8, Ghoul 8+0=8, Bat 2+3=5. Roll-off among the three: 15, 9, 15;
    # Aldric and the Ghoul tie again: 4, 11.
    t = step(fight(), "start_combat", Scripted([6, 7, 8, 2, 15, 9, 15, 4, 11]))
    assert order(t) == ["Ghoul", "Aldric", "Bryn", "Bat"]
    assert [c.initiative for c in t.present.combatants] == [8, 8, 8, 5]
    rolls = {e.who: e.roll for e in t.log() if e.kind == "initiative"}
    assert rolls[ids(t)["Ghoul"]].endswith("tie roll-off d20: 15, 11")
    assert "1d10" in rolls[ids(t)["Bat"]]


def test_initiative_again_every_round_when_the_option_says_so():
    t = step(fight(initiative="every_round"), "start_combat", Scripted([1, 5, 8, 4]))  # 3, 6, 8, 7
    assert order(t) == ["Ghoul", "Bat", "Bryn", "Aldric"]
    for _ in range(3):
        t = step(t, "next_turn", Scripted([]))
    # the 4th tap starts round 2: everyone rolls again
    t = step(t, "next_turn", Scripted([1, 1, 1, 9]))  # rolled in the present order: Ghoul, Bat, Bryn, Aldric
    assert t.present.round == 2 and order(t) == ["Aldric", "Bat", "Bryn", "Ghoul"] and active(t) == "Aldric"
    once = step(fight(), "start_combat", Scripted([1, 5, 8, 4]))
    for _ in range(4):
        once = step(once, "next_turn", Scripted([]))
    assert once.present.round == 2 and order(once) == ["Ghoul", "Bat", "Bryn", "Aldric"]


def started() -> Timeline:
    return step(fight(), "start_combat", Scripted([9, 7, 5, 1]))  # Aldric 11, Bryn 8, Ghoul 5, Bat 4


def test_reaction_once_per_round_reset_at_the_new_round():
    t = started()
    k = ids(t)
    t = step(t, "er_stance", id=k["Ghoul"], stance="reaction", kind="dodge")
    with pytest.raises(RuleError, match="already used the reaction"):
        step(t, "er_stance", id=k["Ghoul"], stance="reaction")
    t = step(t, "next_turn")
    t = step(t, "next_turn")
    assert active(t) == "Ghoul" and "reaction_used" in t.present.get(k["Ghoul"]).flags  # not at its own turn
    t = step(t, "next_turn")
    t = step(t, "next_turn")  # round 2
    assert t.present.round == 2 and "reaction_used" not in t.present.get(k["Ghoul"]).flags


def test_defend_lasts_until_the_defenders_next_turn_and_takes_reactions_for_both_rounds():
    t = started()
    k = ids(t)
    with pytest.raises(RuleError, match="only on Bryn's turn"):
        step(t, "er_stance", id=k["Bryn"], stance="defend")
    t = step(t, "er_stance", id=k["Aldric"], stance="defend")
    assert "defending" in t.present.get(k["Aldric"]).flags
    with pytest.raises(RuleError, match="defending: no reactions"):
        step(t, "er_stance", id=k["Aldric"], stance="reaction")
    # attacks against a defender are at disadvantage; saves at advantage
    built = build_attack(t.present, {"attacker": k["Ghoul"], "target": k["Aldric"]})
    assert built.pool.net == "dis" and "target defending" in built.text
    t = step(t, "next_turn")
    t = step(t, "er_save", Scripted([3, 17]), id=k["Aldric"], kind="body", modifier=0, dc=15)
    assert "kept 17" in t.log()[-1].roll and "success" in t.log()[-1].text
    for _ in range(3):
        t = step(t, "next_turn")
    assert t.present.round == 2 and active(t) == "Aldric"
    a = t.present.get(k["Aldric"])
    assert "defending" not in a.flags and "reaction_used" in a.flags  # no reaction this round either
    # defend is not allowed after a reaction this round
    t = step(t, "next_turn")
    t = step(t, "er_stance", id=k["Bryn"], stance="reaction", kind="flee attack")
    with pytest.raises(RuleError, match="cannot defend"):
        step(t, "er_stance", id=k["Bryn"], stance="defend")


def test_at_the_ready_is_held_until_the_start_of_the_next_turn():
    t = started()
    k = ids(t)
    with pytest.raises(RuleError, match="needs a trigger"):
        step(t, "er_stance", id=k["Aldric"], stance="ready", trigger=" ")
    t = step(t, "er_stance", id=k["Aldric"], stance="ready", trigger="if the ghoul steps out, attack")
    a = t.present.get(k["Aldric"])
    assert "at_ready" in a.flags and a.stat("ready_trigger") == "if the ghoul steps out, attack"
    with pytest.raises(RuleError, match="already took the action"):
        step(t, "er_stance", id=k["Aldric"], stance="defend")
    for _ in range(4):
        t = step(t, "next_turn")
    a = t.present.get(k["Aldric"])
    assert active(t) == "Aldric" and "at_ready" not in a.flags and a.stat("ready_trigger") is None


def test_attack_built_from_the_combatants_prone_target_resistance_and_per_type_ac():
    t = started()
    k = ids(t)
    t = step(t, "add_condition", id=k["Ghoul"], name="Prone")
    built = build_attack(t.present, {"attacker": k["Aldric"], "target": k["Ghoul"]})
    assert built.text == "3d20: melee fighting, slashing, advantage from target prone (melee) · edged"
    assert built.pool.ac == 12 and built.pool.resistant and built.pool.bonus == 3 and built.pool.crit_skill
    blunt = build_attack(t.present, {"attacker": k["Aldric"], "target": k["Ghoul"], "damage_type": "blunt"})
    assert blunt.pool.ac == 14 and not blunt.pool.resistant
    ranged = build_attack(t.present, {"attacker": k["Bryn"], "target": k["Ghoul"]})
    assert ranged.pool.net == "dis" and "target prone (ranged)" in ranged.text and ranged.pool.keep_worse
    # roll: 20, 14, 3 -> 2 hits, crit (slashing, 3 dice): award 12 hits d3 2; advantage d3 3;
    # 2 + 2 + 3 + 3 (STR 2 + weight 1) = 10, resistant -> 5
    t = step(t, "er_attack", Scripted([20, 14, 3, 12, 2, 3]), attacker=k["Aldric"], target=k["Ghoul"])
    g = t.present.get(k["Ghoul"])
    assert g.hp == 5
    entry = t.log()[-1]
    assert entry.text == "Aldric attacks Ghoul (crit): 5 Body" and "CRIT" in entry.roll and "after damage type 5" in entry.roll
    t = t.undo()
    assert t.present.get(k["Ghoul"]).hp == 10


def test_conditions_refuse_and_sneak_rules():
    t = started()
    k = ids(t)
    t2 = step(t, "add_condition", id=k["Aldric"], name="Stunned")
    with pytest.raises(RuleError, match="stunned: no actions"):
        build_attack(t2.present, {"attacker": k["Aldric"], "target": k["Ghoul"]})
    t3 = step(t, "add_condition", id=k["Aldric"], name="Charmed", source=k["Ghoul"])
    with pytest.raises(RuleError, match="charmer"):
        build_attack(t3.present, {"attacker": k["Aldric"], "target": k["Ghoul"]})
    build_attack(t3.present, {"attacker": k["Aldric"], "target": k["Bat"]})
    with pytest.raises(RuleError, match="light or reach"):
        build_attack(t.present, {"attacker": k["Aldric"], "target": k["Ghoul"], "sneak": True})
    sneak = build_attack(t.present, {"attacker": k["Bryn"], "target": k["Ghoul"], "sneak": True})
    assert sneak.pool.dice == 2 and "sneak attack" in sneak.text
    with pytest.raises(RuleError, match="complete cover"):
        build_attack(t.present, {"attacker": k["Bryn"], "target": k["Ghoul"], "cover": "complete"})


def test_next_round_crit_award_used_on_the_next_attack_or_forfeited():
    t = step(fight(crit_timing="next_round"), "start_combat", Scripted([9, 7, 5, 1]))
    k = ids(t)
    t = step(t, "er_attack", Scripted([20, 3]), attacker=k["Aldric"], target=k["Bat"])
    assert t.present.get(k["Aldric"]).stat("award_round") == 2
    assert "next attack next round" in t.log()[-1].text
    for _ in range(4):
        t = step(t, "next_turn")
    built = build_attack(t.present, {"attacker": k["Aldric"], "target": k["Ghoul"]})
    assert built.pool.dice == 3 and "crit award" in built.text
    other = build_attack(t.present, {"attacker": k["Aldric"], "target": k["Ghoul"], "same_weapon": False})
    assert other.pool.dice == 2 and any("forfeited" in n for n in other.notes)
    t = step(t, "er_attack", Scripted([5, 5, 5]), attacker=k["Aldric"], target=k["Ghoul"])
    assert t.present.get(k["Aldric"]).stat("award_round") is None


def test_competitions_applied_to_the_tracker():
    t = started()
    k = ids(t)
    # grapple: Aldric (body +2) vs the Bat (tiny: Aldric larger by 2 sizes, +4): 5+2+4 = 11 vs 9
    t = step(t, "er_competition", Scripted([5, 9]), aggressor=k["Aldric"], victim=k["Bat"], kind="grapple")
    bat = t.present.get(k["Bat"])
    assert [c.name for c in bat.conditions] == ["Grappled"] and bat.conditions[0].source_id == k["Aldric"]
    # escape: the bat (smaller) rolls 12 vs 3 + 2 + 4 = 9: free
    t = step(t, "er_competition", Scripted([12, 3]), aggressor=k["Bat"], victim=k["Aldric"], kind="escape")
    assert t.present.get(k["Bat"]).conditions == ()
    with pytest.raises(RuleError, match="not grappled"):
        step(t, "er_competition", Scripted([1, 1]), aggressor=k["Bat"], victim=k["Aldric"], kind="escape")
    # trip: the ghoul falls prone; a tie fails
    t = step(t, "er_competition", Scripted([7, 8]), aggressor=k["Aldric"], victim=k["Ghoul"], kind="trip")
    assert [c.name for c in t.present.get(k["Ghoul"]).conditions] == ["Prone"]
    t2 = step(t, "er_competition", Scripted([4, 6]), aggressor=k["Aldric"], victim=k["Bryn"], kind="shove")
    # shove: 4 + 2 = 6 vs 6: a tie keeps things as they were
    assert "tie: the aggressor fails" in t2.log()[-1].roll and t2.log()[-1].text.endswith("Aldric fails")


def test_chase_and_defense_roll():
    t = started()
    k = ids(t)
    # Bryn speed 40, Agility 3: the 40 row moves at s10, s9, s8, s7, s5, s4, s3, s2 (8 chances)
    faces = [10, 1, 20, 5, 2, 10, 10, 10]
    t = step(t, "er_chase", Scripted(faces), id=k["Bryn"])
    assert "gains 8 hexes" in t.log()[-1].text  # 1 + 0 + 2 + 1 + 1 + 1 + 1 + 1
    # defense roll variant: the Ghoul (1 die, +0) against Aldric (AC 14, edged... necrotic): DC 21; 8+14 = 22 avoids
    t = step(t, "er_defense", Scripted([6]), monster=k["Ghoul"], pc=k["Aldric"])
    assert t.present.get(k["Aldric"]).hp == 11 and "DC 21" in t.log()[-1].roll


def test_realms_fight_saves_and_replays():
    t = started()
    k = ids(t)
    t = step(t, "er_attack", Scripted([20, 14, 3, 12, 2]), attacker=k["Aldric"], target=k["Ghoul"])
    t = step(t, "er_stance", id=k["Ghoul"], stance="reaction", kind="dodge")
    again = timeline_from_dict(loads(dumps(timeline_to_dict(t))))
    assert again.present == t.present


def test_impalement_reaction_and_blind_shot_in_the_tracker():
    t = started()
    k = ids(t)
    t = step(t, "update_combatant", id=k["Bryn"], fields={"stats": {"polearm": True, "str": 1, "damage_type": "piercing"}})
    with pytest.raises(RuleError, match="needs a polearm"):
        step(t, "er_impale", Scripted([]), holder=k["Aldric"], charger=k["Ghoul"])
    # 3d20 vs the Ghoul's AC 12: 15, 3, 12 -> 2 hits; no 20 so no crit; +1 STR = 3 Body
    t = step(t, "er_impale", Scripted([15, 3, 12]), holder=k["Bryn"], charger=k["Ghoul"])
    assert t.present.get(k["Ghoul"]).hp == 7 and "reaction_used" in t.present.get(k["Bryn"]).flags
    with pytest.raises(RuleError, match="already used the reaction"):
        step(t, "er_impale", Scripted([1, 1, 1]), holder=k["Bryn"], charger=k["Ghoul"])
    # Blind shot: Bryn's dice 18 and 5 missed the invisible Bat; candidates Aldric, Ghoul + 3 empty: d5 = 2 -> the Ghoul;
    # rolled forward 20 and 7 vs AC 12: one hit + Agility 3 (ranged) = 4 Body
    t = step(t, "add_condition", id=k["Bat"], name="Invisible")
    attack = resolve(t.present, "er_attack", {"attacker": k["Bryn"], "target": k["Bat"]}, Scripted([18, 5, 4]))
    assert attack.args["unseen"]
    t = step(t, "er_blind_shot", Scripted([2]), attacker=k["Bryn"], target=k["Bat"], faces=[18, 5])
    assert t.present.get(k["Ghoul"]).hp == 3 and "rolled forward 20 7" in t.log()[-1].roll
    t = step(t, "er_blind_shot", Scripted([5]), attacker=k["Bryn"], target=k["Bat"], faces=[18, 5])
    assert "hits nobody else" in t.log()[-1].text
    with pytest.raises(RuleError, match="re-uses the missed attack's dice"):
        step(t, "er_blind_shot", Scripted([1]), attacker=k["Bryn"], target=k["Bat"], faces=[25])


def test_an_attack_is_the_action_or_a_reaction():
    t = started()
    k = ids(t)
    t = step(t, "er_stance", id=k["Aldric"], stance="defend")
    with pytest.raises(RuleError, match="used the action to defend"):
        step(t, "er_attack", Scripted([10, 10]), attacker=k["Aldric"], target=k["Bat"])
    t = started()
    t = step(t, "er_attack", Scripted([3, 3]), attacker=k["Aldric"], target=k["Bat"])
    with pytest.raises(RuleError, match="already took the action"):
        step(t, "er_stance", id=k["Aldric"], stance="defend")
    # the Ghoul's flee attack off its turn uses its reaction; a second one is refused before any die is rolled
    t = step(t, "er_attack", Scripted([3]), attacker=k["Ghoul"], target=k["Aldric"], reaction=True)
    assert "reaction_used" in t.present.get(k["Ghoul"]).flags
    with pytest.raises(RuleError, match="already used the reaction"):
        step(t, "er_attack", Scripted([]), attacker=k["Ghoul"], target=k["Aldric"], reaction=True)
    # at the ready: the triggered attack spends the readied action
    t = step(t, "next_turn")
    t = step(t, "er_stance", id=k["Bryn"], stance="ready", trigger="if the bat moves, shoot")
    t = step(t, "next_turn")
    t = step(t, "er_attack", Scripted([3, 3]), attacker=k["Bryn"], target=k["Bat"], reaction=True)
    assert "at_ready" not in t.present.get(k["Bryn"]).flags and "reaction_used" in t.present.get(k["Bryn"]).flags


def test_defend_only_against_attacks_the_defender_can_see():
    t = started()
    k = ids(t)
    t = step(t, "er_stance", id=k["Aldric"], stance="defend")
    assert build_attack(t.present, {"attacker": k["Ghoul"], "target": k["Aldric"]}).pool.net == "dis"
    assert build_attack(t.present, {"attacker": k["Ghoul"], "target": k["Aldric"], "hidden_attack": True}).pool.net is None


def test_save_in_the_tracker_with_cover_against_an_area_and_auto_fail():
    t = started()
    k = ids(t)
    t = step(t, "er_save", Scripted([10]), id=k["Bryn"], kind="body", modifier=1, dc=15, cover="three-quarters", area=True)
    assert t.log()[-1].text == "Bryn's body save vs DC 15: success" and "= 16" in t.log()[-1].roll
    t = step(t, "add_condition", id=k["Bryn"], name="Stunned")
    t = step(t, "er_save", Scripted([]), id=k["Bryn"], kind="body", modifier=30, dc=5)
    assert t.log()[-1].text.endswith("failure") and "stunned" in t.log()[-1].roll
