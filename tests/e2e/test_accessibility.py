"""Accessibility: axe-core (pinned, npm, used only here) over the app's main states in both themes,
failing on any serious or critical violation; and the keyboard reaches a combatant's sheet."""

from __future__ import annotations

import json
import random
from pathlib import Path

from pyengine.handoff import view_payload
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.e2e.conftest import open_app, open_seeded, seed, settle, stored_fight, wait_ready

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

FIGHTERS = {
    "generic": [("Aria", "party", {}), ("Goblin", "opponents", {})],
    "realms": [("Kael", "party", {"skills": "melee fighting, slashing", "str": 2}), ("Ogre", "opponents", {"ac": 12})],
    "strife": [("Mira", "party", {}), ("Bandit", "opponents", {})],
    "laurels": [("Lucia", "party", {}), ("Brigand", "opponents", {})],
}


CHARACTER = {"v": 1, "id": "k1", "name": "Kael", "system": "realms", "max_hp": 20,
             "stats": {"str": 2}, "attacks": [{"name": "Longsword", "stats": {"skills": "melee fighting, slashing"}, "config": {}}]}


def fight(system: str, started: bool = True) -> Timeline:
    t = Timeline.start(new_encounter("e1", f"{system.title()} test", system=system))
    for i, (name, side, stats) in enumerate(FIGHTERS[system]):
        fields = {"name": name, "max_hp": 12, "side": side, "pc": side == "party", "initiative": 10 - i}
        if stats:
            fields["stats"] = stats
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}))
    if started:
        t = t.do(resolve(t.present, "start_combat", {}, random.Random(1)))
    return t


