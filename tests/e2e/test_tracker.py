"""The tracker screen: turns, HP, conditions, undo that survives reload, and saves that never lose
a fight (damaged, newer, full, two tabs, imports, share links, hostile names)."""

from __future__ import annotations

import json

from pyengine.storage import timeline_from_dict
from tests.e2e.conftest import Watched, add_combatant, names, open_app, wait_ready


def active_names(page) -> list[str]:
    return page.eval_on_selector_all(
        "[data-testid=combatant-row][aria-current=true] .name", "els => els.map(e => e.firstChild.textContent)"
    )


def start_fight(page) -> None:
    add_combatant(page, "Aria", hp=30, initiative=18, side="party", pc=True)
    add_combatant(page, "Goblin", hp=7, count=2, initiative=12)
    add_combatant(page, "Ogre", hp=59, initiative=5)
    page.get_by_test_id("next-turn").click()
    page.wait_for_function("document.querySelector('[data-testid=round-counter]').textContent.startsWith('Round 1')")


def test_turns_undo_and_redo_survive_a_reload(context, site):
    page = open_app(context, site["url"] + "/?seed=5").page
    start_fight(page)
    assert names(page) == ["Aria", "Goblin 1", "Goblin 2", "Ogre"]
    assert active_names(page) == ["Aria"]
    page.get_by_test_id("next-turn").click()
    assert active_names(page) == ["Goblin 1", "Goblin 2"]
    page.get_by_test_id("next-turn").click()
    page.get_by_test_id("next-turn").click()
    assert active_names(page) == ["Aria"]
    assert page.get_by_test_id("round-counter").inner_text() == "Round 2 · 0:06 in game"
    page.get_by_test_id("undo").click()
    assert active_names(page) == ["Ogre"]
    page.reload()
    wait_ready(page)
    assert active_names(page) == ["Ogre"]
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 1")
    page.get_by_test_id("redo").click()
    assert active_names(page) == ["Aria"]
    for _ in range(3):
        page.get_by_test_id("undo").click()
    assert page.get_by_test_id("round-counter").inner_text() == "Round 1 · 0:00 in game"
    assert active_names(page) == ["Aria"]


def test_damage_heal_conditions_expire_and_log(context, site):
    page = open_app(context, site["url"] + "/?seed=5").page
    start_fight(page)
    page.locator("[data-combatant-id=c4]").click()  # the ogre
    page.get_by_test_id("hp-amount").fill("20")
    page.get_by_test_id("damage").click()
    assert page.get_by_test_id("sheet-hp").inner_text() == "39/59"
    page.get_by_test_id("condition-name").fill("Frightened")
    page.get_by_test_id("condition-until").select_option("rounds")
    page.get_by_test_id("condition-rounds").fill("1")
    page.get_by_test_id("condition-anchor").select_option("c1")
    page.get_by_test_id("add-condition").click()
    assert "Frightened" in page.get_by_test_id("sheet-conditions").inner_text()
    page.get_by_test_id("close-sheet").click()
    ogre = page.locator("[data-combatant-id=c4]")
    assert "Frightened" in ogre.inner_text() and "39/59" in ogre.inner_text()
    for _ in range(3):
        page.get_by_test_id("next-turn").click()
    assert "Frightened" not in ogre.inner_text()  # ended at the start of Aria's turn
    page.get_by_test_id("log-toggle").click()
    log = page.get_by_test_id("log").inner_text()
    assert "Frightened on Ogre ended (start of Aria's turn)" in log
    assert "Ogre took 20 damage" in log
    page.get_by_test_id("undo").click()
    assert "Frightened" in ogre.inner_text()


def test_keyboard_shortcuts(context, site):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "A", initiative=10)
    add_combatant(page, "B", initiative=5)
    page.locator("body").press("n")
    assert active_names(page) == ["A"]
    page.locator("body").press("n")
    assert active_names(page) == ["B"]
    page.locator("body").press("u")
    assert active_names(page) == ["A"]
    page.locator("body").press("Control+z")
    assert page.get_by_test_id("round-counter").inner_text() == "Not started"
    page.locator("body").press("Control+Shift+z")
    assert active_names(page) == ["A"]


