"""The game master's evening, third pass: what a newcomer hit, on a phone (390 x 844).

Table words in the roller (`1d20+5 adv`, `4d6 drop lowest`, `1D20`); the attack panel's Apply says
what it did and every reminder (concentration); a group's turn attacks with a member still standing
and never its own side; a PC tapped on its own turn is not attacked by a friend; the add form's side
sits on top in its colour and follows a known opponent's name; Delay only where the rules have it.
"""

from __future__ import annotations

import random

import pytest

from pyengine.tracker import Timeline, new_encounter, resolve
from tests.e2e.conftest import open_app, seed, stored_fight


@pytest.fixture
def phone(context):
    """The suite's phone-sized profile (390 x 844; a console error fails the test)."""
    return context


def played(system: str, *requests: tuple[str, dict]) -> Timeline:
    rng = random.Random(4)
    t = Timeline.start(new_encounter("e1", "Evening", system=system))
    for kind, args in requests:
        named = {k: (next(c.id for c in t.present.combatants if c.name == v[1:]) if isinstance(v, str) and v.startswith("@") else v)
                 for k, v in args.items()}
        t = t.do(resolve(t.present, kind, named, rng))
    return t


def add(name: str, side: str = "opponents", count: int = 1, **fields) -> tuple[str, dict]:
    return ("add_combatant", {"combatant": {"name": name, "side": side, "pc": side == "party", **fields},
                              **({"count": count} if count > 1 else {})})


def row(page, name: str):
    return page.locator("[data-testid=combatant-row]", has=page.locator(".name", has_text=name)).first


def toast(page) -> str:
    page.locator("[data-testid=toast-text]:visible").first.wait_for()
    return page.locator("[data-testid=toast-text]:visible").first.inner_text()


def test_table_words_in_the_roller_are_read_or_said(phone, site):
    page = open_app(phone, site["url"] + "/?seed=5").page
    box = page.get_by_test_id("dice-input")
    box.fill("1d20+5 adv")
    page.wait_for_function("document.querySelector('[data-testid=dice-reading]').textContent.includes('keeps the higher')")
    page.get_by_test_id("roll-button").click()
    result = page.get_by_test_id("roll-result").inner_text()
    assert "2d20kh1" in result  # two d20s rolled, the higher kept
    box.fill("4d6 drop lowest")
    page.wait_for_function("document.querySelector('[data-testid=dice-reading]').textContent.includes('Write dl1')")
    box.fill("1D20+5")
    page.wait_for_function("document.getElementById('odds-body').dataset.expr === '1D20+5'")
    assert page.get_by_test_id("dice-error").inner_text() == ""


HEROES = {"generic": {"to_hit": 30, "damage": "2d6+10"}, "realms": {"skills": "melee fighting", "str": 5}, "strife": {"ac": 90}}


def test_apply_on_the_attack_panel_says_what_it_did_and_the_concentration_reminder(phone, site):
    """Through the attack panel of each system (one page, the fight of each seeded in turn)."""
    page = open_app(phone, site["url"] + "/?seed=2").page
    for system, hero in HEROES.items():
        t = played(system, add("Hero", "party", max_hp=30, initiative=20, stats=hero), add("Mage", max_hp=40, initiative=5, stats={"ac": 1}),
                   ("start_combat", {}), ("add_condition", {"id": "@Mage", "name": "Concentrating"}))
        seed(page, stored_fight(t))
        row(page, "Mage").click()
        page.get_by_test_id("attack-roll").click()
        page.get_by_test_id("attack-apply").click()
        said = toast(page)
        assert "Hero" in said and "Mage" in said, (system, said)  # what the attack did
        if system == "generic":
            assert "Mage is concentrating: Constitution save DC" in said, said
        page.screenshot(path=str(site["scratch"].parent / f"evening-apply-{system}.png"))


