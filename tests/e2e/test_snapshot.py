"""The start from a memory snapshot (static/interpreter.mjs, static/snapshot-worker.js): made after a
normal start, used on the next one, dropped for an update, and never able to stop a start (missing,
damaged, not restorable, storage refused, a start after it that fails all end in a normal start with
the fight intact). Rolls are reseeded after a restore."""

from __future__ import annotations

import os
import random
import shutil
import signal

import pytest

import build
from pyengine.dice import roll
from tests.e2e.conftest import READY_TIMEOUT_MS, add_combatant, names, release, wait_ready
from tests.e2e.test_strife import add_fighter

SNAPSHOT_CACHE = "roundkeeper-snapshot:/"
STORED = "roundkeeper-snapshot-stored:/"  # localStorage: this version's snapshot is stored (the start looks at once)


@pytest.fixture
def server(dist, tmp_path):
    """The site on a server of its own (its own origin, so its own Cache Storage), from a copy that a
    test may change as a release would."""
    root = tmp_path / "site"
    shutil.copytree(dist, root)
    httpd, url = build.serve_in_thread({"/": root})
    yield {"url": url, "root": root}
    httpd.shutdown()


@pytest.fixture
def snap_context(browser):
    """A phone-sized profile where the snapshot is made at once after a normal start. The service
    worker is blocked: each load asks the server, so a release shows on the next load."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")
    ctx.add_init_script("window.__rkNextTurnGuardMs = 0; window.__rkSnapshot = 'now'")
    yield ctx
    ctx.close()


def state(page) -> dict:
    return page.evaluate("({...RK.snapshot})")


def start(page, url: str) -> dict:
    page.goto(url)
    wait_ready(page)
    return state(page)


NORMAL = ("none", "making", "stored")  # a normal start (the snapshot may already be on its way)


def wait_stored(page) -> dict:
    page.wait_for_function("['stored', 'failed'].includes(RK.snapshot.state)", timeout=READY_TIMEOUT_MS)
    snap = state(page)
    assert snap["state"] == "stored", snap
    return snap


def stored_keys(page) -> list[str]:
    return page.evaluate(f"caches.open({SNAPSHOT_CACHE!r}).then(c => c.keys()).then(ks => ks.map(k => new URL(k.url).pathname))")


def version(page) -> str:
    return page.evaluate("document.querySelector('meta[name=rk-version]').content")


def fight(page) -> None:
    add_combatant(page, "Ogre", hp=30, initiative=12)
    add_combatant(page, "Aria", hp=20, initiative=15, side="party", pc=True)
    page.get_by_test_id("next-turn").click()
    page.wait_for_function("document.querySelector('[data-testid=round-counter]').textContent.startsWith('Round 1')")


def stored_snapshot(snap_context, server):
    """A page whose fight and snapshot are stored, and the snapshot's cache key (for a test to damage)."""
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    fight(page)
    wait_stored(page)
    return page, page.evaluate(f"caches.open({SNAPSHOT_CACHE!r}).then(c => c.keys()).then(ks => ks[0].url)")


def roll_once(page, expr: str) -> str:
    """The roll's text: every die, then the total."""
    page.get_by_test_id("dice-input").fill(expr)
    page.get_by_test_id("roll-button").click()
    text = page.get_by_test_id("roll-result").get_by_test_id("roll-text")
    text.wait_for()
    return text.inner_text()


