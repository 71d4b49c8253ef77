"""Laurels and Loot end to end: an ambush roll, the party acting in a chosen order, a ranged hit
going to Injuries with the odds shown first, and undo."""

from __future__ import annotations

import random

from pyengine.systems.laurels import side_initiative
from tests.e2e.conftest import names, open_app


def add_fighter(page, name, side, stamina, stats, flags=()):
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("field-name").fill(name)
    page.get_by_test_id("field-side").select_option(side)
    page.get_by_test_id("field-pc").select_option("0")  # as these tests were written: nobody is a PC
    page.get_by_test_id("field-max_hp").fill(str(stamina))
    for key, value in stats.items():
        page.get_by_test_id(f"field-stat-{key}").fill(str(value))
    for key in flags:
        page.get_by_test_id(f"field-stat-{key}").check()
    page.get_by_test_id("save-combatant").click()
    page.wait_for_function("!document.getElementById('sheet').open")


def active(page):
    return page.eval_on_selector_all(
        "[data-testid=combatant-row][aria-current=true] .name", "els => els.map(e => e.firstChild.textContent)"
    )


def test_laurels_fight_ambush_free_order_ranged_injury_and_undo(context, site):
    seed = 11
    page = open_app(context, site["url"] + f"/?seed={seed}").page
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("new-system").select_option("laurels")
    page.get_by_test_id("new-encounter").click()
    assert "Laurels and Loot" in page.get_by_test_id("tracker").inner_text()
    add_fighter(page, "Tombril", "party", 55, {"level": 9, "str": 8, "dex": 5, "armour": 3, "magic": 2, "injury_max": 20})
    add_fighter(page, "Wren", "party", 18, {"level": 1, "awa": 3, "die": 8, "injury_max": 10}, ("ranged", "cannot_be_surprised"))
    add_fighter(page, "Half-orc", "opponents", 20, {"level": 2, "dex": 1, "armour": 3, "injury_max": 8})
    page.get_by_test_id("ambush").select_option("opponents")
    page.get_by_test_id("next-turn").click()  # roll for sides
    rng = random.Random(seed)
    first = side_initiative(1, rng.randint(1, 6), "opponents")
    assert first.text() in page.get_by_test_id("side-banner").inner_text()
    # Play on until the party's side acts with both members free to go.
    for _ in range(8):
        banner = page.get_by_test_id("turn-now").inner_text()
        if banner.startswith("The party's turn") and page.get_by_test_id("act-now").count() == 1 and active(page) == ["Tombril"]:
            break
        page.get_by_test_id("next-turn").click()
    assert active(page) == ["Tombril"]
    page.get_by_test_id("act-now").click()  # the party chooses: Wren shoots first
    assert active(page) == ["Wren"]
    orc = page.locator("[data-testid=combatant-row]", has_text="Half-orc")
    orc.click()
    page.get_by_test_id("attack-attacker").select_option(label="Wren")
    odds = page.get_by_test_id("attack-odds").inner_text()
    assert "P(injury)" in odds and "out of Stamina" not in odds  # ranged goes straight to Injuries
    page.get_by_test_id("attack-roll").click()
    damage = int(page.get_by_test_id("attack-damage").inner_text())
    dice = [int(d.rstrip("!")) for d in page.get_by_test_id("attack-dice").locator(".die").all_inner_texts()]
    assert damage == max(0, sum(dice) + 3 - (1 + 3))  # dice + AWA - (DEX + armour)
    assert page.screenshot(path=str(site["scratch"].parent / "laurels-attack.png"))
    page.get_by_test_id("attack-apply").click()
    page.get_by_test_id("close-sheet").click()
    row = orc.inner_text()
    assert "20/20" in row  # Stamina untouched
    assert f"Injuries {damage}/8" in row
    page.get_by_test_id("log-toggle").click()
    assert "Wren's ranged attack on Half-orc" in page.get_by_test_id("log").inner_text()
    page.get_by_test_id("undo").click()
    assert "Injuries 0/8" in orc.inner_text()
    assert names(page) == ["Tombril", "Wren", "Half-orc"]
