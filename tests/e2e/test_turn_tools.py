"""Turn tools on a phone (390 x 844): a troll's regeneration and its breath's recharge, a dragon's
legendary actions spent on others' turns, the lair's entry at initiative 20 (losing ties), each
given on the sheet, answered in one tap under "Now: …", and taken back by Undo."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import names, open_seeded, stored_fight
from tests.e2e.test_evening import add, played, row, toast


@pytest.fixture
def phone(context):
    return context


def now_line(page) -> str:
    return page.get_by_test_id("turn-now").inner_text()


def next_turn(page, who: str) -> None:
    page.get_by_test_id("next-turn").click()
    page.wait_for_function(f"document.querySelector('[data-testid=turn-now] b').textContent === {who!r}")


def give_tool(page, kind: str, **typed: str) -> None:
    """The open sheet's form: its kind picked (the fields follow it), then what it needs typed."""
    count = page.get_by_test_id("tool").count()
    page.locator("[data-testid=tool-add] summary").click()
    page.get_by_test_id("tool-kind").select_option(kind)
    page.wait_for_function(f"document.querySelector('[data-testid=tool-kind]').value === {kind!r}")
    for key, value in typed.items():
        field = page.get_by_test_id(f"tool-{key}")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    page.get_by_test_id("tool-add-button").click()
    page.wait_for_function(f"document.querySelectorAll('[data-testid=tool]').length === {count + 1}")


def close(page) -> None:
    page.locator("#sheet [data-action=close-sheet]").first.click()
    page.wait_for_function("!document.getElementById('sheet').open")


def chips(page, name: str) -> list[str]:
    return row(page, name).get_by_test_id("tool-chip").all_inner_texts()


