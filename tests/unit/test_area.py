"""Issue 52, section 5: Enchanted Realms' area effect, one save for several targets (a body
preservation save by default), each with its own cover and restrictions, its odds exact against a
brute-force enumeration, the damage to Body rolled once, one step, one undo; and the panel."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from pyengine.errors import RuleError
from pyengine.systems.realms.area import area_odds
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.scripted import Scripted
from web.app import messages as msg
from web.app.model import Model
from web.app.screens.area import area_panel_html
from web.app.update import update


def fight() -> tuple[Timeline, dict[str, str]]:
    t = Timeline.start(new_encounter("e1", "Ford", system="realms"))
    people = ({"name": "Orc", "max_hp": 12, "stats": {"body_mod": 1}}, {"name": "Elf", "max_hp": 9},
              {"name": "<img src=x onerror=alert(1)>", "max_hp": 8}, {"name": "Troll", "max_hp": 20})
    for fields in people:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}, random.Random(0)))
    return t, {c.name: c.id for c in t.present.combatants}


def brute(modifier: int, dc: int, net: str | None) -> Fraction:
    """P(success) by enumerating every d20 (two for advantage or disadvantage)."""
    dice = 2 if net else 1
    rolls = list(itertools.product(range(1, 21), repeat=dice))
    kept = [max(r) if net == "adv" else min(r) if net == "dis" else r[0] for r in rolls]
    return Fraction(sum(1 for k in kept if k + modifier >= dc), len(rolls))


def test_each_targets_odds_are_exact_with_its_cover_and_restrictions():
    t, ids = fight()
    t = t.do(resolve(t.present, "add_condition", {"id": ids["Elf"], "name": "Restrained"}))
    t = t.do(resolve(t.present, "add_condition", {"id": ids["Troll"], "name": "Paralyzed"}))
    args = {"dc": 14, "modifier": 1, "targets": [{"id": ids["Orc"], "cover": "half"}, {"id": ids["Elf"], "cover": "complete"},
                                                  {"id": ids["Troll"]}]}
    odds = {o["id"]: o for o in area_odds(t.present, args)}
    # The Orc: +1 the effect's, +1 its Body modifier, +2 half cover; the Elf: +1, +5, restrained (disadvantage on body saves).
    assert odds[ids["Orc"]]["p_success"] == pytest.approx(float(brute(4, 14, None)), abs=1e-12)
    assert odds[ids["Elf"]]["p_success"] == pytest.approx(float(brute(6, 14, "dis")), abs=1e-12)
    assert odds[ids["Troll"]]["p_success"] == 0 and "paralyzed" in odds[ids["Troll"]]["auto_fail"]
    # Preservation saves: poisoned is at disadvantage, cover adds too; a sight save gets no cover.
    t2 = t.do(resolve(t.present, "add_condition", {"id": ids["Orc"], "name": "Poisoned"}))
    pres = area_odds(t2.present, {"dc": 12, "kind": "preservation", "targets": [{"id": ids["Orc"], "cover": "three-quarters"}]})[0]
    assert pres["net"] == "dis" and pres["p_success"] == pytest.approx(float(brute(5, 12, "dis")), abs=1e-12)
    sight = area_odds(t.present, {"dc": 12, "kind": "sight", "targets": [{"id": ids["Orc"], "cover": "half"}]})[0]
    assert sight["modifier"] == 0
    # A simulation agrees with the exact figure.
    rng = random.Random(5)
    wins = sum(1 for _ in range(20_000) if min(rng.randint(1, 20), rng.randint(1, 20)) + 6 >= 14)
    assert abs(wins / 20_000 - odds[ids["Elf"]]["p_success"]) < 0.015


def test_one_roll_one_step_half_damage_rounded_down_and_one_undo():
    t, ids = fight()
    # Scripted dice: the damage 2d6 (5, 6) = 11, then the Orc's d20 (15: success), the Elf's (3: failure).
    action = resolve(t.present, "er_area", {"name": "Fire cloud", "dc": 12, "damage": "2d6", "success": "half",
                                            "targets": [{"id": ids["Orc"]}, {"id": ids["Elf"], "cover": "half"}]}, Scripted([5, 6, 15, 3]))
    assert action.args["amount"] == 11 and [r["success"] for r in action.args["results"]] == [True, False]
    after = t.do(action)
    assert after.present.get(ids["Orc"]).hp == 12 - 5 and after.present.get(ids["Elf"]).hp == 0
    lines = [e.text for e in after.log()]
    assert "Fire cloud (body save vs DC 12) on Orc, Elf: 2d6 (5, 6) = 11" in lines
    assert "Orc's body save vs DC 12: success" in lines and "Elf's body save vs DC 12: failure" in lines
    assert after.undo().present == t.present
    for bad in ({"dc": 12, "targets": []}, {"dc": 12, "targets": [{"id": "nobody"}]}, {"dc": 12, "kind": "luck", "targets": [{"id": ids["Orc"]}]},
                {"dc": 12, "damage": "1000d6", "targets": [{"id": ids["Orc"]}]}, {"dc": 999, "targets": [{"id": ids["Orc"]}]},
                {"dc": 12, "targets": [{"id": ids["Orc"], "cover": "a wall"}]}):
        with pytest.raises(RuleError):
            resolve(t.present, "er_area", bad, random.Random(0))


def test_the_panel_from_the_selection_odds_roll_apply_undo_and_a_hostile_name_as_text():
    t, ids = fight()
    model = Model(t)
    model, _ = update(model, msg.SavePanelOpened(None, None, (ids["Orc"], ids["Elf"], ids["<img src=x onerror=alert(1)>"])))
    assert model.ui.sheet == ("save", "") and model.ui.save["effect"]["kind"] == "body"
    config = {"effect": {"name": "Rockfall", "kind": "body", "dc": "13", "modifier": "0", "damage": "3d6", "success": "half"},
              "targets": list(model.ui.save["targets"]), "d20": {}, "adv": {ids["Elf"]: "adv"}, "cover": {ids["Orc"]: "half"}}
    model, _ = update(model, msg.SaveConfigured(config))
    html = area_panel_html(model.timeline.present, model.ui.save)
    assert html.count('data-testid="save-odds-row"') == 3 and "<img src=x" not in html and "&lt;img src=x" in html
    expected = float(brute(1 + 2, 13, None))  # the Orc: Body +1, half cover +2
    assert f'data-testid="area-p-success">{expected * 100:.1f}%' in html
    model, effects = update(model, msg.SavesRolled(random.Random(3)))
    assert model.ui.save["pending"] is not None
    html = area_panel_html(model.timeline.present, model.ui.save)
    assert html.count('data-testid="save-result-row"') == 3 and 'data-testid="apply-saves"' in html
    steps = model.timeline.cursor
    model, _ = update(model, msg.SavesApplied())
    assert model.timeline.cursor == steps + 1 and model.ui.save["applied"]
    model, _ = update(model, msg.UndoTapped())
    assert model.timeline.present == t.present
