"""The durable journal (static/journal.js) when what it holds is damaged or gone (issue 37, items
8-11): an unreadable record is set aside and said, never put in the fight's place nor removing it;
a sequence number that is not a finite whole number never turns the journal off; the database
deleted mid-fight (another tab's "clear site data") is opened again and keeps every later tap; an
older record never overwrites a newer fight; and (item 12) what is typed in an open sheet survives
another tab's update."""

from __future__ import annotations

import json

from tests.e2e.conftest import SITE_PREFIX, open_app, settle, wait_ready
from tests.e2e.test_durable import started_fight

FIGHT_KEY = "JSON.parse(localStorage.getItem('roundkeeper:/:index')).current"

RECORD_JS = """key => new Promise((resolve, reject) => {
    const open = indexedDB.open('roundkeeper-journal');
    open.onsuccess = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains('keys')) { db.close(); resolve(null); return; }
        const get = db.transaction('keys').objectStore('keys').get(key);
        get.onsuccess = () => { const r = get.result; db.close();
            resolve(r === undefined ? null : {seq: String(r.seq), v: typeof r.v === 'string' ? r.v : JSON.stringify(r.v)}); };
        get.onerror = () => reject(get.error);
    };
    open.onerror = () => reject(open.error);
})"""

PUT_JS = """([key, record]) => new Promise((resolve, reject) => {
    const open = indexedDB.open('roundkeeper-journal');
    open.onsuccess = () => {
        const db = open.result;
        const tx = db.transaction('keys', 'readwrite');
        tx.objectStore('keys').put(record === 'INF' ? {v: localStorage.getItem(key), seq: Infinity} : record, key);
        tx.oncomplete = () => { db.close(); resolve(); };
        tx.onerror = () => reject(tx.error);
    };
    open.onerror = () => reject(open.error);
})"""


def fight_key(page) -> str:
    return SITE_PREFIX + "enc:" + page.evaluate(FIGHT_KEY)


def journaled_round(page, key: str) -> int | None:
    """The round of the fight as the journal holds it (its newest record for the fight's key)."""
    page.wait_for_function("RK.journal.pending === 0")
    record = page.evaluate(RECORD_JS, key)
    if record is None:
        return None
    doc = json.loads(record["v"])
    return sum(1 for a in doc["actions"][: doc["cursor"]] if a["kind"] == "next_turn") // 2 + 1


def reload(page) -> None:
    settle(page)
    page.reload()
    wait_ready(page)


def next_turns(page, n: int) -> None:
    for _ in range(n):
        page.get_by_test_id("next-turn").click()
    page.wait_for_function("RK.journal.pending === 0")


def test_an_unreadable_record_is_set_aside_and_said_and_the_fight_stays(context, site):
    page = open_app(context, site["url"] + "/").page
    started_fight(page)
    next_turns(page, 2)
    key = fight_key(page)
    before = page.evaluate("k => localStorage.getItem(k)", key)
    for damaged in ({"v": 12345, "seq": 9e15}, {"v": {}, "seq": 1}):
        page.evaluate(PUT_JS, [key, damaged])
        page.evaluate("localStorage.setItem('roundkeeper:/:journal-seq', '0')")  # as if localStorage lost its mark
        reload(page)
        assert page.evaluate("k => localStorage.getItem(k)", key) == before  # never removed
        assert page.get_by_test_id("round-counter").inner_text().startswith("Round 2")
        notice = page.get_by_test_id("notice").filter(has_text="unreadable").first
        assert "set aside" in notice.inner_text()
        backups = page.evaluate("Object.keys(localStorage).filter(k => k.includes('backup:') && k.includes(':journal:'))")
        assert backups
    next_turns(page, 1)  # and the journal takes the next tap again
    assert journaled_round(page, key) == 2


def test_a_sequence_number_of_infinity_does_not_turn_the_journal_off(context, site):
    page = open_app(context, site["url"] + "/").page
    started_fight(page)
    key = fight_key(page)
    page.evaluate(PUT_JS, [key, "INF"])
    page.evaluate("localStorage.setItem('roundkeeper:/:journal-seq', 'Infinity')")
    reload(page)
    next_turns(page, 4)  # round 3: every one of them in the journal
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 3")
    assert journaled_round(page, key) == 3
    assert page.evaluate(RECORD_JS, key)["seq"] != "Infinity"