def violations(page) -> list[str]:
    if not page.evaluate("typeof axe !== 'undefined'"):
        # Served from the site's own origin (the test server), so the page's security policy lets it run.
        assert AXE.exists(), "npm ci installs axe-core (a devDependency)"
        page.add_script_tag(url="/__tools__/axe.min.js")
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return result.violations.filter(v => ['serious', 'critical'].includes(v.impact))
            .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' ' + (n.failureSummary || '')
                .split('\\n').slice(1, 2).join('')).join(' | '));
    }""")
    return found


def close_sheet(page) -> None:
    page.keyboard.press("Escape")
    page.wait_for_function("!document.getElementById('sheet').open")
    settle(page)  # its history entry is gone before the next reload or goto


def states(page):
    """Each yields after putting the page in one state (16 in all)."""
    yield "empty"
    seed(page, stored_fight(fight("generic", started=False)))
    yield "generic, not started"
    t = fight("generic")
    t = t.do(resolve(t.present, "add_condition", {"id": "c2", "name": "Prone", "until": "end", "rounds": 1}))
    t = t.do(resolve(t.present, "damage", {"id": "c1", "amount": 12}))
    for who, tool in (("c1", {"kind": "regeneration", "amount": "1d4"}), ("c1", {"kind": "recharge", "name": "Breath"}),
                      ("c2", {"kind": "legendary", "most": 3}), ("c1", {"kind": "uses", "name": "Misty Step", "most": 2})):
        t = t.do(resolve(t.present, "add_tool", {"id": who, "tool": tool}))
    t = t.do(resolve(t.present, "use_tool", {"id": "c1", "tool": "t5"}))  # the turn tools waiting under "Now:", legendary on Aria's turn
    seed(page, stored_fight(t))
    page.get_by_test_id("legendary-now").wait_for()
    yield "generic, started, one down, turn tools waiting"
    page.get_by_test_id("combatant-row").first.click()
    page.locator("[data-testid=tool-add] summary").click()  # the turn tool form open too
    page.get_by_test_id("tool-kind").wait_for()
    yield "generic combatant sheet"
    close_sheet(page)
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("srd-search").fill("dra")  # the creature library's results and attribution
    page.wait_for_function("document.querySelector('[data-testid=srd]').dataset.state === 'ready'"
                           " && document.querySelectorAll('[data-testid=srd-result]').length > 1")
    yield "add sheet"
    page.get_by_test_id("srd-search").fill("troll")
    page.wait_for_function("document.querySelector('[data-testid=srd]').dataset.query === 'troll'")
    page.locator("[data-testid=srd-result]", has=page.locator("b", has_text="Troll")).click()
    page.wait_for_function("!document.getElementById('sheet').open")
    page.get_by_test_id("combatant-row").last.click()
    page.locator("[data-testid=stat-block] summary").click()
    page.get_by_test_id("condition-rules").click()
    page.get_by_test_id("condition-rule").first.wait_for()
    yield "an SRD creature's sheet, its stat block and the conditions' rules open"
    close_sheet(page)
    page.get_by_test_id("encounter-name").click()
    yield "menu"
    close_sheet(page)
    page.get_by_test_id("log-toggle").click()
    page.wait_for_function("document.getElementById('log').children.length > 0")
    yield "log open"
    page.get_by_test_id("dice-input").fill("4d6ra6kh3")
    page.get_by_test_id("roll-button").click()
    page.wait_for_function("document.querySelector('[data-testid=odds-estimated]')")
    yield "roller with a roll and an estimate"
    for system in ("realms", "strife", "laurels"):
        seed(page, stored_fight(fight(system)))
        page.get_by_test_id("combatant-row").last.click()
        yield f"{system} sheet"
        close_sheet(page)
    page.evaluate(f"localStorage.setItem('roundkeeper:/:characters', {json.dumps(json.dumps([CHARACTER]))})")
    page.reload()
    wait_ready(page)
    page.get_by_test_id("my-characters").click()
    yield "my characters"
    page.get_by_test_id("character-attack").first.click()
    page.get_by_test_id("practice").wait_for()
    yield "a character's attack"
    close_sheet(page)
    page.goto(page.url.split("#")[0].split("?")[0] + "#view=" + view_payload(fight("generic").present))
    wait_ready(page)
    page.get_by_test_id("view-title").wait_for()
    yield "the players' view"
    close_sheet(page)
    page.evaluate("localStorage.setItem('roundkeeper:/:rolls', '[1, 2]')")
    page.reload()
    wait_ready(page)
    yield "notices"


def test_a_combatant_row_opens_its_sheet_from_the_keyboard(context, site):
    page = open_seeded(context, site["url"] + "/", stored_fight(fight("generic"))).page
    for key in ("Enter", " "):
        page.get_by_test_id("combatant-row").first.focus()
        page.keyboard.press(key)
        page.wait_for_function("document.getElementById('sheet').open")
        assert page.get_by_test_id("sheet").inner_text().count("Aria") >= 1 or "Goblin" in page.get_by_test_id("sheet").inner_text()
        close_sheet(page)


MEASURE = """() => {
    const visible = e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
        return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && !e.closest('[inert]'); };
    const targets = [...document.querySelectorAll(
        'button, a[href], select, summary, label.check, input:not([type=checkbox]):not([type=file]):not(.sr), [data-action]:not(input):not(label)')]
        .filter(visible).filter(e => !e.closest('label.check') || e.matches('label.check'));
    const small = targets.map(e => [e, e.getBoundingClientRect()]).filter(([e, r]) => r.width < 44 || r.height < 44)
        .map(([e, r]) => `${e.tagName.toLowerCase()}[${e.dataset.testid || e.id || e.className}] "${e.textContent.trim().slice(0, 20)}" ${Math.round(r.width)}x${Math.round(r.height)}`);
    const tiny = [...document.querySelectorAll('input:not([type=checkbox]):not([type=file]), select, textarea')].filter(visible)
        .filter(e => parseFloat(getComputedStyle(e).fontSize) < 16)
        .map(e => `${e.dataset.testid || e.id} ${getComputedStyle(e).fontSize}`);
    return {count: targets.length, small, tiny};
}"""


def test_every_state_in_both_themes_has_no_serious_violation_and_44_px_targets_16_px_text(context, site):
    """One walk through the 16 states: axe in the dark and the light theme, then the sizes."""
    page = open_app(context, site["url"] + "/?seed=1").page
    page.on("crash", lambda: print("renderer crashed after", list(seen)))
    seen: dict[str, list] = {}
    found = {}
    measured = 0
    for state in states(page):
        for theme in ("dark", "light"):
            page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
            seen[f"{state} ({theme})"] = violations(page)
        result = page.evaluate(MEASURE)
        measured += result["count"]
        if result["small"] or result["tiny"]:
            found[state] = result["small"] + result["tiny"]
    assert len(seen) == 32
    bad = {k: v for k, v in seen.items() if v}
    assert bad == {}, "\n".join(f"{k}: {v}" for k, v in bad.items())
    assert measured > 200
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())
