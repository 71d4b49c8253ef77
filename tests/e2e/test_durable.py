"""A tap the screen answered survives a killed browser. The phone's OS kills a browser in the
background without warning; Chromium writes localStorage to disk lazily, so without the journal
(static/journal.js: IndexedDB, strict transactions) the last taps were lost. Here the whole
browser process (and its children) gets SIGKILL 0.5 s after the last tap and is started again on
the same profile."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

import build
from tests.e2e.conftest import add_combatant, names, playwright_api, wait_ready


class Browser:
    """Chromium started by us (so that we can kill its whole process group), on a profile kept on
    disk, driven over CDP."""

    def __init__(self, pw, profile: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        executable = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
        self.proc = subprocess.Popen(
            [executable, "--headless=new", f"--user-data-dir={profile}", f"--remote-debugging-port={port}",
             *build.CHROMIUM_FLAGS, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        for _ in range(100):
            try:
                self.browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
                break
            except Exception:  # noqa: BLE001 (not listening yet)
                time.sleep(0.1)
        else:
            raise RuntimeError("Chromium did not start")
        context = self.browser.contexts[0]
        context.add_init_script("window.__rkNextTurnGuardMs = 0")
        self.page = context.new_page()
        self.page.set_viewport_size({"width": 390, "height": 844})

    def kill(self) -> None:
        """SIGKILL to the browser and every process it started: no unload, no flush."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


def open_page(browser: Browser, url: str):
    browser.page.goto(url)
    wait_ready(browser.page)
    return browser.page


def started_fight(page) -> None:
    """Aldric and a Goblin, the fight started (the initiative step rolled for, when it opens)."""
    add_combatant(page, "Aldric", 30)
    add_combatant(page, "Goblin", 7)
    page.get_by_test_id("start-combat").click()
    if page.get_by_test_id("init-done").count():
        page.get_by_test_id("init-done").click()
    page.wait_for_function("document.querySelector('[data-testid=turn-now]') !== null")


def round_and_turn(page) -> tuple[str, str]:
    label = page.get_by_test_id("round-counter").inner_text()
    now = page.eval_on_selector("[data-testid=combatant-row][aria-current=true] .name", "e => e.firstChild.textContent")
    return label.split("·")[0].strip(), now


@pytest.mark.parametrize("run", range(2))
def test_every_answered_tap_survives_the_browser_killed_half_a_second_later(site, tmp_path, run):
    url = site["url"] + "/"
    with playwright_api.sync_playwright() as pw:
        browsers: list[Browser] = []
        try:
            _taps_then_kill(pw, url, tmp_path, run, browsers)
        finally:
            for b in browsers:
                b.kill()  # also when the test failed: no browser left running


def _taps_then_kill(pw, url: str, tmp_path: Path, run: int, browsers: list) -> None:
    """20 Next turns (and, in the first run, a saved roll, a rename, a character), the browser killed
    0.5 s after the last one answered on screen, then started again on the same profile."""
    first = Browser(pw, tmp_path / "profile")
    browsers.append(first)
    page = open_page(first, url)
    started_fight(page)
    page.wait_for_timeout(6000)  # what came before the taps has reached the disk by any route
    for _ in range(20):
        before = page.get_by_test_id("round-counter").inner_text() + "|" + round_and_turn(page)[1]
        page.get_by_test_id("next-turn").click()
        page.wait_for_function(
            "before => document.querySelector('[data-testid=round-counter]').textContent + '|' + "
            "document.querySelector('[data-testid=combatant-row][aria-current=true] .name').firstChild.textContent !== before",
            arg=before)
    if run == 0:
        # Also what is not the fight: a saved roll, a character, a rename.
        page.get_by_test_id("dice-input").fill("1d8+3")
        page.get_by_test_id("save-name").fill("Longsword")
        page.get_by_test_id("save-roll").click()
        page.get_by_test_id("saved-roll").wait_for()
        page.once("dialog", lambda d: d.accept("Bridge ambush"))
        page.get_by_test_id("encounter-name").click()
        page.get_by_test_id("rename-encounter").click()
        page.get_by_test_id("sheet-close").click()
        page.get_by_test_id("my-characters").click()
        page.get_by_test_id("new-character").click()
        page.get_by_test_id("k-name").fill("Cyra")
        page.get_by_test_id("k-max_hp").fill("24")
        page.get_by_test_id("save-character").click()
        page.get_by_test_id("character-name").wait_for()
        page.get_by_test_id("sheet-close").click()
    shown = round_and_turn(page)
    assert shown[0] == "Round 11"
    time.sleep(0.5)
    first.kill()

    again = Browser(pw, tmp_path / "profile")
    browsers.append(again)
    page = open_page(again, url)
    assert round_and_turn(page) == shown
    assert sorted(names(page)) == ["Aldric", "Goblin"]
    if run == 0:
        assert page.get_by_test_id("saved-roll").inner_text() == "Longsword: 1d8+3"
        assert page.get_by_test_id("encounter-name").inner_text() == "Bridge ambush"
        page.get_by_test_id("my-characters").click()
        assert "Cyra" in page.get_by_test_id("sheet").inner_text()
    again.kill()


