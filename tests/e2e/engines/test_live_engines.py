"""Issue 48: a mixed live table. A game master in Chromium with a player's phone in Firefox, and the
reverse, through the tests' relay on 127.0.0.1 (real WebRTC between the two engines): the player
sees the fight before its engine has started (Firefox: its WebAssembly held back), claims a character, sends its initiative into the game master's initiative step, attacks (its dice
drawn with the game master's phone, the attack resolved by the game master's engine and applied as
one step), and is done on its turn; then the game master's save effect asks its phone for its save
(issue 52). One test, written once against driver.py's page interface."""

from __future__ import annotations

import pytest

import build
from tests.e2e.conftest import SITE_PREFIX, stored_fight
from tests.e2e.engines.conftest import INIT
from tests.e2e.engines.driver import EnginePage, FirefoxPage, PlaywrightPage, Unavailable, open_engine, tid
from tests.e2e.test_live import phone
from tests.e2e.test_live import relay as relay  # noqa: PLC0414 (the tests' WebTorrent tracker, a module fixture)

LIVE_S = 60.0


def party():
    """Cyra (a PC with a Longsword, no initiative yet) and a Goblin (AC 15), not started."""
    from pyengine.tracker import Timeline, new_encounter, resolve
    t = Timeline.start(new_encounter("e1", "Bridge"))
    for fields in ({"name": "Cyra", "side": "party", "pc": True, "max_hp": 20, "stats": {"save_dex": 2},
                    "attacks": [{"name": "Longsword", "bonus": 5, "damage": "1d8+3 slashing"}]},
                   {"name": "Goblin", "initiative": 1, "max_hp": 30, "stats": {"ac": 15}}):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}))
    return t


def apply_request(gm: EnginePage, text: str) -> None:
    """The game master's Apply on the request card that says `text`."""
    gm.wait("[...document.querySelectorAll('[data-testid=request]')].some(e => e.textContent.includes(args[0]))", LIVE_S, text,
            what=f"the request {text!r}")
    gm.js("document.querySelectorAll('[data-rk-pick]').forEach(e => e.removeAttribute('data-rk-pick'));"
          "const card = [...document.querySelectorAll('[data-testid=request]')].find(e => e.textContent.includes(args[0]));"
          "card.querySelector('[data-testid=request-apply]').setAttribute('data-rk-pick', '1');", text)
    gm.click("[data-rk-pick]")


def said(page: EnginePage, test_id: str, pattern: str, timeout: float = 20.0) -> None:
    try:
        page.wait("new RegExp(args[1]).test(document.querySelector(`[data-testid=${args[0]}]`)?.textContent || '')", timeout,
                  test_id, pattern, what=f"{test_id} ~ {pattern}")
    except AssertionError as error:
        raise AssertionError(f"{error}; it says {page.text(tid(test_id))!r}") from None


