"""Enchanted Realms end to end: four combatants with a tie broken by a d20 roll-off, a prone target
giving advantage, a crit chain, a resistant target, the odds before the roll, and undo of the damage."""

from __future__ import annotations

import random

from pyengine.rules import roll_off
from pyengine.systems.realms import Pool, attack_odds, roll_attack
from tests.e2e.conftest import names, open_app

SKILLS = "melee fighting, slashing, cleaving, weapon forte, brawling"


def add_fighter(page, name, side, body, initiative, stats, pc=False):
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("field-name").fill(name)
    page.get_by_test_id("field-side").select_option(side)
    page.get_by_test_id("field-pc").select_option("1" if pc else "0")
    page.get_by_test_id("field-initiative").fill(str(initiative))
    page.get_by_test_id("field-max_hp").fill(str(body))
    for key, value in stats.items():
        page.get_by_test_id(f"field-stat-{key}").fill(str(value))
    page.get_by_test_id("save-combatant").click()
    page.wait_for_function("!document.getElementById('sheet').open")


def active(page):
    return page.eval_on_selector_all(
        "[data-testid=combatant-row][aria-current=true] .name", "els => els.map(e => e.firstChild.textContent)"
    )


def row(page, name):
    return page.locator("#tracker [data-testid=combatant-row]", has_text=name)


def test_realms_fight_tie_roll_off_prone_advantage_crit_chain_resistance_and_undo(context, site):
    seed = 72
    page = open_app(context, site["url"] + f"/?seed={seed}").page
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("new-system").select_option("realms")
    page.get_by_test_id("new-encounter").click()
    assert "Enchanted Realms" in page.get_by_test_id("tracker").inner_text()
    add_fighter(page, "Aldric", "party", 20, 7, {"ac": 14, "str": 2, "weight": 1, "skills": SKILLS, "damage_type": "edged"}, pc=True)
    add_fighter(page, "Bryn", "party", 12, 5, {"ac": 12, "skills": "ranged fighting"}, pc=True)
    add_fighter(page, "Ghoul", "opponents", 30, 7, {"ac": 12, "resistant": "edged", "skills": "melee fighting"})
    add_fighter(page, "Bat", "opponents", 3, 3, {"ac": 10})
    page.get_by_test_id("next-turn").click()  # start: Aldric and the Ghoul tie at 7 and roll off on d20
    rng = random.Random(seed)
    faces = roll_off(["c1", "c3"], rng, 20)
    first, second = ("Aldric", "Ghoul") if faces["c1"] > faces["c3"] else ("Ghoul", "Aldric")
    assert names(page) == [first, second, "Bryn", "Bat"]
    page.get_by_test_id("log-toggle").click()
    log = page.get_by_test_id("log").inner_text()
    assert f"tie roll-off d20: {faces['c1'][0]}" in log and f"tie roll-off d20: {faces['c3'][0]}" in log
    if first == "Ghoul":
        page.get_by_test_id("next-turn").click()
    assert active(page) == ["Aldric"]

    # The Ghoul falls prone: melee attacks against it have advantage.
    row(page, "Ghoul").click()
    page.get_by_test_id("condition-name").fill("Prone")
    page.get_by_test_id("add-condition").click()
    page.get_by_test_id("close-sheet").click()
    assert "Prone" in row(page, "Ghoul").inner_text()

    # Attack… opens the panel on a foe with the attacker whose turn it is.
    page.get_by_test_id("attack-open").click()
    assert page.get_by_test_id("sheet-title").inner_text() == "Ghoul"
    assert page.get_by_test_id("attack-attacker").input_value() == "c1"
    assert page.get_by_test_id("attack-pool").inner_text() == \
        f"6d20: {SKILLS}, advantage from target prone (melee) · edged"
    pool = Pool(skills=5, net="adv", crit_skill=True, ac=12, bonus=3, resistant=True)
    odds = attack_odds(pool)
    assert page.get_by_test_id("attack-p-hit").inner_text() == f"{odds.p_hit * 100:.1f}%"
    assert page.get_by_test_id("attack-p-crit").inner_text() == f"{odds.p_crit * 100:.1f}%"
    assert page.get_by_test_id("attack-drop").inner_text() == f"{odds.p_drop(30) * 100:.1f}%"
    assert "resistant to edged" in page.get_by_test_id("attack-explain").inner_text()

    page.get_by_test_id("attack-roll").click()
    expected = roll_attack(pool, rng)
    assert expected.crit and len(expected.awards) >= 2  # the seed was picked for a chain
    dice = page.get_by_test_id("attack-dice").locator(".die").all_inner_texts()
    assert [int(d) for d in dice] == list(expected.faces) + list(expected.awards)
    assert page.get_by_test_id("attack-dice").locator(".die.crit").count() == list(expected.faces + expected.awards).count(20)
    chain = page.get_by_test_id("attack-chain").inner_text()
    assert f"crit chain: {len(expected.awards)} award d20" in chain and f"advantage +{expected.adv_d3}" in chain
    assert page.get_by_test_id("attack-damage").inner_text() == f"{expected.damage} Body"
    assert expected.damage == expected.raw // 2  # resistant: halved, rounded down
    page.screenshot(path=str(site["scratch"].parent / "realms-attack.png"), full_page=True)
    page.get_by_test_id("attack-apply").click()
    page.get_by_test_id("close-sheet").click()
    assert f"{30 - expected.damage}/30" in row(page, "Ghoul").inner_text()
    assert "Aldric attacks Ghoul (crit)" in page.get_by_test_id("log").inner_text()

    # The attack was Aldric's action: Defend is refused. Bryn, next, defends: the badge shows until Bryn's next turn.
    row(page, "Aldric").click()
    page.get_by_test_id("defend").click()
    assert "already took the action" in page.get_by_test_id("sheet-error").inner_text()
    page.get_by_test_id("close-sheet").click()
    page.get_by_test_id("next-turn").click()
    row(page, "Bryn").click()
    page.get_by_test_id("defend").click()
    page.get_by_test_id("close-sheet").click()
    assert "defending" in row(page, "Bryn").inner_text()
    page.screenshot(path=str(site["scratch"].parent / "realms-tracker.png"), full_page=True)
    for _ in range(3):  # the Defend, the turn, the damage
        page.get_by_test_id("undo").click()
    assert "30/30" in row(page, "Ghoul").inner_text() and "defending" not in row(page, "Bryn").inner_text()
    assert active(page) == ["Aldric"]
    page.reload()
    page.wait_for_function("document.documentElement.dataset.engine === 'ready'")
    assert "30/30" in row(page, "Ghoul").inner_text() and "Prone" in row(page, "Ghoul").inner_text()


