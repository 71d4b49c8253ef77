"""Issue 48: the table's own phones. Each test here runs in WebKit (every iPhone's engine) and in
Firefox, from Debian's packages, on the site built by build.py and served on 127.0.0.1, through one
driver layer (driver.py): a game master's first fight (add, initiative, turns, damage on the sheet,
undo and redo, a reload that keeps everything and shows the start-up preview first), the dice roller's
exact result and odds, hostile input (a bad link, damaged storage), the creature library, the rules
page, and the engine's start with and without a memory snapshot where the engine keeps Cache Storage."""

from __future__ import annotations

import base64
import json
import random
import time
import zlib

import pytest

from pyengine.dice import distribution, roll
from tests.e2e.conftest import SITE_PREFIX, stored_fight
from tests.e2e.engines.driver import EnginePage, open_engine, tid
from tests.e2e.test_never_brick import fight as saved_fight

NEXT_TURN_GUARD_S = 0.45  # (WebKit's page has the everyday guard against a double tap on Next turn: 400 ms)


def add(page: EnginePage, name: str, hp: int | None = None, initiative: int | None = None, side: str = "opponents",
        pc: bool = False, count: int | None = None) -> None:
    page.click(tid("add-combatant"))
    page.wait("document.getElementById('sheet').open", what="the add form")
    page.fill(tid("field-name"), name)
    if hp is not None:
        page.fill(tid("field-max_hp"), str(hp))
    if count is not None:
        page.fill(tid("field-count"), str(count))
    page.select(tid("field-side"), side)
    page.select(tid("field-pc"), "1" if pc else "0")
    if initiative is not None:
        page.fill(tid("field-initiative"), str(initiative))
    page.click(tid("save-combatant"))
    page.wait_closed_sheet()


def names(page: EnginePage) -> list[str]:
    return list(page.js("return [...document.querySelectorAll('#tracker [data-testid=combatant-row] .name')]"
                        ".map(e => e.firstChild.textContent);"))


def active(page: EnginePage) -> list[str]:
    return list(page.js("return [...document.querySelectorAll('[data-testid=combatant-row][aria-current=true] .name')]"
                        ".map(e => e.firstChild.textContent);"))


def next_turn(page: EnginePage, now: list[str]) -> None:
    """Tap Next turn and wait until `now` act."""
    page.click(tid("next-turn"))
    page.wait("JSON.stringify([...document.querySelectorAll('[data-testid=combatant-row][aria-current=true] .name')]"
              ".map(e => e.firstChild.textContent)) === args[0]", 30, json.dumps(now, separators=(",", ":")), what=f"{now} to act")
    time.sleep(NEXT_TURN_GUARD_S)


def hp(page: EnginePage, cid: str) -> str:
    return page.text(f"[data-combatant-id={cid}] [data-testid=hp]")


def notices(page: EnginePage) -> str:
    return " ".join(page.js("return [...document.querySelectorAll('[data-testid=notice]')].map(e => e.textContent);"))


def settled(page: EnginePage) -> None:
    """A closed sheet's history entry is gone (a reload before then is cancelled by its popstate)."""
    page.wait("!(history.state && history.state.rkSheet) || document.getElementById('sheet').open", what="the sheet's history entry")


