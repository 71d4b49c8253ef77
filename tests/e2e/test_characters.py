"""My characters (a player's phone): a character in each system, an attack with its exact odds and a
roll whose dice match ?seed, the character handed to the game master's fight by its link."""

from __future__ import annotations

import json
import random

import pytest

from pyengine.characters import ME_ID, TARGET_ID, character_from_dict, practice_encounter
from pyengine.tracker import resolve
from tests.e2e.conftest import SITE_PREFIX, names, open_app, open_seeded, wait_ready
from tests.e2e.test_handoff import decode

# system -> (the character's own stats, its attack's weapon, what the GM says about the target)
SHEETS = {
    "generic": ({}, {"to_hit": "5", "damage": "1d8+3"}, {"ac": "13"}),
    "realms": ({"str": "2"}, {"skills": "melee fighting, slashing", "damage_type": "edged"}, {"ac": "13"}),
    "laurels": ({"level": "3", "str": "2", "dex": "1"}, {"die": "8", "magic": "1"}, {"armour": "2", "dex": "1"}),
    "strife": ({"ac": "40"}, {"hit": "15", "weapon": "1d8+2"}, {"ac": "45", "dodge": "5"}),
}
KIND = {"generic": "d20_attack", "realms": "er_attack", "laurels": "ll_attack", "strife": "ros_attack"}


def make_character(page, system: str, name: str) -> None:
    own, weapon, _ = SHEETS[system]
    page.get_by_test_id("my-characters").click()
    page.get_by_test_id("new-character-system").select_option(system)
    page.get_by_test_id("new-character").click()
    page.get_by_test_id("k-name").fill(name)
    page.get_by_test_id("k-max_hp").fill("24")
    for key, value in own.items():
        page.get_by_test_id(f"k-stat-{key}").fill(value)
    page.get_by_test_id("a-name").fill("Longsword")
    for key, value in weapon.items():
        page.get_by_test_id(f"a-stat-{key}").fill(value)
    page.get_by_test_id("save-attack").click()
    page.get_by_test_id("character-attack-item").first.wait_for()
    page.get_by_test_id("save-character").click()
    # Issue 50, item 2: the character's card first, no practice and no error until an attack is tapped
    page.get_by_test_id("character-name").wait_for()
    assert page.get_by_test_id("practice").count() == 0 and page.get_by_test_id("attack-error").count() == 0
    page.get_by_test_id("character-attack").first.click()
    page.get_by_test_id("practice").wait_for()
    assert page.get_by_test_id("attack-error").count() == 0


def odds_before_the_roll(system: str, enc):
    """What the attack panel must show first for the practice encounter: (P(hit), or for Laurels and
    Loot P(injury); the distribution of the damage that reaches the target)."""
    if system == "generic":
        from pyengine.systems.generic import attack_odds as d20_odds
        from pyengine.systems.generic import attack_spec

        odds = d20_odds(attack_spec(enc, {"attacker": ME_ID, "target": TARGET_ID}))
        return odds.p_hit, odds.damage
    if system == "realms":
        from pyengine.systems.realms import attack_odds, build_attack

        odds = attack_odds(build_attack(enc, {"attacker": ME_ID, "target": TARGET_ID, "skills": ["melee fighting", "slashing"],
                                              "damage_type": "edged"}).pool)
        return odds.p_hit, odds.damage
    if system == "laurels":
        from pyengine.systems.laurels import attack_odds, attack_setup

        odds = attack_odds(*attack_setup(enc, ME_ID, TARGET_ID))
        return odds.p_injury, odds.through
    from pyengine.systems.strife import attack_odds, build_spec
    from web.app.views.strife import DEFAULT_ATTACK

    config = {k: v for k, v in DEFAULT_ATTACK.items() if k != "use"}
    odds = attack_odds(build_spec(enc, {**config, "attacker": ME_ID, "target": TARGET_ID})[0])
    return odds.p_hit, odds.damage


def stored_character(page, name: str) -> dict:
    items = json.loads(page.evaluate(f"localStorage.getItem('{SITE_PREFIX}characters')"))
    return next(c for c in items if c["name"] == name)


