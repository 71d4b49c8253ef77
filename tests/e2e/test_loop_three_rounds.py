"""The table loop, played as a table plays it, at 390×844: a three-round fight in each system through
the screens a table uses (the initiative step, a sheet, an attack with its odds, several at once),
measuring on every screen that each tap target is at least 44×44 px and each input's text 16 px."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import add_combatant, open_app
from tests.e2e.test_accessibility import MEASURE


class Table:
    def __init__(self, page) -> None:
        self.page = page
        self.found: dict[str, list[str]] = {}
        self.measured = 0

    def look(self, screen: str) -> None:
        result = self.page.evaluate(MEASURE)
        self.measured += result["count"]
        if result["small"] or result["tiny"]:
            self.found[screen] = result["small"] + result["tiny"]

    def tap(self, testid: str) -> None:
        self.page.get_by_test_id(testid).first.click()

    def row(self, cid: str) -> None:
        self.page.locator(f"#tracker [data-combatant-id={cid}]").click()

    def close(self) -> None:
        self.tap("sheet-close")
        self.page.wait_for_function("!document.getElementById('sheet').open")

    def round(self) -> int:
        label = self.page.locator("#round-label").inner_text()
        return int(label.split()[1]) if label.startswith("Round") else 0

    def until_round(self, n: int, testid: str = "next-turn") -> None:
        for _ in range(40):
            if self.round() >= n:
                return
            self.tap(testid)
        raise AssertionError(f"never reached round {n}")


def new_fight(page, system: str) -> None:
    page.get_by_test_id("encounter-name").click()
    page.get_by_test_id("new-system").select_option(system)
    page.get_by_test_id("new-encounter").click()


def fill_stats(page, stats: dict) -> None:
    for key, value in stats.items():
        box = page.get_by_test_id(f"field-stat-{key}")
        box.check() if value is True else box.fill(str(value))


def add_fighter(page, name: str, side: str, hp: int, stats: dict, pc: bool = False, init: str | None = None,
                initiative: int | None = None) -> None:
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("field-name").fill(name)
    page.get_by_test_id("field-side").select_option(side)
    page.get_by_test_id("field-pc").select_option("1" if pc else "0")
    page.get_by_test_id("field-max_hp").fill(str(hp))
    if init is not None:
        page.get_by_test_id("field-init_mod").fill(init)
    if initiative is not None:
        page.get_by_test_id("field-initiative").fill(str(initiative))
    fill_stats(page, stats)
    page.get_by_test_id("save-combatant").click()
    page.wait_for_function("!document.getElementById('sheet').open")


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_three_rounds_of_a_generic_fight(context, site, theme):
    page = open_app(context, site["url"] + "/?seed=21").page
    page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
    table = Table(page)
    table.look("empty")
    add_combatant(page, "Aria", hp=24, side="party", pc=True, init_mod=3)
    add_combatant(page, "Borin", hp=30, side="party", pc=True, init_mod=1)
    add_combatant(page, "Goblin", hp=7, count=3, init_mod=2)
    table.tap("next-turn")
    page.get_by_test_id("init-entry").wait_for()
    table.look("initiative step")
    page.get_by_test_id("init-input").nth(0).fill("18")
    page.get_by_test_id("init-input").nth(0).press("Enter")
    page.get_by_test_id("init-input").nth(1).fill("6")
    page.get_by_test_id("init-input").nth(1).press("Enter")
    page.get_by_test_id("turn-now").wait_for()
    assert table.round() == 1
    table.look("round 1")
    table.row("c3")
    table.look("goblin's sheet")
    page.get_by_test_id("hp-amount").fill("5")
    table.tap("damage")
    table.close()
    table.until_round(2)
    table.tap("select-mode")
    for cid in ("c3", "c4", "c5"):
        table.row(cid)
    table.look("selecting")
    table.tap("apply-selected")
    page.get_by_test_id("batch-amount").fill("8")
    page.locator("#half-c4").check()
    table.look("several at once")
    table.tap("batch-damage")
    page.wait_for_function("!document.getElementById('sheet').open")
    table.until_round(3)
    table.tap("add-combatant")
    table.look("add form")
    table.close()
    table.tap("encounter-name")
    table.look("menu")
    table.close()
    table.until_round(4)
    assert table.measured > 150
    assert table.found == {}, "\n".join(f"{k}: {v}" for k, v in table.found.items())


def test_three_rounds_in_each_system(context, site):
    page = open_app(context, site["url"] + "/?seed=22").page
    table = Table(page)
    # Enchanted Realms: the attack panel from "Attack…", the stances and checks on a sheet.
    new_fight(page, "realms")
    add_fighter(page, "Aldric", "party", 20, {"ac": 14, "skills": "melee fighting, slashing"}, pc=True, initiative=9)
    add_fighter(page, "Ghoul", "opponents", 14, {"ac": 12, "skills": "melee fighting"}, initiative=4)
    add_fighter(page, "Bat", "opponents", 3, {"ac": 10, "skills": "melee fighting"}, initiative=2)
    table.tap("next-turn")
    page.get_by_test_id("turn-now").wait_for()
    table.tap("attack-open")  # whose turn it is (Aldric) against the first foe standing
    assert page.get_by_test_id("sheet-title").inner_text() == "Ghoul"
    page.get_by_test_id("attack-target").select_option(label="Bat")  # another target, the same attack
    page.get_by_test_id("sheet-title").filter(has_text="Bat").wait_for()
    assert page.locator("#atk-attacker option:checked").inner_text() == "Aldric"
    page.get_by_test_id("attack-roll").wait_for()
    table.look("realms attack")
    table.tap("attack-roll")
    table.tap("attack-apply")
    table.look("realms attack applied")
    table.close()
    table.until_round(4)
    # Realm of Strife: the turn checklist, an attack, the Action ends the turn.
    new_fight(page, "strife")
    add_fighter(page, "Kayden", "party", 30, {"ac": 35, "hit": 5, "weapon": "1d8+2"}, pc=True, init="60")
    add_fighter(page, "Orc", "opponents", 25, {"ac": 40, "weapon": "1d10"}, init="50")
    table.tap("next-turn")
    page.get_by_test_id("turn-panel").wait_for()
    table.look("strife turn checklist")
    table.tap("attack-open")
    page.get_by_test_id("attack-roll").wait_for()
    table.look("strife attack")
    table.tap("attack-roll")
    table.tap("attack-apply")
    table.close()
    table.until_round(4)
    # Laurels and Loot: side initiative, Act to pick who goes, the attack on the target's sheet, Done.
    new_fight(page, "laurels")
    add_fighter(page, "Tombril", "party", 40, {"level": 5, "str": 4, "armour": 2, "injury_max": 20}, pc=True)
    add_fighter(page, "Wren", "party", 18, {"level": 1, "awa": 3, "injury_max": 10}, pc=True)
    add_fighter(page, "Giant", "opponents", 60, {"level": 8, "str": 6, "injury_max": 30})
    table.tap("next-turn")
    page.get_by_test_id("side-banner").wait_for()
    table.look("laurels sides")
    table.row("c3")
    page.get_by_test_id("attack-roll").wait_for()
    table.look("laurels attack")
    table.close()
    table.until_round(4)
    assert table.measured > 100
    assert table.found == {}, "\n".join(f"{k}: {v}" for k, v in table.found.items())
