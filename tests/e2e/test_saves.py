"""Issue 52 on the game master's phone (390 x 844, generic d20): the Young Red Dragon (from the built
site's SRD library, with its save bonuses and its Fire Breath) breathes on two goblins and two
characters from its sheet: each target's exact odds before the roll (the command line's numbers), a
player's d20 typed, one roll, one Apply, the log's line per target, one Undo restoring all four; the
panel in both themes at phone size; a character at 30/30 HP taking 63 fire dies at once."""

from __future__ import annotations

import json
import random
import re

from pyengine.__main__ import main
from pyengine.systems.srd import LIBRARY_FILE, combatant_fields, find, read_library
from tests.e2e.conftest import open_seeded, stored_fight
from tests.e2e.test_creature_library import log_text
from tests.e2e.test_evening import add, played, row, toast
from tests.e2e.test_players_phone import cut_text
from tests.e2e.test_turn_tools import close


def tick(page, *names: str) -> None:
    """Tick targets in the save panel, each waiting for its odds line."""
    for name in names:
        box = page.locator("label", has=page.locator("[data-testid=save-target]")).filter(has_text=name).first
        before = page.locator("[data-testid=save-odds-row]").count()
        box.locator("input").check()
        page.wait_for_function(f"document.querySelectorAll('[data-testid=save-odds-row]').length === {before + 1}")


def on_selected(page, *cids: str) -> None:
    """Rows selected together, then the panel for all of them (Saving throw… / Area effect… / A power on them…)."""
    page.get_by_test_id("select-mode").click()
    for cid in cids:
        page.locator(f"#tracker [data-combatant-id={cid}]").click()
    page.get_by_test_id("apply-selected").click()
    page.get_by_test_id("save-selected").click()
    page.get_by_test_id("save-odds-list").wait_for()


def hp(page, name: str) -> str:
    return row(page, name).get_by_test_id("hp").inner_text()