def test_a_long_sheet_shows_one_part_at_a_time_and_a_result_next_to_its_button(context, site):
    page = open_app(context, site["url"] + "/?seed=6").page
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("new-system").select_option("realms")
    page.get_by_test_id("new-encounter").click()
    add_fighter(page, "Aldric", "party", 20, 7, {"ac": 14, "skills": "melee fighting"}, pc=True)
    add_fighter(page, "Ghoul", "opponents", 12, 3, {"ac": 12, "skills": "melee fighting"})
    page.locator("#tracker [data-testid=combatant-row]").first.click()
    assert [page.get_by_test_id("sheet-sections").get_by_role("tab").nth(i).inner_text() for i in range(4)] == \
        ["Attack", "Save", "Competition", "Chase"]
    assert page.get_by_test_id("attack-roll").is_visible() and page.get_by_test_id("roll-save").count() == 0
    page.get_by_test_id("section-save").click()
    page.get_by_test_id("roll-save").click()
    result = page.get_by_test_id("last-roll")
    result.wait_for()
    assert "Aldric" in result.inner_text() and "save" in result.inner_text()
    button = page.get_by_test_id("roll-save").bounding_box()
    assert 0 < result.bounding_box()["y"] - button["y"] < 200  # the save's result sits under its button, not screens below
    assert page.get_by_test_id("section-save").get_attribute("aria-selected") == "true"
