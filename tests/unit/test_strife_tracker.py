"""Realm of Strife in the tracker: order by Initiative with d100 roll-offs, bottom of the queue, the
turn's components, disengage and free attacks, attacks with 4-3-2, resources between battles."""

from __future__ import annotations

import random

import pytest

from pyengine.errors import RuleError
from pyengine.storage import dumps, loads, timeline_from_dict, timeline_to_dict
from pyengine.systems.strife import acting, build_spec
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.helpers import active, ids, order, step
from tests.unit.scripted import Scripted

ROSTER = [
    ("Kayden", {"side": "party", "pc": True, "init_mod": 60, "max_hp": 30,
                "stats": {"ac": 35, "crit": 10, "hit": 5, "parry": 20, "weapon": "1d8+2", "offhand": "1d4", "dual_skill": True,
                          "vigor_max": 10, "fury": 9, "honor_max": 3, "stacks": 2, "spirit_max": 8, "stealth": 4}}),
    ("Mira", {"side": "party", "pc": True, "init_mod": 50, "max_hp": 20,
              "stats": {"ac": 25, "resist": 30, "spirit_hit": 10, "spirit_crit": 15, "power": "2d6", "stealth": 6, "hiding": True}}),
    ("Orc", {"side": "opponents", "init_mod": 50, "max_hp": 25, "stats": {"ac": 40, "parry": 35, "weapon": "1d10", "ward_off": True}}),
    ("Goblin", {"side": "opponents", "init_mod": 20, "max_hp": 12, "stats": {"ac": 20, "weapon": "1d6"}}),
]


def fight() -> Timeline:
    t = Timeline.start(new_encounter("e1", "Pass", system="strife"))
    for name, fields in ROSTER:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, **fields}}))
    return t


def started(rng_faces=(40, 70)) -> Timeline:
    return step(fight(), "start_combat", Scripted(list(rng_faces)))


def test_order_by_initiative_and_ties_rolled_off_on_d100():
    t = started((40, 70))  # Mira and Orc tie at 50: Mira rolls 40, Orc 70
    assert order(t) == ["Kayden", "Orc", "Mira", "Goblin"]
    log = [e.roll for e in t.log() if e.kind == "initiative"]
    assert any("tie roll-off d100: 70" in (r or "") for r in log)
    # a second tie re-rolls among those still tied
    t = step(fight(), "start_combat", Scripted([33, 33, 90, 12]))
    assert order(t) == ["Kayden", "Mira", "Orc", "Goblin"]


def test_bottom_of_the_queue_once_per_side_per_round_and_back_next_round():
    t = started()
    k = ids(t)
    assert active(t) == "Kayden"
    t = step(t, "ros_bottom", id=k["Kayden"])
    assert order(t) == ["Orc", "Mira", "Goblin", "Kayden"] and active(t) == "Orc"
    t = step(t, "next_turn")
    assert active(t) == "Mira"
    with pytest.raises(RuleError, match="party already went to the bottom"):
        step(t, "ros_bottom", id=k["Mira"])
    t = step(t, "next_turn")  # Goblin
    t = step(t, "next_turn")  # Kayden, last
    assert active(t) == "Kayden" and t.present.round == 1
    t = step(t, "next_turn")
    assert t.present.round == 2 and order(t) == ["Kayden", "Orc", "Mira", "Goblin"] and active(t) == "Kayden"
    # the choice is open again in round 2, for another side too
    t = step(t, "next_turn")
    t = step(t, "ros_bottom", id=k["Orc"])
    assert order(t) == ["Kayden", "Mira", "Goblin", "Orc"]
    # undo restores the order exactly
    t = t.undo()
    assert order(t) == ["Kayden", "Orc", "Mira", "Goblin"] and active(t) == "Orc"


def test_bottom_of_the_queue_only_before_acting():
    t = started()
    k = ids(t)
    t = step(t, "ros_part", id=k["Kayden"], part="instant")
    with pytest.raises(RuleError, match="already acted"):
        step(t, "ros_bottom", id=k["Kayden"])
    with pytest.raises(RuleError, match="not Orc's turn"):
        step(t, "ros_bottom", id=k["Orc"])


def test_turn_components():
    t = started()
    k = ids(t)
    # Kayden: instant, move, then the Action ends the turn
    t = step(t, "ros_part", id=k["Kayden"], part="instant")
    with pytest.raises(RuleError, match="already used the Instant"):
        step(t, "ros_part", id=k["Kayden"], part="instant")
    with pytest.raises(RuleError, match="Rest takes the whole turn"):
        step(t, "ros_part", id=k["Kayden"], part="rest")
    t = step(t, "ros_part", id=k["Kayden"], part="move", mode="charge")
    with pytest.raises(RuleError, match="already used the Move"):
        step(t, "ros_part", id=k["Kayden"], part="move")
    assert dict(t.present.turn)["parts"] == ["instant", "move"]
    t = step(t, "ros_part", id=k["Kayden"], part="action")
    assert active(t) == "Orc" and "parts" not in dict(t.present.turn)
    # Orc sprints: the turn ends
    t = step(t, "ros_part", id=k["Orc"], part="sprint")
    assert active(t) == "Mira"
    # Mira, hurt, rests: +1 HP and the turn ends; at full HP nothing is gained
    t = step(t, "damage", id=k["Mira"], amount=5)
    t = step(t, "ros_part", id=k["Mira"], part="rest")
    assert t.present.get(k["Mira"]).hp == 16 and active(t) == "Goblin"
    assert any(e.text == "Mira rests and regains 1 HP" for e in t.log())


