"""What a page does after a fault is gone or cannot be helped: a damaged download of the QR
encoder's files is fetched again on the next try; a browser that refuses every write is said to
refuse, not to be full; files missing from the offline copy are fetched again."""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e.conftest import add_combatant, wait_controlled, wait_ready

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def blocked_sw(browser):
    """A profile whose requests the test can answer itself (no service worker between)."""
    ctx = browser.new_context(viewport=PHONE, service_workers="block")
    ctx.add_init_script("window.__rkSnapshot = 'off'")
    yield ctx
    ctx.close()


def test_a_damaged_qr_encoder_download_is_fetched_again_once_the_good_file_is_back(blocked_sw, site):
    blocked_sw.route("**/wheels/stdlib-extra.zip", lambda route: route.fulfill(status=200, body=b"PK\x03\x04 not a zip at all"))
    page = blocked_sw.new_page()
    page.goto(site["url"] + "/")
    wait_ready(page)
    add_combatant(page, "Aldric", 30)
    page.get_by_test_id("menu-button").click()
    page.get_by_test_id("share-link").click()
    page.wait_for_function("(document.getElementById('share-qr-note')?.textContent || '').includes('could not be drawn')")
    blocked_sw.unroute("**/wheels/stdlib-extra.zip")
    page.get_by_test_id("share-link").click()  # the same page, no reload
    page.wait_for_function("document.querySelector('[data-testid=share-qr] svg') !== null", timeout=60_000)


def test_a_browser_that_refuses_every_write_is_said_to_refuse_not_to_be_full(browser, site):
    ctx = browser.new_context(viewport=PHONE)
    ctx.add_init_script("""
        window.__rkSnapshot = 'off';
        Storage.prototype.setItem = function () { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); };
    """)
    try:
        page = ctx.new_page()
        page.goto(site["url"] + "/")
        wait_ready(page)
        notices = " ".join(page.get_by_test_id("notice").all_inner_texts())
        assert "not letting Roundkeeper save" in notices and "Storage is full" not in notices, notices
        add_combatant(page, "Aldric", 30)  # the page still works, in memory
    finally:
        ctx.close()


CACHED = """async (names) => {
    const keys = (await caches.keys()).filter(k => k.startsWith('roundkeeper:/:'));
    const cache = await caches.open(keys[0]);
    const paths = (await cache.keys()).map(r => new URL(r.url).pathname);
    return names.map(n => paths.some(p => p.endsWith(n)));
}"""
DROP = """async (names) => {
    const keys = (await caches.keys()).filter(k => k.startsWith('roundkeeper:/:'));
    const cache = await caches.open(keys[0]);
    for (const r of await cache.keys()) if (names.some(n => new URL(r.url).pathname.endsWith(n))) await cache.delete(r);
}"""


def test_files_missing_from_the_offline_copy_are_fetched_again_when_the_app_opens(context, site):
    page = context.new_page()
    page.goto(site["url"] + "/")
    wait_ready(page)
    wait_controlled(page)
    names = ["/rules.html", "/wheels/stdlib-extra.zip"]
    page.evaluate(DROP, names)
    assert page.evaluate(CACHED, names) == [False, False]
    page.reload()
    wait_ready(page)
    page.wait_for_function(f"({CACHED})({names!r}).then(found => found.every(Boolean))", timeout=30_000, polling=500)
    context.set_offline(True)
    try:
        rules = context.new_page()
        rules.goto(site["url"] + "/rules.html")
        assert "rules" in rules.title().lower()
    finally:
        context.set_offline(False)


LONG_TASKS = """() => {
    window.__longTasks = [];
    new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration)); })
        .observe({type: 'longtask', buffered: false});
}"""


def test_pasting_an_expression_too_big_to_estimate_keeps_every_task_short(context, site):
    """1000d6!>=2 draws about 6,000 dice a roll: its odds are not estimated (said), rolling it is refused
    (said), and the page's work meanwhile stays within its counted bounds: each slice of the estimate it
    tried drew at most SLICE_DICE + ESTIMATE_DICE dice (a roll is cut at ESTIMATE_DICE dice), a roll at most
    ROLLER_FACES. Counted, not timed: the bench's --only typing and the roll audit say how long (a 400 ms
    bound here once saw 198 ms beside other browsers)."""
    page = context.new_page()
    page.goto(site["url"] + "/")
    wait_ready(page)
    page.get_by_test_id("dice-input").fill("1000d6!>=2")
    page.wait_for_function("(document.querySelector('[data-testid=dice-error]')?.textContent || '').includes('too many to estimate')",
                           timeout=30_000)
    counted = json.loads(page.evaluate("RK.bench('odds')"))
    assert counted["slices"] >= 2 and 0 < counted["slice_dice"] <= counted["slice_most"], counted
    # Rolling it is refused with a message before it blocks the page (a roll typed in the roller draws at
    # most 4,000 faces: web/app/update/roller.py ROLLER_FACES; issue 37, item 14), and the page goes on.
    page.get_by_test_id("roll-button").click()
    page.wait_for_function("(document.querySelector('[data-testid=dice-error]')?.textContent || '').includes('more than 4,000 dice')")
    page.get_by_test_id("dice-input").fill("1000d6!p")
    page.get_by_test_id("roll-button").click()  # a large roll within the bound still rolls
    page.get_by_test_id("roll-result").wait_for()
    assert page.get_by_test_id("dice-error").inner_text() == ""