def test_turn_tools_are_given_on_the_sheet_and_answered_in_one_tap_on_their_turn(phone, site):
    t = played("generic", add("Dax", "party", max_hp=30, initiative=20), add("Dragon", max_hp=200, initiative=15),
               add("Troll", max_hp=84, initiative=10), ("damage", {"id": "@Troll", "amount": 24}))
    page = open_seeded(phone, site["url"] + "/?seed=3", stored_fight(t)).page

    # The lair: one tap on the add form, on 20 after Dax's 20 (it loses ties); offered once.
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("add-lair").click()
    page.wait_for_function("!document.getElementById('sheet').open")
    assert names(page) == ["Dax", "Lair", "Dragon", "Troll"]
    assert row(page, "Lair").locator(".init").inner_text() == "20"
    page.get_by_test_id("add-combatant").click()
    assert page.get_by_test_id("add-lair").count() == 0
    close(page)

    row(page, "Troll").click()
    give_tool(page, "regeneration", amount="10")
    give_tool(page, "recharge", name="Fire Breath", low="5")
    items = page.get_by_test_id("tool").all_inner_texts()
    assert "10 HP at the start of its turn" in items[0] and "Recharge 5–6" in items[1] and "ready" in items[1]
    close(page)
    row(page, "Dragon").click()
    give_tool(page, "legendary")  # 3 a round by default (SRD)
    close(page)
    assert chips(page, "Troll") == ["Regeneration 10", "Fire Breath ✓"]
    assert chips(page, "Dragon") == ["Legendary actions 3/3"]

    page.get_by_test_id("next-turn").click()  # every initiative is known: straight to the fight
    page.wait_for_function("document.querySelector('[data-testid=round-counter]').textContent.startsWith('Round 1')")
    # On Dax's turn the dragon's legendary actions wait under "Now:", one tap each; Undo takes one back.
    legendary = page.get_by_test_id("legendary-now")
    assert legendary.get_by_test_id("tool-use").all_inner_texts() == ["Legendary actions: use 1", "use 2", "use 3"]
    assert legendary.inner_text().endswith("(3/3 left)")
    legendary.get_by_test_id("tool-use").first.click()
    assert toast(page) == "Dragon uses 1 legendary action (2 of 3 left until its next turn)"
    page.wait_for_function("document.querySelector('[data-testid=legendary-now]').textContent.includes('2/3')")
    page.get_by_test_id("toast-undo").click()
    page.wait_for_function("document.querySelector('[data-testid=legendary-now]').textContent.includes('3/3')")
    page.get_by_test_id("legendary-now").get_by_test_id("tool-use").filter(has_text="use 2").click()  # a 2-action one, in one tap
    assert toast(page) == "Dragon uses 2 legendary actions (1 of 3 left until its next turn)"
    page.wait_for_function("document.querySelector('[data-testid=legendary-now]').textContent.includes('1/3')")
    assert page.get_by_test_id("legendary-now").get_by_test_id("tool-use").all_inner_texts() == ["Legendary actions: use 1"]

    next_turn(page, "Lair")
    assert "lair action: initiative 20, losing ties" in now_line(page)
    assert page.get_by_test_id("attack-open").count() == 0  # a lair attacks nobody
    next_turn(page, "Dragon")  # its own turn: every legendary action back, none offered on it
    assert chips(page, "Dragon") == ["Legendary actions 3/3"]
    assert page.get_by_test_id("legendary-now").count() == 0

    next_turn(page, "Troll")
    waiting = page.get_by_test_id("tools-now")
    assert waiting.get_by_test_id("tool-acts").inner_text() == "Regeneration: +10 HP"
    assert row(page, "Troll").get_by_test_id("hp").inner_text() == "60/84"
    waiting.get_by_test_id("tool-acts").click()
    assert toast(page) == "Troll regains 10 HP (Regeneration)"
    page.wait_for_function("document.querySelectorAll('[data-testid=tools-now]').length === 0")  # nothing else waits
    assert row(page, "Troll").get_by_test_id("hp").inner_text() == "70/84"

    # The breath used, and regeneration off at the troll's next turn (it took fire): said on the sheet.
    row(page, "Troll").click()
    page.get_by_test_id("tool").nth(1).get_by_test_id("tool-use").click()
    page.wait_for_function("document.querySelectorAll('[data-testid=tool]')[1].textContent.includes('spent')")
    page.get_by_test_id("tool").nth(0).get_by_test_id("tool-set").click()
    page.wait_for_function("document.querySelectorAll('[data-testid=tool]')[0].textContent.includes('off at its next turn')")
    close(page)
    assert chips(page, "Troll") == ["Regeneration 10 off", "Fire Breath ✗"]

    for who in ("Dax", "Lair", "Dragon", "Troll"):
        next_turn(page, who)
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 2")
    # Round 2, the troll's turn: no regeneration (said), the breath's recharge offered with its exact chance.
    waiting = page.get_by_test_id("tools-now")
    assert waiting.get_by_test_id("tool-acts").count() == 0
    recharge = waiting.get_by_test_id("tool-recharge")
    assert recharge.inner_text() == "Roll Fire Breath's recharge (Recharge 5–6: 2 in 6 · 33.3%)"
    assert row(page, "Troll").get_by_test_id("hp").inner_text() == "70/84"
    recharge.click()
    said = toast(page)
    assert said in ("Troll's Fire Breath recharges", "Troll's Fire Breath stays spent (Recharge 5–6)")
    page.get_by_test_id("log-toggle").click()
    page.wait_for_function("document.getElementById('log').textContent.includes('Fire Breath')")  # drawn as it opens
    log = page.locator("#log").inner_text()
    assert "Troll's Regeneration does not work this turn (acid or fire)" in log
    face = int(re.search(r"1d6 \((\d)\) = \1", log).group(1))  # the d6 in the log decides, and the chip follows it
    assert (said == "Troll's Fire Breath recharges") == (face >= 5)
    assert chips(page, "Troll")[1] == ("Fire Breath ✓" if face >= 5 else "Fire Breath ✗")
    page.get_by_test_id("toast-undo").click()  # the roll taken back: the recharge waits again
    page.get_by_test_id("tools-now").get_by_test_id("tool-recharge").wait_for()
    assert chips(page, "Troll")[1] == "Fire Breath ✗"

    # Remembered with its tools: Quick add brings another troll with them, ready (not as the first one stands).
    row(page, "Troll").click()
    page.get_by_test_id("tool-remember").click()
    assert toast(page) == "Troll is in the saved opponents, with its 2 turn tools: Quick add brings it back"
    close(page)
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("quick-add").get_by_role("button", name="Troll").click()
    page.wait_for_function("!document.getElementById('sheet').open")
    assert chips(page, "Troll 2") == ["Regeneration 10", "Fire Breath ✓"]