def test_hostile_names_show_as_text(context, site):
    app = open_app(context, site["url"] + "/")
    page = app.page
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    hostile = '<img src=x onerror=alert(1)>"><script>alert(2)</script>'
    add_combatant(page, hostile, hp=5)
    assert names(page) == [hostile]
    page.reload()
    wait_ready(page)
    assert names(page) == [hostile]
    assert page.locator("#tracker img, #tracker script").count() == 0
    assert dialogs == []


def test_damaged_save_is_kept_aside_and_the_user_told(context, site):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "Keeper")
    key = page.evaluate("Object.keys(localStorage).find(k => k.includes(':enc:'))")
    page.evaluate(f"localStorage.setItem({key!r}, localStorage.getItem({key!r}).slice(0, 40))")
    page.reload()
    wait_ready(page)
    assert "damaged" in page.get_by_test_id("notices").inner_text()
    backups = page.evaluate("Object.keys(localStorage).filter(k => k.includes(':backup:'))")
    assert len(backups) == 1


def test_newer_save_is_not_overwritten(context, site):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "From the future")
    key = page.evaluate("Object.keys(localStorage).find(k => k.includes(':enc:'))")
    page.evaluate(f"(() => {{ const d = JSON.parse(localStorage.getItem({key!r})); d.schema = 99; localStorage.setItem({key!r}, JSON.stringify(d)); }})()")
    newer = page.evaluate(f"localStorage.getItem({key!r})")
    page.reload()
    wait_ready(page)
    assert "newer version" in page.get_by_test_id("notices").inner_text()
    add_combatant(page, "Today")
    assert page.evaluate(f"localStorage.getItem({key!r})") == newer


def test_full_storage_keeps_last_good_save_and_asks_before_trimming(context, site):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "Saved", initiative=3)
    page.evaluate(
        "(() => { const real = Storage.prototype.setItem; window.__full = true;"
        " Storage.prototype.setItem = function (k, v) {"
        "  if (window.__full && k.includes(':enc:')) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');"
        "  return real.call(this, k, v); }; })()"
    )
    key = page.evaluate("Object.keys(localStorage).find(k => k.includes(':enc:'))")
    good = page.evaluate(f"localStorage.getItem({key!r})")
    add_combatant(page, "Unsaved", initiative=2)
    notices = page.get_by_test_id("notices").inner_text()
    assert "Storage is full" in notices and "NOT saved" in notices
    assert page.evaluate(f"localStorage.getItem({key!r})") == good
    page.evaluate("window.__full = false")
    page.get_by_test_id("notice-action").filter(has_text="Trim history").click()  # the user agrees to trim history
    saved = timeline_from_dict(json.loads(page.evaluate(f"localStorage.getItem({key!r})")))
    assert [c.name for c in saved.present.combatants] == ["Saved", "Unsaved"]
    assert "Storage is full" not in page.get_by_test_id("notices").inner_text()


def test_two_tabs_pick_up_each_others_changes(context, site):
    first = open_app(context, site["url"] + "/").page
    add_combatant(first, "Shared")
    second = open_app(context, site["url"] + "/").page
    assert names(second) == ["Shared"]
    add_combatant(second, "From tab two")
    first.wait_for_function("document.querySelectorAll('[data-testid=combatant-row]').length === 2")
    assert names(first) == ["Shared", "From tab two"]
    assert "another tab" in first.get_by_test_id("notices").inner_text()


def test_export_import_and_bad_files(context, site, tmp_path):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "Exported", hp=11)
    page.get_by_test_id("encounter-name").click()
    with page.expect_download() as info:
        page.get_by_test_id("export-current").click()
    exported = tmp_path / "fight.json"
    info.value.save_as(exported)
    doc = json.loads(exported.read_text())
    assert doc["app"] == "roundkeeper" and doc["kind"] == "encounter"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**doc, "base": {**doc["base"], "combatants": [{"id": f"c{i}", "name": "x"} for i in range(1000)]}}))
    page.get_by_test_id("import-file").set_input_files(str(bad))
    page.wait_for_function("document.querySelector('[data-testid=menu-error]').textContent.includes('Nothing was imported')")
    assert names(page) == ["Exported"]
    page.get_by_test_id("import-file").set_input_files(str(exported))
    page.wait_for_function("!document.getElementById('sheet').open")
    assert names(page) == ["Exported"]
    page.get_by_test_id("encounter-name").click()
    assert page.get_by_test_id("encounter-item").count() == 2


