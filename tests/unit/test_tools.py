"""Turn tools (pyengine/tools.py, pyengine/tool_actions.py) and the lair (pyengine/systems/generic.py),
with scripted dice: the SRD's Recharge X–Y, Regeneration, ongoing damage, Legendary Actions, uses a
day, and lair actions on initiative 20, losing ties."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from pyengine.errors import RuleError, SchemaError
from pyengine.model import TurnTool
from pyengine.storage import encounter_from_dict, encounter_to_dict, loads, timeline_from_dict, timeline_to_dict
from pyengine.tools import new_tool, recharge_chance, tool_from_dict, tool_to_dict, waiting
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.scripted import Scripted


def fight(system: str = "generic", *fighters: dict) -> Timeline:
    t = Timeline.start(new_encounter("e1", system=system))
    for fields in fighters:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}))
    return t


def do(t: Timeline, kind: str, rng=None, **args) -> Timeline:
    return t.do(resolve(t.present, kind, args, rng or random.Random(1)))


def said(t: Timeline) -> list[str]:
    return [e.text for e in t.logs[t.cursor - 1]]


def tool(t: Timeline, cid: str, name: str) -> TurnTool:
    return next(x for x in t.present.get(cid).tools if x.name == name)


TROLL = {"name": "Troll", "max_hp": 84, "initiative": 10}
DAX = {"name": "Dax", "side": "party", "pc": True, "max_hp": 30, "initiative": 20}


def trolls_fight() -> Timeline:
    """Dax (c1) on 20, the troll (c2) on 10 with its breath (t3), regeneration (t4), burning (t5)."""
    t = fight("generic", DAX, TROLL)
    t = do(t, "add_tool", id="c2", tool={"kind": "recharge", "name": "Fire Breath", "low": "5"})
    t = do(t, "add_tool", id="c2", tool={"kind": "regeneration", "amount": "10"})
    t = do(t, "add_tool", id="c2", tool={"kind": "ongoing", "name": "Burning", "amount": "2d6", "when": "end"})
    return do(t, "start_combat")


def test_recharge_5_6_is_a_2_in_6_chance_exact_and_by_simulation():
    assert recharge_chance(5) == Fraction(1, 3) and recharge_chance(6) == Fraction(1, 6) and recharge_chance(2) == Fraction(5, 6)
    rng = random.Random(5)
    rolls = 60_000
    hits = sum(rng.randint(1, 6) >= 5 for _ in range(rolls))
    assert abs(hits / rolls - 1 / 3) < 0.01


def test_a_used_ability_is_spent_until_a_d6_shows_its_recharge_faces():
    t = do(trolls_fight(), "use_tool", id="c2", tool="t3")
    assert said(t) == ["Troll uses Fire Breath: spent (Recharge 5–6)"]
    assert tool(t, "c2", "Fire Breath").left == 0
    with pytest.raises(RuleError, match="is spent: roll its recharge"):
        do(t, "use_tool", id="c2", tool="t3")
    missed = do(t, "recharge_tool", Scripted([4]), id="c2", tool="t3")
    assert said(missed) == ["Troll's Fire Breath stays spent (Recharge 5–6)"] and tool(missed, "c2", "Fire Breath").left == 0
    assert missed.logs[-1][0].roll == "1d6 (4) = 4"
    ready = do(missed, "recharge_tool", Scripted([5]), id="c2", tool="t3")
    assert said(ready) == ["Troll's Fire Breath recharges"] and tool(ready, "c2", "Fire Breath").left == 1
    with pytest.raises(RuleError, match="is ready: there is nothing to recharge"):
        do(ready, "recharge_tool", Scripted([6]), id="c2", tool="t3")
    assert tool(ready.undo(), "c2", "Fire Breath").left == 0  # Undo takes the roll back


def test_regeneration_heals_at_its_turn_once_a_round_and_acid_or_fire_stops_it_once():
    t = do(trolls_fight(), "damage", id="c2", amount=30)
    troll = t.present.get("c2")
    assert [x.name for x in waiting(t.present, troll)] == ["Regeneration", "Burning"]
    t = do(t, "next_turn")  # the troll's turn
    healed = do(t, "tool_acts", id="c2", tool="t4")
    assert said(healed) == ["Troll regains 10 HP (Regeneration)"] and healed.present.get("c2").hp == 64
    assert [x.name for x in waiting(healed.present, healed.present.get("c2"))] == ["Burning"]  # done this round
    paused = do(healed, "set_tool", id="c2", tool="t4", paused=True)
    assert said(paused) == ["Troll's Regeneration is off at its next turn (acid or fire)"]
    round2 = do(do(paused, "next_turn"), "next_turn")
    assert round2.present.round == 2 and round2.present.active_id == "c2"
    assert "Troll's Regeneration does not work this turn (acid or fire)" in said(round2)
    regen = tool(round2, "c2", "Regeneration")
    assert not regen.paused and regen.done == 2 and regen not in waiting(round2.present, round2.present.get("c2"))
    round3 = do(do(round2, "next_turn"), "next_turn")
    assert round3.present.round == 3 and tool(round3, "c2", "Regeneration") in waiting(round3.present, round3.present.get("c2"))


def test_regeneration_never_passes_the_maximum_and_brings_a_downed_creature_back_up():
    t = do(trolls_fight(), "damage", id="c2", amount=84)
    up = do(t, "tool_acts", id="c2", tool="t4")
    assert said(up) == ["Troll regains 10 HP (Regeneration)", "Troll is back up"]
    full = do(do(trolls_fight(), "damage", id="c2", amount=4), "tool_acts", id="c2", tool="t4")
    assert said(full) == ["Troll regains 4 HP (Regeneration)"] and full.present.get("c2").hp == 84


def test_ongoing_damage_is_rolled_and_goes_the_one_damage_way_temporary_hp_and_concentration():
    t = do(trolls_fight(), "temp_hp", id="c2", amount=3)
    t = do(t, "add_condition", id="c2", name="Concentrating")
    burnt = do(t, "tool_acts", Scripted([4, 5]), id="c2", tool="t5")
    assert said(burnt) == ["Troll took 9 damage (Burning; 3 to temporary HP)",
                           "Troll is concentrating: Constitution save DC 10 to keep it"]
    assert burnt.logs[-1][0].roll == "2d6 (4, 5) = 9"
    assert burnt.present.get("c2").hp == 78 and burnt.present.get("c2").temp_hp == 0
    replayed = Timeline.start(burnt.base, burnt.actions)  # the dice are in the saved action
    assert replayed.present == burnt.present


def test_ongoing_damage_on_a_dying_player_character_is_a_failed_death_save():
    t = fight("generic", DAX, TROLL)
    t = do(t, "add_tool", id="c1", tool={"kind": "ongoing", "name": "Bleeding", "amount": "1"})
    t = do(do(t, "start_combat"), "damage", id="c1", amount=30)
    bled = do(t, "tool_acts", id="c1", tool="t3")
    assert said(bled)[0] == "Dax took 1 damage (Bleeding)" and "Dax fails a death save (0 ✓, 1 ✗)" in said(bled)


def test_legendary_actions_are_spent_on_others_turns_and_all_back_at_its_own():
    t = fight("generic", DAX, {"name": "Dragon", "max_hp": 178, "initiative": 15}, TROLL)
    t = do(do(t, "add_tool", id="c2", tool={"kind": "legendary"}), "start_combat")  # Dax's turn
    assert tool(t, "c2", "Legendary actions").most == 3  # SRD: 3 a round unless it says otherwise
    t = do(t, "use_tool", id="c2", tool="t4", count=2)
    assert said(t) == ["Dragon uses 2 legendary actions (1 of 3 left until its next turn)"]
    with pytest.raises(RuleError, match="has 1 of its legendary actions left"):
        do(t, "use_tool", id="c2", tool="t4", count=2)
    t = do(t, "next_turn")  # the dragon's turn: all three back, and none spent on its own turn
    assert tool(t, "c2", "Legendary actions").left == 3
    with pytest.raises(RuleError, match="another creature's turn"):
        do(t, "use_tool", id="c2", tool="t4")
    t = do(do(t, "next_turn"), "use_tool", id="c2", tool="t4")
    assert tool(t, "c2", "Legendary actions").left == 2


def test_uses_a_day_run_out_and_come_back_after_a_rest():
    t = fight("generic", DAX)
    t = do(t, "add_tool", id="c1", tool={"kind": "uses", "name": "Misty Step", "most": "2"})
    t = do(do(t, "use_tool", id="c1", tool="t2"), "use_tool", id="c1", tool="t2")
    assert said(t) == ["Dax uses Misty Step (0 of 2 left today)"]
    with pytest.raises(RuleError, match="no uses left today"):
        do(t, "use_tool", id="c1", tool="t2")
    rested = do(t, "set_tool", id="c1", tool="t2", left=2)
    assert said(rested) == ["Dax's Misty Step: 2 of 2 left"]
    with pytest.raises(RuleError, match="holds 0 to 2"):
        do(t, "set_tool", id="c1", tool="t2", left=3)


@pytest.mark.parametrize(("fields", "message"), [
    ({"kind": "haste"}, "A turn tool is a recharge"),
    ({"kind": "recharge", "low": 1}, "from 2 to 6"),
    ({"kind": "recharge", "low": "five"}, "must be a whole number"),
    ({"kind": "regeneration"}, "needs an amount"),
    ({"kind": "ongoing", "amount": "2d6 + fire"}, "neither a number nor dice"),
    ({"kind": "ongoing", "amount": "1d6", "when": "noon"}, "start or the end"),
    ({"kind": "legendary", "most": 11}, "from 1 to 10"),
    ({"kind": "uses", "most": 0}, "from 1 to 99"),
    ({"kind": "uses", "name": "x" * 61}, "at most 60"),
    ({"kind": "ongoing", "amount": "1" * 41}, "at most 40"),
])
def test_a_tool_typed_wrong_is_refused_with_a_plain_message(fields, message):
    with pytest.raises(RuleError, match=message):
        new_tool("t1", fields)


def test_a_tool_has_a_name_by_default_and_the_lair_takes_none():
    assert new_tool("t1", {"kind": "regeneration", "amount": "10"}).name == "Regeneration"
    assert new_tool("t1", {"kind": "uses", "name": "  <b>Rage</b> "}).name == "<b>Rage</b>"  # text, escaped where shown


def test_each_system_offers_the_tools_its_rules_have():
    for system, kinds in (("strife", ("uses",)), ("realms", ()), ("laurels", ())):
        t = fight(system, {"name": "Mira", "side": "party", "max_hp": 20})
        for kind in ("recharge", "legendary", "uses"):
            if kind in kinds:
                t = do(t, "add_tool", id="c1", tool={"kind": kind})
            else:
                with pytest.raises(RuleError, match="no such turn tool|no turn tools"):
                    do(t, "add_tool", id="c1", tool={"kind": kind})
    t = fight("generic", DAX)
    for i in range(20):
        t = do(t, "add_tool", id="c1", tool={"kind": "uses", "name": f"Power {i}"})
    with pytest.raises(RuleError, match="at most 20 turn tools"):
        do(t, "add_tool", id="c1", tool={"kind": "uses"})


def test_tools_are_saved_and_read_back_whole_and_a_damaged_one_is_refused():
    t = do(do(trolls_fight(), "use_tool", id="c2", tool="t3"), "set_tool", id="c2", tool="t4", paused=True)
    base = t.trimmed(0).base
    assert encounter_from_dict(loads(json.dumps(encounter_to_dict(base)))) == base
    assert timeline_from_dict(timeline_to_dict(t)).present == t.present
    for t_ in base.get("c2").tools:
        assert tool_from_dict(tool_to_dict(t_)) == t_
    doc = encounter_to_dict(base)
    troll = doc["combatants"][1]
    for damaged, message in (({**troll["tools"][0], "left": 2}, "what is left"), ({**troll["tools"][0], "paused": True}, "only regeneration"),
                             ({**troll["tools"][1], "amount": "1d6)"}, "neither a number nor dice"), ("t3", "not an object")):
        bad = {**doc, "combatants": [doc["combatants"][0], {**troll, "tools": [damaged]}]}
        with pytest.raises(SchemaError, match=message):
            encounter_from_dict(bad)
    twice = {**doc, "combatants": [doc["combatants"][0], {**troll, "tools": [troll["tools"][0]] * 2}]}
    with pytest.raises(SchemaError, match="share one id"):
        encounter_from_dict(twice)
    strife = {**doc, "system": "strife", "round": 0, "active": None, "turn": {}}
    with pytest.raises(SchemaError, match="Realm of Strife's rules do not have"):
        encounter_from_dict(strife)


LAIR = {"name": "Lair", "side": "opponents", "initiative": 20, "stats": {"lair": True}}


def test_the_lair_acts_on_20_after_everyone_on_20_and_is_no_creature():
    t = fight("generic", {**TROLL, "initiative": None, "init_mod": 19}, LAIR, DAX)
    t = do(t, "start_combat", Scripted([1]))  # the troll rolls 1 + 19 = 20: a tie with Dax and the lair
    order = [c.name for c in t.present.combatants]
    assert order[2] == "Lair" and set(order[:2]) == {"Troll", "Dax"}
    assert "Lair has initiative 20" in said(t)
    from pyengine.rules import get_system
    generic = get_system("generic")
    assert not generic.is_creature(t.present.get("c2")) and generic.is_creature(t.present.get("c1"))


def test_the_lair_keeps_20_when_everyone_rolls_every_round_and_when_it_joins_mid_fight():
    t = fight("generic", {**TROLL, "initiative": None, "init_mod": 0}, {**DAX, "initiative": None, "pc": False})
    t = do(t, "set_option", key="initiative", value="every_round")
    t = do(t, "start_combat", Scripted([20, 12]))  # the troll 20, Dax 12
    t = do(t, "add_combatant", combatant=LAIR)  # mid-fight: after the troll's 20
    assert [c.name for c in t.present.combatants] == ["Troll", "Lair", "Dax"]
    t = do(t, "next_turn")
    t = do(t, "next_turn")
    t = do(t, "next_turn", Scripted([20, 20, 3, 9]))  # round 2: both on 20, a roll-off the lair takes no part in
    assert [c.name for c in t.present.combatants][2] == "Lair" and t.present.get("c3").initiative == 20


def test_a_tool_given_to_a_group_member_can_go_to_every_member_each_with_its_own_state():
    t = fight("generic", DAX)
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Troll", "max_hp": 84}, "count": 3}))
    one = do(t, "add_tool", id="c2", tool={"kind": "recharge", "name": "Roar"})
    assert [len(c.tools) for c in one.present.combatants] == [0, 1, 0, 0]
    every = do(t, "add_tool", id="c2", tool={"kind": "recharge", "name": "Roar"}, group=True)
    assert said(every) == ["Troll ×3: Roar (Recharge 5–6)"]
    ids = [c.tools[0].id for c in every.present.combatants[1:]]
    assert len(set(ids)) == 3
    used = do(every, "use_tool", id="c3", tool=ids[1])
    assert [c.tools[0].left for c in used.present.combatants[1:]] == [1, 0, 1]


def test_a_saved_opponent_joins_with_its_turn_tools_each_its_own_and_only_the_kinds_its_system_has():
    specs = [{"kind": "regeneration", "name": "Regeneration", "amount": "10", "when": "start"},
             {"kind": "uses", "name": "Roar", "most": 2}]
    t = fight("generic", DAX)
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Troll", "max_hp": 84, "tools": specs}, "count": 2}))
    trolls = t.present.combatants[1:]
    assert [[(x.id, x.name, x.left) for x in c.tools] for c in trolls] == [[("t4", "Regeneration", 1), ("t5", "Roar", 2)],
                                                                          [("t6", "Regeneration", 1), ("t7", "Roar", 2)]]
    assert t.present.seq == 7
    t = do(t, "add_tool", id="c2", tool={"kind": "uses"})
    assert t.present.get("c2").tools[-1].id == "t8"  # ids go on after the joining tools'
    strife = fight("strife")
    strife = strife.do(resolve(strife.present, "add_combatant", {"combatant": {"name": "Troll", "max_hp": 84, "tools": specs}}))
    assert [x.name for x in strife.present.get("c1").tools] == ["Roar"]  # Realm of Strife has no regeneration
    with pytest.raises(RuleError, match="neither a number nor dice"):
        fight("generic", {"name": "Troll", "tools": [{"kind": "ongoing", "amount": "x("}]})
    for bad in ("regeneration", [{"kind": "uses", "name": {"deep": 1}}], [{}] * 21):
        with pytest.raises(RuleError, match="turn tools are unreadable"):
            fight("generic", {"name": "Troll", "tools": bad})
    with pytest.raises(RuleError, match="on the combatant's sheet, not by an edit"):
        do(t, "update_combatant", id="c2", fields={"tools": specs})


def test_a_recharge_spent_on_another_creatures_turn_waits_at_its_own_turn_and_old_saves_replay_as_played():
    """Issue 38, section 4: the d6 is rolled at the start of each of its turns (SRD). Spent on its own
    turn, it is not offered until its next turn; spent on another's turn, it is offered at its own."""
    from pyengine.model import Action
    from pyengine.tools import waiting

    t = Timeline.start(new_encounter("e1"))
    for c in ({"name": "Dax", "side": "party", "pc": True, "max_hp": 30, "initiative": 20},
              {"name": "Dragon", "max_hp": 200, "initiative": 10, "tools": [{"kind": "recharge", "name": "Breath", "low": 5}]}):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": c}, random.Random(1)))
    dragon = next(c for c in t.present.combatants if c.name == "Dragon")
    tid = dragon.tools[0].id
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(1)))  # Dax's turn
    reaction = t.do(resolve(t.present, "use_tool", {"id": dragon.id, "tool": tid}, random.Random(1)))
    assert "waits" not in reaction.actions[-1].args
    at_its_turn = reaction.do(resolve(reaction.present, "next_turn", {}, random.Random(1)))
    assert [x.name for x in waiting(at_its_turn.present, at_its_turn.present.get(dragon.id))] == ["Breath"]
    own = t.do(resolve(t.present, "next_turn", {}, random.Random(1)))
    own = own.do(resolve(own.present, "use_tool", {"id": dragon.id, "tool": tid}, random.Random(1)))
    assert own.actions[-1].args["waits"] == 1 and waiting(own.present, own.present.get(dragon.id)) == []
    # A use saved before this rule (no "waits") replays as it was played: offered at once.
    old = own.undo().do(Action("use_tool", {"id": dragon.id, "tool": tid}))
    assert [x.name for x in waiting(old.present, old.present.get(dragon.id))] == ["Breath"]