IDB_VALUE = """key => new Promise((resolve, reject) => {
  const req = indexedDB.open('roundkeeper-journal', 1)
  req.onsuccess = () => {
    const get = req.result.transaction('keys').objectStore('keys').get(key)
    get.onsuccess = () => { resolve(get.result ? get.result.v : null); req.result.close() }
    get.onerror = () => reject(get.error)
  }
  req.onerror = () => reject(req.error)
})"""


def test_earlier_saves_move_into_the_journal_and_a_refusal_is_said_once(context, site):
    """A fight saved before the journal existed is copied in at the first start (the migration);
    then every change goes there too; a refused journal write is said once, like a full storage."""
    from pyengine.tracker import Timeline, new_encounter
    from tests.e2e.conftest import SITE_PREFIX, stored_fight

    t = Timeline.start(new_encounter("old1", "Saved before"))
    context.route("**/favicon.ico", lambda route: route.fulfill(status=204))  # (asked for by a page without icons)
    page = context.new_page()
    page.goto(site["url"] + "/manifest.webmanifest")  # the origin, without the app: storage as an older version left it
    page.evaluate("items => { for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v) }",
                  {SITE_PREFIX + k: v for k, v in stored_fight(t).items()})
    page.goto(site["url"] + "/")
    wait_ready(page)
    assert page.get_by_test_id("encounter-name").inner_text() == "Saved before"
    assert page.evaluate("RK.journal.ok && RK.journal.migrated") >= 2
    key = SITE_PREFIX + "enc:old1"
    assert page.evaluate(IDB_VALUE, key) is not None
    add_combatant(page, "Aldric", 30)
    page.wait_for_function("RK.journal.pending === 0")
    assert page.evaluate(IDB_VALUE, key) == page.evaluate("k => localStorage.getItem(k)", key)
    assert "Aldric" in page.evaluate(IDB_VALUE, key)
    page.evaluate("RK.journal.onError('QuotaExceededError'); RK.journal.onError('QuotaExceededError')")
    notice = page.get_by_test_id("notice").filter(has_text="storage is full")
    assert notice.count() == 1 and "may lose the last ones" in notice.inner_text()


# A tap at a given moment of the clock both tabs share: the two land within a millisecond or so.
TAP_AT = "([id, at]) => setTimeout(() => document.querySelector(`[data-testid=${id}]`).click(), at - Date.now())"


def same_moment(a, b, tap_a: str, tap_b: str) -> None:
    at = a.evaluate("Date.now()") + 250
    a.evaluate(TAP_AT, [tap_a, at])
    b.evaluate(TAP_AT, [tap_b, at])
    a.wait_for_timeout(400)
STATE = ("() => document.querySelector('[data-testid=round-counter]').textContent.split('·')[0].trim() + ' | ' + "
         "document.querySelector('[data-testid=combatant-row][aria-current=true] .name').firstChild.textContent")


def two_tabs_on_a_started_fight(context, site) -> tuple:
    """Tab A starts a fight, tab B opens on it; both show round 1's first turn (returned as STATE)."""
    from tests.e2e.conftest import open_app

    a = open_app(context, site["url"] + "/").page
    started_fight(a)
    b = open_app(context, site["url"] + "/").page
    b.wait_for_function("document.querySelector('[data-testid=turn-now]') !== null")
    first = a.evaluate(STATE)
    assert first.startswith("Round 1 | ") and b.evaluate(STATE) == first, (first, b.evaluate(STATE))
    return a, b, first


