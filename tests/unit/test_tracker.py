"""Tracker: turn flow, groups, delay, HP, conditions expiring at the right moment, undo/redo."""

from __future__ import annotations

import random

import pytest

from pyengine.errors import RuleError
from pyengine.rules import system_of
from pyengine.tracker import Action, Timeline, apply_action, new_encounter, resolve, turn_units
from tests.unit.helpers import active_names as active
from tests.unit.helpers import order, step
from tests.unit.scripted import Scripted


def fight(*people, rng=None) -> Timeline:
    """A timeline with the given combatants added: (name, fields) pairs."""
    t = Timeline.start(new_encounter("e1", "Test"))
    for name, fields in people:
        count = fields.pop("count", 1)
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, **fields}, "count": count}, rng))
    return t


def test_start_rolls_d20_plus_modifier_and_sorts_highest_first():
    t = fight(("Aria", {"init_mod": 3, "max_hp": 30}), ("Bors", {"init_mod": -1, "max_hp": 40}))
    t = step(t, "start_combat", Scripted([10, 18]))
    assert [(c.name, c.initiative) for c in t.present.combatants] == [("Bors", 17), ("Aria", 13)]
    assert active(t) == ["Bors"] and t.present.round == 1
    rolls = [e.roll for e in t.log() if e.kind == "initiative"]
    assert rolls == ["1d20 (10) + 3 = 13", "1d20 (18) - 1 = 17"]


def test_typed_initiative_is_kept_and_only_missing_ones_are_rolled():
    t = fight(("Aria", {"init_mod": 3, "initiative": 22}), ("Bors", {"init_mod": 0}))
    t = step(t, "start_combat", Scripted([5]))
    assert [(c.name, c.initiative) for c in t.present.combatants] == [("Aria", 22), ("Bors", 5)]


def test_ties_go_to_higher_modifier_then_roll_off():
    t = fight(("A", {"init_mod": 1}), ("B", {"init_mod": 3}), ("C", {"init_mod": 1}), ("D", {"init_mod": 1}))
    # A: 14+1, B: 12+3, C: 14+1, D: 14+1 -> all 15. B wins on modifier; A, C, D roll off:
    # A 7, C 7, D 2 -> D last; A and C roll again: A 3, C 9.
    t = step(t, "start_combat", Scripted([14, 12, 14, 14, 7, 7, 2, 3, 9]))
    assert order(t) == ["B", "C", "A", "D"]
    texts = {e.who: e.roll for e in t.log() if e.kind == "initiative"}
    assert texts["c1"].endswith("tie roll-off d20: 7, 3")


def test_next_turn_wraps_into_a_new_round_and_counts_time():
    t = fight(("A", {"initiative": 20}), ("B", {"initiative": 10}))
    t = step(t, "start_combat")
    t = step(t, "next_turn")
    assert active(t) == ["B"] and t.present.round == 1
    t = step(t, "next_turn")
    assert active(t) == ["A"] and t.present.round == 2
    assert system_of(t.present).elapsed_seconds(t.present) == 6


def test_previous_turn_goes_back_across_rounds():
    t = fight(("A", {"initiative": 20}), ("B", {"initiative": 10}))
    t = step(step(step(t, "start_combat"), "next_turn"), "next_turn")
    t = step(t, "previous_turn")
    assert active(t) == ["B"] and t.present.round == 1


def test_group_shares_initiative_acts_as_one_and_is_hit_one_by_one():
    t = fight(("Goblin", {"init_mod": 2, "max_hp": 7, "count": 4}), ("Aria", {"init_mod": 0, "max_hp": 20}))
    t = step(t, "start_combat", Scripted([15, 3]))
    assert order(t) == ["Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4", "Aria"]
    assert {c.initiative for c in t.present.combatants[:4]} == {17}
    assert active(t) == ["Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4"]
    t = step(t, "damage", id="c2", amount=5)
    assert [c.hp for c in t.present.combatants[:4]] == [7, 2, 7, 7]
    t = step(t, "next_turn")
    assert active(t) == ["Aria"]


