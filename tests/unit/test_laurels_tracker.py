"""Laurels and Loot in the tracker: side initiative rounds, free order within a side, surprise,
attacks applied to Stamina and Injuries, parry, undo. Scripted dice."""

from __future__ import annotations

import pytest

from pyengine.errors import RuleError
from pyengine.rules import system_of
from pyengine.tracker import Action, Timeline, new_encounter, resolve
from pyengine.turns import side_state as state
from tests.unit.helpers import active, step
from tests.unit.scripted import Scripted

PARTY = [("Tombril", {"side": "party", "pc": True, "max_hp": 55, "stats": {"level": 9, "str": 8, "dex": 5, "armour": 3, "die": 6, "magic": 2, "injury_max": 20}}),
         ("Cedryk", {"side": "party", "pc": True, "max_hp": 20, "stats": {"level": 3, "dex": 4, "awa": 4, "die": 4, "finesse": True, "injury_max": 12}}),
         ("Wren", {"side": "party", "pc": True, "max_hp": 18, "stats": {"level": 1, "awa": 3, "die": 8, "ranged": True, "injury_max": 10, "cannot_be_surprised": True}})]
FOES = [("Hill Giant", {"side": "opponents", "max_hp": 68, "stats": {"level": 12, "str": 9, "dex": 3, "armour": 1, "die": 6, "injury_max": 30}}),
        ("Half-orc", {"side": "opponents", "max_hp": 20, "stats": {"level": 2, "dex": 1, "armour": 3, "die": 6, "injury_max": 8}})]


def fight(rng=None) -> Timeline:
    t = Timeline.start(new_encounter("e1", "Bridge", system="laurels"))
    for name, fields in PARTY + FOES:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, **fields}}))
    return t


def test_opponents_ambush_surprises_the_party_except_who_cannot_be_surprised():
    t = step(fight(), "start_combat", Scripted([2]), ambush="opponents")
    st = state(t.present)
    assert (st["first"], st["surprised"], st["text"]) == ("opponents", "party", "Party surprised!")
    assert active(t) == "Hill Giant"
    t = step(t, "next_turn")
    assert active(t) == "Half-orc"
    t = step(t, "next_turn")  # the surprised party: only Wren may act in round 1
    assert active(t) == "Wren" and t.present.round == 1
    t = step(t, "next_turn", Scripted([4]))  # round 2: a plain d6, 4 = party first
    assert t.present.round == 2 and state(t.present)["first"] == "party" and active(t) == "Tombril"
    assert "Round 2: Party acts first" in [e.text for e in t.log()]


def test_a_side_acts_in_the_order_the_table_chooses():
    t = step(fight(), "start_combat", Scripted([5]), ambush="none")
    assert state(t.present)["first"] == "party" and active(t) == "Tombril"
    t = step(t, "act_now", id="c3")  # Wren goes first instead
    assert active(t) == "Wren"
    t = step(t, "next_turn")
    assert active(t) == "Tombril"
    t = step(t, "next_turn")
    assert active(t) == "Cedryk"
    with pytest.raises(RuleError):
        step(t, "act_now", id="c4")  # not the opponents' turn yet
    t = step(t, "next_turn")
    assert active(t) == "Hill Giant" and state(t.present)["side"] == "opponents"


def test_worked_example_attack_applied_to_stamina_and_undone():
    t = step(fight(), "start_combat", Scripted([5]))
    t = step(t, "ll_attack", Scripted([5, 3, 4, 3, 2]), attacker="c1", target="c4")
    giant = t.present.get("c4")
    assert giant.hp == 37 and giant.stat("injuries", 0) == 0
    assert t.log()[-1].roll.startswith("dice 5, 3, 4, 3, 2 = 17 +18 -4 = 31")
    t = t.undo()
    assert t.present.get("c4").hp == 68


def test_ranged_hit_goes_to_injuries_and_costs_stamina():
    t = step(fight(), "start_combat", Scripted([5]))
    t = step(t, "act_now", id="c3")
    # Wren, L1 d8 bow, AWA +3 at the half-orc (DEX 1, armour 3): 7 + 3 - 4 = 6 injuries; d4 cost 3.
    t = step(t, "ll_attack", Scripted([7, 3]), attacker="c3", target="c5")
    orc, wren = t.present.get("c5"), t.present.get("c3")
    assert orc.hp == 20 and orc.stat("injuries") == 6
    assert wren.hp == 15


def test_injuries_past_the_limit_put_a_combatant_down_and_it_is_skipped():
    t = step(fight(), "start_combat", Scripted([2]))  # opponents first: the giant acts
    assert active(t) == "Hill Giant"
    # Wren shoots the half-orc: 8 explodes, 8 explodes, 5 = 21, +3 AWA -4 soak = 20 Injuries (of 8).
    t = step(t, "ll_attack", Scripted([8, 8, 5, 2]), attacker="c3", target="c5")
    orc = t.present.get("c5")
    assert orc.stat("injuries") == 20 and system_of(t.present).is_down(orc)
    assert [e.text for e in t.log()][-2:] == ["Wren's ranged attack on Half-orc: 20 Injury", "Wren spends 2 Stamina shooting"]
    t = step(t, "next_turn")  # the downed half-orc is passed over: the party's turn
    assert active(t) == "Tombril" and state(t.present)["side"] == "party"


