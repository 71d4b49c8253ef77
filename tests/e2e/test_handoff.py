"""A fight handed over by QR code: the GM's share screen draws the code (segno installed on first use
from the site's own files), a real decoder (zbar) reads it off a screenshot, and a second phone
opens it as a read-only view; the co-GM's code opens the whole fight."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.e2e.conftest import add_combatant, open_app, wait_ready

ZBAR = shutil.which("zbarimg")


def decode(png: bytes, tmp_path) -> str:
    if ZBAR is None:
        pytest.fail("zbarimg not found: install Debian's zbar-tools (.ci/run and `python3 build.py test` as root do)")
    path = tmp_path / "qr.png"
    path.write_bytes(png)
    done = subprocess.run([ZBAR, "--quiet", "--raw", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def show_qr(page, kind: str):
    page.get_by_test_id("menu-button").click()
    page.get_by_test_id("share-for").select_option(kind)
    page.get_by_test_id("share-link").click()
    qr = page.get_by_test_id("share-qr")
    page.wait_for_function("document.querySelector('[data-testid=share-qr] svg') !== null", timeout=60_000)
    return qr


def test_a_player_opens_the_fight_from_the_qr_code_as_a_read_only_view(browser, site, tmp_path):
    gm = browser.new_context(viewport={"width": 390, "height": 844})
    player = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = open_app(gm, site["url"] + "/?seed=4").page
        add_combatant(page, "Aldric <b>", hp=30, side="party", pc=True, initiative=18)
        add_combatant(page, "Goblin", hp=10, initiative=12)
        add_combatant(page, "Ogre", hp=40, initiative=5)
        page.get_by_test_id("start-combat").click()
        page.wait_for_function("document.querySelector('[data-testid=turn-now]') !== null")
        qr = show_qr(page, "view")
        assert int(qr.get_attribute("data-version")) <= 10
        url = decode(qr.screenshot(), tmp_path)
        assert url == page.get_by_test_id("share-field").input_value() and "#view=" in url
        assert "QR version" in page.get_by_test_id("share-qr-note").inner_text()

        seen = player.new_page()
        seen.goto(url)
        wait_ready(seen)
        seen.get_by_test_id("view-title").wait_for()
        assert seen.get_by_test_id("view-now").inner_text() == "Aldric <b>"
        assert seen.get_by_test_id("view-next").inner_text() == "Goblin"
        rows = seen.get_by_test_id("view-row")
        assert rows.count() == 3
        assert rows.nth(0).get_by_test_id("view-hp").inner_text() == "30/30"  # the party's HP
        assert rows.nth(2).get_by_test_id("view-state").inner_text() == "unhurt"  # the opponents': words
        assert "40" not in rows.nth(2).inner_text()
        assert "#view=" not in seen.url
        assert seen.evaluate("Object.keys(localStorage).filter(k => k.includes('enc:')).length") <= 1  # nothing of it saved
        assert seen.get_by_test_id("view-order").locator("button, input").count() == 0  # read-only
    finally:
        gm.close()
        player.close()


def test_a_co_gm_takes_the_fight_over_from_the_qr_code(browser, site, tmp_path):
    gm = browser.new_context(viewport={"width": 390, "height": 844})
    co = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = open_app(gm, site["url"] + "/?seed=4").page
        for name in ("Aldric", "Goblin", "Ogre", "Wolf", "Bandit", "Mage"):
            add_combatant(page, name, hp=20)
        qr = show_qr(page, "fight")
        url = decode(qr.screenshot(), tmp_path)
        assert "#fight=" in url
        other = co.new_page()
        other.goto(url)
        wait_ready(other)
        other.get_by_test_id("notice-action").filter(has_text="Open it").click()
        other.wait_for_function("document.querySelectorAll('[data-testid=combatant-row]').length === 6")
    finally:
        gm.close()
        co.close()