def test_share_link_opens_the_same_fight_on_another_phone(browser, site):
    gm = browser.new_context()
    player = browser.new_context()
    try:
        page = open_app(gm, site["url"] + "/?seed=2").page
        start_fight(page)
        page.get_by_test_id("encounter-name").click()
        page.get_by_test_id("share-for").select_option("fight")  # the co-GM's link: the whole fight
        page.get_by_test_id("share-link").click()
        link = page.get_by_test_id("share-field").input_value()
        assert "#fight=" in link
        page.get_by_test_id("share-out").filter(has_text="Cop").wait_for()  # copied, or how to copy it
        box = page.get_by_test_id("share-field").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]  # fits the screen
        assert page.evaluate("document.getElementById('sheet-body').scrollWidth <= document.getElementById('sheet-body').clientWidth")
        other = Watched(player.new_page())
        other.page.goto(link)
        wait_ready(other.page)
        other.page.get_by_test_id("notice-action").click()
        assert names(other.page) == ["Aria", "Goblin 1", "Goblin 2", "Ogre"]
        assert active_names(other.page) == ["Aria"]
        assert other.errors == []
    finally:
        gm.close()
        player.close()


def test_encounters_new_rename_delete_with_undo(context, site):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "First fight")
    page.on("dialog", lambda d: d.accept("Bridge ambush"))
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("rename-encounter").click()
    page.wait_for_function("document.querySelector('[data-testid=encounter-name]').textContent === 'Bridge ambush'")
    assert "Bridge ambush" in page.get_by_test_id("encounter-list").inner_text()
    page.get_by_test_id("new-encounter").click()
    assert names(page) == []
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("delete-encounter").click()
    assert names(page) == ["First fight"]
    page.get_by_test_id("notice-action").click()  # undo the delete
    assert names(page) == []
    page.get_by_test_id("encounter-name").click()
    assert page.get_by_test_id("encounter-item").count() == 2


def test_party_roster_and_saved_opponents_are_reused_in_a_new_fight(context, site):
    page = open_app(context, site["url"] + "/").page
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("field-name").fill("Aria")
    page.get_by_test_id("field-side").select_option("party")
    page.get_by_test_id("field-max_hp").fill("31")
    page.get_by_test_id("field-remember").check()
    page.get_by_test_id("save-combatant").click()
    add_combatant(page, "Orc", hp=15)
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("duplicate-encounter").click()
    assert names(page) == ["Aria", "Orc"]
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("new-encounter").click()
    page.reload()
    wait_ready(page)
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("quick-add").get_by_text("Aria").click()
    assert names(page) == ["Aria"]
    assert "31/31" in page.get_by_test_id("combatant-row").inner_text()
    page.get_by_test_id("encounter-name").click()
    assert page.get_by_test_id("encounter-item").count() == 3


def test_screen_stays_awake_during_a_fight(context, site):
    page = context.new_page()
    page.add_init_script(
        "window.__locks = []; Object.defineProperty(navigator, 'wakeLock', {value: {request(kind) {"
        " const lock = {released: false, release() { this.released = true; return Promise.resolve(); }};"
        " window.__locks.push(lock); return Promise.resolve(lock); }}});"
    )
    page.goto(site["url"] + "/")
    wait_ready(page)
    add_combatant(page, "A", initiative=3)
    assert page.evaluate("window.__locks.length") == 0
    page.get_by_test_id("next-turn").click()
    page.wait_for_function("window.__locks.length === 1 && !window.__locks[0].released")
    page.get_by_test_id("end-combat").click()
    page.wait_for_function("window.__locks[0].released")


def test_manual_damage_blames_nobody(context, site):
    page = open_app(context, site["url"] + "/").page
    add_combatant(page, "Hero", hp=20, initiative=15)
    add_combatant(page, "Troll", hp=80, initiative=10)
    page.get_by_test_id("next-turn").click()  # Hero's turn
    page.locator("[data-combatant-id=c2]").click()
    page.get_by_test_id("hp-amount").fill("12")
    page.get_by_test_id("damage").click()
    page.get_by_test_id("close-sheet").click()
    page.get_by_test_id("log-toggle").click()
    log = page.get_by_test_id("log").inner_text()
    assert "Troll took 12 damage" in log and "damage from" not in log  # typed damage: no attacker was chosen