def test_parry_with_a_weapon_absorbs_until_the_parriers_next_turn():
    t = step(fight(), "start_combat", Scripted([5]))
    t = step(t, "ll_parry", id="c1", **{"with": "weapon"})
    t = step(t, "next_turn")  # Tombril done
    t = step(step(t, "next_turn"), "next_turn")  # Cedryk, Wren done -> Hill Giant
    assert active(t) == "Hill Giant"
    t = step(t, "ll_attack", Scripted([6, 5, 3, 6, 2, 6, 5, 1, 6, 2]), attacker="c4", target="c1")
    tombril = t.present.get("c1")
    assert tombril.hp == 55  # fully absorbed
    assert tombril.stat("weapon_broken") is True  # 4 exploding dice against a +2 sword: it shatters
    assert "parry_weapon" not in tombril.flags


def test_power_attack_breaks_the_attackers_weapon():
    t = step(fight(), "start_combat", Scripted([5]))
    t = step(t, "ll_attack", Scripted([1] * 10), attacker="c1", target="c4", power=True)
    assert t.present.get("c1").stat("weapon_broken") is True
    with pytest.raises(RuleError):
        step(t, "ll_attack", Scripted([1] * 5), attacker="c1", target="c4")


def test_laurels_fight_round_trips_through_the_save_format():
    import json

    from pyengine.storage import timeline_from_dict, timeline_to_dict

    t = step(fight(), "start_combat", Scripted([5]), ambush="party")
    t = step(t, "ll_attack", Scripted([5, 3, 4, 3, 2]), attacker="c1", target="c4")
    again = timeline_from_dict(json.loads(json.dumps(timeline_to_dict(t))))
    assert again.present == t.present


def test_a_fight_whose_only_side_is_surprised_starts_in_round_two():
    """Everyone on one side, and that side surprised in round 1 (d6 6: opponents surprised): nobody
    may act, so round 2 starts at once with its own side roll, rolled as the fight starts."""
    t = Timeline.start(new_encounter("e1", "Cave", system="laurels"))
    for name in ("Bat", "Rat"):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "side": "opponents", "stats": {"level": 1}}}))
    t = t.do(resolve(t.present, "start_combat", {}, Scripted([6, 2])))
    assert t.actions[-1].args == {"side_roll": 6, "ambush": "none", "next_side_roll": 2}
    assert t.present.round == 2 and t.present.get(t.present.active_id).name == "Bat"
    assert [e.text for e in t.log() if e.kind == "round"] == ["Round 1: Opponents surprised!", "Round 2: Opponents act first"]


def test_a_saved_side_roll_that_is_not_a_number_is_refused_plainly():
    t = Timeline.start(new_encounter("e1", "Cave", system="laurels"))
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Bat", "stats": {"level": 1}}}))
    with pytest.raises(RuleError, match="d6"):
        t.do(Action("start_combat", {"side_roll": 6, "ambush": "none", "next_side_roll": "6"}))  # opponents surprised


def test_a_surprised_member_cannot_attack_in_round_one_but_can_in_round_two_and_one_who_cannot_be_surprised_can():
    """Issue 53, item 2: the engine refuses the attack (not only the screen): opponents ambush, d6 2,
    the party surprised. Tombril may not attack in round 1, on any side's turn; Wren (cannot be
    surprised) may; in round 2 Tombril may."""
    t = step(fight(), "start_combat", Scripted([2]), ambush="opponents")
    assert state(t.present)["surprised"] == "party" and t.present.round == 1
    with pytest.raises(RuleError, match="Tombril is surprised"):
        step(t, "ll_attack", Scripted([6] * 20), attacker="c1", target="c4")  # the opponents' turn
    t = step(step(t, "next_turn"), "next_turn")
    assert active(t) == "Wren"
    with pytest.raises(RuleError, match="Tombril is surprised"):
        step(t, "ll_attack", Scripted([6] * 20), attacker="c1", target="c4")  # the party's turn, still round 1
    t = step(t, "ll_attack", Scripted([7, 3]), attacker="c3", target="c5")  # Wren cannot be surprised
    assert any("Wren's ranged attack on Half-orc" in e.text for e in t.log())
    t = step(t, "next_turn", Scripted([4]))  # round 2, the party first
    assert t.present.round == 2
    t = step(t, "ll_attack", Scripted([5, 3, 4, 3, 2]), attacker="c1", target="c4")
    assert any("Tombril's attack on Hill Giant" in e.text for e in t.log())