def cli_odds(capsys, *args: str) -> dict:
    assert main(["save-odds", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_fire_breath_on_four_targets_with_exact_odds_one_apply_one_undo(context, site, capsys, tmp_path):
    library = read_library((site["dist"] / LIBRARY_FILE).read_text())
    dragon = combatant_fields(find(library, "Young Red Dragon"))
    goblin = combatant_fields(find(library, "Goblin"))
    t = played("generic", ("add_combatant", {"combatant": {**dragon, "initiative": 20}}),
               ("add_combatant", {"combatant": {**goblin, "name": "Goblin", "initiative": 12}, "count": 2}),
               add("Aria", "party", max_hp=30, initiative=15, stats={"ac": 15, "save_dex": 5}, defenses={"resistances": ["fire"]}),
               add("Bram", "party", max_hp=44, initiative=14, stats={"ac": 16, "save_dex": 1}),
               ("start_combat", {}))
    page = open_seeded(context, site["url"] + "/?seed=7", stored_fight(t)).page
    before = {n: hp(page, n) for n in ("Goblin 1", "Goblin 2", "Aria", "Bram")}

    row(page, "Young Red Dragon").click()
    breath = page.locator("[data-testid=save-action]", has_text="Fire Breath")
    assert breath.count() == 1 and page.locator("[data-testid=save-action]", has_text="Save…").count() == 1
    breath.click()
    page.get_by_test_id("save-odds-list").wait_for()
    assert page.get_by_test_id("save-dc").input_value() == "17" and page.get_by_test_id("save-ability").input_value() == "dex"
    assert page.get_by_test_id("save-damage").input_value() == "16d6 fire"
    assert page.locator("[data-testid=save-odds-row]").count() == 2   # its foes by default: both characters
    tick(page, "Goblin 1", "Goblin 2")

    # Each target's odds are the command line's, to the shown digit.
    expected = {"Goblin 1": ("2", []), "Aria": ("5", ["--resist", "fire"]), "Bram": ("1", [])}
    for name, (bonus, extra) in expected.items():
        hp_now = re.match(r"(\d+)", hp(page, name)).group(1)
        odds = cli_odds(capsys, "--dc", "17", "--bonus", bonus, "--damage", "16d6 fire", "--success", "half", *extra, "--hp", hp_now)
        line = page.locator("[data-testid=save-odds-row]", has=page.locator("b", has_text=name)).first
        assert line.get_by_test_id("save-p-fail").inner_text() == f"{odds['p_fail'] * 100:.1f}%"
        assert line.get_by_test_id("save-mean").inner_text() == f"{odds['mean_damage']:.1f}"
        assert line.get_by_test_id("save-p-drop").inner_text() == f"{odds['p_drop'] * 100:.1f}%"

    # Aria's player rolled a physical 18: typed; the rest are rolled.
    aria = page.locator("[data-testid=save-odds-row]", has=page.locator("b", has_text="Aria")).first
    aria.get_by_test_id("save-d20").fill("18")
    aria.get_by_test_id("save-d20").press("Tab")
    page.wait_for_function("document.querySelector('[data-testid=save-d20][value=\"18\"]')")
    page.get_by_test_id("roll-saves").click()
    page.get_by_test_id("apply-saves").wait_for()
    results = page.locator("[data-testid=save-result-row]")
    assert results.count() == 4
    shown = {}
    for i in range(4):
        r = results.nth(i)
        name = r.locator("b").first.inner_text()
        shown[name] = (r.get_attribute("data-saved") == "true", int(r.get_by_test_id("save-result-damage").inner_text()))
    assert "Dex save 23 (typed): succeeded" in results.filter(has=page.locator("b", has_text="Aria")).first.inner_text()
    rolled = int(re.search(r"= (\d+)", page.get_by_test_id("save-damage-roll").inner_text()).group(1))
    for name, (made, damage) in shown.items():
        whole = rolled // 2 if made else rolled
        assert damage == (whole // 2 if name == "Aria" else whole)   # Aria resists fire: halved again
    page.screenshot(path=str(tmp_path / "save-panel-dark.png"))
    page.get_by_test_id("apply-saves").click()
    said = toast(page)
    assert "Goblin 1" in said and "Bram" in said
    close(page)
    for name, (_, damage) in shown.items():
        start = int(before[name].split("/")[0])
        assert hp(page, name).split("/")[0] == str(max(0, start - damage))
    log = log_text(page)
    assert "Young Red Dragon's Fire Breath (DC 17 Dexterity, 16d6 fire, half on a success) on" in log
    assert "Aria: Dex save 23 vs DC 17, succeeded (typed)" in log

    page.get_by_test_id("undo").click()
    for name, shown_hp in before.items():
        page.wait_for_function(f"(r => r && r.textContent === {shown_hp!r})(Array.from(document.querySelectorAll('[data-testid=combatant-row]'))"
                               f".find(x => x.querySelector('.name').textContent.includes({name!r}))?.querySelector('[data-testid=hp]'))")


def test_the_panel_at_phone_size_in_both_themes_and_instant_death(context, site, tmp_path):
    t = played("generic", add("Dragon", max_hp=178, initiative=20, stats={"save_dex": 4}),
               add("Aria", "party", max_hp=30, initiative=15, stats={"save_dex": 5}),
               add("Bram", "party", max_hp=40, initiative=14), add("Goblin", count=2, max_hp=7, initiative=12),
               ("start_combat", {}))
    page = open_seeded(context, site["url"] + "/?seed=3", stored_fight(t)).page
    for theme in ("dark", "light"):
        page.emulate_media(color_scheme=theme)
        row(page, "Dragon").click()
        page.locator("[data-testid=save-action]", has_text="Save…").click()
        page.get_by_test_id("save-damage").fill("18d6 fire")
        page.get_by_test_id("save-damage").press("Tab")
        page.get_by_test_id("save-dc").fill("21")
        page.get_by_test_id("save-dc").press("Tab")
        page.wait_for_function("document.querySelector('[data-testid=save-words]')?.textContent.startsWith('DC 21')")
        tick(page, "Goblin 1", "Goblin 2")
        page.wait_for_function("document.querySelectorAll('[data-testid=save-odds-row] [data-testid=save-mean]').length === 4")
        page.screenshot(path=str(tmp_path / f"save-panel-{theme}.png"), full_page=True)
        overflow = page.evaluate("""() => [...document.querySelectorAll('#sheet *')].filter(e => e.scrollWidth > e.clientWidth + 1
            && getComputedStyle(e).overflowX === 'visible' && e.getBoundingClientRect().right > 390).map(e => e.dataset.testid || e.tagName)""")
        assert overflow == [] and cut_text(page, "#sheet") == []
        close(page)
    # 63 fire on a character at 30/30: instant death (SRD), said in the log and on its row.
    row(page, "Aria").click()
    page.get_by_test_id("hp-amount").fill("63 fire")
    page.get_by_test_id("damage").click()
    assert "Aria dies: instant death (33 damage past 0 HP, maximum 30)" in toast(page)
    close(page)
    assert row(page, "Aria").get_by_test_id("death-state").inner_text() == "dead"


def test_a_paralysis_typed_by_hand_ends_on_the_saves_repeated_at_the_end_of_its_turns(context, site):
    t = played("generic", add("Ghoul", max_hp=22, initiative=20),
               add("Aria", "party", max_hp=30, initiative=15, stats={"save_con": 1}), ("start_combat", {}))
    page = open_seeded(context, site["url"] + "/?seed=11", stored_fight(t)).page
    row(page, "Ghoul").click()
    page.locator("[data-testid=save-action]", has_text="Save…").click()
    for testid, value in (("save-effect-name", "Claws"), ("save-dc", "10")):
        page.get_by_test_id(testid).fill(value)
        page.get_by_test_id(testid).press("Tab")
    page.get_by_test_id("save-ability").select_option("con")
    page.get_by_test_id("save-success").select_option("none")
    page.get_by_test_id("save-condition").select_option("Paralyzed")
    page.get_by_test_id("save-rounds").select_option("10")
    page.get_by_test_id("save-repeat").check()
    page.wait_for_function("document.querySelector('[data-testid=save-words]')?.textContent"
                           ".includes('paralyzed (1 minute, save again each turn)')")
    line = page.locator("[data-testid=save-odds-row]").first
    assert line.get_by_test_id("save-p-fail").inner_text() == "40.0%"     # d20 + 1 < 10: 8 faces of 20
    line.get_by_test_id("save-d20").fill("2")
    line.get_by_test_id("save-d20").press("Tab")
    page.wait_for_function("document.querySelector('[data-testid=save-d20][value=\"2\"]')")
    page.get_by_test_id("roll-saves").click()
    page.get_by_test_id("apply-saves").click()
    toast(page)
    close(page)
    assert "Paralyzed" in row(page, "Aria").inner_text()
    # Aria's turn: the reminder under "Now:" with its chance, and Roll.
    page.get_by_test_id("next-turn").click()
    page.wait_for_function("document.querySelector('[data-testid=turn-now] b')?.textContent === 'Aria'")
    reminder = page.get_by_test_id("repeat-save-line")
    assert "Constitution save DC 10 ends Paralyzed" in reminder.inner_text()
    assert reminder.get_by_test_id("repeat-save-chance").inner_text() == "60.0%"
    page.get_by_test_id("repeat-save").click()
    said = toast(page)
    assert "to end Paralyzed" in said
    if "succeeded" in said:
        page.wait_for_function("!document.querySelector('[data-testid=repeat-save-line]')")
        assert "Paralyzed" not in row(page, "Aria").inner_text()
    else:
        assert "Paralyzed" in row(page, "Aria").inner_text() and reminder.count() == 1
    page.get_by_test_id("undo").click()
    page.get_by_test_id("repeat-save-line").wait_for()
    assert "Paralyzed" in row(page, "Aria").inner_text()


def test_a_ghouls_claws_from_the_library_paralyze_on_a_failed_save_repeated_at_the_end_of_its_turns(context, site):
    """The SRD Ghoul's Claws (the library's rider: DC 10 Constitution or paralyzed for 1 minute, the save
    repeated at the end of each of the target's turns) from the attack panel: the rider's save shown
    before Apply, the condition with its repeat save under "Now:" on the target's turn."""
    library = read_library((site["dist"] / LIBRARY_FILE).read_text())
    t = played("generic", ("add_combatant", {"combatant": {**combatant_fields(find(library, "Ghoul")), "initiative": 20}}),
               add("Aria", "party", max_hp=60, initiative=15, stats={"ac": 5, "save_con": 1}), ("start_combat", {}))
    page = open_seeded(context, site["url"] + "/?seed=5", stored_fight(t)).page
    row(page, "Aria").click()
    page.get_by_test_id("attack-attacker").select_option(label="Ghoul")
    page.wait_for_function("document.querySelector('[data-testid=attack-with]')")
    page.get_by_test_id("attack-with").select_option("Claws")
    page.wait_for_function("document.querySelector('[data-testid=attack-explain]').textContent.includes('2d4+2 slashing')")
    for _ in range(40):  # rolled until the claws hit and the rider's save fails (the page's dice are seeded)
        page.get_by_test_id("attack-roll").click()
        page.get_by_test_id("attack-result").wait_for()
        rider = page.get_by_test_id("attack-rider")
        if rider.count() and "failed" in rider.inner_text():
            break
    said = page.get_by_test_id("attack-rider").inner_text()
    assert re.fullmatch(r"Then Aria's Con save \d+ vs DC 10: failed · paralyzed", said), said
    page.get_by_test_id("attack-apply").click()
    page.wait_for_function("!document.querySelector('[data-testid=attack-apply]')")
    close(page)
    assert "paralyzed" in row(page, "Aria").inner_text().lower()
    assert "Aria: Con save" in log_text(page)
    page.get_by_test_id("next-turn").click()
    page.wait_for_function("document.querySelector('[data-testid=turn-now] b')?.textContent === 'Aria'")
    reminder = page.get_by_test_id("repeat-save-line")
    assert "Constitution save DC 10 ends" in reminder.inner_text()
    assert reminder.get_by_test_id("repeat-save-chance").inner_text() == "60.0%"   # d20 + 1 >= 10: 12 faces of 20


def test_an_enchanted_realms_area_effect_on_three_targets_one_behind_half_cover(context, site, tmp_path):
    """Section 5: three combatants selected together, "Area effect…": a body preservation save, each
    target's exact P(success) (the Orc's Body modifier, the Elf's half cover +2, the paralyzed Troll
    failing), the damage to Body rolled once, one Apply, one Undo."""
    from fractions import Fraction

    from pyengine.tracker import Timeline, new_encounter, resolve

    t = Timeline.start(new_encounter("e1", "Ford", system="realms"))
    for fields in ({"name": "Orc", "max_hp": 12, "initiative": 8, "stats": {"body_mod": 1}}, {"name": "Elf", "max_hp": 9, "initiative": 6},
                   {"name": "Troll", "max_hp": 20, "initiative": 3}):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}, random.Random(0)))
    t = t.do(resolve(t.present, "add_condition", {"id": "c3", "name": "Paralyzed"}))
    page = open_seeded(context, site["url"] + "/?seed=4", stored_fight(t)).page
    before = {n: hp(page, n) for n in ("Orc", "Elf", "Troll")}
    on_selected(page, "c1", "c2", "c3")
    assert page.locator("[data-testid=save-odds-row]").count() == 3
    for testid, value in (("save-effect-name", "Rockfall"), ("save-dc", "13"), ("save-damage", "3d6")):
        page.get_by_test_id(testid).fill(value)
        page.get_by_test_id(testid).press("Tab")
    page.get_by_test_id("save-success").select_option("half")
    elf = page.locator("[data-testid=save-odds-row][data-combatant-id=c2]")
    elf.get_by_test_id("area-cover").select_option("half")
    page.wait_for_function("document.querySelector('[data-testid=save-odds-row][data-combatant-id=c2]').textContent.includes('half cover: +2')")

    def p(mod: int) -> str:
        return f"{float(Fraction(sum(1 for f in range(1, 21) if f + mod >= 13), 20)) * 100:.1f}%"

    orc = page.locator("[data-testid=save-odds-row][data-combatant-id=c1]")
    assert orc.get_by_test_id("area-p-success").inner_text() == p(1)
    assert elf.get_by_test_id("area-p-success").inner_text() == p(2)
    assert "fails automatically (paralyzed: fails body saves)" in page.locator("[data-testid=save-odds-row][data-combatant-id=c3]").inner_text()
    page.screenshot(path=str(tmp_path / "area-effect.png"), full_page=True)
    assert cut_text(page, "#sheet") == []
    page.get_by_test_id("roll-saves").click()
    page.get_by_test_id("apply-saves").wait_for()
    rolled = int(re.search(r"= (\d+)", page.get_by_test_id("save-damage-roll").inner_text()).group(1))
    taken = {}
    for cid, name in (("c1", "Orc"), ("c2", "Elf"), ("c3", "Troll")):
        r = page.locator(f"[data-testid=save-result-row][data-combatant-id={cid}]")
        made = r.get_attribute("data-saved") == "true"
        taken[name] = int(r.get_by_test_id("save-result-damage").inner_text())
        assert taken[name] == (rolled // 2 if made else rolled)
    assert page.locator("[data-testid=save-result-row][data-combatant-id=c3]").get_attribute("data-saved") == "false"
    page.get_by_test_id("apply-saves").click()
    page.get_by_test_id("save-applied").wait_for()
    close(page)
    for name, lost in taken.items():
        start = int(before[name].split("/")[0])
        assert hp(page, name).split("/")[0] == str(max(0, start - lost))
    assert "Rockfall (body save vs DC 13) on Orc, Elf, Troll" in log_text(page)
    page.get_by_test_id("undo").click()
    page.wait_for_function(f"document.querySelector('#tracker [data-combatant-id=c3] [data-testid=hp]').textContent === {before['Troll']!r}")
    assert {n: hp(page, n) for n in before} == before


def test_a_realm_of_strife_power_on_three_targets_with_one_hit_roll(context, site):
    """Section 5: Mira's Rain-type power on three foes selected together: each one's exact P(hit)
    against its own Resistance, one d100, the damage once with the bonus split over the targets hit,
    one Apply, one Undo."""
    from pyengine.tracker import Timeline, new_encounter, resolve

    t = Timeline.start(new_encounter("e1", "Pass", system="strife"))
    for name, init, stats in (("Mira", 90, {"spirit_hit": 10, "spirit_crit": 10, "power": "2d6"}), ("Orc", 40, {"resist": 60}),
                              ("Imp", 30, {"resist": 30}), ("Wolf", 20, {"resist": 95})):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "max_hp": 30, "init_mod": init, "stats": stats}}, random.Random(0)))
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(0)))
    page = open_seeded(context, site["url"] + "/?seed=6", stored_fight(t)).page
    before = {n: hp(page, n) for n in ("Orc", "Imp", "Wolf")}
    on_selected(page, "c2", "c3", "c4")
    assert page.get_by_test_id("power-attacker").input_value() == "c1"   # whose turn it is
    page.get_by_test_id("power-bonus").fill("5")
    page.get_by_test_id("power-bonus").press("Tab")
    expected = {"c2": "50.0%", "c3": "80.0%", "c4": "15.0%"}   # d100 + 10 over 60, 30, 95; 1-5 miss, 91-100 crit
    for cid, chance in expected.items():
        assert page.locator(f"[data-testid=save-odds-row][data-combatant-id={cid}]").get_by_test_id("power-p-hit").inner_text() == chance
    assert cut_text(page, "#sheet") == []
    page.get_by_test_id("roll-saves").click()
    page.get_by_test_id("apply-saves").wait_for()
    hit = {cid: page.locator(f"[data-testid=save-result-row][data-combatant-id={cid}]").get_attribute("data-saved") == "false"
           for cid in expected}
    natural = int(re.search(r"d100 (\d+)", page.get_by_test_id("save-damage-roll").inner_text()).group(1))
    assert hit["c2"] == (natural > 50 or natural >= 91) and hit["c3"] == (natural > 20) and hit["c4"] == (natural > 85)
    page.get_by_test_id("apply-saves").click()
    page.get_by_test_id("save-applied").wait_for()
    close(page)
    assert f"Mira's power on Orc, Imp, Wolf: d100 {natural}" in log_text(page)
    page.get_by_test_id("undo").click()
    page.wait_for_function("document.querySelector('#tracker [data-combatant-id=c2] [data-testid=hp]').textContent === " + repr(before["Orc"]))
    assert {n: hp(page, n) for n in before} == before