def test_downed_npcs_are_skipped_by_default_pcs_are_not():
    t = fight(("Orc", {"initiative": 15, "max_hp": 5}), ("Aria", {"initiative": 10, "max_hp": 5, "pc": True}),
              ("Wolf", {"initiative": 5, "max_hp": 5}))
    t = step(t, "start_combat")
    t = step(t, "damage", id="c3", amount=9)
    t = step(t, "damage", id="c2", amount=9)
    assert t.present.get("c3").hp == 0 and t.present.get("c3").down
    t = step(t, "next_turn")
    assert active(t) == ["Aria"]  # a downed PC still gets a turn (death saves)
    t = step(t, "next_turn")
    assert active(t) == ["Orc"] and t.present.round == 2  # the downed wolf was skipped
    t = step(t, "set_option", key="skip_down", value="none")
    t = step(step(t, "next_turn"), "next_turn")
    assert active(t) == ["Wolf"]


def test_damage_uses_temp_hp_first_and_healing_caps_at_max():
    t = fight(("Aria", {"max_hp": 20}))
    t = step(t, "temp_hp", id="c1", amount=5)
    t = step(t, "temp_hp", id="c1", amount=3)  # temporary HP does not stack
    t = step(t, "damage", id="c1", amount=8)
    c = t.present.get("c1")
    assert (c.hp, c.temp_hp) == (17, 0)
    t = step(t, "heal", id="c1", amount=50)
    assert t.present.get("c1").hp == 20
    assert [e.text for e in t.log()][-2:] == ["Aria took 8 damage (5 to temporary HP)", "Aria healed 3"]


def test_add_and_remove_mid_fight_keep_whose_turn_it_is():
    t = fight(("A", {"initiative": 20}), ("B", {"initiative": 10}), ("C", {"initiative": 5}))
    t = step(step(t, "start_combat"), "next_turn")
    assert active(t) == ["B"]
    t = step(t, "add_combatant", combatant={"name": "D", "initiative": 15})
    assert order(t) == ["A", "D", "B", "C"] and active(t) == ["B"]
    t = step(t, "remove_combatant", id="c1")
    assert active(t) == ["B"]
    t = step(t, "remove_combatant", id="c2")  # the active one leaves: the next acts
    assert active(t) == ["C"] and t.present.round == 1


def test_mid_fight_newcomer_without_initiative_rolls():
    t = fight(("A", {"initiative": 20}))
    t = step(t, "start_combat")
    t = step(t, "add_combatant", Scripted([11]), combatant={"name": "Late", "init_mod": 2})
    assert t.present.get("c2").initiative == 13
    assert t.log()[-1].roll == "1d20 (11) + 2 = 13"


def test_delay_moves_later_in_the_round_and_passes_the_turn():
    t = fight(("A", {"initiative": 20}), ("B", {"initiative": 10}), ("C", {"initiative": 5}))
    t = step(t, "start_combat")
    t = step(t, "delay", id="c1", after="c3")
    assert order(t) == ["B", "C", "A"] and active(t) == ["B"]
    t = step(step(t, "next_turn"), "next_turn")
    assert active(t) == ["A"] and t.present.round == 1


def test_condition_for_rounds_ends_at_start_of_casters_turn():
    t = fight(("Caster", {"initiative": 20}), ("Target", {"initiative": 10}))
    t = step(t, "start_combat")
    t = step(t, "add_condition", id="c2", name="Blessed", until="rounds", rounds=2, anchor="c1")
    for _ in range(3):  # Target, Caster (round 2: 1 left), Target
        t = step(t, "next_turn")
    assert [k.name for k in t.present.get("c2").conditions] == ["Blessed"]
    t = step(t, "next_turn")  # start of Caster's turn, round 3
    assert t.present.get("c2").conditions == ()
    assert t.log()[-1].text == "Blessed on Target ended (start of Caster's turn)"


def test_condition_until_end_of_casters_next_turn_when_cast_in_own_turn():
    t = fight(("Caster", {"initiative": 20}), ("Target", {"initiative": 10}))
    t = step(t, "start_combat")
    t = step(t, "add_condition", id="c2", name="Dazed", until="end", anchor="c1")
    t = step(t, "next_turn")  # end of Caster's current turn does not count
    assert t.present.get("c2").conditions
    t = step(t, "next_turn")  # Caster's next turn starts
    assert t.present.get("c2").conditions
    t = step(t, "next_turn")  # ...and ends
    assert t.present.get("c2").conditions == ()