@pytest.mark.parametrize(("gm_engine", "player_engine"), [("chromium", "firefox"), ("firefox", "chromium")])
def test_a_mixed_table_claim_initiative_attack_and_done(browser, site, relay, gm_engine, player_engine):  # noqa: F811
    contexts, pages = [], []

    def open_page(engine: str) -> EnginePage:
        if engine == "chromium":
            ctx = phone(browser)
            contexts.append(ctx)
            page: EnginePage = PlaywrightPage(ctx)
        else:
            try:
                page = open_engine(engine, init_scripts=INIT)
            except Unavailable as error:
                pytest.skip(str(error))
        pages.append(page)
        return page

    try:
        gm, player = open_page(gm_engine), open_page(player_engine)
        url = site["url"] + f"/?seed=3&relays={build.TEST_RELAY}&nostr=&stun=none"
        gm.goto(url)
        gm.wait_ready()
        gm.js("for (const [k, v] of Object.entries(args[0])) localStorage.setItem(k, v);",
              {SITE_PREFIX + k: v for k, v in stored_fight(party()).items()})
        gm.reload()
        gm.wait_ready()
        gm.click(tid("menu-button"))
        gm.click(tid("live-table"))
        link = gm.wait("document.querySelector('[data-testid=live-link]')?.value.includes('#live=') && "
                       "document.querySelector('[data-testid=live-link]').value", 30, what="the live link")
        gm.click(tid("close-sheet"))
        gm.wait_closed_sheet()

        early = isinstance(player, FirefoxPage)  # (Chromium's own first view: tests/e2e/test_live_early.py)
        if early:  # Pyodide's WebAssembly held back: the players' view must come first, from the game master's state
            player.hold(site["url"] + "/pyodide/pyodide.asm.wasm")
        player.goto(str(link))
        if early:
            player.wait("document.documentElement.dataset.engine !== 'ready' && "
                        "document.querySelectorAll('[data-testid=live-view] [data-testid=view-row]').length === 2", LIVE_S,
                        what="the players' view before the engine")
            assert player.text(tid("early-note")) == "Getting your controls ready…"
            player.release()
        player.wait_ready()
        said(player, "live-state", "^live", LIVE_S)
        player.wait("document.querySelectorAll('[data-testid=claim]').length === 1", LIVE_S, what="the claim button")
        player.click_text(tid("claim"), "Cyra")
        apply_request(gm, "asks to play Cyra")
        said(player, "live-you", "^Cyra$")

        # Its initiative fills Cyra's field in the game master's initiative step.
        gm.click(tid("start-combat"))
        gm.wait("document.querySelector('[data-testid=init-input]')", 20, what="the initiative step")
        player.fill(tid("live-init"), "17")
        player.click(tid("send-initiative"))
        gm.wait("document.querySelector('[data-testid=init-input]').value === '17'", LIVE_S, what="Cyra's initiative")
        gm.click(tid("init-done"))
        said(player, "view-now", "^Cyra$")

        # An attack: the phone's dice with the game master's, resolved and applied there, answered here.
        player.click(tid("player-attack"))
        player.wait("document.querySelector('[data-testid=attack-panel]')", 10, what="the attack panel")
        player.click(tid("send-attack"))
        said(player, "request-state", "^waiting: the game master has your attack on Goblin")
        apply_request(gm, "Cyra attacks Goblin")
        said(player, "request-state", r"^applied: your attack on Goblin \(Longsword\) \(1d20 \(\d+\) \+5 = \d+: (hit|miss|critical hit)")
        answer = player.text(tid("request-state"))
        goblin = gm.text("[data-combatant-id=c2] [data-testid=hp]")
        assert ("hit" in answer) == (goblin != "30/30"), (answer, goblin)  # (30 HP: it stands, and its turn comes next)
        assert "AC" not in answer

        # "I'm done" on its turn: the game master's Next turn, on approval.
        player.click(tid("im-done"))
        apply_request(gm, "Cyra is done")
        said(player, "view-now", "^Goblin$")
        assert player.js("return document.querySelector('[data-testid=im-done]').disabled;") is True

        # Issue 52: the Goblin's save effect on Cyra asks her phone; its d20 from both phones, the
        # outcome said there once the game master applies it.
        gm.click("#tracker [data-combatant-id=c2]")
        gm.wait("document.querySelector('[data-testid=save-action]')", 20, what="the Goblin's save buttons")
        gm.click_text(tid("save-action"), "Save…")
        gm.wait("document.querySelector('[data-testid=save-damage]')", 20, what="the save panel")
        gm.fill(tid("save-damage"), "2d6 fire")
        gm.js("document.querySelector('[data-testid=save-damage]').dispatchEvent(new Event('change', {bubbles: true}))")
        gm.wait("document.querySelectorAll('[data-testid=save-odds-row] [data-testid=save-mean]').length === 1", 20, what="Cyra's odds")
        gm.click(tid("ask-saves"))
        player.wait("document.querySelector('[data-testid=roll-save]')", LIVE_S, what="the save request")
        assert "make a DC 15 Dexterity saving throw" in player.text(tid("save-request"))
        player.click(tid("roll-save"))
        said(player, "request-state", r"^applied: your Dexterity save \(d20 \d+: the game master applies the save\)", LIVE_S)
        gm.wait("document.querySelector('[data-testid=save-phone][data-state=rolled]')", LIVE_S, what="the phone's answer")
        gm.click(tid("roll-saves"))
        gm.wait("document.querySelector('[data-testid=apply-saves]')", 20, what="the rolled save")
        gm.click(tid("apply-saves"))
        said(player, "save-outcome", r"^Dex save \d+ vs DC 15: (succeeded|failed); \d+ damage$", LIVE_S)
    finally:
        for page in pages:
            page.close()
        for ctx in contexts:
            ctx.close()


def test_the_table_display_in_firefox_follows_the_game_masters_window(site):
    """The game master's Firefox opens the table display (Menu → Table display): a second window of
    the same browser, fed over BroadcastChannel (no relay: the game master's table is not live), that
    shows the players' view, sealed by the game master's window, and follows the turn."""
    try:
        gm = open_engine("firefox", init_scripts=INIT)
    except Unavailable as error:
        pytest.skip(str(error))
    try:
        gm.goto(site["url"] + "/?seed=2")
        gm.wait_ready()
        gm.js("for (const [k, v] of Object.entries(args[0])) localStorage.setItem(k, v);",
              {SITE_PREFIX + k: v for k, v in stored_fight(party()).items()})
        gm.reload()
        gm.wait_ready()
        known = gm.tabs()
        gm.click(tid("menu-button"))
        gm.click(tid("table-display"))
        display = gm.opened_tab(known)
        display.wait_ready()
        display.wait("JSON.stringify([...document.querySelectorAll('[data-testid=live-view] [data-testid=view-row] b')]"
                     ".map(e => e.textContent)) === '[\"Cyra\",\"Goblin\"]'", LIVE_S, what="the display's rows")
        assert "display" in display.js("return document.querySelector('[data-testid=live-view]').className;")
        gm.click(tid("sheet-close"))
        gm.wait_closed_sheet()
        gm.click(tid("start-combat"))  # (Cyra's initiative typed in the step, then done)
        gm.wait("document.querySelector('[data-testid=init-input]')", 20, what="the initiative step")
        gm.fill(tid("init-input"), "16")
        gm.click(tid("init-done"))
        said(display, "view-now", "^Cyra$", LIVE_S)
        gm.click(tid("next-turn"))
        said(display, "view-now", "^Goblin$", LIVE_S)
    finally:
        gm.close()
