"""Realm of Strife end to end: order by Initiative with a d100 roll-off, a bottom-of-the-queue move,
a parried attack and a crit with the odds shown first, a rest, resources and End battle, undo."""

from __future__ import annotations

import random

from tests.e2e.conftest import add_combatant, names, open_app


def add_fighter(page, name, side, hp, initiative, stats, texts=None, pc=False):
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("field-name").fill(name)
    page.get_by_test_id("field-side").select_option(side)
    page.get_by_test_id("field-pc").select_option("1" if pc else "0")
    page.get_by_test_id("field-init_mod").fill(str(initiative))
    page.get_by_test_id("field-max_hp").fill(str(hp))
    for key, value in stats.items():
        page.get_by_test_id(f"field-stat-{key}").fill(str(value))
    for key, value in (texts or {}).items():
        page.get_by_test_id(f"field-stat-{key}").fill(value)
    page.get_by_test_id("save-combatant").click()
    page.wait_for_function("!document.getElementById('sheet').open")


def active(page):
    return page.eval_on_selector_all(
        "[data-testid=combatant-row][aria-current=true] .name", "els => els.map(e => e.firstChild.textContent)"
    )


def row(page, name):
    return page.locator("#tracker [data-testid=combatant-row]", has_text=name)


def test_strife_fight_bottom_of_queue_parry_crit_rest_and_end_battle(context, site):
    seed = 3
    page = open_app(context, site["url"] + f"/?seed={seed}").page
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("new-system").select_option("strife")
    page.get_by_test_id("new-encounter").click()
    assert "Realm of Strife" in page.get_by_test_id("tracker").inner_text()
    add_fighter(page, "Kayden", "party", 30, 60, {"hit": 10, "crit": 100, "vigor_max": 10}, {"weapon": "1d8+2"}, pc=True)
    add_fighter(page, "Mira", "party", 20, 50, {"hit": 200, "crit": 0}, {"weapon": "1d6"}, pc=True)
    add_fighter(page, "Orc <img src=x onerror=alert(1)>", "opponents", 40, 40, {"ac": -100, "parry": 100})
    add_fighter(page, "Goblin", "opponents", 12, 40, {"ac": 20})
    page.get_by_test_id("next-turn").click()  # start: order by the Initiative stat, Orc and Goblin roll off
    rng = random.Random(seed)
    orc_face, goblin_face = rng.randint(1, 100), rng.randint(1, 100)
    tail = ["Orc <img src=x onerror=alert(1)>", "Goblin"] if orc_face > goblin_face else ["Goblin", "Orc <img src=x onerror=alert(1)>"]
    assert names(page) == ["Kayden", "Mira", *tail]
    assert active(page) == ["Kayden"]
    page.get_by_test_id("log-toggle").click()
    assert f"tie roll-off d100: {goblin_face}" in page.get_by_test_id("log").inner_text()

    # Kayden gives up the place: Mira acts now, Kayden last this round.
    page.get_by_test_id("bottom-queue").click()
    assert names(page) == ["Mira", *tail, "Kayden"] and active(page) == ["Mira"]
    assert page.get_by_test_id("bottom-queue").count() == 0  # the party used its one move this round

    # Mira hits the Orc, who parries everything that is not a crit: the odds say so before the roll.
    row(page, "Orc").click()
    assert page.get_by_test_id("attack-attacker").input_value() == page.evaluate(
        "document.querySelector('[data-testid=combatant-row][aria-current=true]').dataset.combatantId")
    odds = page.get_by_test_id("attack-odds").inner_text()
    assert "P(critical miss) 5.0%" in odds and "P(parried or blocked) 95.0%" in odds and "P(hit) 0.0%" in odds
    page.get_by_test_id("attack-roll").click()
    assert page.get_by_test_id("attack-outcome").inner_text() == "parried"
    natural, parry = rng.randint(1, 100), rng.randint(1, 100)
    assert page.get_by_test_id("attack-natural").inner_text() == str(natural)
    assert f"parry d100 {parry}" in page.get_by_test_id("attack-result").inner_text()
    page.get_by_test_id("attack-apply").click()
    page.get_by_test_id("close-sheet").click()
    assert "40/40" in row(page, "Orc").inner_text()
    assert "Mira attacks Orc <img src=x onerror=alert(1)>: parried" in page.get_by_test_id("log").inner_text()
    assert page.locator("#tracker img").count() == 0  # the hostile name is text

    for _ in range(len(tail) + 1):
        page.get_by_test_id("next-turn").click()
    assert active(page) == ["Kayden"]
    # Kayden crits the Goblin (crit chance 100%: every natural past the critical miss): damage doubled.
    row(page, "Goblin").click()
    page.get_by_test_id("attack-riders").fill("Stun 100")
    page.get_by_test_id("attack-riders").press("Tab")
    page.get_by_test_id("attack-roll").click()
    assert page.get_by_test_id("attack-outcome").inner_text() == "crit"
    natural, die = rng.randint(1, 100), rng.randint(1, 8)
    assert page.get_by_test_id("attack-natural").inner_text() == str(natural)
    assert int(page.get_by_test_id("attack-damage").inner_text()) == 2 * (die + 2)
    assert "×2 crit" in page.get_by_test_id("attack-result").inner_text()
    page.screenshot(path=str(site["scratch"].parent / "strife-attack.png"), full_page=True)
    page.get_by_test_id("attack-apply").click()
    page.get_by_test_id("close-sheet").click()
    assert f"{max(0, 12 - 2 * (die + 2))}/12" in row(page, "Goblin").inner_text()
    assert "Stun" in row(page, "Goblin").inner_text()  # the rider (100%) landed as a condition
    page.get_by_test_id("part-action").click()  # the Action ends the turn: round 2, Kayden back in place
    assert names(page) == ["Kayden", "Mira", *tail] and active(page) == ["Kayden"]
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 2")

    # Resources: Kayden spends Vigor; then is hurt and Rests (+1 HP, the turn ends).
    row(page, "Kayden").click()
    assert page.get_by_test_id("section-attack").get_attribute("aria-selected") == "true"  # the attack first
    page.get_by_test_id("section-resources").click()
    page.get_by_test_id("resource-vigor").get_by_role("button", name="Vigor minus").click()
    assert "9/10" in page.get_by_test_id("resource-vigor").inner_text()
    assert page.get_by_test_id("section-resources").get_attribute("aria-selected") == "true"  # kept across the redraw
    page.get_by_test_id("hp-amount").fill("5")
    page.get_by_test_id("damage").click()
    page.get_by_test_id("close-sheet").click()
    page.get_by_test_id("part-instant").click()
    assert page.get_by_test_id("part-rest").is_disabled()  # Rest takes the whole turn
    page.get_by_test_id("undo").click()
    page.get_by_test_id("part-rest").click()
    assert "26/30" in row(page, "Kayden").inner_text() and active(page) == ["Mira"]
    page.screenshot(path=str(site["scratch"].parent / "strife-tracker.png"), full_page=True)

    # End battle: Vigor refills, HP carries over; undo takes it back.
    page.get_by_test_id("end-combat").click()
    assert "Vigor 10/10" in row(page, "Kayden").inner_text() and "26/30" in row(page, "Kayden").inner_text()
    assert "The fight ended after 2 rounds" in page.get_by_test_id("log").inner_text()
    page.get_by_test_id("undo").click()
    assert "Vigor 9/10" in row(page, "Kayden").inner_text()
    page.reload()
    page.wait_for_function("document.documentElement.dataset.engine === 'ready'")
    assert "Vigor 9/10" in row(page, "Kayden").inner_text() and active(page) == ["Mira"]


def test_a_groups_members_each_take_their_turn_with_their_own_checklist(context, site):
    page = open_app(context, site["url"] + "/?seed=8").page
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("new-system").select_option("strife")
    page.get_by_test_id("new-encounter").click()
    add_fighter(page, "Kayden", "party", 30, 40, {"ac": 35}, {"weapon": "1d8"}, pc=True)
    add_combatant(page, "Goblin", hp=12, count=2, init_mod=60)
    page.get_by_test_id("next-turn").click()
    panel = page.get_by_test_id("turn-panel")
    assert panel.inner_text().startswith("Goblin 1's turn")
    page.get_by_test_id("part-action").click()  # Goblin 1 is done; the group's turn goes on with Goblin 2
    assert panel.inner_text().startswith("Goblin 2's turn") and not page.get_by_test_id("part-instant").is_disabled()
    page.get_by_test_id("part-instant").click()
    page.get_by_test_id("part-action").click()
    assert active(page) == ["Kayden"] and panel.inner_text().startswith("Kayden's turn")
