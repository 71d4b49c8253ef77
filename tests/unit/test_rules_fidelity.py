"""Rules fidelity, second pass: the misreadings of the seeds found by reading them line by line, each
against the seed's own text (shared/RULES.md and shared/seeds), with scripted dice where dice roll."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pyengine.errors import RuleError
from pyengine.systems.laurels import out_of_turn
from pyengine.systems.realms import (
    CHASE_TABLE,
    Competition,
    build_attack,
    chase_hexes,
    chase_penalty,
    competition_modifiers,
    movement,
    save_situation,
)
from pyengine.systems.strife import build_spec
from pyengine.tracker import Timeline, resolve
from tests.unit.helpers import step, team
from tests.unit.scripted import Scripted

SEED_000 = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "000_a0b07f15bc4d7147.txt"


# -- Enchanted Realms ---------------------------------------------------------------------------

def test_chase_table_40_ft_row_is_the_seeds():
    assert [chase_hexes(40, s) for s in range(10, 0, -1)] == [1, 1, 1, 1, 1, 0, 1, 1, 1, 0]


@pytest.mark.skipif(not SEED_000.exists(), reason="the seed documents sit beside the project (../shared)")
def test_every_chase_row_matches_seed_000():
    text = SEED_000.read_text()
    rows = {}
    for speed, cells in re.findall(r"^(100|90|80|70|60|55|50|45|40|35|30|25)((?:\d hexe?s?|none)+)$", text, re.M):
        rows[int(speed)] = tuple(0 if c == "none" else int(c[0]) for c in re.findall(r"\d hexe?s?|none", cells))
    assert len(rows) == 12 and all(len(r) == 10 for r in rows.values())
    assert rows == CHASE_TABLE


def test_unconscious_does_not_fail_body_saves_but_cannot_move():
    _, auto, _ = save_situation("body", ["Unconscious"])
    assert auto is None
    assert save_situation("body", ["Paralyzed"])[1]  # Paralyzed does fail them
    assert movement(["Unconscious"]) == "none"
    assert movement(["Paralyzed"]) == "none" and movement(["Prone"]) == "half" and movement([]) is None


def test_grapple_size_bonus_goes_to_a_larger_grappler_only():
    a, v = competition_modifiers(Competition("grapple", aggressor_size=3, victim_size=5))
    assert a == [] and v == []  # a larger victim gets nothing when grabbed
    a, v = competition_modifiers(Competition("grapple", aggressor_size=5, victim_size=3))
    assert a == [("larger by 2 sizes", 4)] and v == []


def test_escape_size_bonus_goes_to_the_larger_side():
    a, v = competition_modifiers(Competition("escape", aggressor_size=5, victim_size=3))  # the escaper is larger
    assert a == [("larger by 2 sizes", 4)] and v == []
    a, v = competition_modifiers(Competition("escape", aggressor_size=3, victim_size=4))  # the grappler is larger
    assert a == [] and v == [("larger by 1 size", 2)]


def test_chase_round_refused_when_the_runner_cannot_move():
    t = team("realms", [("Kael", {"side": "party", "pc": True, "initiative": 8, "stats": {"speed": 50}}),
                        ("Ogre", {"side": "opponents", "initiative": 5})])
    t = step(t, "start_combat", Scripted([]))
    t = step(t, "add_condition", id="c1", name="Grappled")
    with pytest.raises(RuleError, match="cannot move"):
        step(t, "er_chase", Scripted([10] * 10), id="c1")


def test_a_mounted_foe_adds_its_chase_penalty_in_the_tracker():
    assert chase_penalty(["melee fighting"], (), True)[0] == -5
    t = team("realms", [("Kael", {"side": "party", "pc": True, "initiative": 8, "stats": {"skills": "melee fighting"}}),
                        ("Rider", {"side": "opponents", "initiative": 5, "stats": {"mounted": True, "ac": 10}})])
    t = step(t, "start_combat", Scripted([]))
    built = build_attack(t.present, {"attacker": "c1", "target": "c2", "chase": True})
    assert any("foe mounted or aerial: -2" in n for n in built.notes)


# -- Realm of Strife -----------------------------------------------------------------------------

STRIFE = [("Kayden", {"side": "party", "pc": True, "init_mod": 60, "max_hp": 30,
                      "stats": {"ac": 35, "hit": 5, "weapon": "1d8+2", "offhand": "1d4", "dual_skill": True,
                                "spirit_hit": 10, "power": "2d6"}}),
          ("Orc", {"side": "opponents", "init_mod": 50, "max_hp": 25,
                   "stats": {"ac": 40, "parry": 40, "weapon": "1d10", "ward_off": True, "untrained": True}})]


def test_an_untrained_defender_neither_parries_nor_wards_off():
    t = team("strife", STRIFE)
    spec, _, notes = build_spec(t.present, {"attacker": "c1", "target": "c2", "kind": "physical"})
    assert spec.parry == 0 and spec.ward_off is None and notes["target_untrained"]
    trained = team("strife", [STRIFE[0], ("Orc", {**STRIFE[1][1], "stats": {**STRIFE[1][1]["stats"], "untrained": False}})])
    spec, _, _ = build_spec(trained.present, {"attacker": "c1", "target": "c2", "kind": "physical"})
    assert spec.parry == 40 and spec.ward_off == (60, 50)


def test_a_power_takes_the_whole_action_no_off_hand_attack_with_it():
    t = step(team("strife", STRIFE), "start_combat", Scripted([]))
    assert t.present.active_id == "c1"
    # power, then the off-hand: refused before any die is rolled
    t1 = t.do(resolve(t.present, "ros_attack", {"attacker": "c1", "target": "c2", "kind": "spirit"}, Scripted([50, 3, 3])))
    with pytest.raises(RuleError, match="entire action"):
        resolve(t1.present, "ros_attack", {"attacker": "c1", "target": "c2", "weapon": "off"}, Scripted([]))
    # off-hand, then a power: refused too; main hand and off hand together still work
    t2 = step(t, "ros_attack", Scripted([50, 3]), attacker="c1", target="c2", weapon="off")
    with pytest.raises(RuleError, match="entire action"):
        resolve(t2.present, "ros_attack", {"attacker": "c1", "target": "c2", "kind": "spirit"}, Scripted([]))
    step(t2, "ros_attack", Scripted([50, 3]), attacker="c1", target="c2", weapon="main")


def test_untrained_thrown_weapon_says_its_range_is_halved():
    t = team("strife", [("Kayden", {**STRIFE[0][1], "stats": {**STRIFE[0][1]["stats"], "untrained": True}}), STRIFE[1]])
    _, _, notes = build_spec(t.present, {"attacker": "c1", "target": "c2", "kind": "physical", "ranged": True})
    assert notes["range_halved"]
    _, _, notes = build_spec(t.present, {"attacker": "c1", "target": "c2", "kind": "physical"})
    assert not notes["range_halved"]


# -- Laurels and Loot -------------------------------------------------------------------------

LAURELS = [("Tombril", {"side": "party", "pc": True, "max_hp": 55, "stats": {"level": 1, "str": 8, "die": 6, "injury_max": 20}}),
           ("Wren", {"side": "party", "pc": True, "max_hp": 18, "stats": {"level": 1, "awa": 3, "die": 8, "ranged": True, "injury_max": 10}}),
           ("Giant", {"side": "opponents", "max_hp": 68, "stats": {"level": 1, "str": 9, "dex": 3, "die": 6, "injury_max": 30}})]


def party_first() -> Timeline:
    t = step(team("laurels", LAURELS), "start_combat", Scripted([4]))  # 4: the party first
    assert t.present.active_id == "c1"
    return t


def test_a_character_who_attacked_cannot_parry_and_one_who_parries_cannot_attack():
    t = party_first()
    t1 = step(t, "ll_attack", Scripted([2]), attacker="c1", target="c3")
    with pytest.raises(RuleError, match="cannot attack on its turn"):
        step(t1, "ll_parry", id="c1", **{"with": "weapon"})
    t2 = step(t, "ll_parry", id="c1", **{"with": "weapon"})
    with pytest.raises(RuleError, match="parrying"):
        resolve(t2.present, "ll_attack", {"attacker": "c1", "target": "c3"}, Scripted([2]))


def test_no_sneak_attack_on_a_target_attacked_in_the_prior_round():
    t = party_first()
    t = step(t, "ll_attack", Scripted([2]), attacker="c1", target="c3")
    t = step(t, "next_turn")  # Wren
    t = step(t, "next_turn")  # the Giant
    t = step(t, "next_turn", Scripted([5]))  # round 2, the party first again
    assert t.present.round == 2 and t.present.active_id == "c1"
    with pytest.raises(RuleError, match="prior round"):
        resolve(t.present, "ll_attack", {"attacker": "c1", "target": "c3", "sneak": True}, Scripted([2]))
    step(t, "ll_attack", Scripted([10, 2, 1]), attacker="c2", target="c3", sneak=True)  # another attacker may


def test_an_attacker_whose_side_is_not_acting_is_said_to_be_out_of_turn():
    t = party_first()
    assert out_of_turn(t.present, "c1") is None
    assert "out of turn" in out_of_turn(t.present, "c3") and "the party's turn" in out_of_turn(t.present, "c3")
    ambushed = step(team("laurels", LAURELS), "start_combat", Scripted([1]))  # 1: the party is surprised
    assert out_of_turn(ambushed.present, "c1") == "Tombril is surprised: no turn and no attack in round 1."  # (issue 53: said first)


def test_a_ranged_attack_needs_ten_feet():
    t = party_first()
    with pytest.raises(RuleError, match="10 ft"):
        resolve(t.present, "ll_attack", {"attacker": "c2", "target": "c3", "close": True}, Scripted([2, 1]))
    resolve(t.present, "ll_attack", {"attacker": "c2", "target": "c3"}, Scripted([2, 1]))
