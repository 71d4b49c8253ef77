"""The everyday loop at the table (first part), in the browser: a double tap on Next turn is one
turn, the quick dice build an expression and Adv keeps the modifier, a deleted saved roll comes back
with Undo (the fight's own undo untouched), an initiative typed mid-fight re-sorts the order."""

from __future__ import annotations

import random

from pyengine.dice import roll
from tests.e2e.conftest import add_combatant, names, open_app


def test_a_double_tap_on_next_turn_advances_one_turn(browser, site):
    ctx = browser.new_context(viewport={"width": 390, "height": 844})  # the real guard, as on a phone
    page = open_app(ctx, site["url"] + "/").page
    for name, init in (("Aria", 15), ("Borin", 10), ("Cato", 5)):
        add_combatant(page, name, initiative=init)
    page.get_by_test_id("next-turn").click()  # start: Aria
    page.wait_for_timeout(500)
    page.evaluate("() => { const b = document.getElementById('next-turn'); b.click(); b.click(); }")  # 0 ms apart
    assert page.locator("[data-testid=combatant-row][aria-current=true] .name").inner_text().startswith("Borin")
    page.wait_for_timeout(500)
    page.get_by_test_id("next-turn").click()
    assert page.locator("[data-testid=combatant-row][aria-current=true] .name").inner_text().startswith("Cato")
    ctx.close()


def test_quick_dice_build_and_advantage_keeps_the_modifier(context, site):
    page = open_app(context, site["url"] + "/?seed=5").page
    box = page.get_by_test_id("dice-input")
    page.get_by_test_id("quick-d6").click()
    page.get_by_test_id("quick-d6").click()
    page.get_by_test_id("quick-d8").click()
    assert box.input_value() == "2d6+1d8"
    assert page.get_by_test_id("history-item").count() == 0  # building rolls nothing
    page.get_by_test_id("roll-button").click()
    expected = roll("2d6+1d8", random.Random(5))
    assert page.get_by_test_id("roll-total").inner_text() == str(expected.total)
    box.fill("1d20+5")
    page.get_by_test_id("quick-adv").click()
    assert box.input_value() == "2d20kh1+5"
    page.get_by_test_id("quick-dis").click()
    assert box.input_value() == "2d20kl1+5"
    page.wait_for_function("document.getElementById('odds-body').dataset.expr === '2d20kl1+5'")


def test_a_deleted_saved_roll_comes_back_with_undo_and_the_fight_is_untouched(context, site):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "Aria", hp=10)
    page.get_by_test_id("dice-input").fill("1d8+3")
    page.get_by_test_id("save-name").fill("Sword")
    page.get_by_test_id("save-roll").click()
    assert page.get_by_test_id("save-name").input_value() == ""
    page.get_by_role("button", name="Delete Sword").click()
    assert page.get_by_test_id("saved-roll").count() == 0
    page.get_by_test_id("notice-action").filter(has_text="Undo").click()
    assert page.get_by_test_id("saved-roll").inner_text() == "Sword: 1d8+3"
    assert names(page) == ["Aria"]  # the fight's undo was not used
    box = page.get_by_role("button", name="Delete Sword").bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44


def test_an_initiative_typed_mid_fight_re_sorts_the_order(context, site):
    page = open_app(context, site["url"] + "/").page
    for name, init in (("Aria", 8), ("Wolf", 12)):
        add_combatant(page, name, initiative=init)
    page.get_by_test_id("next-turn").click()
    assert names(page) == ["Wolf", "Aria"]
    page.locator("[data-testid=combatant-row]", has_text="Aria").click()
    page.get_by_test_id("edit-combatant").click()
    page.get_by_test_id("field-initiative").fill("19")
    page.get_by_test_id("save-combatant").click()
    page.wait_for_function("!document.getElementById('sheet').open")
    assert names(page) == ["Aria", "Wolf"]
    assert page.locator("[data-testid=combatant-row][aria-current=true] .name").inner_text().startswith("Wolf")


def test_a_sheet_closes_from_the_backdrop_escape_and_a_close_that_stays_in_view(context, site):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "Aria", hp=10)
    row = page.get_by_test_id("combatant-row").first
    row.click()
    page.mouse.click(195, 5)  # the backdrop above the sheet
    page.wait_for_function("!document.getElementById('sheet').open")
    row.click()
    page.keyboard.press("Escape")
    page.wait_for_function("!document.getElementById('sheet').open")
    row.click()
    page.evaluate("document.getElementById('sheet').scrollTop = 10000")  # scrolled to the bottom
    close = page.get_by_test_id("sheet-close")
    box = close.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= 844 and box["height"] >= 44
    close.click()
    page.wait_for_function("!document.getElementById('sheet').open")
    row.click()
    page.get_by_test_id("sheet").click(position={"x": 20, "y": 200})  # a tap inside keeps it open
    assert page.evaluate("document.getElementById('sheet').open")


