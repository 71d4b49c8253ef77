"""Two relay networks at once (issue 36, section 4): the live table joins its room through Nostr relays
and WebTorrent trackers together. Real relays on 127.0.0.1, both from packages: nostr-relay (PyPI,
conftest's `nostr_relay`) and bittorrent-tracker (npm, tools/relay.mjs), started, stopped and started
again here; real Chromium contexts over real WebRTC (no STUN)."""

from __future__ import annotations

import subprocess

import pytest

import build
from tests.e2e.conftest import open_app, wait_ready
from tests.e2e.test_live import LIVE_MS, close, follow, live_fight, next_turn, phone, wait_live, wait_text


class Tracker:
    """The tests' WebTorrent tracker, which these tests stop and start again."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        port = build.TEST_RELAY.rsplit(":", 1)[1]
        self.proc = subprocess.Popen(["node", str(build.ROOT / "tools" / "relay.mjs"), port], cwd=build.ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("relay ws://127.0.0.1:"), line

    def stop(self) -> None:
        if self.proc is not None:  # killed: a relay that goes down says nothing to anyone
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


@pytest.fixture
def tracker():
    t = Tracker()
    t.start()
    yield t
    t.stop()


def url(site, relays: str, nostr: str) -> str:
    return site["url"] + f"/?seed=3&relays={relays}&nostr={nostr}&stun=none"


def networks(page, pattern: str, timeout: int = 60_000) -> None:
    try:
        wait_text(page, "live-networks", pattern, timeout)
    except Exception:  # what it says instead
        print("live-networks:", page.evaluate("document.querySelector('[data-testid=live-networks]')?.textContent"))
        raise


@pytest.mark.parametrize("network", ["nostr", "torrent"])
def test_phones_meet_through_either_network_alone(browser, site, nostr_server, network):
    tracker = Tracker()
    if network == "nostr":
        nostr_server.start()  # (stopped at the session's end, or by the next test that needs it down)
        address = url(site, "", build.TEST_NOSTR)
    else:
        nostr_server.stop()
        tracker.start()
        address = url(site, build.TEST_RELAY, "")
    gm_ctx, a_ctx = phone(browser), phone(browser)
    try:
        gm = open_app(gm_ctx, address).page
        link = live_fight(gm)
        # The join link carries the room's networks: the one used, and the other left out.
        assert (f"nostr={build.TEST_NOSTR.replace(':', '%3A').replace('/', '%2F')}" in link) == (network == "nostr")
        assert ("relays=none" in link) == (network == "nostr") and ("nostr=none" in link) == (network == "torrent")
        networks(gm, r"^relays: Nostr 1 of 1\.$" if network == "nostr" else r"^relays: WebTorrent 1 of 1\.$")
        a = follow(a_ctx, link)
        wait_text(a, "view-now", "^Aldric$")
        gm.get_by_test_id("close-sheet").click()
        next_turn(gm)
        wait_text(a, "view-now", "^Bryn$")
    finally:
        close(gm_ctx, a_ctx)
        tracker.stop()
        nostr_server.stop()


def test_with_both_networks_one_relay_down_changes_nothing_and_both_down_is_said(browser, site, nostr_relay, tracker):
    gm_ctx, a_ctx, b_ctx, c_ctx = phone(browser), phone(browser), phone(browser), phone(browser)
    try:
        gm = open_app(gm_ctx, url(site, build.TEST_RELAY, build.TEST_NOSTR)).page
        link = live_fight(gm)
        networks(gm, r"^relays: Nostr 1 of 1, WebTorrent 1 of 1\.$")
        a, b = follow(a_ctx, link), follow(b_ctx, link)
        # Each phone once on the game master's line, whichever networks met it.
        wait_text(gm, "live-followers", r"^2 phones follow: [^,]*, [^,]*\.$")

        # The tracker goes down mid-fight: nothing a table sees changes.
        tracker.stop()
        networks(gm, r"^relays: Nostr 1 of 1, WebTorrent 0 of 1\.$")
        gm.get_by_test_id("close-sheet").click()
        next_turn(gm)
        for p in (a, b):
            wait_text(p, "view-now", "^Bryn$")
            wait_live(p)
        # A phone that joins now meets the table through Nostr alone.
        c = follow(c_ctx, link)
        wait_text(c, "view-now", "^Bryn$")

        # The tracker back, the Nostr relay down: the same.
        tracker.start()
        nostr_relay.stop()
        gm.get_by_test_id("menu-button").click()
        gm.get_by_test_id("live-table").click()
        networks(gm, r"^relays: Nostr 0 of 1, WebTorrent 1 of 1\.$", timeout=90_000)
        gm.get_by_test_id("close-sheet").click()
        next_turn(gm)
        for p in (a, b, c):
            wait_text(p, "view-now", "^Goblin$")

        # Both down: said on the game master's phone and on every follower, which stay connected.
        tracker.stop()
        gm.get_by_test_id("menu-button").click()
        gm.get_by_test_id("live-table").click()
        networks(gm, r"^relays: Nostr 0 of 1, WebTorrent 0 of 1: none answers")
        for p in (a, b, c):
            wait_text(p, "live-state", "^live · the relays do not answer", timeout=30_000)
        # One back: everyone says so by itself.
        nostr_relay.start()
        networks(gm, r"^relays: Nostr 1 of 1, WebTorrent 0 of 1\.$", timeout=90_000)
        for p in (a, b, c):
            wait_text(p, "live-state", "^live$", timeout=90_000)
    finally:
        close(gm_ctx, a_ctx, b_ctx, c_ctx)


def test_a_phone_that_reloads_with_only_nostr_up_follows_again(browser, site, nostr_relay):
    gm_ctx, a_ctx = phone(browser), phone(browser)
    try:
        gm = open_app(gm_ctx, url(site, build.TEST_RELAY, build.TEST_NOSTR)).page  # the tracker is not running
        link = live_fight(gm)
        networks(gm, r"^relays: Nostr 1 of 1, WebTorrent 0 of 1\.$")
        a = follow(a_ctx, link, LIVE_MS)
        a.reload()
        wait_ready(a)
        wait_live(a)
        gm.reload()
        wait_ready(gm)
        wait_live(a, LIVE_MS)
    finally:
        close(gm_ctx, a_ctx)
