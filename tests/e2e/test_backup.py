"""Issue 48, item 2, end to end: Safari's storage rules. Safari in a tab on an iPhone (navigator.standalone
false) is told in the menu to add the site to the Home Screen and why; the menu says when the last
backup was made; the end of a fight offers one when none was made in 7 days; and when the browser has
deleted everything between two visits (a fresh profile: localStorage, IndexedDB, Cache Storage all
gone), the page starts empty and says so plainly, and the exported backup brings every fight back."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import add_combatant, names, wait_ready

SAFARI_TAB = "Object.defineProperty(Navigator.prototype, 'standalone', {get: () => false, configurable: true});"


def menu_text(page, test_id: str) -> str:
    page.get_by_test_id("encounter-name").click()
    text = page.get_by_test_id(test_id).inner_text()
    page.get_by_test_id("sheet-close").click()
    page.wait_for_function("!document.getElementById('sheet').open")
    return text


def test_safari_is_told_to_add_to_home_the_end_of_a_fight_offers_a_backup_and_a_backup_restores_a_deleted_site(browser, site, tmp_path):
    first = browser.new_context(viewport={"width": 390, "height": 844}, accept_downloads=True)
    first.add_init_script("window.__rkNextTurnGuardMs = 0; window.__rkSnapshot = 'off';" + SAFARI_TAB)
    try:
        page = first.new_page()
        page.goto(site["url"] + "/?seed=4")
        wait_ready(page)
        page.get_by_test_id("encounter-name").click()
        home = page.get_by_test_id("add-to-home")
        assert home.is_visible() and "Add to Home Screen" in home.inner_text() and "7 days" in home.inner_text()
        assert page.get_by_test_id("backup-age").inner_text() == "Last backup (Export all): never."
        page.get_by_test_id("sheet-close").click()
        page.wait_for_function("!document.getElementById('sheet').open")

        add_combatant(page, "Aria", hp=30, initiative=18, side="party", pc=True)
        add_combatant(page, "Ogre", hp=59, initiative=5)
        page.get_by_test_id("next-turn").click()
        page.wait_for_function("document.querySelector('[data-testid=round-counter]').textContent.startsWith('Round 1')")
        page.get_by_test_id("end-combat").click()
        offer = page.get_by_test_id("backup-offer")
        offer.wait_for()
        assert "No backup in the last 7 days" in offer.inner_text()
        with page.expect_download() as info:
            page.locator("[data-testid=notice]", has=offer).get_by_test_id("notice-action").click()
        backup = tmp_path / "roundkeeper-all.json"
        Path(info.value.path()).rename(backup)
        assert json.loads(backup.read_text())["encounters"]
        page.wait_for_function("!document.querySelector('[data-testid=backup-offer]')")
        assert menu_text(page, "backup-age") == "Last backup (Export all): just now."
        page.reload()
        wait_ready(page)
        assert menu_text(page, "backup-age") == "Last backup (Export all): just now."  # kept
    finally:
        first.close()

    # Safari deleted the site's storage (seven days of use without a visit): a fresh profile.
    later = browser.new_context(viewport={"width": 390, "height": 844})
    later.add_init_script("window.__rkNextTurnGuardMs = 0; window.__rkSnapshot = 'off';" + SAFARI_TAB)
    try:
        page = later.new_page()
        page.goto(site["url"] + "/")
        wait_ready(page)
        assert names(page) == []
        assert any("Home Screen" in n and "7 days" in n for n in page.get_by_test_id("notice").all_inner_texts())
        assert menu_text(page, "backup-age") == "Last backup (Export all): never."
        page.get_by_test_id("encounter-name").click()
        page.get_by_test_id("import-file").set_input_files(str(backup))
        page.wait_for_function("[...document.querySelectorAll('#tracker [data-testid=combatant-row] .name')].length === 2")
        assert names(page) == ["Aria", "Ogre"]
        page.reload()
        wait_ready(page)
        assert names(page) == ["Aria", "Ogre"]
    finally:
        later.close()