def test_a_revisit_starts_from_the_snapshot_the_whole_loop_works_and_a_missing_one_is_a_normal_start(snap_context, server):
    page = snap_context.new_page()
    first = start(page, server["url"] + "/")
    assert first["state"] in NORMAL
    fight(page)
    made = wait_stored(page)
    assert made["raw"] > 10_000_000 and made["packed"] < made["raw"] / 3  # a whole heap, gzip-compressed
    assert stored_keys(page) == [f"/rk-snapshot/{version(page)}"]
    assert page.evaluate(f"localStorage.getItem({STORED!r})") == version(page)

    again = start(page, server["url"] + "/")
    assert again["state"] == "used", again
    assert page.evaluate("performance.getEntriesByName('rk:restored').length") == 1
    assert names(page) == ["Aria", "Ogre"]
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 1")
    # The restored engine does the everyday loop: a turn, a roll, its odds, undo.
    page.get_by_test_id("next-turn").click()
    page.wait_for_function("document.querySelector('[aria-current=true] .name').textContent.startsWith('Ogre')")
    assert roll_once(page, "2d6+3")
    page.get_by_test_id("dice-input").fill("4d6kh3")
    page.get_by_test_id("odds").wait_for()
    page.get_by_test_id("undo").click()
    page.wait_for_function("document.querySelector('[aria-current=true] .name').textContent.startsWith('Aria')")
    # Nothing is made again while this version's snapshot is there.
    assert state(page)["state"] == "used"
    # A snapshot gone missing (the browser cleared it): a normal start, no reason given, made again.
    page.evaluate(f"caches.delete({SNAPSHOT_CACHE!r})")
    after = start(page, server["url"] + "/")
    assert after["state"] in NORMAL and after["reason"] == "", after
    assert names(page) == ["Aria", "Ogre"]
    wait_stored(page)
    assert page.evaluate(f"localStorage.getItem({STORED!r})") == version(page)
    assert start(page, server["url"] + "/")["state"] == "used"


def test_after_a_restore_a_system_the_snapshot_never_saw_imports_from_our_archives(snap_context, server):
    """The snapshot holds what the app had imported for a generic fight; our code is two archives
    Python imports from when it needs a module (static/ours.mjs). After a restore, a Realm of Strife
    fight (its rules and its view, never imported before) starts and plays a turn."""
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    fight(page)
    wait_stored(page)
    assert start(page, server["url"] + "/")["state"] == "used"
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("new-system").select_option("strife")
    page.get_by_test_id("new-encounter").click()
    assert "Realm of Strife" in page.get_by_test_id("tracker").inner_text()
    add_fighter(page, "Kayden", "party", 30, 60, {"hit": 10, "crit": 100}, pc=True)
    add_fighter(page, "Orc", "opponents", 40, 40, {"ac": 5})
    page.get_by_test_id("next-turn").click()
    assert names(page) == ["Kayden", "Orc"]
    page.get_by_test_id("bottom-queue").click()  # the system's own move, from its view
    assert names(page) == ["Orc", "Kayden"]
    assert not page.get_by_test_id("boot-error").is_visible()


PYSCRIPT_PACKAGE_JS = """async (expected) => {
    const py = await (await import('./interpreter.mjs')).loadPyodide();  // the page's own interpreter
    py.globals.set('_expected', JSON.stringify(expected));
    return JSON.parse(py.runPython(`
import json, marshal, os, pyscript, sys, zipfile
_web = zipfile.ZipFile(pyscript.__file__.split('/web.zip/')[0] + '/web.zip')
_same = [marshal.loads(_web.read(path[:-3] + '.pyc')[16:]) == compile(text, path, 'exec')
         for path, text in json.loads(_expected).items()]
json.dumps({"file": pyscript.__file__, "same": _same, "written": os.path.exists('pyscript'),
            "window": type(pyscript.window).__name__, "path": sys.path})`));
}"""


def test_pyscripts_package_is_imported_compiled_from_web_zip_on_a_start_and_after_a_restore(snap_context, server):
    """PyScript's bootstrap would write its package as source and compile it at every start; the build
    compiled the same text (read from PyScript's own core chunk, build.pyscript_package) into web.zip,
    which Python imports first, and the chunk the site ships no longer writes it. Checked in this very
    browser's Python: each module's code is the text's, compiled."""
    original = next((build.ROOT / "node_modules" / "@pyscript" / "core" / "dist").glob("core-*.js")).read_text()
    expected = build.pyscript_package(original)
    assert len(expected) > 10
    page = snap_context.new_page()
    for state_wanted in (NORMAL, ("used",)):
        assert start(page, server["url"] + "/")["state"] in state_wanted
        found = page.evaluate(PYSCRIPT_PACKAGE_JS, expected)
        assert found["file"].endswith("/web.zip/pyscript/__init__.pyc"), found["file"]
        assert found["same"] == [True] * len(expected)
        assert found["written"] is False and found["window"] == "JsProxy"
        assert found["path"][1].endswith("/web.zip") and len(set(found["path"])) == len(found["path"]), found["path"]
        if state_wanted == NORMAL:
            fight(page)
            wait_stored(page)
    assert not page.get_by_test_id("boot-error").is_visible()