def test_the_journal_deleted_mid_fight_is_opened_again_and_keeps_every_later_tap(context, site):
    page = open_app(context, site["url"] + "/").page
    started_fight(page)
    key = fight_key(page)
    other = context.new_page()  # another tab clears the site's IndexedDB, as "clear site data" does
    other.goto(site["url"] + "/rules.html")
    other.evaluate("() => new Promise(r => { const d = indexedDB.deleteDatabase('roundkeeper-journal'); d.onsuccess = d.onerror = d.onblocked = () => r(); })")
    page.wait_for_function("RK.journal.reopened === 1")
    next_turns(page, 2)
    assert journaled_round(page, key) == 2  # the new database holds the fight, with the taps after the deletion
    assert page.get_by_test_id("notice").filter(has_text="safe copy").count() == 0  # nothing to say: nothing was lost


def test_an_older_record_never_overwrites_a_newer_fight(context, site):
    page = open_app(context, site["url"] + "/").page
    started_fight(page)
    next_turns(page, 4)  # round 3
    key = fight_key(page)
    round_three = page.evaluate("k => localStorage.getItem(k)", key)
    next_turns(page, 6)  # round 6
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 6")
    page.evaluate(PUT_JS, [key, {"v": round_three, "seq": 1}])  # the journal's record: round 3, at seq 1
    page.evaluate("localStorage.setItem('roundkeeper:/:journal-seq', '0')")  # localStorage's mark lost: 0
    reload(page)
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 6")


def test_what_is_typed_in_an_open_sheet_survives_another_tabs_update(context, site):
    """Tab B has a combatant's sheet open with an amount typed; tab A passes the turn: B shows the
    new turn and its Damage still deals what was typed (it was cleared: "Type an amount first")."""
    a = open_app(context, site["url"] + "/").page
    started_fight(a)
    b = open_app(context, site["url"] + "/").page
    b.get_by_test_id("combatant-row").filter(has_text="Goblin").click()
    b.get_by_test_id("hp-amount").fill("5")
    b.get_by_test_id("condition-name").fill("Prone")
    before = b.get_by_test_id("round-counter").inner_text()
    for _ in range(2):
        a.get_by_test_id("next-turn").click()
    b.wait_for_function(f"document.querySelector('[data-testid=round-counter]').textContent !== {before!r}")
    b.wait_for_timeout(300)
    assert b.get_by_test_id("hp-amount").input_value() == "5"
    assert b.get_by_test_id("condition-name").input_value() == "Prone"
    b.get_by_test_id("damage").click()
    b.wait_for_function("document.querySelector('[data-testid=sheet-hp]').textContent.startsWith('2/7')")


def test_a_reload_before_the_journal_caught_up_is_not_taken_for_another_tab(context, site):
    """The page reloaded while its last write was still on its way to the journal (a tap, then a
    reload at once, on a busy phone): the journal holds the revision before, written by the tab
    that is gone. The next taps are this tab's own: no merge, no "another tab" notice, none lost."""
    page = open_app(context, site["url"] + "/").page
    started_fight(page)
    next_turns(page, 4)  # round 3
    key = fight_key(page)
    round_three = page.evaluate("k => localStorage.getItem(k)", key)
    next_turns(page, 1)
    rev = json.loads(round_three)["rev"]
    assert json.loads(page.evaluate("k => localStorage.getItem(k)", key))["rev"] == rev + 1
    page.evaluate(PUT_JS, [key, {"v": round_three, "seq": 1, "rev": rev, "tab": "the-page-before"}])
    reload(page)
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 3")
    for _ in range(3):
        page.get_by_test_id("next-turn").click()
    for _ in range(2):
        page.get_by_test_id("undo").click()
    settle(page)
    page.wait_for_function("RK.journal.pending === 0")
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 4")
    assert page.evaluate("RK.journal.conflicts") == 0
    assert page.get_by_test_id("notice").count() == 0
    assert journaled_round(page, key) == 4