def test_a_groups_turn_attacks_with_a_member_standing_and_never_its_own_side(phone, site):
    t = played("generic", add("Cyra", "party", max_hp=20, initiative=10, stats={"ac": 14}),
               add("Dax", "party", max_hp=24, initiative=8, stats={"ac": 15}), add("Goblin Archer", count=3, max_hp=7, initiative=15, stats={"to_hit": 4, "damage": "1d6+2"}),
               ("start_combat", {}), ("damage", {"id": "@Goblin Archer 1", "amount": 7}))
    page = open_app(phone, site["url"] + "/").page
    seed(page, stored_fight(t))
    page.get_by_test_id("attack-open").click()
    target = page.get_by_test_id("sheet-title").inner_text()
    assert target in ("Cyra", "Dax"), target  # a foe, not another archer
    shown = "s => s.options[s.selectedIndex].text"
    assert page.get_by_test_id("attack-attacker").evaluate(shown) == "Goblin Archer 2"  # the first one standing
    page.get_by_test_id("close-sheet").click()
    # Dax's own turn: tapping Dax offers a foe's attack on him, not Cyra's
    for _ in range(3):
        if page.locator("[data-testid=combatant-row][aria-current=true] .name").first.inner_text().startswith("Dax"):
            break
        page.get_by_test_id("next-turn").click()
        page.wait_for_timeout(700)  # past the double-tap guard
    row(page, "Dax").click()
    chosen = page.get_by_test_id("attack-attacker").evaluate(shown)
    assert chosen.startswith("Goblin Archer") and chosen != "Goblin Archer 1", chosen


def test_the_add_form_shows_its_side_first_and_follows_a_known_opponents_name(phone, site):
    t = played("generic", add("Cyra", "party", max_hp=20), add("Goblin", max_hp=7))
    page = open_app(phone, site["url"] + "/").page
    seed(page, stored_fight(t))
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("field-side").select_option("party")
    page.get_by_test_id("field-pc").select_option("1")
    form = page.locator("#combatant-form")
    side_box = page.get_by_test_id("side-pick").bounding_box()
    name_box = page.get_by_test_id("field-name").bounding_box()
    assert side_box["y"] < name_box["y"]  # the side comes first
    party_colour = page.get_by_test_id("side-pick").evaluate("e => getComputedStyle(e).borderTopColor")
    page.get_by_test_id("field-name").press_sequentially("Goblin", delay=20)
    page.wait_for_function("document.getElementById('f-side').value === 'opponents'")
    assert page.get_by_test_id("field-pc").input_value() == "0"
    assert page.get_by_test_id("side-pick").evaluate("e => getComputedStyle(e).borderTopColor") != party_colour
    page.screenshot(path=str(site["scratch"].parent / "evening-add-form.png"))
    form.locator("[data-testid=save-combatant]").click()
    page.wait_for_function("!document.getElementById('sheet').open")
    goblin2 = row(page, "Goblin 2") if page.locator(".name", has_text="Goblin 2").count() else row(page, "Goblin")
    assert goblin2.count() == 1


def test_delay_only_where_the_rules_have_it(phone, site):
    page = open_app(phone, site["url"] + "/").page
    for system, offered in (("generic", True), ("realms", False), ("strife", False)):
        t = played(system, add("Hero", "party", max_hp=30, initiative=20), add("Orc", max_hp=30, initiative=5), ("start_combat", {}))
        seed(page, stored_fight(t))
        row(page, "Hero").click()
        page.get_by_test_id("sheet-title").wait_for()
        assert (page.get_by_test_id("delay").count() == 1) == offered, system


def test_a_sheet_opens_at_its_top_and_back_closes_it_not_the_app(phone, site):
    t = played("generic", *[add(f"Goblin {i}", max_hp=7) for i in range(1, 9)], add("Cyra", "party", max_hp=20))
    page = open_app(phone, site["url"] + "/").page
    seed(page, stored_fight(t))
    page.get_by_test_id("encounter-name").click()  # the menu: longer than the phone's screen
    sheet = "document.getElementById('sheet')"
    assert page.evaluate(f"{sheet}.scrollHeight > {sheet}.clientHeight")
    page.evaluate(f"{sheet}.scrollTop = 10000")
    assert page.evaluate(f"{sheet}.scrollTop") > 0
    page.locator("#sheet [data-action=close-sheet]").last.click()
    page.wait_for_function("!document.getElementById('sheet').open")
    page.get_by_test_id("encounter-name").click()
    assert page.evaluate(f"{sheet}.scrollTop") == 0  # opened at its top, not where it was left
    page.locator("#sheet [data-action=close-sheet]").last.click()
    row(page, "Goblin 2").click()
    assert page.evaluate(f"{sheet}.scrollTop") == 0
    url = page.url
    page.go_back()  # the phone's Back gesture
    page.wait_for_function("!document.getElementById('sheet').open")
    assert page.url == url and page.evaluate("document.documentElement.dataset.engine") == "ready"  # still the app, no restart
    page.get_by_test_id("encounter-name").click()  # the menu, then Back
    page.go_back()
    page.wait_for_function("!document.getElementById('sheet').open")
    row(page, "Goblin 3").click()  # closed by its own button: Back afterwards is the browser's again, once
    page.get_by_test_id("close-sheet").click()
    assert page.evaluate("history.length") >= 1