def test_results_and_refusals_show_where_the_tap_was_with_undo(context, site):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "Aria", hp=20, initiative=15)
    add_combatant(page, "Goblin", hp=7, initiative=10)
    page.get_by_test_id("next-turn").click()
    page.locator("[data-testid=combatant-row]", has_text="Goblin").click()
    page.get_by_test_id("hp-amount").fill("5")
    page.get_by_test_id("damage").click()
    toast = page.locator("#sheet-toast")  # inside the open sheet, at its bottom
    assert toast.is_visible() and "Goblin took 5 damage" in toast.inner_text()
    assert toast.get_attribute("role") == "status"
    box = toast.bounding_box()
    assert box["y"] + box["height"] <= 844
    page.get_by_test_id("hp-amount").fill("-3")
    page.get_by_test_id("damage").click()
    assert "from 0" in toast.inner_text() and "error" in toast.get_attribute("class")  # the refusal, same place
    page.get_by_test_id("hp-amount").fill("2")
    page.get_by_test_id("damage").click()
    assert "Goblin took 2 damage" in toast.inner_text()
    toast.get_by_test_id("toast-undo").click()
    page.keyboard.press("Escape")
    row = page.locator("[data-testid=combatant-row]", has_text="Goblin")
    assert "2/7" in row.inner_text()  # 7 - 5; the 2 was undone
    page.get_by_test_id("end-combat").click()  # outside a sheet the toast sits above the turn controls
    outside = page.locator("#toast")
    assert outside.is_visible() and "The fight ended" in outside.inner_text()
    dock = page.get_by_test_id("next-turn").bounding_box()
    assert outside.bounding_box()["y"] + outside.bounding_box()["height"] <= dock["y"]
    outside.get_by_test_id("toast-undo").click()
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 1")
    page.wait_for_function("document.getElementById('toast').hidden && document.getElementById('sheet-toast').hidden",
                           timeout=10_000)
    assert outside.is_hidden()


def test_a_first_visit_says_where_the_sheet_and_the_menu_are_once(context, site):
    page = open_app(context, site["url"] + "/").page
    hint = page.get_by_test_id("notice").filter(has_text="tap one to open its sheet")
    assert hint.count() == 1
    page.get_by_test_id("menu-button").click()
    page.wait_for_function("document.getElementById('sheet').open")
    assert page.get_by_test_id("encounter-list").is_visible()
    page.reload()
    page.wait_for_function("document.documentElement.dataset.engine === 'ready'")
    assert page.get_by_test_id("notice").filter(has_text="tap one to open its sheet").count() == 0


def test_a_shared_fight_opened_twice_offers_to_replace_the_first_copy(context, site):
    import random as _random

    from pyengine.tracker import Timeline, new_encounter, resolve
    from web.persist import share_payload

    t = Timeline.start(new_encounter("shared1", "Bridge fight", system="realms"))
    t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Troll", "initiative": 5}}))
    t = t.do(resolve(t.present, "start_combat", {}, _random.Random(1)))
    link = site["url"] + "/#fight=" + share_payload(t.present)
    page = context.new_page()
    page.goto(link)
    page.wait_for_function("document.documentElement.dataset.engine === 'ready'")
    notice = page.get_by_test_id("notice").filter(has_text="Bridge fight")
    assert "Enchanted Realms, round 1" in notice.inner_text()
    notice.get_by_test_id("notice-action").filter(has_text="Open it").click()
    page.get_by_test_id("encounter-name").click()
    items = page.get_by_test_id("encounter-item")
    assert items.count() == 2  # the first visit's own encounter and the shared one
    assert "from a shared link" in items.filter(has_text="Bridge fight").inner_text()
    page.get_by_test_id("sheet-close").click()
    second = context.new_page()
    second.goto(link)
    second.wait_for_function("document.documentElement.dataset.engine === 'ready'")
    again = second.get_by_test_id("notice").filter(has_text="You opened it before")
    again.get_by_test_id("notice-action").filter(has_text="Replace it").click()
    second.get_by_test_id("encounter-name").click()
    assert second.get_by_test_id("encounter-item").count() == 2  # replaced, not stacked
    assert second.get_by_test_id("encounter-name").inner_text() == "Bridge fight"