@pytest.mark.parametrize("system", list(SHEETS))
def test_a_character_in_each_system_attacks_with_exact_odds_and_seeded_dice(context, site, system):
    seed = 31
    page = open_app(context, site["url"] + f"/?seed={seed}").page
    make_character(page, system, f"Hero <img src=x onerror=alert(1)> of {system}")
    page.get_by_test_id("character-attack").first.click()
    _, _, target = SHEETS[system]
    for key, value in target.items():
        page.get_by_test_id(f"t-stat-{key}").fill(value)
        page.get_by_test_id(f"t-stat-{key}").dispatch_event("change")
    page.get_by_test_id("t-hp").fill("30")
    page.get_by_test_id("t-hp").dispatch_event("change")
    c = character_from_dict(stored_character(page, f"Hero <img src=x onerror=alert(1)> of {system}"))
    enc = practice_encounter(c, c.attacks[0], {k: int(v) for k, v in target.items()}, 30)
    p_first, damage = odds_before_the_roll(system, enc)  # the engine's own odds for this attack on this target
    shown = f"{p_first * 100:.1f}%"
    page.wait_for_function(f"(document.querySelector('[data-testid=attack-odds]') || {{}}).textContent?.includes({shown!r})")
    page.get_by_test_id("t-at_least").fill("5")
    page.get_by_test_id("t-at_least").dispatch_event("change")
    at_least = f"P(total ≥ 5) = {damage.at_least(5) * 100:.2f}%"
    page.wait_for_function(f"(document.querySelector('#sheet [data-testid=odds-at-least]') || {{}}).textContent === {at_least!r}")
    page.get_by_test_id("attack-roll").click()
    page.get_by_test_id("attack-result").wait_for()
    rolled = resolve(enc, KIND[system], {"attacker": ME_ID, "target": TARGET_ID}, random.Random(seed))
    assert page.get_by_test_id("attack-result").inner_text() == rolled.args["text"]
    assert not page.get_by_test_id("attack-apply").is_visible()  # nothing to apply: no fight changes
    page.get_by_test_id("sheet-close").click()
    first = page.get_by_test_id("history-item").first.inner_text()
    assert f"of {system}: Longsword vs Target" in first and "<img" in first  # the name shows as text
    # Kept on the phone: after a reload the character and its attack are still there.
    page.reload()
    wait_ready(page)
    page.get_by_test_id("my-characters").click()
    assert page.get_by_test_id("character-item").count() == 1
    assert page.get_by_test_id("character-attack").first.inner_text() == "Longsword"


def test_a_character_joins_the_game_masters_fight_by_its_link_or_its_qr_code(browser, site, tmp_path):
    player = browser.new_context(viewport={"width": 390, "height": 844})
    gm = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = open_app(player, site["url"] + "/?seed=3").page
        make_character(page, "realms", "Aldric")
        link = page.get_by_test_id("character-link").input_value()
        assert "#character=" in link
        # Handed over by QR code too: the code on the player's screen reads back as the same link.
        qr = page.get_by_test_id("character-qr")
        qr.locator("svg").wait_for()
        assert decode(qr.screenshot(), tmp_path) == link
        tracker = open_app(gm, site["url"] + "/").page
        tracker.get_by_test_id("menu-button").click()
        tracker.get_by_test_id("new-system").select_option("realms")
        tracker.get_by_test_id("new-encounter").click()
        tracker.goto(link)
        wait_ready(tracker)
        tracker.get_by_test_id("notice-action").filter(has_text="Add to the fight").click()
        tracker.wait_for_function("document.querySelectorAll('[data-testid=combatant-row]').length === 1")
        assert names(tracker) == ["Aldric"]
        assert "#character=" not in tracker.url
        stored = tracker.evaluate(
            f"Object.keys(localStorage).filter(k => k.startsWith('{SITE_PREFIX}enc:')).map(k => localStorage.getItem(k)).join('')")
        assert "melee fighting, slashing" in stored  # the attack's weapon came with it
        tracker.get_by_test_id("undo").click()  # one undoable step
        tracker.wait_for_function("document.querySelectorAll('[data-testid=combatant-row]').length === 0")
        # The same by the code pasted on the tracker's phone (a link sent in a chat, say).
        tracker.get_by_test_id("my-characters").click()
        tracker.get_by_test_id("character-code").fill(link.split("#character=", 1)[1])
        tracker.get_by_test_id("import-character").click()
        tracker.get_by_test_id("notice-action").filter(has_text="Add to the fight").click()
        tracker.wait_for_function("document.querySelectorAll('[data-testid=combatant-row]').length === 1")
        tracker.get_by_test_id("my-characters").click()
        tracker.get_by_test_id("character-code").fill("not a code")
        tracker.get_by_test_id("import-character").click()
        tracker.wait_for_function("document.querySelector('[data-testid=character-error]').textContent.includes('Nothing was added')")
    finally:
        player.close()
        gm.close()