def every_turn_once(a, b, first: str, round_: int, turns: int) -> None:
    """Both tabs at `round_`, where the first round's first combatant has the turn again (not a tap
    lost, not one done twice); the journal has answered every write of both; localStorage's copy of
    the fight is the journal's record, with `turns` Next turns in it."""
    from tests.e2e.conftest import SITE_PREFIX

    def shown() -> list[tuple[str, list[str]]]:
        return [(page.evaluate(STATE), page.get_by_test_id("notice").all_inner_texts()) for page in (a, b)]

    for page in (a, b):
        try:
            page.wait_for_function("r => document.querySelector('[data-testid=round-counter]').textContent.startsWith(`Round ${r}`)",
                                   arg=round_, timeout=20_000)
        except playwright_api.TimeoutError:
            raise AssertionError(f"a tap lost or done twice: {shown()}") from None
    key = SITE_PREFIX + "enc:" + a.evaluate(f"JSON.parse(localStorage.getItem('{SITE_PREFIX}index')).current")
    for page in (a, b):
        page.wait_for_function("k => RK.journal.pending === 0 && !RK.journal.busy(k)", arg=key)
    a.wait_for_timeout(1000)
    assert a.evaluate(STATE) == b.evaluate(STATE) == f"Round {round_} | " + first.split(" | ")[1], shown()
    assert a.evaluate("k => localStorage.getItem(k)", key) == a.evaluate(IDB_VALUE, key)
    assert sum(x["kind"] == "next_turn" for x in json.loads(a.evaluate(IDB_VALUE, key))["actions"]) == turns


def test_two_tabs_tapping_at_the_same_moment_lose_no_tap(context, site):
    """Twenty times, Next turn in one tab and in the other within a few milliseconds (neither has
    seen the other's yet): the journal's transaction decides which came first, the other does its
    tap again on that version and says so. Then an Undo against a Next turn."""
    a, b, first = two_tabs_on_a_started_fight(context, site)
    for _ in range(20):
        same_moment(a, b, "next-turn", "next-turn")
    # 40 Next turns between two combatants: round 21, on both tabs and in both stores.
    every_turn_once(a, b, first, 21, 40)
    said = a.get_by_test_id("notice").all_inner_texts() + b.get_by_test_id("notice").all_inner_texts()
    assert any("Merged with a change made in another tab" in text for text in said), said

    # Undo here, Next turn there, at the same moment: either both are kept (the Undo came first) or
    # the Undo is refused and said; never silently lost.
    before = a.evaluate(STATE)
    same_moment(a, b, "undo", "next-turn")
    a.wait_for_timeout(2000)
    assert a.evaluate(STATE) == b.evaluate(STATE)
    said = " ".join(a.get_by_test_id("notice").all_inner_texts())
    assert a.evaluate(STATE) == before or "Undo here was not applied" in said, (before, a.evaluate(STATE), said)


# Every IndexedDB transaction's answer comes up to 400 ms late (the same draw in every run): a slow
# disk's strict commit. Another tab's writes then reach a tab while its own is not answered.
LATE_JOURNAL = """(() => {
  let n = 12345;
  const late = () => { n = (n * 1103515245 + 12345) % 2147483648; return n % 400; };
  const d = Object.getOwnPropertyDescriptor(IDBTransaction.prototype, 'oncomplete');
  Object.defineProperty(IDBTransaction.prototype, 'oncomplete', {configurable: true, get() { return d.get.call(this); },
    set(fn) { d.set.call(this, fn && (e => setTimeout(() => fn(e), late()))); }});
})()"""


def test_two_tabs_whose_journal_answers_late_lose_no_tap(context, site):
    """The same race with the journal answering late: each tab hears the other's writes while its
    own is on its way, takes none in until answered, and every tap is there once, in both tabs and
    in both stores."""
    context.add_init_script(LATE_JOURNAL)
    a, b, first = two_tabs_on_a_started_fight(context, site)
    for _ in range(10):
        # Here twice, 80 ms apart; there once, at the first: three turns.
        at = a.evaluate("Date.now()") + 250
        a.evaluate(TAP_AT, ["next-turn", at])
        a.evaluate(TAP_AT, ["next-turn", at + 80])
        b.evaluate(TAP_AT, ["next-turn", at])
        a.wait_for_timeout(600)
    every_turn_once(a, b, first, 16, 30)
    assert a.evaluate("RK.journal.conflicts") + b.evaluate("RK.journal.conflicts") > 0