def test_a_game_masters_first_fight_survives_a_reload(engine: EnginePage, site):
    page = engine
    page.goto(site["url"] + "/?seed=5")
    page.wait_ready()
    add(page, "Aria", hp=30, initiative=18, side="party", pc=True)
    add(page, "Goblin", hp=7, count=2, initiative=12)
    add(page, "Ogre", hp=59, initiative=5)
    page.click(tid("next-turn"))  # starts the fight (every initiative typed)
    page.wait("document.querySelector('[data-testid=round-counter]').textContent.startsWith('Round 1')", what="round 1")
    time.sleep(NEXT_TURN_GUARD_S)
    assert names(page) == ["Aria", "Goblin 1", "Goblin 2", "Ogre"] and active(page) == ["Aria"]
    next_turn(page, ["Goblin 1", "Goblin 2"])
    next_turn(page, ["Ogre"])
    next_turn(page, ["Aria"])
    assert page.text(tid("round-counter")) == "Round 2 · 0:06 in game"
    # Damage on the Ogre's sheet, then undo and redo.
    page.click("[data-combatant-id=c4]")
    page.wait("document.getElementById('sheet').open", what="the Ogre's sheet")
    page.fill(tid("hp-amount"), "20")
    page.click(tid("damage"))
    page.wait("document.querySelector('[data-testid=sheet-hp]').textContent === '39/59'", what="39/59 on the sheet")
    page.click(tid("close-sheet"))
    page.wait_closed_sheet()
    assert hp(page, "c4") == "39/59"
    page.click(tid("undo"))
    page.wait("document.querySelector('[data-combatant-id=c4] [data-testid=hp]').textContent === '59/59'", what="undo")
    page.click(tid("redo"))
    page.wait("document.querySelector('[data-combatant-id=c4] [data-testid=hp]').textContent === '39/59'", what="redo")
    # No "new version" offered on a first visit (WebKit made its first worker the page's controller
    # before the worker's "installed" event: the page took that for an update).
    assert "show" not in page.js("return document.getElementById('banner').className;")
    settled(page)
    page.reload()
    page.wait_ready()
    assert page.js("return document.documentElement.dataset.snapshot;") == "shown"  # the turn order drawn before the engine
    assert names(page) == ["Aria", "Goblin 1", "Goblin 2", "Ogre"] and active(page) == ["Aria"]
    assert page.text(tid("round-counter")).startswith("Round 2") and hp(page, "c4") == "39/59"
    page.click(tid("undo"))  # the undo history survived the reload too
    page.wait("document.querySelector('[data-combatant-id=c4] [data-testid=hp]').textContent === '59/59'", what="undo after a reload")


def test_the_dice_roller_rolls_exactly_and_shows_exact_odds(engine: EnginePage, site):
    page = engine
    page.goto(site["url"] + "/?seed=42")
    page.wait_ready()
    page.fill(tid("dice-input"), "4d6kh3+2")
    page.click(tid("roll-button"))
    expected = roll("4d6kh3+2", random.Random(42))
    page.wait("document.querySelector('[data-testid=roll-result] [data-testid=roll-total]')", what="the roll")
    assert page.text(f"{tid('roll-result')} {tid('roll-total')}") == str(expected.total)
    faces = page.js("return [...document.querySelectorAll('[data-testid=roll-dice] .die')].map(e => e.textContent);")
    assert faces == [str(d.value) for d in expected.dice]
    for expr, at_least in (("2d6", 10), ("4d6kh3", 15), ("1d20+5", 20)):
        odds = distribution(expr)
        page.fill(tid("dice-input"), expr)
        page.wait("document.getElementById('odds-body')?.dataset.expr === args[0] && "
                  "document.querySelector('[data-testid=odds-mean]')?.textContent.includes(args[1])",
                  30, expr, f"{odds.mean:.2f}", what=f"{expr}'s odds")
        page.fill(tid("odds-target"), str(at_least))
        wanted = f"{odds.at_least(at_least) * 100:.2f}%"
        page.wait(f"document.querySelector('[data-testid=odds-at-least]').textContent.includes({json.dumps(wanted)})",
                  what=f"P({expr} >= {at_least}) = {wanted}")


