"""The creature library on a phone (390 x 844), generic d20: "From the SRD" on the add form finds
the troll from its first letters, two join as a numbered group with their regeneration; a fire hit
stops it at their next turn while the other troll regenerates; the Adult Red Dragon comes with its
breath's recharge, 3 legendary actions, its attacks on the attack panel and its fire immunity; the
attribution its licence asks for is shown; and the library works offline after one visit."""

from __future__ import annotations

import json

import pytest

from pyengine.systems.srd import LIBRARY_FILE
from tests.e2e.conftest import names, open_seeded, stored_fight, wait_controlled
from tests.e2e.test_evening import add, played, row, toast
from tests.e2e.test_turn_tools import chips, close, next_turn


@pytest.fixture
def phone(context):
    return context


def search(page, text: str) -> list[str]:
    """Type in "From the SRD" and wait for the results of exactly that (drawn a moment after typing stops)."""
    page.get_by_test_id("srd-search").fill(text)
    page.wait_for_function(f"(s => s && s.dataset.query === {text!r} && s.dataset.state === 'ready')"
                           "(document.querySelector('[data-testid=srd]'))", timeout=30_000)
    return page.get_by_test_id("srd-result").all_inner_texts()


def pick(page, name: str, count: int = 1, roll_hp: bool = False) -> None:
    page.get_by_test_id("field-count").fill(str(count))
    if roll_hp:
        page.get_by_test_id("srd-roll-hp").check()
    page.locator("[data-testid=srd-result]", has=page.locator("b", has_text=name)).first.click()
    page.wait_for_function("!document.getElementById('sheet').open")


def log_text(page) -> str:
    if page.locator("#log").is_hidden():
        page.get_by_test_id("log-toggle").click()
    page.wait_for_timeout(300)
    return page.locator("#log").inner_text()


def hp_with(page, name: str, text: str) -> str:
    """Damage typed on a combatant's sheet (with its type): what the toast says."""
    row(page, name).click()
    page.get_by_test_id("hp-amount").fill(text)
    page.get_by_test_id("damage").click()
    said = toast(page)
    close(page)
    return said


