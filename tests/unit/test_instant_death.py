"""Issue 52, section 3: dying and dead as the SRD 5.1 says (generic d20): instant death from massive
damage, damage at 0 HP, healing at 0 HP, and monsters at 0 HP (the fight's option)."""

from __future__ import annotations

import random

import pytest

from pyengine.systems.generic import dying, massive
from pyengine.tracker import Timeline, new_encounter, resolve


def fight(hp: int = 30, temp: int = 0, **options) -> tuple[Timeline, dict[str, str]]:
    t = Timeline.start(new_encounter("e1", "Test", **options))
    for fields in ({"name": "Aria", "side": "party", "pc": True, "max_hp": 30, "initiative": 15},
                   {"name": "Goblin", "side": "opponents", "max_hp": 7, "initiative": 10}):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}))
    ids = {c.name: c.id for c in t.present.combatants}
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(1)))
    t = t.do(resolve(t.present, "update_combatant", {"id": ids["Aria"], "fields": {"hp": hp, "temp_hp": temp}}))
    return t, ids


def hit(t: Timeline, cid: str, amount: int, parts=None) -> Timeline:
    return t.do(resolve(t.present, "damage", {"id": cid, "amount": amount, **({"parts": parts} if parts else {})}))


def test_63_fire_on_a_character_at_30_of_30_is_instant_death():
    t, ids = fight()
    t = hit(t, ids["Aria"], 63, [["fire", 63, []]])
    aria = t.present.get(ids["Aria"])
    assert aria.stat("dead") is True and not dying(aria)
    assert [e.text for e in t.log()[-2:]] == ["Aria took 63 fire damage", "Aria dies: instant death (33 damage past 0 HP, maximum 30)"]
    assert all(e.kind != "down" for e in t.logs[t.cursor - 1])


def test_one_short_of_the_maximum_past_0_leaves_the_character_dying():
    t, ids = fight()
    t = hit(t, ids["Aria"], 59)
    aria = t.present.get(ids["Aria"])
    assert dying(aria) and aria.stat("death_failures") == 0 and not aria.stat("dead")


def test_temporary_hit_points_take_their_part_before_the_count():
    t, ids = fight(hp=10, temp=5)
    assert massive(t.present.get(ids["Aria"]), 44) is None      # 5 to temporary HP, 39 taken: 29 past 0
    t = hit(t, ids["Aria"], 45)                                 # 40 taken: 30 past 0
    assert t.present.get(ids["Aria"]).stat("dead") is True


def test_damage_at_0_hp_is_a_failed_death_save_and_as_much_as_the_maximum_kills():
    t, ids = fight(hp=5)
    t = hit(t, ids["Aria"], 5)
    t = hit(t, ids["Aria"], 4)
    aria = t.present.get(ids["Aria"])
    assert dying(aria) and aria.stat("death_failures") == 1
    t = hit(t, ids["Aria"], 30)
    assert t.present.get(ids["Aria"]).stat("dead") is True and t.log()[-1].text.startswith("Aria dies: instant death (30 damage past 0 HP")
    t = t.undo()
    assert dying(t.present.get(ids["Aria"]))


def test_healing_at_0_hp_ends_dying_and_the_next_drop_counts_afresh():
    t, ids = fight(hp=3)
    t = hit(t, ids["Aria"], 3)
    t = hit(t, ids["Aria"], 1)
    assert t.present.get(ids["Aria"]).stat("death_failures") == 1
    t = t.do(resolve(t.present, "heal", {"id": ids["Aria"], "amount": 4}))
    aria = t.present.get(ids["Aria"])
    assert aria.hp == 4 and not dying(aria)
    t = hit(t, ids["Aria"], 4)
    assert t.present.get(ids["Aria"]).stat("death_failures") == 0 and dying(t.present.get(ids["Aria"]))


def test_a_monster_at_0_dies_by_default_in_a_new_fight():
    t, ids = fight()
    assert dict(t.present.options)["monsters_at_0"] == "die" and dict(t.present.options)["instant_death"] == "on"
    t = hit(t, ids["Goblin"], 7)
    goblin = t.present.get(ids["Goblin"])
    assert goblin.stat("dead") is True and t.log()[-1].text == "Goblin dies"


def test_a_fight_that_keeps_monsters_dying_gives_them_death_saves():
    t, ids = fight(monsters_at_0="dying")
    t = hit(t, ids["Goblin"], 7)
    goblin = t.present.get(ids["Goblin"])
    assert dying(goblin) and not goblin.stat("dead")
    t = t.do(resolve(t.present, "death_save", {"id": ids["Goblin"]}, random.Random(3)))
    assert t.log()[-1].kind == "death_save"
    t = hit(t, ids["Goblin"], 2)
    assert t.present.get(ids["Goblin"]).stat("death_failures") >= 1


@pytest.mark.parametrize("options", [{"monsters_at_0": "down"}, {}])
def test_a_fight_saved_before_these_rules_replays_as_it_was_played(options):
    """An encounter with neither option (a fight saved before them) or "down": the monster stays down, no one dies at once."""
    t = Timeline.start(new_encounter("e1", "Old").__class__(id="e1", name="Old", system="generic", options=tuple(
        sorted({"skip_down": "npcs", **options}.items()))))
    for fields in ({"name": "Aria", "side": "party", "pc": True, "max_hp": 30}, {"name": "Goblin", "max_hp": 7}):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}))
    ids = {c.name: c.id for c in t.present.combatants}
    t = hit(t, ids["Goblin"], 7)
    assert not t.present.get(ids["Goblin"]).stat("dead") and t.log()[-1].text == "Goblin is down"
    if not options:
        t = hit(t, ids["Aria"], 90)
        assert dying(t.present.get(ids["Aria"]))


def test_the_options_are_checked():
    t, _ = fight()
    with pytest.raises(Exception, match="monsters_at_0 must be one of"):
        t.do(resolve(t.present, "set_option", {"key": "monsters_at_0", "value": "explode"}))
    t = t.do(resolve(t.present, "set_option", {"key": "instant_death", "value": "off"}))
    t, ids = fight(instant_death="off")
    t = hit(t, ids["Aria"], 63)
    assert dying(t.present.get(ids["Aria"]))


def test_the_players_view_says_who_of_the_party_is_dying_and_never_a_hidden_one():
    from pyengine.handoff import table_view

    t, ids = fight(hp=5)
    t = hit(t, ids["Aria"], 5)
    t = hit(t, ids["Aria"], 1)
    t = t.do(resolve(t.present, "death_save", {"id": ids["Aria"], "result": "success"}))
    row = next(r for r in table_view(t.present)["rows"] if r[0] == "Aria")
    assert "dying (1 ✓, 1 ✗)" in row[5]
    t = t.do(resolve(t.present, "set_flag", {"id": ids["Aria"], "flag": "hidden", "on": True}))
    assert all(r[0] != "Aria" for r in table_view(t.present)["rows"])
    t = t.do(resolve(t.present, "set_flag", {"id": ids["Aria"], "flag": "hidden", "on": False}))
    t = hit(t, ids["Aria"], 30)
    assert "dead" in next(r for r in table_view(t.present)["rows"] if r[0] == "Aria")[5]