def test_disengage_grants_one_free_attack_per_weapon_and_forced_movement_none():
    t = started()
    k = ids(t)
    t = step(t, "next_turn")  # Orc's turn
    assert active(t) == "Orc"
    # forced movement: no free attacks
    t = step(t, "ros_part", id=k["Orc"], part="move", mode="forced")
    with pytest.raises(RuleError, match="no free attack"):
        step(t, "ros_attack", random.Random(1), attacker=k["Kayden"], target=k["Orc"], use="free")
    t = step(t, "ros_part", id=k["Orc"], part="move", mode="disengage", adjacent=[k["Kayden"]])
    # Kayden (a PC, dual wielding) may attack once with each weapon.  Orc wards off? ward-off roll-off first:
    # Kayden 60+60=120 vs Orc 10+50=60 fails; d100 80 -> 85 > 40 hit; parry die 90 > 35; damage 1d8+2 -> 5+2.
    t = step(t, "ros_attack", Scripted([60, 10, 80, 90, 5]), attacker=k["Kayden"], target=k["Orc"], use="free", weapon="main")
    assert t.present.get(k["Orc"]).hp == 25 - 7
    with pytest.raises(RuleError, match="already made a free attack with that weapon"):
        step(t, "ros_attack", random.Random(1), attacker=k["Kayden"], target=k["Orc"], use="free", weapon="main")
    t = step(t, "ros_attack", Scripted([60, 10, 80, 90, 3]), attacker=k["Kayden"], target=k["Orc"], use="free", weapon="off")
    assert t.present.get(k["Orc"]).hp == 25 - 7 - 3


def test_attack_in_the_tracker_parried_crit_and_riders():
    t = started()
    k = ids(t)
    # Kayden attacks the Goblin (AC 20, no parry): natural 95 with crit 10% -> crit, 1d8+2 = 4+2 -> 12
    t = step(t, "ros_attack", Scripted([95, 4, 5]), attacker=k["Kayden"], target=k["Goblin"], riders=[["Stun", 20]])
    g = t.present.get(k["Goblin"])
    assert g.hp == 0 and [c.name for c in g.conditions] == ["Stun"]
    last = t.log()[-3:]
    assert last[0].text == "Kayden attacks Goblin: crit, 12 damage" and "d100 95" in last[0].roll
    assert any(e.kind == "down" for e in last)
    # the Orc parries: ward-off fails (Kayden 50+60 vs 1+50), natural 70 + 5 > 40, parry die 10 <= 35
    t = step(t, "ros_attack", Scripted([50, 1, 70, 10]), attacker=k["Kayden"], target=k["Orc"])
    assert t.log()[-1].text == "Kayden attacks Orc: parried" and t.present.get(k["Orc"]).hp == 25
    # undo takes the parried attack back, then the crit
    t = t.undo().undo()
    assert t.present.get(k["Goblin"]).hp == 12 and t.present.get(k["Goblin"]).conditions == ()


def test_432_is_enforced_for_pcs_in_the_tracker_and_not_for_npcs():
    t = started()
    k = ids(t)
    for _ in range(2):
        t = step(t, "ros_attack", Scripted([10]), attacker=k["Kayden"], target=k["Goblin"])
    with pytest.raises(RuleError, match="4-3-2"):
        step(t, "ros_attack", Scripted([10]), attacker=k["Kayden"], target=k["Goblin"])
    t = step(t, "ros_attack", Scripted([10]), attacker=k["Kayden"], target=k["Goblin"], weapon="off")
    # a direct-damage instant does not count
    t = step(t, "ros_attack", Scripted([10]), attacker=k["Kayden"], target=k["Goblin"], use="direct")
    with pytest.raises(RuleError, match="already used the Instant"):
        step(t, "ros_attack", Scripted([10]), attacker=k["Kayden"], target=k["Goblin"], use="direct")
    # the next turn starts a new count; the Orc (an NPC) is exempt
    t = step(t, "next_turn")
    for _ in range(5):
        t = step(t, "ros_attack", Scripted([50, 99, 10]), attacker=k["Orc"], target=k["Kayden"])