def test_two_starts_from_one_snapshot_roll_differently_unless_seeded(snap_context, server):
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    wait_stored(page)
    unseeded = []
    for _ in range(2):
        assert start(page, server["url"] + "/")["state"] == "used"
        unseeded.append(roll_once(page, "10d100"))
    assert unseeded[0] != unseeded[1]
    seeded = []
    for _ in range(2):
        assert start(page, server["url"] + "/?seed=42")["state"] == "used"
        seeded.append(roll_once(page, "10d100"))
    assert seeded == [roll("10d100", random.Random(42)).text] * 2


def test_an_update_drops_the_old_snapshot_and_makes_its_own(snap_context, server):
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    fight(page)
    wait_stored(page)
    old = version(page)
    new = release(server["root"])
    assert new != old
    updated = start(page, server["url"] + "/?released")  # past the HTTP cache's copy of the page
    assert version(page) == new
    assert updated["state"] in NORMAL, updated  # the old version's snapshot is not used
    assert names(page) == ["Aria", "Ogre"]
    wait_stored(page)
    assert stored_keys(page) == [f"/rk-snapshot/{new}"]
    assert start(page, server["url"] + "/?released")["state"] == "used"


DAMAGE = {
    # Half the stored bytes: gzip cannot finish.
    "truncated": "bytes => bytes.slice(0, bytes.length >> 1)",
    # One byte changed inside the compressed heap: gzip's CRC catches it.
    "a flipped byte": "bytes => { const b = bytes.slice(); b[b.length >> 1] ^= 0x55; return b; }",
}


async_rewrite = """async ([key, damage]) => {
    const cache = await caches.open(%r);
    const old = await cache.match(key);
    const bytes = new Uint8Array(await old.arrayBuffer());
    const damaged = (%s)(bytes);
    await cache.put(key, new Response(damaged, {headers: old.headers}));
}"""


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_snapshot_falls_back_to_a_normal_start_and_is_made_again(snap_context, server, damage):
    page, key = stored_snapshot(snap_context, server)
    page.evaluate(async_rewrite % (SNAPSHOT_CACHE, DAMAGE[damage]), [key, damage])
    after = start(page, server["url"] + "/")
    # A fallback ("damaged" stays the reason while the new snapshot is made at once after it).
    assert after["state"] in ("fallback", "making", "stored"), after
    assert after["reason"].startswith("damaged"), after
    assert names(page) == ["Aria", "Ogre"]
    assert not page.get_by_test_id("boot-error").is_visible()  # nothing alarming on screen
    # Dropped, and a good one is made again after this normal start.
    wait_stored(page)
    assert start(page, server["url"] + "/")["state"] == "used"


REWRITE_HEADER = """async ([cache, key]) => {
    const c = await caches.open(cache);
    const old = await c.match(key);
    const raw = new Uint8Array(await new Response(old.body.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
    raw[20] ^= 0xff;  // inside Pyodide's build id: a snapshot of another Pyodide
    const packed = await new Response(new Blob([raw]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
    await c.put(key, new Response(packed, {headers: old.headers}));
}"""


def test_a_snapshot_that_will_not_restore_falls_back_and_is_not_made_again(snap_context, server):
    page, key = stored_snapshot(snap_context, server)
    page.evaluate(REWRITE_HEADER, [SNAPSHOT_CACHE, key])
    after = start(page, server["url"] + "/")
    assert after["state"] == "fallback", after
    assert "restore failed" in after["reason"] and "build id" in after["reason"], after
    assert names(page) == ["Aria", "Ogre"]
    assert stored_keys(page) == []
    # This browser restored it wrongly once: no make-and-fail loop at every start of this version.
    page.wait_for_timeout(1500)
    assert state(page)["state"] == "fallback"
    assert start(page, server["url"] + "/")["state"] == "none"  # and it stays so: nothing is made
    page.wait_for_timeout(1500)
    assert stored_keys(page) == []


