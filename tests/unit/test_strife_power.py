"""Issue 52, section 5: Realm of Strife's power on several targets, one d100 against each target's
own Resistance (seed 001's Rain-type power), the bonus split over the targets hit; exact odds against
an enumeration of the d100, one step, one undo; and the panel."""

from __future__ import annotations

import random

import pytest

from pyengine.errors import RuleError
from pyengine.systems.strife import power_odds, split_bonus
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.scripted import Scripted
from web.app import messages as msg
from web.app.model import Model
from web.app.screens.power import power_panel_html
from web.app.update import update


def fight() -> tuple[Timeline, dict[str, str]]:
    t = Timeline.start(new_encounter("e1", "Pass", system="strife"))
    people = (("Mage", 90, {"spirit_hit": 10, "spirit_crit": 10, "power": "2d6"}), ("Orc", 40, {"resist": 60, "dodge": 15}),
              ("Imp", 30, {"resist": 30}), ("Wolf", 20, {"resist": 95}))
    for name, init, stats in people:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "max_hp": 30, "init_mod": init, "stats": stats}}, random.Random(0)))
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(0)))
    return t, {c.name: c.id for c in t.present.combatants}


def test_each_targets_odds_are_the_d100_counted_with_its_own_resistance():
    t, ids = fight()
    odds = {o["id"]: o for o in power_odds(t.present, {"attacker": ids["Mage"], "targets": [ids["Orc"], ids["Imp"], ids["Wolf"]], "missile": True})}

    def count(resistance: int) -> tuple[float, float]:
        hits = crits = 0
        for n in range(1, 101):
            if n <= 5:
                continue
            if n >= 91:
                hits, crits = hits + 1, crits + 1
            elif n + 10 > resistance:
                hits += 1
        return hits / 100, crits / 100

    assert (odds[ids["Orc"]]["p_hit"], odds[ids["Orc"]]["p_crit"]) == count(75)   # missile-type: Dodge 15 adds
    assert (odds[ids["Imp"]]["p_hit"], odds[ids["Imp"]]["p_crit"]) == count(30)
    assert (odds[ids["Wolf"]]["p_hit"], odds[ids["Wolf"]]["p_crit"]) == count(95) == (0.15, 0.1)  # 86-90, and its crits


def test_one_hit_roll_the_damage_once_the_bonus_split_over_the_targets_hit_one_undo():
    t, ids = fight()
    # d100 70: the Orc (60) and the Imp (30) are hit, the Wolf (95) is not; 2d6 (3, 4) = 7, +5 split over 2: +3 each.
    action = resolve(t.present, "ros_power", {"attacker": ids["Mage"], "targets": [ids["Orc"], ids["Imp"], ids["Wolf"]], "bonus": 5},
                     Scripted([70, 3, 4]))
    assert [r["outcome"] for r in action.args["results"]] == ["hit", "hit", "miss"] and split_bonus(5, 2) == 3
    assert [r.get("damage", 0) for r in action.args["results"]] == [10, 10, 0]
    after = t.do(action)
    assert [after.present.get(ids[n]).hp for n in ("Orc", "Imp", "Wolf")] == [20, 20, 30]
    lines = [e.text for e in after.log()]
    assert "Mage's power on Orc, Imp, Wolf: d100 70; damage 2d6 (3, 4) = 7, bonus +3 each" in lines
    assert "Wolf: 80 vs Resistance 95, miss" in lines
    assert after.undo().present == t.present
    # A crit doubles every target hit; a critical miss misses them all.
    crit = resolve(t.present, "ros_power", {"attacker": ids["Mage"], "targets": [ids["Orc"], ids["Wolf"]]}, Scripted([95, 6, 6]))
    assert [(r["outcome"], r.get("damage")) for r in crit.args["results"]] == [("crit", 24), ("crit", 24)]
    fumble = resolve(t.present, "ros_power", {"attacker": ids["Mage"], "targets": [ids["Imp"]]}, Scripted([3]))
    assert fumble.args["results"][0]["outcome"] == "critical miss" and fumble.args["damage_text"] == ""
    for bad in ({"attacker": ids["Mage"], "targets": []}, {"attacker": ids["Mage"], "targets": [ids["Mage"]]},
                {"attacker": ids["Mage"], "targets": [ids["Imp"], ids["Imp"]]}, {"attacker": ids["Imp"], "targets": [ids["Orc"]]}):
        with pytest.raises(RuleError):
            resolve(t.present, "ros_power", bad, random.Random(0))


def test_the_panel_from_the_selection_odds_roll_apply():
    t, ids = fight()
    model, _ = update(Model(t), msg.SavePanelOpened(None, None, (ids["Orc"], ids["Imp"])))
    assert model.ui.save["effect"]["attacker"] == ids["Mage"]  # whose turn it is
    html = power_panel_html(model.timeline.present, model.ui.save)
    assert html.count('data-testid="save-odds-row"') == 2 and 'data-testid="power-p-hit">50.0%' in html
    model, _ = update(model, msg.SavesRolled(random.Random(2)))
    assert 'data-testid="apply-saves"' in power_panel_html(model.timeline.present, model.ui.save)
    steps = model.timeline.cursor
    model, _ = update(model, msg.SavesApplied())
    assert model.timeline.cursor == steps + 1
