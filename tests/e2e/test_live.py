"""The live table over real WebRTC: the game master's phone hosts, players' phones follow, meeting
through a real WebTorrent tracker (bittorrent-tracker from npm, tools/relay.mjs) that this module
starts on 127.0.0.1 and stops. No STUN server (stun=none): host candidates only, nothing leaves
the machine. The table display follows through BroadcastChannel in a second page of one context."""

from __future__ import annotations

import json
import re
import subprocess
import time

import pytest

import build
from tests.e2e.conftest import add_combatant, open_app, wait_ready

PHONE = {"width": 390, "height": 844}
LIVE_MS = 30_000


@pytest.fixture(scope="module")
def relay():
    """The tests' relay, on the port the tests' build allows in its CSP."""
    port = build.TEST_RELAY.rsplit(":", 1)[1]
    proc = subprocess.Popen(["node", str(build.ROOT / "tools" / "relay.mjs"), port], cwd=build.ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("relay ws://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() is not None else "")
    yield build.TEST_RELAY
    proc.terminate()
    proc.wait(10)


def phone(browser, record: bool = False):
    """A fresh profile at phone size, as the suite's `context` fixture makes it."""
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=1)
    ctx.add_init_script("window.__rkNextTurnGuardMs = 0")
    ctx.add_init_script("window.__rkSnapshot = window.__rkSnapshot || 'off'")
    if record:
        ctx.add_init_script(RECORD)
    return ctx


def gm_url(site) -> str:
    return site["url"] + f"/?seed=3&relays={build.TEST_RELAY}&stun=none"


def go_live(page) -> str:
    page.get_by_test_id("menu-button").click()
    page.get_by_test_id("live-table").click()
    link = page.get_by_test_id("live-link")
    page.wait_for_function("document.querySelector('[data-testid=live-link]').value.includes('#live=')")
    return link.input_value()


def follow(context, link: str):
    page = context.new_page()
    page.goto(link)
    wait_ready(page)
    wait_live(page)
    return page


def wait_live(page, timeout: int = LIVE_MS) -> None:
    page.wait_for_function("(document.querySelector('[data-testid=live-state]')?.textContent || '').startsWith('live')",
                           timeout=timeout)


def rows(page) -> list[str]:
    return page.eval_on_selector_all("[data-testid=live-view] [data-testid=view-row] b", "els => els.map(e => e.textContent)")


def wait_rows(page, wanted: list[str], timeout: int = 10_000) -> None:
    page.wait_for_function(
        "wanted => JSON.stringify([...document.querySelectorAll('[data-testid=live-view] [data-testid=view-row] b')]"
        ".map(e => e.textContent)) === JSON.stringify(wanted)", arg=wanted, timeout=timeout)


def wait_text(page, test_id: str, pattern: str, timeout: int = 10_000) -> None:
    page.wait_for_function(
        "([id, p]) => new RegExp(p).test(document.querySelector(`[data-testid=${id}]`)?.textContent || '')",
        arg=[test_id, pattern], timeout=timeout)


def received(page) -> list[str]:
    """Every message this page's data channels received (recorded by an init script)."""
    return page.evaluate("window.__rkReceived || []")


RECORD = """
(() => {
  window.__rkReceived = [];
  const wrap = (proto) => {
    const add = proto.addEventListener;
    proto.addEventListener = function (type, fn, opts) {
      if (type === 'message') {
        const inner = fn;
        fn = function (e) { try { window.__rkReceived.push(typeof e.data === 'string' ? e.data : new TextDecoder().decode(e.data)); } catch (_) {} return inner.apply(this, arguments); };
      }
      return add.call(this, type, fn, opts);
    };
  };
  wrap(RTCDataChannel.prototype);
})();
"""


def test_a_player_follows_the_fight_live_and_hidden_combatants_stay_hidden(browser, site, relay):
    gm_ctx, player_ctx = phone(browser), phone(browser, record=True)
    try:
        gm = open_app(gm_ctx, gm_url(site)).page
        add_combatant(gm, "Aldric", hp=30, side="party", pc=True, initiative=18)
        add_combatant(gm, "Goblin", hp=10, initiative=12)
        add_combatant(gm, "Assassin Vex", hp=25, initiative=15)
        # The assassin waits in ambush: hidden from the players.
        gm.locator("[data-testid=combatant-row]", has_text="Assassin Vex").click()
        gm.get_by_test_id("hide-toggle").click()
        gm.wait_for_function("document.querySelector('[data-testid=combatant-row][data-hidden=true]') !== null")
        gm.get_by_test_id("close-sheet").click()
        link = go_live(gm)
        assert re.search(r"\?relays=.*#live=[\w-]+\.[\w-]+$", link), link
        gm.wait_for_function("document.querySelector('[data-testid=live-qr] svg') !== null", timeout=60_000)

        player = follow(player_ctx, link)
        wait_rows(player, ["Aldric", "Goblin"])
        wait_text(gm, "live-followers", r"^1 phone follows")

        # Three rounds: every turn reaches the player.
        gm.get_by_test_id("close-sheet").click()
        gm.get_by_test_id("start-combat").click()
        gm.wait_for_function("document.querySelector('[data-testid=turn-now]') !== null")
        wait_text(player, "view-now", "^Aldric$")
        for _ in range(8):
            gm.get_by_test_id("next-turn").click()
            now = gm.eval_on_selector("[data-testid=combatant-row][aria-current=true] .name", "e => e.firstChild.textContent")
            if now == "Assassin Vex":
                # The hidden one's turn: the players see no name for it.
                player.wait_for_function("!document.querySelector('[data-testid=view-now]')")
            else:
                wait_text(player, "view-now", f"^{re.escape(now)}$")
        wait_text(player, "view-round", "Round 3")

        # Damage reaches the player as words (opponents) and numbers (the party).
        gm.locator("[data-testid=combatant-row]", has_text="Aldric").click()
        gm.get_by_test_id("hp-amount").fill("7")
        gm.get_by_test_id("damage").click()
        gm.get_by_test_id("close-sheet").click()
        player.wait_for_function("[...document.querySelectorAll('[data-testid=view-hp]')].some(e => e.textContent === '23/30')")

        assert not any("Vex" in m for m in received(player))
        # Revealed: now the players see it.
        gm.locator("[data-testid=combatant-row]", has_text="Assassin Vex").click()
        gm.get_by_test_id("hide-toggle").click()
        gm.get_by_test_id("close-sheet").click()
        wait_rows(player, ["Aldric", "Assassin Vex", "Goblin"])
        # Undo hides it again.
        gm.get_by_test_id("undo").click()
        wait_rows(player, ["Aldric", "Goblin"])
        assert "Vex" not in player.get_by_test_id("live-view").inner_text()
        gm_ctx.close()
        player_ctx.close()
    finally:
        for ctx in (gm_ctx, player_ctx):
            try:
                ctx.close()
            except Exception:  # noqa: BLE001 - closed above
                pass