@pytest.mark.allow_console_errors
def test_a_start_that_fails_after_a_restore_starts_again_without_it(snap_context, server):
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    fight(page)
    wait_stored(page)
    # The next start's download of our code is damaged once: the restored engine cannot import it.
    broken = []

    def once(route):
        if not broken:
            broken.append(route.request.url)
            route.fulfill(status=200, body=b"PK\x03\x04 not a zip", content_type="application/zip")
        else:
            route.continue_()

    page.route("**/web.zip", once)
    page.goto(server["url"] + "/")
    # boot.js hands the failure to interpreter.mjs, which drops the snapshot and reloads once.
    # (`window.RK`: the page reloads itself meanwhile, and the check may run on the new document before boot.js)
    page.wait_for_function("window.RK && RK.snapshot && RK.snapshot.state === 'off' && document.documentElement.dataset.engine === 'ready'",
                           timeout=READY_TIMEOUT_MS)
    assert broken
    assert state(page)["reason"] == "the last start from it failed"
    assert names(page) == ["Aria", "Ogre"]
    assert stored_keys(page) == []
    assert not page.get_by_test_id("boot-error").is_visible()


def test_storage_that_refuses_is_a_normal_start(browser, server):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")
    ctx.add_init_script("window.__rkSnapshot = 'now';"
                        "caches.open = () => Promise.reject(new DOMException('The operation is insecure.', 'SecurityError'));")
    try:
        page = ctx.new_page()
        for visit in range(2):
            first = start(page, server["url"] + "/")
            # Nothing to read (the first visit does not look: no snapshot was stored; the second looks
            # and is refused), and the snapshot made after the start is refused too; the start is normal.
            assert first["state"] in ("none", "failed") and (visit == 0 or first["reason"].startswith("storage refused")), first
            page.wait_for_function("RK.snapshot.state === 'failed'", timeout=READY_TIMEOUT_MS)
            assert state(page)["reason"].startswith("storage refused")
            if visit == 0:
                fight(page)
                # The mark of a stored snapshot (as if storage had refused only since): the next start
                # begins from it, finds storage refusing, and is a normal one that forgets the mark.
                page.evaluate(f"localStorage.setItem({STORED!r}, document.querySelector('meta[name=rk-version]').content)")
        assert page.evaluate(f"localStorage.getItem({STORED!r})") is None
        assert names(page) == ["Aria", "Ogre"]
    finally:
        ctx.close()


def test_without_localstorage_the_snapshot_is_looked_for_first_and_used(snap_context, server):
    """The mark that lets a start begin from the snapshot at once is in localStorage; where reading it
    throws (a browser's setting), the entry in Cache Storage is looked for first, as before the mark."""
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    fight(page)
    wait_stored(page)
    refusing = snap_context.new_page()
    refusing.add_init_script("Storage.prototype.getItem = function () { throw new DOMException('refused', 'SecurityError') }")
    assert start(refusing, server["url"] + "/")["state"] == "used"
    refusing.close()


def kill_renderers(browser, page) -> None:
    """Every renderer dies (SIGKILL: a crash, or the phone killing it); `page` is the one open."""
    session = browser.new_browser_cdp_session()
    with page.expect_event("crash"):
        for process in session.send("SystemInfo.getProcessInfo")["processInfo"]:
            if process["type"] == "renderer":
                os.kill(process["id"], signal.SIGKILL)
    session.detach()


def test_a_start_from_the_snapshot_that_never_finished_is_not_repeated(browser, snap_context, server):
    """A renderer that dies in the middle of a start from the snapshot (a crash, or the phone
    killing it) leaves the tab's mark in its sessionStorage, which the tab keeps: its next start (the
    Reload of a crashed tab, a browser restoring its tabs) finds it. Playwright cannot reload a
    crashed page, so the tab is shown dying, then a tab holding the mark it left starts."""
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    fight(page)
    wait_stored(page)
    page.close()  # closing a page mid-start is no crash (see below): only the crashing page is open
    crashing = snap_context.new_page()
    # Our code (web.zip) held back: the start from the snapshot stays under way, its mark held, until the
    # renderer dies (on a fast machine it finished before the check below: seen once in the full run).
    crashing.route("**/web.zip", lambda route: None)
    crashing.goto(server["url"] + "/", wait_until="commit")
    crashing.wait_for_function("sessionStorage.getItem('roundkeeper-snapshot-trying:/')", polling="raf")
    mark = crashing.evaluate("sessionStorage.getItem('roundkeeper-snapshot-trying:/')")
    assert crashing.evaluate("document.documentElement.dataset.engine") is None
    kill_renderers(browser, crashing)
    crashing.close()
    page = snap_context.new_page()
    page.goto(server["url"] + "/sw.js")  # the same origin, without the app: the tab as the crash left it
    page.evaluate("mark => sessionStorage.setItem('roundkeeper-snapshot-trying:/', mark)", mark)
    after = start(page, server["url"] + "/")
    assert after["state"] == "off" and after["reason"] == "the last start from it did not finish", after
    assert names(page) == ["Aria", "Ogre"]
    assert stored_keys(page) == []
    page.wait_for_timeout(1500)
    assert stored_keys(page) == []  # not made again for this version: that start is not repeated
    assert start(page, server["url"] + "/")["state"] == "none"


