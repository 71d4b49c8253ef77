"""Issue 53, items 3 and 4, at a real live table (WebRTC through the tests' relay on 127.0.0.1): a
game master and two players' phones. A claim belongs to one character of one fight: a new encounter
never carries it over unapproved (the phone asks again, the name it played offered first, applied at
once for the name the game master approved it for); the game master releases a claim and the
character is free at once; a character whose phone has been gone a few minutes is taken over by
another phone with the game master's approval (the game master's clock moved on, Playwright's)."""

from __future__ import annotations

from tests.e2e.conftest import add_combatant, open_app
from tests.e2e.test_live import close, follow, gm_url, go_live, live_fight, phone, relay, wait_text  # noqa: F401 (relay: a fixture)


def claim(player, name: str) -> None:
    player.get_by_test_id("claim").filter(has_text=name).click()


def approve(gm, text: str) -> None:
    gm.get_by_test_id("request").filter(has_text=text).wait_for()
    gm.get_by_test_id("request").filter(has_text=text).get_by_test_id("request-apply").click()


def claim_buttons(player) -> list[str]:
    return player.eval_on_selector_all("[data-testid=claim]", "els => els.map(e => e.textContent)")


def test_a_claim_stays_with_its_fight_is_released_at_once_and_a_gone_phones_character_is_taken_over_with_approval(browser, site, relay):  # noqa: F811
    gm_ctx, ana_ctx, bryn_ctx, cyd_ctx = phone(browser), phone(browser), phone(browser), phone(browser)
    gm_ctx.clock.install()  # (its time flows as usual until the test moves it on)
    try:
        gm = open_app(gm_ctx, gm_url(site)).page
        link = live_fight(gm)  # Aldric, Bryn, Goblin; started, live
        gm.get_by_test_id("close-sheet").click()
        ana, bryn = follow(ana_ctx, link), follow(bryn_ctx, link)
        claim(ana, "Aldric")
        approve(gm, "asks to play Aldric")
        wait_text(ana, "live-you", "^Aldric$")
        claim(bryn, "Bryn")
        approve(gm, "asks to play Bryn")
        wait_text(bryn, "live-you", "^Bryn$")

        # Another encounter: Kael is its first combatant (Aldric's place in the last), then Aldric.
        gm.get_by_test_id("encounter-name").click()
        gm.get_by_test_id("new-encounter").click()
        add_combatant(gm, "Kael", hp=20, side="party", pc=True, initiative=15)
        for page in (ana, bryn):
            page.wait_for_function("[...document.querySelectorAll('[data-testid=claim]')].some(e => e.textContent === 'Kael')")
            assert page.get_by_test_id("live-you").count() == 0  # nobody's "You play Kael"
        add_combatant(gm, "Aldric", hp=30, side="party", pc=True, initiative=18)
        ana.wait_for_function("[...document.querySelectorAll('[data-testid=claim]')].length === 2")
        assert claim_buttons(ana) == ["Aldric", "Kael"]  # the name it played, first
        assert claim_buttons(bryn) == ["Kael", "Aldric"]
        claim(ana, "Aldric")  # approved for Aldric once: at once, no card
        wait_text(ana, "live-you", "^Aldric$")
        assert gm.get_by_test_id("request").count() == 0
        claim(bryn, "Kael")  # a new character for this phone: asks
        approve(gm, "asks to play Kael")
        wait_text(bryn, "live-you", "^Kael$")

        # The game master releases Kael: Bryn's phone asks again at once, and Kael is free for another.
        gm.get_by_test_id("menu-button").click()
        gm.get_by_test_id("live-table").click()
        rows = gm.get_by_test_id("claim-row")
        rows.filter(has_text="Kael").wait_for()
        assert "connected" in rows.filter(has_text="Kael").inner_text()
        rows.filter(has_text="Kael").get_by_test_id("release-claim").click()
        bryn.wait_for_function("!document.querySelector('[data-testid=live-you]') && document.querySelectorAll('[data-testid=claim]').length === 2")
        assert gm.get_by_test_id("claim-row").count() == 1
        gm.get_by_test_id("close-sheet").click()

        # Ana's phone is closed; a third phone asks for Aldric: refused while Ana's is only just gone ...
        gm.get_by_test_id("menu-button").click()
        gm.get_by_test_id("live-table").click()
        close(ana_ctx)
        wait_text(gm, "live-followers", r"Aldric \(disconnected\)", timeout=60_000)  # (when its connection is seen to go)
        gm.get_by_test_id("close-sheet").click()
        cyd = follow(cyd_ctx, link)
        cyd.wait_for_function("document.querySelectorAll('[data-testid=claim]').length === 2")
        claim(cyd, "Aldric")
        wait_text(cyd, "request-state", "another phone plays Aldric")
        # ... and, four minutes on, asks the game master to let it take over.
        gm_ctx.clock.fast_forward("04:00")
        claim(cyd, "Aldric")
        approve(gm, "Aldric was played by a phone that left")
        wait_text(cyd, "live-you", "^Aldric$")
    finally:
        close(gm_ctx, ana_ctx, bryn_ctx, cyd_ctx)