def test_attack_setup_penalties_and_defences():
    t = started()
    k = ids(t)
    t = step(t, "update_combatant", id=k["Kayden"], fields={"stats": {"dual_skill": False, "untrained": True, "size": 3}})
    spec, reasons, notes = build_spec(t.present, {"attacker": k["Kayden"], "target": k["Goblin"], "kind": "physical",
                                                  "bonus": 5, "targets": 2})
    assert reasons == [("dual wielding without the skill (L)", -30), ("untrained weapon (L)", -15)]
    assert spec.portions[0].modifier == 5 - 45 and not spec.portions[0].can_crit
    assert spec.portions[0].damage == "(1d8+2)+3" and notes["share"] == 3
    spec, _, _ = build_spec(t.present, {"attacker": k["Mira"], "target": k["Orc"], "kind": "spirit", "missile": True})
    assert spec.portions[0].defence == 0 and spec.parry == 0 and spec.ward_off is None
    spec, _, _ = build_spec(t.present, {"attacker": k["Kayden"], "target": k["Mira"], "kind": "mixed"})
    assert spec.portions[0].defence == 25  # the lower of AC 25 and Resistance 30
    with pytest.raises(RuleError, match="no power damage|no off-hand"):
        build_spec(t.present, {"attacker": k["Goblin"], "target": k["Orc"], "weapon": "off"})


def test_resources_and_end_battle():
    t = started()
    k = ids(t)
    t = step(t, "ros_resource", id=k["Kayden"], key="vigor", delta=4)
    t = step(t, "ros_resource", id=k["Kayden"], key="vigor", delta=-3)
    assert t.present.get(k["Kayden"]).stat("vigor") == 1
    with pytest.raises(RuleError, match="has only 1 Vigor"):
        step(t, "ros_resource", id=k["Kayden"], key="vigor", delta=-2)
    with pytest.raises(RuleError, match="has only"):
        step(t, "ros_resource", id=k["Mira"], key="spirit", delta=-1)
    # Fury from before this battle was lost as it started (no battle within 2 minutes): 9 -> 0
    assert t.present.get(k["Kayden"]).stat("fury") == 0
    t = step(t, "ros_resource", id=k["Kayden"], key="fury", delta=13)
    t = step(t, "damage", id=k["Kayden"], amount=6)
    t = step(t, "end_combat")
    c = t.present.get(k["Kayden"])
    assert (c.stat("vigor"), c.stat("honor"), c.stat("stacks"), c.stat("fury"), c.hp) == (10, 3, 0, 6, 24)
    # a battle more than 2 minutes later: Fury lost; Stealth back to 0 unless hiding was announced
    t2 = step(t, "start_combat", Scripted([40, 70]))
    c, m = t2.present.get(k["Kayden"]), t2.present.get(k["Mira"])
    assert (c.stat("fury"), c.stat("stealth"), m.stat("stealth")) == (0, 0, 6)
    # within 2 minutes: Fury kept
    t3 = step(t, "start_combat", Scripted([40, 70]), soon=True)
    assert t3.present.get(k["Kayden"]).stat("fury") == 6
    # undo of End battle brings the resources back
    assert t.undo().present.get(k["Kayden"]).stat("fury") == 13


def test_strife_fight_saves_and_replays():
    t = started()
    k = ids(t)
    t = step(t, "ros_bottom", id=k["Kayden"])
    t = step(t, "ros_attack", Scripted([50, 1, 95, 5, 3]), attacker=k["Orc"], target=k["Kayden"])
    again = timeline_from_dict(loads(dumps(timeline_to_dict(t))))
    assert again.present == t.present and [e.text for e in again.log()] == [e.text for e in t.log()]


def test_each_member_of_a_group_takes_its_own_turn_with_its_own_checklist():
    """A group shares one place in the order; its members then act one after another, each with an
    Instant, a Move and the Action (it used to be the first member only: the others were refused)."""
    t = Timeline.start(new_encounter("e1", "Pass", system="strife"))
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Kayden", "side": "party", "pc": True, "init_mod": 40,
                                                                 "max_hp": 30, "stats": {"ac": 35, "weapon": "1d8"}}}))
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Goblin", "init_mod": 60, "max_hp": 12,
                                                                 "stats": {"ac": 20, "weapon": "1d6"}}, "count": 2}))
    t = step(t, "start_combat")
    goblins = [c.id for c in t.present.combatants if c.group]
    assert acting(t.present) == goblins[0]
    t = step(t, "ros_part", id=goblins[0], part="instant")
    with pytest.raises(RuleError, match="not Goblin 2's turn"):
        step(t, "ros_part", id=goblins[1], part="instant")
    t = step(t, "ros_part", id=goblins[0], part="action")  # Goblin 1 is done: Goblin 2's own turn
    assert acting(t.present) == goblins[1] and dict(t.present.turn).get("parts") is None
    assert t.log()[-1].text == "Goblin 2's turn"
    t = step(t, "ros_attack", random.Random(3), attacker=goblins[1], target=ids(t)["Kayden"])
    t = step(t, "ros_part", id=goblins[1], part="action")
    assert active(t) == "Kayden" and acting(t.present) == ids(t)["Kayden"]
    # A lone combatant's turn is as before: no group keys in the turn state.
    assert "acting" not in dict(t.present.turn)