def test_leaving_a_start_from_the_snapshot_is_no_crash(snap_context, server):
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    wait_stored(page)
    leaving = snap_context.new_page()
    leaving.goto(server["url"] + "/", wait_until="commit")
    leaving.wait_for_function("sessionStorage.getItem('roundkeeper-snapshot-trying:/')", polling="raf")
    leaving.goto(server["url"] + "/sw.js")  # the user leaves at once (another address; closing the tab, below)
    assert leaving.evaluate("sessionStorage.getItem('roundkeeper-snapshot-trying:/')") is None  # pagehide let it go
    leaving.close()
    assert start(page, server["url"] + "/")["state"] == "used"


def test_two_tabs_starting_a_moment_apart_both_use_the_snapshot(snap_context, server):
    """The mark of a start under way is the tab's own: a second tab starting 300 ms after the first
    is no sign that the first one crashed (it was, while the mark was per origin: the snapshot was
    then dropped until the next release)."""
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    wait_stored(page)
    page.close()
    first, second = snap_context.new_page(), snap_context.new_page()
    first.goto(server["url"] + "/", wait_until="commit")
    first.wait_for_function("sessionStorage.getItem('roundkeeper-snapshot-trying:/')", polling="raf")
    second.wait_for_timeout(300)
    second.goto(server["url"] + "/", wait_until="commit")
    for p in (first, second):
        wait_ready(p)
        assert state(p)["state"] == "used", state(p)
    assert p.evaluate("localStorage.getItem('roundkeeper-snapshot-failed:/')") is None


BOMB = """async ([cache, key]) => {
    // What would inflate to 64 MB of zeros, under a stored size of 1 MB.
    const c = await caches.open(cache);
    const old = await c.match(key);
    const zeros = new Blob([new Uint8Array(64 * 1024 * 1024)]);
    const packed = await new Response(zeros.stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
    const headers = new Headers(old.headers);
    headers.set('x-rk-size', String(1024 * 1024));
    await c.put(key, new Response(packed, {headers}));
}"""


def test_a_snapshot_that_would_inflate_past_its_stored_size_stops_there(snap_context, server):
    page, key = stored_snapshot(snap_context, server)
    page.evaluate(BOMB, [SNAPSHOT_CACHE, key])
    after = start(page, server["url"] + "/")
    assert after["state"] in ("fallback", "making", "stored"), after
    assert "more than the 1048576 bytes stored" in after["reason"], after
    assert names(page) == ["Aria", "Ogre"]


def test_a_start_from_the_snapshot_hidden_then_killed_is_no_crash(browser, snap_context, server):
    """The phone kills a page it put in the background while it was starting: no fault of the
    snapshot, which is used at the next start. (Headless Chromium never hides a page by itself: the
    page is told it is hidden the way a browser tells it, a visibilitychange with the state hidden.)"""
    page = snap_context.new_page()
    start(page, server["url"] + "/")
    wait_stored(page)
    page.close()  # only the page that is killed is open
    hidden = snap_context.new_page()
    hidden.goto(server["url"] + "/", wait_until="commit")
    hidden.wait_for_function("sessionStorage.getItem('roundkeeper-snapshot-trying:/')", polling="raf")
    hidden.evaluate("""() => {
        Object.defineProperty(document, "visibilityState", {get: () => "hidden", configurable: true});
        document.dispatchEvent(new Event("visibilitychange"));
    }""")
    assert hidden.evaluate("sessionStorage.getItem('roundkeeper-snapshot-trying:/')") is None
    kill_renderers(browser, hidden)
    hidden.close()
    page = snap_context.new_page()
    assert start(page, server["url"] + "/")["state"] == "used"