def test_the_generic_d20_attack_on_a_targets_sheet_rolls_and_applies(context, site):
    """The default system's attack in the tracker: d20 + bonus against AC with the odds first, the roll,
    Apply (one undoable step)."""
    from pyengine.tracker import Timeline, new_encounter
    from tests.e2e.conftest import stored_fight

    t = Timeline.start(new_encounter("e1", "Duel", "generic"))
    for fields in ({"name": "Ana", "side": "party", "pc": True, "max_hp": 20, "initiative": 15, "stats": {"to_hit": 6, "damage": "2d6+2"}},
                   {"name": "Orc", "max_hp": 30, "initiative": 10, "stats": {"ac": 14}}):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}))
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(1)))
    page = open_seeded(context, site["url"] + "/?seed=12", stored_fight(t)).page
    page.get_by_test_id("attack-open").click()  # "Attack…" next to whose turn it is
    page.get_by_test_id("attack-p-hit").wait_for()
    from pyengine.systems.generic import attack_odds, attack_spec

    odds = attack_odds(attack_spec(t.present, {"attacker": "c1", "target": "c2"}))
    assert page.get_by_test_id("attack-p-hit").inner_text() == f"{odds.p_hit * 100:.1f}%"
    page.get_by_test_id("attack-roll").click()
    rolled = resolve(t.present, "d20_attack", {"attacker": "c1", "target": "c2"}, random.Random(12))
    page.get_by_test_id("attack-result").wait_for()
    assert page.get_by_test_id("attack-result").inner_text() == rolled.args["text"]
    page.get_by_test_id("attack-apply").click()
    hp = 30 - rolled.args["damage"]
    page.wait_for_function(f"document.querySelector('#tracker').textContent.includes('{hp}/30')")


def test_my_characters_across_two_tabs_keep_what_the_other_wrote_and_say_it(context, site):
    """Another tab (a newer version of the app) stores a character this version cannot read: it is
    said, and kept through this tab's next save; another tab's damaged list is said and never
    empties this tab's list."""
    from pyengine.characters import CHARACTER_VERSION

    first = open_app(context, site["url"] + "/").page
    make_character(first, "generic", "Cyra")
    second = context.new_page()
    second.goto(site["url"] + "/")
    wait_ready(second)
    key = SITE_PREFIX + "characters"
    stored = json.loads(second.evaluate(f"localStorage.getItem({key!r})"))
    newer = {"v": CHARACTER_VERSION + 1, "id": "k-new", "name": "From the future", "shape": "unknown to us"}
    second.evaluate(f"localStorage.setItem({key!r}, {json.dumps(json.dumps([*stored, newer]))})")
    first.wait_for_function("document.querySelector('[data-testid=notices]').textContent.includes('newer version')")
    first.keyboard.press("Escape")
    make_character(first, "generic", "Dax")  # this tab saves its list
    kept = json.loads(first.evaluate(f"localStorage.getItem({key!r})"))
    assert newer in kept and {c.get("name") for c in kept} == {"Cyra", "Dax", "From the future"}
    second.evaluate(f"localStorage.setItem({key!r}, '[{{\"v\": 1, \"id\": \"k9\"')")  # damaged mid-write
    first.wait_for_function("document.querySelector('[data-testid=notices]').textContent.includes('could not be read')")
    first.keyboard.press("Escape")
    first.get_by_test_id("my-characters").click()
    assert {first.get_by_test_id("character-item").nth(i).locator("b").inner_text()
            for i in range(first.get_by_test_id("character-item").count())} == {"Cyra", "Dax"}