def test_srd_creatures_join_with_their_tools_attacks_and_defenses(phone, site):
    attribution = json.loads((site["dist"] / LIBRARY_FILE).read_text())["attribution"]
    t = played("generic", add("Aria", "party", max_hp=40, initiative=25, stats={"ac": 16}))
    page = open_seeded(phone, site["url"] + "/?seed=3", stored_fight(t)).page

    page.get_by_test_id("add-combatant").click()
    assert page.get_by_test_id("srd-attribution").inner_text().startswith("Creatures from the SRD 5.1")  # before it loads
    found = search(page, "tro")  # from the first letters: the troll first (its name starts so)
    assert found[0] == "Troll\nCR 5 · HP 84 · AC 15 · Large giant"
    assert page.get_by_test_id("srd-attribution").inner_text() == attribution  # word for word, from the package
    assert page.get_by_test_id("srd-attribution").is_visible()
    pick(page, "Troll", count=2)
    assert names(page) == ["Aria", "Troll 1", "Troll 2"]
    assert row(page, "Troll 1").get_by_test_id("hp").inner_text() == "84/84"
    assert chips(page, "Troll 2") == ["Regeneration 10"]

    page.get_by_test_id("add-combatant").click()
    assert len(search(page, "d")) == 30  # at most 30 results as one types
    assert search(page, "adult red")[0].startswith("Adult Red Dragon\nCR 17 · HP 256 · AC 19")
    pick(page, "Adult Red Dragon")
    assert chips(page, "Adult Red Dragon") == ["Fire Breath ✓", "Legendary Resistance 3/3", "Legendary actions 3/3"]
    assert page.get_by_test_id("encounter-xp").inner_text() == "Opponents: 21,600 XP · party of 1 (21,600 XP each)"

    page.get_by_test_id("next-turn").click()  # the creatures' initiatives are rolled, Aria's typed 25 goes first
    page.wait_for_function("document.querySelector('[data-testid=turn-now] b')?.textContent === 'Aria'")

    # A fire hit on Troll 1 stops its regeneration at its next turn, by itself; Troll 2 takes slashing.
    hp_with(page, "Troll 1", "14 fire")
    hp_with(page, "Troll 2", "10 slashing")
    assert chips(page, "Troll 1") == ["Regeneration 10 off"]
    assert chips(page, "Troll 2") == ["Regeneration 10"]
    # The dragon is immune to fire: nothing gets through, and the log says why.
    hp_with(page, "Adult Red Dragon", "12 fire")
    assert row(page, "Adult Red Dragon").get_by_test_id("hp").inner_text() == "256/256"
    log = log_text(page)
    assert "Troll 1 took 14 fire damage" in log
    assert "Troll 1's Regeneration is off at its next turn (fire damage)" in log
    assert "Troll 2 took 10 slashing damage" in log
    assert "Adult Red Dragon took 0 fire damage (immune: 12 → 0)" in log

    # The trolls' turn (one group): Troll 2 regenerates in one tap, Troll 1 does not (said in the log).
    order = names(page)
    for who in order[order.index("Aria") + 1:]:
        if who.startswith("Troll"):
            next_turn(page, "Troll ×2")
            break
        next_turn(page, who)
    waiting = page.get_by_test_id("tools-now")
    assert waiting.get_by_test_id("tool-acts").count() == 1
    waiting.get_by_test_id("tool-acts").click()
    assert toast(page) == "Troll 2 regains 10 HP (Regeneration)"
    assert row(page, "Troll 2").get_by_test_id("hp").inner_text() == "84/84"
    assert row(page, "Troll 1").get_by_test_id("hp").inner_text() == "70/84"
    assert "Troll 1's Regeneration does not work this turn (acid or fire)" in log_text(page)
    # The dragon's legendary actions on the trolls' turn, each with its cost from the stat block.
    legendary = page.get_by_test_id("legendary-now").filter(has_text="Adult Red Dragon")
    assert legendary.inner_text() == "Adult Red Dragon\nDetect (1)\nTail Attack (1)\nWing Attack (2)\n(3/3 left)"
    legendary.locator("[data-name='Wing Attack']").click()
    assert toast(page) == "Adult Red Dragon uses Wing Attack: 2 legendary actions (1 of 3 left until its next turn)"
    assert "Wing Attack" not in page.get_by_test_id("legendary-now").filter(has_text="Adult Red Dragon").inner_text()

    # The dragon's attacks on the attack panel (against Aria): its Bite with both damage types.
    row(page, "Aria").click()
    page.get_by_test_id("attack-attacker").select_option(label="Adult Red Dragon")
    page.wait_for_function("document.querySelector('[data-testid=attack-with]')")
    options = page.get_by_test_id("attack-with").locator("option").all_inner_texts()
    assert options == ["Bite +14", "Claw +14", "Tail +14"]
    assert "damage 2d10+8 piercing + 2d6 fire" in page.get_by_test_id("attack-explain").inner_text()
    assert page.get_by_test_id("attack-multiattack").inner_text() == "Multiattack: Frightful Presence, Bite, Claw ×2"
    page.get_by_test_id("attack-with").select_option("Tail")
    page.wait_for_function("document.querySelector('[data-testid=attack-explain]').textContent.includes('2d8+8 bludgeoning')")
    page.get_by_test_id("attack-roll").click()
    page.get_by_test_id("attack-result").wait_for()
    rolled = page.get_by_test_id("attack-result").inner_text()
    assert "vs AC 16" in rolled and ("bludgeoning" in rolled) == (page.get_by_test_id("attack-outcome").inner_text() != "miss")
    page.get_by_test_id("attack-apply").click()
    page.wait_for_function("!document.querySelector('[data-testid=attack-apply]')")
    assert "Adult Red Dragon attacks Aria (Tail)" in log_text(page)
    close(page)
    row(page, "Adult Red Dragon").click()
    assert page.get_by_test_id("sheet-immunities").inner_text() == "Immune to fire"
    assert page.get_by_test_id("sheet-cr").inner_text() == "CR 17 · 18,000 XP"
    page.locator("[data-testid=stat-block] summary").click()
    assert "Fire Breath. The dragon exhales fire in a 60-foot cone." in page.get_by_test_id("stat-block").inner_text()
    close(page)


def test_rolled_hit_points_and_a_remembered_creature(phone, site):
    page = open_seeded(phone, site["url"] + "/?seed=8", stored_fight(played("generic"))).page
    page.get_by_test_id("add-combatant").click()
    search(page, "goblin")
    page.get_by_test_id("field-remember").check()
    pick(page, "Goblin", count=4, roll_hp=True)
    assert names(page) == ["Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4"]
    hps = [row(page, f"Goblin {i}").get_by_test_id("hp").inner_text() for i in range(1, 5)]
    assert all(2 <= int(h.split("/")[0]) <= 12 and h.split("/")[0] == h.split("/")[1] for h in hps)  # 2d6 each
    assert "HP rolled:" in log_text(page)
    # Remembered with its attacks: Quick add brings the next goblin with them.
    page.get_by_test_id("add-combatant").click()
    page.locator("[data-testid=quick-add] button", has_text="Goblin").click()
    page.wait_for_function("!document.getElementById('sheet').open")
    assert len(names(page)) == 5
    page.get_by_test_id("combatant-row").last.click()
    assert page.get_by_test_id("sheet-attacks").inner_text() == "Scimitar +4 · 1d6+2 slashing\nShortbow +4 · 1d6+2 piercing"
    close(page)


