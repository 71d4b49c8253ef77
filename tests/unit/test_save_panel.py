"""Issue 52: the save panel in CPython: opened from a creature's save action, its odds per target
(the same numbers as the engine's and the command line's), a player's typed d20, one roll, one Apply,
one Undo; the panel drawn with the issue's test ids, hostile names as text."""

from __future__ import annotations

import json
import random

from pyengine.__main__ import main
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.scripted import Scripted
from web.app import messages as msg
from web.app.effects import Refuse, ShowSheet
from web.app.html import pct
from web.app.model import Model
from web.app.screens.save import save_panel_html
from web.app.update import update

BREATH = {"name": "Fire Breath", "ability": "dex", "dc": 17, "success": "half", "damage": "16d6 fire"}


def fight() -> tuple[Model, dict[str, str]]:
    t = Timeline.start(new_encounter("e1", "Lair"))
    for f in ({"name": "Young Red Dragon", "max_hp": 178, "stats": {"save_dex": 4}, "save_actions": [BREATH]},
              {"name": "Goblin 1", "max_hp": 7, "stats": {"save_dex": 2}},
              {"name": "Aria", "side": "party", "pc": True, "max_hp": 30, "stats": {"save_dex": 5}, "defenses": {"resistances": ["fire"]}},
              {"name": "<img src=x onerror=alert(1)>", "side": "party", "pc": True, "max_hp": 40}):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"initiative": 10, **f}}))
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(1)))
    return Model(t), {c.name: c.id for c in t.present.combatants}


def cli(*args: str, capsys) -> dict:
    assert main(["save-odds", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_dragons_breath_from_its_sheet_with_the_exact_odds_of_every_target(capsys):
    model, ids = fight()
    model, effects = update(model, msg.SavePanelOpened(ids["Young Red Dragon"], 0))
    assert model.ui.sheet == ("save", ids["Young Red Dragon"]) and any(isinstance(e, ShowSheet) for e in effects)
    assert set(model.ui.save["targets"]) == {ids["Aria"], ids["<img src=x onerror=alert(1)>"]}   # its foes, standing
    model, _ = update(model, msg.SaveTargetsPicked("party"))
    html = save_panel_html(model.timeline.present, model.ui.save)
    assert html.count('data-testid="save-odds-row"') == 2 and "<img src=x" not in html and "&lt;img src=x" in html
    aria = cli("--dc", "17", "--bonus", "5", "--damage", "16d6 fire", "--success", "half", "--resist", "fire", "--hp", "30", capsys=capsys)
    other = cli("--dc", "17", "--bonus", "0", "--damage", "16d6 fire", "--success", "half", "--hp", "40", capsys=capsys)
    rows = {row.split('"', 2)[1]: row for row in html.split('data-testid="save-odds-row" data-combatant-id=')[1:]}
    mine, theirs = rows[ids["Aria"]], rows[ids["<img src=x onerror=alert(1)>"]]
    assert f'data-testid="save-p-fail">{pct(aria["p_fail"])}<' in mine and f'>{aria["mean_damage"]:.1f}<' in mine
    assert f'data-testid="save-p-drop">{pct(aria["p_drop"])}<' in mine
    assert f'data-testid="save-p-fail">{pct(other["p_fail"])}<' in theirs and "Dexterity save not set: +0" in theirs
    assert f'>{other["mean_damage"]:.1f}<' in theirs
    for testid in ("save-ability", "save-dc", "save-damage", "save-success", "save-condition", "save-target", "roll-saves"):
        assert f'data-testid="{testid}"' in html


def test_a_typed_d20_one_roll_one_apply_one_undo():
    model, ids = fight()
    model, _ = update(model, msg.SavePanelOpened(ids["Young Red Dragon"], 0))
    config = {"effect": {**BREATH, "dc": "17", "rounds": "0"}, "targets": [ids["Goblin 1"], ids["Aria"]], "d20": {ids["Aria"]: "3"}, "adv": {}}
    model, _ = update(model, msg.SaveConfigured(config))
    before = model.timeline.present
    model, _ = update(model, msg.SavesRolled(Scripted([3] * 16 + [19])))   # 48 fire; the goblin's d20 19
    html = save_panel_html(model.timeline.present, model.ui.save)
    assert html.count('data-testid="save-result-row"') == 2 and 'data-testid="apply-saves"' in html
    assert 'data-saved="true"' in html.split('data-testid="save-result-row"')[1]    # goblin 19 + 2
    assert "Dex save 8 (typed): failed" in html                                     # Aria's 3 + 5
    model, effects = update(model, msg.SavesApplied())
    enc = model.timeline.present
    assert enc.get(ids["Goblin 1"]).hp == 0 and enc.get(ids["Aria"]).hp == 30 - 24
    assert model.timeline.undo().present == before   # one step: one Undo takes all of it back


def test_bad_input_is_said_and_loses_nothing():
    model, ids = fight()
    model, _ = update(model, msg.SavePanelOpened(None, None))
    model, _ = update(model, msg.SaveConfigured({"effect": {"name": "Trap", "ability": "dex", "dc": "99", "damage": "2d6 fire"},
                                                 "targets": [ids["Aria"]]}))
    assert "DC is a whole number" in save_panel_html(model.timeline.present, model.ui.save)
    before = model.timeline
    model, effects = update(model, msg.SavesRolled(random.Random(1)))
    assert model.timeline is before and any(isinstance(e, Refuse) for e in effects)
    model, _ = update(model, msg.SaveConfigured({"effect": {"name": "Trap", "ability": "dex", "dc": "12", "damage": "2d6 fire"},
                                                 "targets": [ids["Aria"]], "d20": {ids["Aria"]: "25"}}))
    model, effects = update(model, msg.SavesRolled(random.Random(1)))
    assert [e.text for e in effects if isinstance(e, Refuse)] == ["Aria's d20 is 1 to 20 (the die alone: its bonus is added)."]
    model, effects = update(model, msg.SaveConfigured({"effect": {"name": "Trap", "ability": "dex", "dc": "12"}, "targets": []}))
    assert "a save needs damage, a condition, or both" in save_panel_html(model.timeline.present, model.ui.save)


def test_an_attacks_rider_shows_its_save_before_apply():
    from web.app.views.generic import attack_html

    assassin = {"name": "Assassin", "max_hp": 78, "attacks": [{"name": "Shortsword", "bonus": 6, "damage": "1d6+3 piercing",
                "rider": {"name": "Shortsword", "ability": "con", "dc": 15, "success": "half", "damage": "7d6 poison"}}]}
    t = Timeline.start(new_encounter("e1", "Alley"))
    for f in (assassin, {"name": "Aria", "side": "party", "pc": True, "max_hp": 60, "stats": {"ac": 14, "save_con": 2}}):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": f}))
    ids = {c.name: c.id for c in t.present.combatants}
    action = resolve(t.present, "d20_attack", {"attacker": ids["Assassin"], "target": ids["Aria"]}, Scripted([15, 4, 10] + [3] * 7))
    html = attack_html(t.present, t.present.get(ids["Aria"]), {"attacker": ids["Assassin"], "pending": {**action.args, "action": action}})
    assert 'data-testid="attack-rider">Then Aria\'s Con save 12 vs DC 15: failed · 21 poison damage</p>' in html
    assert "on a hit: DC 15 Constitution, 7d6 poison, half on a success" in html