def test_dice_as_a_damage_amount_roll_and_the_fireball_is_one_sheet(phone, site):
    t = played("generic", *[add(f"Goblin {i}", max_hp=60) for i in range(1, 5)], add("Cyra", "party", max_hp=20))
    page = open_app(phone, site["url"] + "/?seed=3").page
    seed(page, stored_fight(t))
    row(page, "Goblin 1").click()
    page.get_by_test_id("hp-amount").fill("2d6+3")
    page.get_by_test_id("damage").click()
    said = toast(page)
    assert said.startswith("2d6") and "Goblin 1 took" in said, said
    taken = int(said.split("Goblin 1 took ")[1].split()[0])
    page.get_by_test_id("close-sheet").click()
    assert f"{60 - taken}/60" in row(page, "Goblin 1").inner_text()
    page.get_by_test_id("undo").click()
    assert "60/60" in row(page, "Goblin 1").inner_text()  # one undoable step
    assert toast(page).startswith(f"Undone: Goblin 1 took {taken} damage")  # Undo says what it undid, with Redo
    page.locator("[data-testid=toast-redo]:visible").click()
    assert f"{60 - taken}/60" in row(page, "Goblin 1").inner_text()


def test_dropped_dice_are_struck_through_not_markdown(phone, site):
    page = open_app(phone, site["url"] + "/?seed=1").page
    page.get_by_test_id("dice-input").fill("4d6kh3")
    page.get_by_test_id("roll-button").click()
    text = page.get_by_test_id("roll-text").inner_text()
    assert "~~" not in text and page.locator("[data-testid=roll-text] s.dropped").count() == 1
    assert page.locator("[data-testid=roll-dice] .die.dropped").count() == 1



def test_the_theme_follows_the_phone_unless_one_is_picked(browser, site):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="light")
    ctx.add_init_script("window.__rkSnapshot = 'off'")
    try:
        page = ctx.new_page()
        page.goto(site["url"] + "/")
        page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=120_000)
        theme = "document.documentElement.dataset.theme"
        assert page.evaluate(theme) == "light"  # as the phone is set, by default
        page.emulate_media(color_scheme="dark")
        page.wait_for_function(f"{theme} === 'dark'")  # followed live
        page.get_by_test_id("encounter-name").click()
        assert page.get_by_test_id("theme-pick").input_value() == "system"
        page.get_by_test_id("theme-pick").select_option("light")
        page.wait_for_function(f"{theme} === 'light'")
        page.reload()
        page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=120_000)
        assert page.evaluate(theme) == "light"  # the pick is kept, over the phone's dark
        page.get_by_test_id("encounter-name").click()
        page.get_by_test_id("theme-pick").select_option("system")
        page.wait_for_function(f"{theme} === 'dark'")
    finally:
        ctx.close()


def test_a_long_name_takes_two_lines_at_most_and_the_sheet_has_it_whole(phone, site):
    long = "Grimgor the Unbelievably Long-Named Warlord of the Seventeen Burning Hills and the Ashen Vale " * 2
    t = played("generic", add(long.strip(), max_hp=30), add("Cyra", "party", max_hp=20))
    page = open_app(phone, site["url"] + "/").page
    seed(page, stored_fight(t))
    name = page.locator("[data-testid=combatant-row] .name").first
    line = float(name.evaluate("e => parseFloat(getComputedStyle(e).lineHeight) || 24"))
    assert name.evaluate("e => e.getBoundingClientRect().height") <= 2 * line + 2  # two lines, then an ellipsis
    page.locator("[data-testid=combatant-row]").first.click()
    assert page.get_by_test_id("sheet-title").inner_text() == long.strip()