def test_a_bad_link_and_damaged_storage_never_stop_the_start(engine: EnginePage, site):
    page = engine
    payload = base64.urlsafe_b64encode(zlib.compress(("[" * 6000 + "]" * 6000).encode(), 9)).decode().rstrip("=")
    page.goto(site["url"] + "/#fight=" + payload)
    page.wait_ready()
    assert "shared link could not be opened" in notices(page)
    assert page.js("return location.hash;") == ""
    # Damaged and hostile stored data: the fight starts, what cannot be read is set aside and said.
    deep = "[" * 6000 + "]" * 6000
    items = stored_fight(saved_fight())
    items.update({"rolls": deep, "saved_rolls": json.dumps([1, {"name": "<img src=x onerror=alert(1)>", "expr": "1d20"}]),
                  "roster": deep, "templates": "{"})
    page.js("for (const [k, v] of Object.entries(args[0])) localStorage.setItem(k, v);", {SITE_PREFIX + k: v for k, v in items.items()})
    page.reload()
    page.wait_ready()
    assert sorted(names(page)) == ["Aria", "Goblin"]
    assert "roll history could not be read" in notices(page) and "set aside" in notices(page)
    assert page.text(tid("saved-roll")) == "<img src=x onerror=alert(1)>: 1d20"  # as text
    assert page.count("img[src=x]") == 0
    page.reload()
    page.wait_ready()  # and starts again


def test_the_creature_library_finds_and_adds_a_troll(engine: EnginePage, site):
    page = engine
    page.goto(site["url"] + "/")
    page.wait_ready()
    page.click(tid("add-combatant"))
    page.fill(tid("srd-search"), "tro")
    page.wait("(s => s && s.dataset.query === 'tro' && s.dataset.state === 'ready')(document.querySelector('[data-testid=srd]'))",
              60, what="the library's results")
    first = " ".join(page.text(tid("srd-result")).split())
    assert first.startswith("Troll CR 5 · HP 84 · AC 15 · Large giant"), first
    page.click(tid("srd-result"))
    page.wait_closed_sheet()
    assert names(page) == ["Troll"] and hp(page, "c1") == "84/84"


def test_the_rules_page(engine: EnginePage, site):
    page = engine
    page.goto(site["url"] + "/rules.html")
    page.wait("document.readyState === 'complete' && document.querySelector('h1')", what="the rules page")
    text = page.text("body")
    for part in ("Enchanted Realms", "Realm of Strife", "Laurels and Loot", "Side initiative"):
        assert part in text, part


def test_the_engine_starts_with_a_snapshot_where_the_browser_keeps_one_and_without(engine: EnginePage, site, display):
    """Firefox keeps Cache Storage: the next start is from the memory snapshot. WebKitGTK's automation
    session keeps none across navigations: there every start is a normal one, the fight intact."""
    if engine.engine == "firefox":
        engine.close()  # (a page of its own whose snapshot is made at once after the start)
        page = open_engine("firefox", init_scripts=("window.__rkNextTurnGuardMs = 0; window.__rkSnapshot = 'now';",))
    else:
        page = engine
    try:
        page.goto(site["url"] + "/sub/")
        page.wait_ready()
        add(page, "Ogre", hp=30, initiative=12)
        add(page, "Aria", hp=20, initiative=15, side="party", pc=True)
        if page.engine == "firefox":
            page.wait("['stored', 'failed'].includes(RK.snapshot.state)", 120, what="the snapshot to be stored")
        made = page.js("return {...RK.snapshot};")
        settled(page)
        page.reload()
        page.wait_ready()
        again = page.js("return {...RK.snapshot};")
        assert names(page) == ["Aria", "Ogre"]
        if page.engine == "firefox":
            assert made["state"] == "stored", made
            assert again["state"] == "used", again
            page.js("return caches.delete('roundkeeper-snapshot:/sub/');")
            page.reload()
            page.wait_ready()
            assert page.js("return RK.snapshot.state;") in ("none", "making", "stored") and names(page) == ["Aria", "Ogre"]
        else:
            assert again["state"] in ("none", "making", "stored", "failed"), again
    finally:
        if page is not engine:
            page.close()


@pytest.fixture(autouse=True)
def _engine_version(request, engine):
    """The engine's version, in the test's report (README's table says which were tested)."""
    request.node.user_properties.append(("engine", f"{engine.engine} {getattr(engine, 'version', '')}"))
