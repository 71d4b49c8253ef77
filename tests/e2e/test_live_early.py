"""A first-time player sees the live fight in seconds (issue 40): a phone that opens a live link, or the
table display, shows the players' view from the game master's signed state while its engine is still
held back (the test holds Pyodide's WebAssembly download), through boot.js's allow-list: no hidden
combatant, hostile HTML inert even in a state signed by the right key, nothing from another key.
When the engine is ready it takes over the same join (one join, one phone on the game master's line)
and the same view, and answers what was tapped before. Real Chromium, real WebRTC, the tests' relay."""

from __future__ import annotations

import contextlib
import json

from tests.e2e import test_live
from tests.e2e.conftest import add_combatant, open_app, wait_ready
from tests.e2e.test_live import LIVE_MS, gm_url, go_live, phone, wait_live, wait_text
from tests.e2e.test_live_table import ambush, display_leaks, request_state

relay = test_live.relay  # the tests' WebTorrent tracker (a module fixture)

ENGINE = "**/pyodide/pyodide.asm.wasm"  # what the tests hold back: without it no engine starts
EARLY_ROWS = ("document.documentElement.dataset.engine !== 'ready' && "
              "document.querySelectorAll('[data-testid=live-view] [data-testid=view-row]').length > 0")


class Held:
    """Pyodide's WebAssembly held back in a context (its service worker blocked, so that every request
    comes here), until `release`."""

    def __init__(self, ctx) -> None:
        self.ctx, self.routes, self.released = ctx, [], False
        ctx.route(ENGINE, self._hold)

    def _hold(self, route) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def wait_asked(self, page, timeout_ms: int = 20_000) -> None:
        """Until the page has asked for what is held."""
        for _ in range(timeout_ms // 100):
            if self.routes:
                return
            page.wait_for_timeout(100)
        raise AssertionError("the engine's download was never asked for")

    def release(self) -> None:
        self.released = True
        for route in self.routes:
            route.continue_()
        self.routes.clear()


def held_phone(browser):
    ctx = test_live.phone(browser, service_workers="block")
    return ctx, Held(ctx)


def hidden_fight(gm) -> str:
    """Aldric and Bryn of the party, a Goblin, and the Assassin Vex hidden from the players; started, live."""
    ambush(gm)
    add_combatant(gm, "Aldric", hp=30, side="party", pc=True, initiative=18)
    add_combatant(gm, "Bryn", hp=24, side="party", pc=True, initiative=14)
    add_combatant(gm, "Goblin", hp=10, initiative=12)
    gm.get_by_test_id("start-combat").click()
    return go_live(gm)


def early_rows(page) -> list[str]:
    return page.eval_on_selector_all("[data-testid=live-view] [data-testid=view-row] b", "els => els.map(e => e.textContent)")


def live_stats(page) -> dict:
    return page.evaluate("RK.importLive().then(m => ({...m.stats}))")


def test_a_first_time_player_sees_the_fight_before_the_engine_and_its_claim_is_answered(browser, site, relay):
    gm_ctx = phone(browser)
    p_ctx, held = held_phone(browser)
    try:
        gm = open_app(gm_ctx, gm_url(site))
        link = hidden_fight(gm.page)
        assert not any(u.endswith("early.mjs") for u in gm.requests)  # a game master's start fetches none of it
        player = p_ctx.new_page()
        player.goto(link)
        # The players' view, the engine still held back: the round, who acts, the order, no hidden name.
        player.wait_for_function(EARLY_ROWS, timeout=LIVE_MS)
        assert early_rows(player) == ["Aldric", "Bryn", "Goblin"]
        wait_live(player)
        assert "Assassin Vex" not in player.content()
        assert player.get_by_test_id("view-round").inner_text().startswith("Round 1")
        assert player.get_by_test_id("early-note").inner_text() == "Getting your controls ready…"
        assert not player.get_by_test_id("sheet-close").is_visible()  # (no control that would do nothing yet)
        # A first-time player picks who they are at once; the tap is kept and said.
        player.get_by_test_id("claim").filter(has_text="Bryn").click()
        wait_text(player, "request-state", "^Bryn: sent to the game master as soon as your controls are ready")
        held.wait_asked(player)  # (the first view opened the way for the engine's download, which the test holds)
        assert player.evaluate("document.documentElement.dataset.engine") != "ready"
        player.evaluate("document.querySelector('[data-testid=live-view]').__early = true")  # the node the engine must keep
        gm_line = gm.page.get_by_test_id("live-followers")
        gm.page.wait_for_function("document.querySelector('[data-testid=live-followers]').textContent.startsWith('1 phone')")
        # The engine comes: the same join, the same view (the very nodes), and the claim answered.
        held.release()
        wait_ready(player)
        request_state(player, "^waiting: the game master has your claim on Bryn")
        assert player.evaluate("document.querySelector('[data-testid=live-view]').__early") is True
        assert early_rows(player) == ["Aldric", "Bryn", "Goblin"]
        assert player.get_by_test_id("early-note").count() == 0
        assert player.get_by_test_id("sheet-close").is_visible()
        assert live_stats(player) == {"joins": 1, "adopted": 1}
        gm.page.get_by_test_id("request").filter(has_text="asks to play Bryn").wait_for()
        assert gm_line.inner_text().startswith("1 phone follows")
        # And it follows as any phone: the next turn reaches it.
        gm.page.get_by_test_id("close-sheet").click()
        gm.page.get_by_test_id("next-turn").click()
        player.wait_for_function("document.querySelector('[data-testid=view-now]')?.textContent === 'Aldric'", timeout=10_000)  # (after the hidden one's turn)
        assert gm.errors == []
        # The phone reopens the table it followed (the link stays in its address): the view again before its
        # engine, without "Which one is you?" (the game master's phone tells it whom it plays, once it says hello).
        again = Held(p_ctx)
        player.reload()
        player.wait_for_function(EARLY_ROWS, timeout=LIVE_MS)
        assert early_rows(player) == ["Aldric", "Bryn", "Goblin"]
        assert player.get_by_test_id("claim").count() == 0 and player.get_by_test_id("early-note").count() == 1
        again.release()
        wait_ready(player)
        wait_live(player)
        player.get_by_test_id("claim").first.wait_for()  # (not approved yet: the engine offers the choice again)
        assert live_stats(player) == {"joins": 1, "adopted": 1}
    finally:
        held.release()
        gm_ctx.close()
        p_ctx.close()


HOSTILE = ('<img src="/pwned-img" onerror="window.__pwned=1"><script>window.__pwned=2</script>'
           '<a href="javascript:window.__pwned=3">a link</a><b onclick="window.__pwned=4" style="background:url(/pwned-css)">bold words</b>'
           '<iframe src="/pwned-frame"></iframe><svg onload="window.__pwned=5"></svg><base href="https://example.com/">'
           '<form action="/pwned-form"><input name="x"></form><ol class="order view"><li data-testid="view-row"><b>Mallory</b></li></ol>')


def test_hostile_html_in_a_state_signed_by_the_right_key_is_shown_inert(browser, site, relay):
    gm_ctx = phone(browser)
    p_ctx, held = held_phone(browser)
    try:
        gm = open_app(gm_ctx, gm_url(site)).page
        link = hidden_fight(gm)
        player = p_ctx.new_page()
        asked: list[str] = []
        player.on("request", lambda r: asked.append(r.url))
        player.goto(link)
        player.wait_for_function(EARLY_ROWS, timeout=LIVE_MS)
        # The game master's own phone signs a state whose HTML is hostile (its key, its room).
        state = {"v": 1, "t": "state", "rev": 1, "ses": "zz", "view": {}, "ids": [], "turn": [], "from": "", "html": HOSTILE}
        gm.evaluate("text => RK.importLive().then(m => m.send(text))", json.dumps(state, separators=(",", ":")))
        player.wait_for_function("document.querySelector('[data-testid=live-view]').textContent.includes('bold words')",
                                 timeout=10_000)
        view = player.locator("[data-testid=live-view]")
        assert view.locator("img, script, a, iframe, svg, base, form, input, [style]").count() == 0
        handlers = player.evaluate("[...document.querySelectorAll('[data-testid=live-view] *')]"
                                   ".flatMap(e => [...e.attributes].map(a => a.name)).filter(n => n.startsWith('on'))")
        assert handlers == []
        assert early_rows(player) == ["Mallory"]
        assert player.evaluate("window.__pwned") is None
        assert player.evaluate("document.baseURI").startswith(site["url"])
        assert not [u for u in asked if "pwned" in u or "example.com" in u]
        assert player.evaluate("document.documentElement.dataset.engine") != "ready"
    finally:
        held.release()
        gm_ctx.close()
        p_ctx.close()


def test_a_state_signed_by_another_key_is_never_shown(browser, site, relay):
    gm_ctx, mallory_ctx = phone(browser), phone(browser)
    p_ctx, held = held_phone(browser)
    try:
        gm = open_app(gm_ctx, gm_url(site)).page
        link = hidden_fight(gm)
        player = p_ctx.new_page()
        player.goto(link)
        player.wait_for_function(EARLY_ROWS, timeout=LIVE_MS)
        # Mallory has the link (room and password) and joins as a host of her own key.
        mallory = open_app(mallory_ctx, site["url"] + "/?relays=none&nostr=").page
        room, secret = link.split("#live=", 1)[1].split(".")[:2]
        mallory.evaluate("""([room, secret, relay]) => RK.importLive().then(async m => {
            await m.hostKey('');
            window.__met = 0;
            await m.connect(room, secret, [relay], [], [], (id, joined) => { if (joined) window.__met++; }, () => {}, '');
            window.__live = m;
        })""", [room, secret, test_live.build.TEST_RELAY])
        mallory.wait_for_function("window.__met >= 2", timeout=LIVE_MS)  # she is connected to both phones
        for rev in range(1, 6):
            forged = {"v": 1, "t": "state", "rev": 10**9 + rev, "ses": "mallory", "view": {}, "ids": [["x1x1x1", "Mallory", "p"]],
                      "turn": [], "from": "", "html": '<ol class="order view"><li data-testid="view-row"><b>Forged</b></li></ol>'}
            mallory.evaluate("text => window.__live.send(text)", json.dumps(forged, separators=(",", ":")))
            mallory.wait_for_timeout(300)
        player.wait_for_timeout(1000)
        assert early_rows(player) == ["Aldric", "Bryn", "Goblin"]
        assert "Forged" not in player.content() and "Mallory" not in player.content()
        held.release()
        wait_ready(player)
        wait_live(player)
        assert early_rows(player) == ["Aldric", "Bryn", "Goblin"]
    finally:
        held.release()
        for ctx in (gm_ctx, mallory_ctx, p_ctx):
            with contextlib.suppress(Exception):
                ctx.close()


def test_the_table_display_shows_the_players_view_before_its_engine(browser, site):
    ctx = test_live.phone(browser, viewport=test_live.WIDE, service_workers="block")
    try:
        gm = open_app(ctx, site["url"] + "/?seed=2").page
        ambush(gm)
        add_combatant(gm, "Aldric", hp=30, side="party", pc=True, initiative=18)
        add_combatant(gm, "Goblin", hp=7, initiative=12)
        gm.get_by_test_id("start-combat").click()
        held = Held(ctx)  # the game master's page is up: from now on, the engine of a new page waits
        gm.get_by_test_id("menu-button").click()
        with ctx.expect_page() as opened:
            gm.get_by_test_id("table-display").click()
        display = opened.value
        display.wait_for_function(EARLY_ROWS, timeout=20_000)
        assert early_rows(display) == ["Aldric", "Goblin"]
        wait_live(display)
        assert display.get_by_test_id("early-note").count() == 0  # (a display has no controls to wait for)
        leaks = display_leaks(display, "Assassin Vex")
        # (The boot error's Retry stays until the engine is ready, to retry a failed start: it changes no fight.)
        assert leaks == {"hidden": False, "controls": [c for c in leaks["controls"] if "boot-retry" in c], "tracker": False}, leaks
        display.evaluate("document.querySelector('[data-testid=live-view]').__early = true")
        held.release()
        wait_ready(display)
        wait_live(display)
        assert display.evaluate("document.querySelector('[data-testid=live-view]').__early") is True
        assert early_rows(display) == ["Aldric", "Goblin"]
        assert display_leaks(display, "Assassin Vex") == {"hidden": False, "controls": [], "tracker": False}
        gm.get_by_test_id("sheet-close").click()
        gm.get_by_test_id("next-turn").click()
        display.wait_for_function("document.querySelector('[data-testid=view-now]')?.textContent === 'Aldric'", timeout=5_000)
    finally:
        ctx.close()