def test_the_library_works_offline_after_one_visit(phone, site):
    page = open_seeded(phone, site["url"] + "/?seed=2", stored_fight(played("generic"))).page
    wait_controlled(page)  # the service worker has precached every file, the library's included
    phone.set_offline(True)
    try:
        page.reload()
        page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=90_000)
        page.get_by_test_id("add-combatant").click()
        assert search(page, "owlb") == ["Owlbear\nCR 3 · HP 59 · AC 13 · Large monstrosity"]
        pick(page, "Owlbear")
        assert names(page) == ["Owlbear"]
    finally:
        phone.set_offline(False)


DAMAGED = {
    "cut short": lambda good: good[: len(good) // 2],
    "an HTML page": lambda good: "<!doctype html><html><body>Captive portal: log in</body></html>",
    "another format": lambda good: json.dumps({"format": 99, "monsters": [], "conditions": []}),
    "far too large": lambda good: " " * 6_000_000,
}
DAMAGE = """async ([file, body]) => {
    let n = 0;
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const r of await cache.keys()) if (new URL(r.url).pathname.endsWith(file)) { await cache.put(r, new Response(body)); n++ }
    }
    return n;
}"""
CACHED = """async (file) => {
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const r of await cache.keys()) if (new URL(r.url).pathname.endsWith(file)) return (await (await cache.match(r)).text()).length;
    }
    return -1;
}"""


@pytest.mark.parametrize("how", list(DAMAGED))
def test_a_damaged_library_in_cache_storage_is_fetched_again_and_replaced(phone, site, how):
    """Issue 51, item 8: a damaged copy of the library in Cache Storage (cut short, an HTML page, another
    format, a file far too large) gave a clear message, but Retry and reloads read the same copy until the
    next version. Now a damaged copy is fetched again past the caches at once; when that one is damaged
    too (the server's, here), the message says so with Retry, and Retry replaces the cached copy. A file
    too large is refused by its size before it is read."""
    good = (site["scratch"] / LIBRARY_FILE).read_text()
    damaged = DAMAGED[how](good)
    page = phone.new_page()
    page.goto(site["url"] + "/u/")
    wait_controlled(page)
    try:
        (site["scratch"] / LIBRARY_FILE).write_text(damaged)  # the server's copy is damaged too, for now
        assert page.evaluate(DAMAGE, [LIBRARY_FILE, damaged]) == 1
        page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=90_000)
        page.get_by_test_id("add-combatant").click()
        page.get_by_test_id("srd-search").fill("gob")
        status = page.get_by_test_id("srd-status").filter(has_text="damaged" if how != "another format" else "format 99")
        status.wait_for(timeout=30_000)
        if how == "far too large":
            assert "a file of 6.0 MB" in status.inner_text()
        assert page.get_by_test_id("srd-retry").is_visible()
    finally:
        (site["scratch"] / LIBRARY_FILE).write_text(good)
    page.get_by_test_id("srd-retry").click()
    page.wait_for_function("(s => s && s.dataset.query === 'gob' && s.dataset.state === 'ready')(document.querySelector('[data-testid=srd]'))",
                           timeout=30_000)
    assert any(r.startswith("Goblin\n") for r in page.get_by_test_id("srd-result").all_inner_texts())
    assert page.evaluate(CACHED, LIBRARY_FILE) == len(good)  # the damaged copy replaced


def test_a_damaged_cached_library_recovers_by_itself_when_the_server_has_it(phone, site):
    page = phone.new_page()
    page.goto(site["url"] + "/u/")
    wait_controlled(page)
    good = (site["scratch"] / LIBRARY_FILE).read_text()
    assert page.evaluate(DAMAGE, [LIBRARY_FILE, good[:1000]]) == 1
    page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=90_000)
    page.get_by_test_id("add-combatant").click()
    assert any(r.startswith("Goblin\n") for r in search(page, "gob"))  # no message, no Retry: fetched again at once
    assert page.evaluate(CACHED, LIBRARY_FILE) == len(good)