def test_condition_until_start_of_targets_turn_and_until_removed():
    t = fight(("A", {"initiative": 20}), ("B", {"initiative": 10}))
    t = step(t, "start_combat")
    t = step(t, "add_condition", id="c2", name="Prone", until="start", anchor="c2")
    t = step(t, "add_condition", id="c2", name="Cursed", until="never")
    t = step(t, "next_turn")
    assert [k.name for k in t.present.get("c2").conditions] == ["Cursed"]
    t = step(t, "remove_condition", id="c2", condition=t.present.get("c2").conditions[0].id)
    assert t.present.get("c2").conditions == ()


def test_reaction_flag_resets_at_the_start_of_own_turn():
    t = fight(("A", {"initiative": 20}), ("B", {"initiative": 10}))
    t = step(t, "start_combat")
    t = step(t, "set_flag", id="c2", flag="reaction_used", on=True)
    assert t.present.get("c2").flags == ("reaction_used",)
    t = step(t, "next_turn")
    assert t.present.get("c2").flags == ()


def test_undo_redo_restore_exact_states_and_new_action_drops_redo():
    t = fight(("A", {"initiative": 20, "max_hp": 10}), ("B", {"initiative": 10}))
    t = step(t, "start_combat")
    before = t.present
    t = step(t, "damage", id="c1", amount=4)
    t = t.undo()
    assert t.present == before
    t = t.redo()
    assert t.present.get("c1").hp == 6
    t = t.undo()
    t = step(t, "next_turn")
    assert not t.can_redo and t.present.get("c1").hp == 10


def test_replaying_actions_rebuilds_the_same_states():
    rng = random.Random(5)
    t = fight(("A", {"init_mod": 2, "max_hp": 10}), ("Gob", {"init_mod": 1, "max_hp": 7, "count": 3}), rng=rng)
    t = step(t, "start_combat", rng)
    for _ in range(7):
        t = step(t, "next_turn")
    t = step(t, "damage", id="c3", amount=3)
    again = Timeline.start(t.base, t.actions, t.cursor)
    assert again.states == t.states
    assert again.log() == t.log()


def test_rule_errors_leave_state_unchanged():
    t = fight(("A", {"max_hp": 5}))
    with pytest.raises(RuleError):
        step(t, "next_turn")
    with pytest.raises(RuleError):
        step(t, "damage", id="c1", amount=-3)
    with pytest.raises(RuleError):
        step(t, "damage", id="c1", amount=10**100)
    with pytest.raises(RuleError):
        step(t, "add_combatant", combatant={"name": "x" * 201})
    with pytest.raises(RuleError):
        step(t, "add_combatant", combatant={"name": " "})
    with pytest.raises(RuleError):
        apply_action(t.present, Action("explode_table"))


def test_turn_units_group_adjacent_members_only():
    t = fight(("Gob", {"count": 2, "initiative": 12}), ("A", {"initiative": 15}))
    t = step(t, "start_combat")
    assert [len(u) for u in turn_units(t.present)] == [1, 2]


def test_trimmed_history_keeps_the_present():
    t = fight(("A", {"initiative": 20}), ("B", {"initiative": 10}))
    t = step(t, "start_combat")
    for _ in range(30):
        t = step(t, "next_turn")
    short = t.trimmed(5)
    assert short.present == t.present and len(short.actions) == 5 and short.can_undo


def test_reroll_all_rolls_again_even_for_typed_initiative():
    t = fight(("Aria", {"init_mod": 3, "initiative": 22}), ("Bors", {"init_mod": 0}))
    t = step(t, "start_combat", Scripted([5]))
    t = step(t, "end_combat")
    assert not t.present.started and t.present.get("c1").initiative == 22
    t = step(t, "start_combat", Scripted([2, 19]), reroll_all=True)
    assert [(c.name, c.initiative) for c in t.present.combatants] == [("Bors", 19), ("Aria", 5)]


@pytest.mark.parametrize("typed, message", [
    ({"c1": "abc"}, "Aria's initiative must be a whole number"),
    ({"c1": 5000}, "Aria's initiative must be from -1,000 to 1,000"),
    ({"c1": True}, "whole number"),
    ({"c9": 10}, "no longer in this encounter"),
    (["c1"], "unreadable"),
])
def test_typed_initiatives_are_checked_with_a_plain_message(typed, message):
    t = Timeline.start(new_encounter("e1"))
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Aria", "pc": True}}))
    with pytest.raises(RuleError, match=message):
        resolve(t.present, "start_combat", {"typed": typed})
