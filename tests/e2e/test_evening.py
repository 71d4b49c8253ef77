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
from tests.e2e.conftest import add_combatant, names, open_app, open_seeded, seed, stored_fight


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
    page = open_seeded(phone, site["url"] + "/", stored_fight(t)).page
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
    page = open_seeded(phone, site["url"] + "/", stored_fight(t)).page
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
    page = open_seeded(phone, site["url"] + "/", stored_fight(t)).page
    page.get_by_test_id("encounter-name").click()  # the menu: longer than the phone's screen
    sheet = "document.getElementById('sheet-body')"
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
    page = open_seeded(phone, site["url"] + "/?seed=3", stored_fight(t)).page
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


INSIDE = """([toastId, tappedId]) => {
    const body = document.getElementById('sheet-body').getBoundingClientRect();
    const toast = document.getElementById(toastId).getBoundingClientRect();
    const tapped = document.querySelector(`[data-testid=${tappedId}]`).getBoundingClientRect();
    // What the scrolling body shows of each control (a row cut by its bottom edge is clipped there,
    // not covered); a closed section's fields are not on screen (Chromium still lays them out).
    const controls = [...document.querySelectorAll('#sheet-body button, #sheet-body input, #sheet-body select')]
        .filter(e => !e.closest('details:not([open])'))
        .map(e => e.getBoundingClientRect()).filter(r => r.height > 0 && r.bottom > body.top && r.top < body.bottom)
        .map(r => ({top: Math.max(r.top, body.top), bottom: Math.min(r.bottom, body.bottom)}));
    const under = controls.filter(r => r.bottom > toast.top && r.top < toast.bottom).length;
    return {toastBelowBody: toast.top >= body.bottom - 0.5, under,
            tappedInView: tapped.top >= body.top - 0.5 && tapped.bottom <= body.bottom + 0.5};
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_toast_in_a_sheet_covers_no_control(phone, site, theme):
    """The sheet's toast takes a place of its own under the body: no control under it, the tapped
    one in view (before: it floated over the Delay controls at the bottom)."""
    t = played("generic", add("Cyra", "party", max_hp=20, initiative=15), add("Goblin", max_hp=30, initiative=12),
               add("Ogre", max_hp=40, initiative=8), ("start_combat", {}))
    page = open_seeded(phone, site["url"] + "/?seed=3", stored_fight(t)).page
    page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
    row(page, "Cyra").click()  # on her turn
    page.get_by_test_id("delay-after").wait_for(state="attached")  # the sheet with Delay at its bottom
    page.evaluate("document.getElementById('sheet-body').scrollTop = 10000")  # the thumb near the bottom
    page.get_by_test_id("hp-amount").fill("4")
    page.get_by_test_id("damage").click()
    assert "Cyra took 4 damage" in toast(page)
    seen = page.evaluate(INSIDE, ["sheet-toast", "damage"])
    assert seen == {"toastBelowBody": True, "under": 0, "tappedInView": True}, seen
    page.evaluate("document.getElementById('sheet-body').scrollTop = 10000")
    seen = page.evaluate(INSIDE, ["sheet-toast", "delay-after"])
    assert seen == {"toastBelowBody": True, "under": 0, "tappedInView": True}, seen  # the last control too


def test_the_attack_odds_follow_what_is_typed_and_the_keyboard_stays(phone, site):
    """No need to leave the field: the odds change a moment after each keystroke, the field keeps
    the focus and the caret (before: only when the field lost focus)."""
    t = played("generic", add("Cyra", "party", max_hp=20, initiative=15, stats={"to_hit": 2, "damage": "1d8"}),
               add("Ogre", max_hp=40, initiative=5, stats={"ac": 15}), ("start_combat", {}))
    page = open_seeded(phone, site["url"] + "/", stored_fight(t)).page
    row(page, "Ogre").click()
    hit = page.get_by_test_id("attack-p-hit")
    assert hit.inner_text() == "40.0%"  # d20 + 2 against 15: 8 faces of 20
    field = page.get_by_test_id("attack-modifier")
    field.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    page.wait_for_function("document.querySelector('[data-testid=attack-p-hit]').textContent === '55.0%'")
    assert page.evaluate("document.activeElement.dataset.testid") == "attack-modifier"  # the keyboard stays
    page.keyboard.type("0")  # 30: every face but the natural 1
    page.wait_for_function("document.querySelector('[data-testid=attack-p-hit]').textContent === '95.0%'")
    assert page.evaluate("[document.activeElement.dataset.testid, document.activeElement.value]") == ["attack-modifier", "30"]
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    page.keyboard.type("-5")  # a penalty: needs 18 or more
    page.wait_for_function("document.querySelector('[data-testid=attack-p-hit]').textContent === '15.0%'")


LAYOUT = """() => {
    const r = id => document.getElementById(id).getBoundingClientRect();
    const rows = [...document.querySelectorAll('#tracker [data-testid=combatant-row]')].map(e => e.getBoundingClientRect());
    const order = r('tracker-area');
    return {sideBySide: r('roller-area').left >= order.right, dockClear: r('dock').left >= order.right,
            rowsInView: rows.filter(b => b.top >= order.top && b.bottom <= Math.min(order.bottom, innerHeight)).length,
            orderToBottom: innerHeight - order.bottom, scrolls: document.getElementById('tracker-area').scrollHeight > order.height};
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_landscape_uses_the_width_for_the_turn_order(browser, site, theme):
    """844 x 390: the order down the left at full height (three rows and more, before: one), the
    dice on the right above the turn controls, which cover no row."""
    ctx = browser.new_context(viewport={"width": 844, "height": 390}, color_scheme=theme)
    ctx.add_init_script("window.__rkSnapshot = 'off'")
    errors: list[str] = []
    ctx.on("console", lambda m: m.type == "error" and errors.append(m.text))
    try:
        t = played("generic", *[add(n, "party", max_hp=20, initiative=20 - i, stats={"ac": 13}) for i, n in enumerate(("Aria", "Borin", "Cyra", "Dax"))],
                   add("Goblin", count=6, max_hp=7, initiative=9, stats={"ac": 12}), ("start_combat", {}))
        page = open_seeded(ctx, site["url"] + "/", stored_fight(t)).page
        seen = page.evaluate(LAYOUT)
        assert seen["sideBySide"] and seen["dockClear"] and seen["scrolls"], seen
        assert seen["rowsInView"] >= 3 and seen["orderToBottom"] < 20, seen
        page.evaluate("document.getElementById('tracker-area').scrollTop = 10000")  # the last goblin within reach
        last = page.locator("#tracker [data-testid=combatant-row]").last
        box = last.bounding_box()
        assert box["y"] + box["height"] <= 390 and box["x"] + box["width"] <= page.evaluate("document.getElementById('dock').getBoundingClientRect().left")
        last.click()
        page.get_by_test_id("sheet-title").wait_for()
        assert page.get_by_test_id("sheet-title").inner_text().startswith("Goblin")
        page.keyboard.press("Escape")
        page.get_by_test_id("next-turn").click()  # the turn controls answer there too
        page.wait_for_function("document.querySelector('[data-testid=combatant-row][aria-current=true] .name').textContent.startsWith('Borin')")
        assert errors == []
    finally:
        ctx.close()


def test_before_the_start_the_list_follows_the_initiatives_known(phone, site):
    """Typed in the add form in any order: highest first, those without one after, as added."""
    page = open_app(phone, site["url"] + "/").page
    add_combatant(page, "Goblin", hp=7, initiative=8)
    add_combatant(page, "Borin", hp=20, side="party", pc=True)
    add_combatant(page, "Aria", hp=20, side="party", pc=True, initiative=17)
    add_combatant(page, "Ogre", hp=30, initiative=12)
    assert names(page) == ["Aria", "Ogre", "Goblin", "Borin"]


def test_the_generic_system_can_roll_initiative_every_round(phone, site):
    """A table's variant, chosen before the start: each new round everyone rolls again (said in the
    log), the order follows; Undo takes the new round and its rolls back as one step."""
    t = played("generic", add("Aria", "party", max_hp=20, init_mod=3, pc=False), add("Goblin", max_hp=7, init_mod=2),
               add("Ogre", max_hp=30, init_mod=0))
    page = open_seeded(phone, site["url"] + "/?seed=7", stored_fight(t)).page
    page.get_by_test_id("option-initiative").select_option("every_round")
    page.wait_for_function("document.querySelector('[data-testid=option-initiative]').value === 'every_round'")
    page.get_by_test_id("next-turn").click()  # no player character: straight to the fight
    page.wait_for_function("document.querySelector('[data-testid=round-counter]').textContent.startsWith('Round 1')")
    for _ in range(3):
        page.get_by_test_id("next-turn").click()
    page.wait_for_function("document.querySelector('[data-testid=round-counter]').textContent.startsWith('Round 2')")
    page.get_by_test_id("log-toggle").click()
    rolled = "who => (document.getElementById('log').textContent.match(new RegExp(who + ' rolled', 'g')) || []).length"
    page.wait_for_function(f"({rolled})('Ogre') === 2 && ({rolled})('Aria') === 2")  # rolled at the start and again
    page.get_by_test_id("undo").click()
    page.wait_for_function("document.querySelector('[data-testid=round-counter]').textContent.startsWith('Round 1')")
    page.wait_for_function(f"({rolled})('Ogre') === 1")


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
    page = open_seeded(phone, site["url"] + "/", stored_fight(t)).page
    name = page.locator("[data-testid=combatant-row] .name").first
    line = float(name.evaluate("e => parseFloat(getComputedStyle(e).lineHeight) || 24"))
    assert name.evaluate("e => e.getBoundingClientRect().height") <= 2 * line + 2  # two lines, then an ellipsis
    page.locator("[data-testid=combatant-row]").first.click()
    assert page.get_by_test_id("sheet-title").inner_text() == long.strip()
