"""A hostile phone in the live room (issue 37, item 2): chunks of messages that never finish grew the
game master's memory without bound (Trystero keeps every chunk of an unfinished message: 15 aborted
20 MB sends took its JS heap from 19 MB to 98 MB, not even counted). static/live.mjs now wraps
Trystero's data channels (its `rtcPolyfill`): a message may not grow past 256 KB, at most 8 may be
unfinished on a channel, one unfinished for 15 s is closed (Trystero frees it), and what is cut is
dropped and counted."""

from __future__ import annotations

import build
from tests.e2e.conftest import add_combatant, open_app
from tests.e2e.test_live import close, gm_url, go_live, phone, relay, wait_text  # noqa: F401 (relay: a fixture)

CHUNKS = """
async ([relayUrl, room, secret]) => {
  const { joinRoom } = await import('/trystero/torrent.mjs');
  const r = joinRoom({ appId: 'roundkeeper-live-1', password: secret, relayConfig: { urls: [relayUrl] }, rtcConfig: { iceServers: [] } }, room);
  const act = r.makeAction('rk');
  await new Promise((resolve) => { r.onPeerJoin = (id) => resolve(id) });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const big = 'z'.repeat(2 * 2 ** 20);
  for (let n = 0; n < 15; n++) {  // 15 messages of 2 MB, each cut off after its first megabyte or so: never finished
    const stop = new AbortController();
    const going = act.send(big, { signal: stop.signal, onProgress: (p) => { if (p > 0.45 && !stop.signal.aborted) stop.abort() } })
      .catch(() => null);
    await going;
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return true;
}
"""


def heap(cdp) -> float:
    """MB the page's JavaScript holds: its heap and the array buffers' backing stores (the chunks)."""
    cdp.send("HeapProfiler.collectGarbage")
    usage = cdp.send("Runtime.getHeapUsage")
    return (usage["usedSize"] + usage.get("backingStorageSize", 0) + usage.get("embedderHeapUsedSize", 0)) / 2**20


def test_chunks_of_messages_that_never_finish_do_not_grow_the_game_masters_memory(browser, site, relay):  # noqa: F811 (the fixture)
    gm_ctx, hostile_ctx = phone(browser), phone(browser)
    try:
        gm = open_app(gm_ctx, gm_url(site)).page
        add_combatant(gm, "Aldric", hp=30, side="party", pc=True, initiative=18)
        link = go_live(gm)
        cdp = gm_ctx.new_cdp_session(gm)
        before = heap(cdp)
        room, secret, _key = link.split("#live=")[1].split(".")
        hostile = hostile_ctx.new_page()
        hostile.goto(site["url"] + "/no-such-page")  # our origin, no app: a bare peer with Trystero
        assert hostile.evaluate(CHUNKS, [build.TEST_RELAY, room, secret]) is True
        # Until the guard has cut the chunks (its own counts: no fixed wait), then what the page holds.
        gm.wait_for_function("RK.importLive().then(m => m.guardStats.dropped > 500 && m.guardStats.closed >= 1)", polling=200)
        stats = gm.evaluate("RK.importLive().then(m => ({...(m.guardStats || {})}))")
        grown = heap(cdp) - before
        # Without the guard: 13.5 MB kept (measured on the build before it); with it, what is cut is freed.
        assert stats["dropped"] > 500 and stats["closed"] >= 1 and stats["open"] <= 8, stats
        assert grown < 4, f"the game master's memory grew {grown:.1f} MB"
        # The page still answers, and the closed ones were counted as refused.
        wait_text(gm, "live-followers", r"messages? refused")
    finally:
        close(gm_ctx, hostile_ctx)