@pytest.fixture(scope="module")
def big_export(tmp_path_factory):
    """An export of 30 started fights of 500 combatants each (2.7 MB): the largest a table keeps."""
    from pyengine.storage import APP, SCHEMA_VERSION, timeline_to_dict
    from web.page.bench import big_fight

    fight = timeline_to_dict(big_fight(500))
    path = tmp_path_factory.mktemp("import") / "all.json"
    path.write_text(json.dumps({"app": APP, "schema": SCHEMA_VERSION, "kind": "workspace", "encounters": [fight] * 30,
                                "roster": [], "templates": []}))
    return path


def import_file(page, path) -> str:
    """Import `path` through the menu; the notice it ends with."""
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("import-file").set_input_files(str(path))
    page.wait_for_function("(document.querySelector('[data-testid=notices]')?.textContent || '').includes('Imported')",
                           timeout=120_000)
    return page.get_by_test_id("notices").inner_text()


def listed(page) -> int:
    page.get_by_test_id("encounter-name").click()
    count = page.get_by_test_id("encounter-item").count()
    page.keyboard.press("Escape")
    return count


def test_a_file_of_many_large_fights_is_imported_an_encounter_a_task(context, site, big_export):
    """30 fights of 500 combatants: read and stored one a task (the page stays responsive; before,
    one task of several seconds), all 30 listed."""
    page = context.new_page()
    page.goto(site["url"] + "/")
    wait_ready(page)
    page.wait_for_timeout(1500)
    # A phone's CPU, three times slower than this machine's: each encounter's task then takes more
    # than the 50 ms that makes it a long task the observer counts (on a fast machine most took less
    # and went uncounted: 3 long tasks seen, whatever the import did).
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 3})
    page.evaluate(LONG_TASKS)
    # What the page drew between the tasks: each step's progress toast (a step drawn is a task ended).
    page.evaluate("""() => { window.__progress = new Set();
        new MutationObserver(() => { const t = document.getElementById('toast'); if (t) window.__progress.add(t.textContent) })
            .observe(document.body, {subtree: true, childList: true, characterData: true}); }""")
    said = import_file(page, big_export)
    assert "Imported 30 encounters." in said, said
    tasks = page.evaluate("window.__longTasks")
    progress = page.evaluate("[...window.__progress]")
    # One encounter a task as it is stored, each step drawn before the next (counted, not timed: the task
    # that reads the file took 1.5-2.2 s on this machine at 3x throttle, on the build before issue 51 too;
    # the bench's figures, not this test, say how long).
    assert len(tasks) >= 30, tasks
    assert "Reading the file: 30 encounters…" in progress, progress
    assert {f"Importing: {n} of 30 stored…" for n in range(1, 30)} <= set(progress), progress
    assert listed(page) == 31


FILL = """(room) => {
    // Fill localStorage to its quota, then free `room` characters: the browser's own refusal, not a mock.
    let chunk = 'x'.repeat(1 << 20), i = 0;
    while (chunk.length >= 64) {
        try { localStorage.setItem('filler:' + (i++), chunk); } catch (e) { chunk = chunk.slice(chunk.length / 2); }
    }
    let freed = 0;
    for (let k = i; freed < room && k >= 0; k--) {
        const v = localStorage.getItem('filler:' + k);
        if (v !== null) { freed += v.length; localStorage.removeItem('filler:' + k); }
    }
    return freed;
}"""


def test_an_import_into_nearly_full_storage_says_exactly_how_many_were_stored(context, site, big_export):
    """Room for about ten of the 30 fights: the notice counts what was stored, the list holds
    exactly those (after a reload too), and nothing else was lost."""
    page = context.new_page()
    page.goto(site["url"] + "/")
    wait_ready(page)
    add_combatant(page, "Kept")
    one = len(json.dumps(json.loads(big_export.read_text())["encounters"][0]))
    page.evaluate(FILL, int(one * 10.5))
    said = import_file(page, big_export)
    found = re.search(r"Imported (\d+) of 30 encounters: storage is full, the other (\d+) were not stored", said)
    assert found, said
    stored = int(found[1])
    assert 5 <= stored <= 12 and stored + int(found[2]) == 30
    assert listed(page) == stored + 1
    page.evaluate("() => { for (const k of Object.keys(localStorage)) if (k.startsWith('filler:')) localStorage.removeItem(k); }")
    page.reload()
    wait_ready(page)
    assert listed(page) == stored + 1
