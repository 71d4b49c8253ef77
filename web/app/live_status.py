"""What the live table says of itself: a follower's connection line, the game master's followers
line (pure functions of the model's Live)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pyengine.fair import is_secret
from pyengine.live import MAX_SEED, state_text
from pyengine.model import Combatant
from web.app.effects import LiveSend
from web.app.html import view_body_html
from web.app.model import Live, Peer, Request

__all__ = ["state_sent", "gone_for", "playing", "state_line", "state_kind", "networks_line", "answering", "followers_line", "muted", "relays_line", "live_table_text", "read_live_table", "STALE_MS",
           "MAX_KEPT_CLAIMS", "MAX_KEPT_TRUSTED", "MAX_KEPT_REQUESTS"]

STALE_MS = 15_000   # a follower without its host this long says "last update … ago" (before: "reconnecting…")


def state_sent(e: LiveSend, sender: str) -> str:
    """The text of a state sent (pyengine/live.py's `state_text`), with the view as drawn
    (web/app/html.view_body_html: the very HTML the follower's own screen draws) for a phone whose
    engine is not ready yet (static/early.mjs). `sender`: this page's id in the room."""
    return state_text(e.view, e.revision, [list(i) for i in e.ids], list(e.turn), sender, e.session, view_body_html(e.view), e.pcs,
                      e.fight)


def state_line(live: Live) -> str:
    """What a follower says of its connection: "live", "reconnecting…" or "last update 40 s ago"."""
    if live.role == "display" and live.said:
        return live.said  # (a table display opened without its key: update/live.NOT_KEYED)
    if live.host_here():
        down = live.networks[1] > 0 or live.networks[3] > 0
        if down and live.networks[0] <= 0 and live.networks[2] <= 0 and not live.direct:
            return "live · the relays do not answer: if this phone drops, it comes back when one does"
        return "live"
    if live.direct:
        # Joined by two scans: no relay to look again through; a lost connection needs the two scans again.
        if not live.revision:
            return "connecting to the game master's phone…"
        ago = max(0, int((live.now_ms - live.current_ms()) // 1000))
        return f"connection lost (last update {_ago(ago)} ago) · join again: Menu → Join a table, two scans"
    if not live.revision:
        return "reconnecting… looking for the game master's phone"
    ago = max(0, int((live.now_ms - live.current_ms()) // 1000))
    if ago * 1000 < STALE_MS:
        return "reconnecting…"
    return f"last update {_ago(ago)} ago · reconnecting…"


def answering(networks: tuple[int, int, int, int]) -> int:
    """How many relays answer, of both networks (-1: neither is used, or not known yet)."""
    if networks[1] < 0 and networks[3] < 0:
        return -1
    return max(0, networks[0]) + max(0, networks[2])


def networks_line(live: Live) -> str:
    """Which relay networks answer: "relays: Nostr 3 of 4, WebTorrent 0 of 3" (why phones would not meet)."""
    nostr_up, nostr_all, torrent_up, torrent_all = live.networks
    parts = [f"{name} {up} of {asked}" for name, up, asked in (("Nostr", nostr_up, nostr_all), ("WebTorrent", torrent_up, torrent_all))
             if asked > 0]
    if not parts:
        if not (live.relays or live.nostr):
            return ""
        # Not checked yet (this tab's first seconds): what it knows is said, not a state older than the
        # phones listed beside it (a phone connected came through the relays).
        here = len({p.device or p.id for p in live.peers if p.connected and not p.id.startswith("direct-")})
        return (f"relays: checking…; {here} {'phone' if here == 1 else 'phones'} connected through them." if here
                else "relays: connecting…")
    if nostr_up <= 0 and torrent_up <= 0:
        return f"relays: {', '.join(parts)}: none answers (no internet?); phones already here stay connected, new ones cannot join."
    return f"relays: {', '.join(parts)}."


def state_kind(live: Live) -> str:
    """The follower's line as one word for its dot's colour: "live", "waiting" (still looking) or "lost"."""
    if live.host_here():
        return "live"
    if live.direct and live.revision:
        return "lost"
    return "lost" if live.revision and live.now_ms - live.current_ms() >= STALE_MS else "waiting"


def _ago(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"


def _how(peer: Peer) -> str:
    if not peer.id.startswith("direct-"):
        return "connected" if peer.connected else "disconnected"
    return "connected, no internet" if peer.connected else "disconnected: join it again with two scans"


def muted(live: Live) -> list[tuple[str, float]]:
    """The phones muted for sending too much (web/app/update/live.py's rate limit), now: (peer, until ms)."""
    return [(peer, until) for peer, _, _, until in live.limits if until > live.now_ms]


def gone_for(live: Live, device: str, now: float) -> float | None:
    """How long the phone `device` has been gone (no connection): since its last connection went, or
    since this page first heard the room if it has not come back since; None while it is connected."""
    mine = [p for p in live.peers if p.device == device]
    if any(p.connected for p in mine):
        return None
    left = max((p.left_ms for p in mine), default=0.0) or live.since_ms
    return max(0.0, now - left)


def playing(live: Live) -> str:
    """The character this phone plays in the fight it shows ("": none there; what it was told it
    plays names a character of one fight only, and another fight's view ids are others)."""
    return live.you if live.you and any(i == live.you for i, _, _ in live.ids) else ""


def followers_line(live: Live, combatants: Iterable[Combatant] = (), eid: str = "") -> str:
    """The game master's line: how many phones follow, each once (a phone that reloaded comes back under
    a new connection with the same device id), called by the character it plays (among `combatants`),
    else by its own name; a table display while its window is open."""
    names = {c.id: c.name for c in combatants}
    claimed = {device: cid for device, e, cid in live.claims if e == eid}  # (the fight `combatants` are of)
    phones: dict[str, tuple[int, Peer]] = {}
    for i, p in enumerate(live.peers):
        if not (p.connected or p.device or p.name or p.id.startswith("direct-")):
            continue  # left before it said who it was (one joined by codes is offered the codes again)
        key = p.device or p.id
        known = phones.get(key)
        if known is None or p.connected or not known[1].connected:  # the newest, the connected one first
            phones[key] = (known[0] if known else i, p)
    listed = sorted(phones.values(), key=lambda x: x[0])
    on = [p for _, p in listed if p.connected]
    if not listed:
        text = "No phone follows yet."
    else:
        def called(n: int, p: Peer) -> str:
            cid = claimed.get(p.device, "")
            return names.get(cid, "") or p.name or f"phone {n + 1}"
        parts = [f"{called(n, p)} ({_how(p)})" for n, (_, p) in enumerate(listed)]
        text = f"{len(on)} {'phone follows' if len(on) == 1 else 'phones follow'}: {', '.join(parts)}."
    if live.display:
        text += " A table display follows on this device."
    if live.refused:
        text += f" {live.refused} {'message' if live.refused == 1 else 'messages'} refused."
    who = {p.id: p.name or f"phone {i + 1}" for i, p in enumerate(live.peers)}
    for peer, until in muted(live):
        text += f" {who.get(peer, 'A phone')} sent too much: muted for {max(1, round((until - live.now_ms) / 1000))} s."
    if live.limited:
        text += f" {live.limited:,} {'message' if live.limited == 1 else 'messages'} over the limit, dropped."
    if live.unread:
        text += f" {live.unread:,} more {'message' if live.unread == 1 else 'messages'} dropped unread (sent too fast or too large)."
    if live.turned_away:
        text += (f" {live.turned_away} {'claim' if live.turned_away == 1 else 'claims'} of phones not let in dropped "
                 "(too many at once).")
    if live.unshown:
        text += f" {live.unshown} {'roll' if live.unshown == 1 else 'rolls'} not shown by {'its phone' if live.unshown == 1 else 'their phones'}."
    return text


REQUEST_KINDS = ("claim", "done", "roll", "attack", "cast", "heal", "temp", "dsave")
MAX_KEPT_CLAIMS = 200   # (device, fight, character) kept, in the model and with the room: the newest
MAX_KEPT_TRUSTED = 100  # (device, name) approved once, likewise
# (claims, trusted, requests, key): what read_live_table finds kept with a room
LiveTable = tuple[tuple[tuple[str, str, str], ...], tuple[tuple[str, str], ...], tuple[Request, ...], str]
MAX_KEPT_REQUESTS = 20


def live_table_text(live: Live) -> str:
    """What the game master's phone keeps with its live room, as it changes: the claims it approved
    and the requests still waiting (by device: a phone's connection is new after any reload)."""
    return json.dumps({"room": live.room, "claims": [list(c) for c in live.claims[-MAX_KEPT_CLAIMS:]],
                       "trusted": [list(t) for t in live.trusted[-MAX_KEPT_TRUSTED:]],
                       "requests": [[r.id, r.device, r.kind, r.cid, r.text, r.target, r.amount, r.rid, r.seed, r.weapon, r.typed, r.eid, r.dtype, r.spell]
                                    for r in live.requests[-MAX_KEPT_REQUESTS:]], "key": live.key}, separators=(",", ":"))


def read_live_table(text: str, room: str) -> LiveTable:
    """The claims, the trusted (phone, name) pairs and waiting requests kept for `room` (another room's,
    or anything damaged: none), and the key its answers to players' commitments are made from ("":
    none kept). A claim kept before claims were per fight (two items) is dropped: its phone asks again."""
    try:
        doc: Any = json.loads(text) if text and len(text) < 100_000 else None
    except ValueError:
        return (), (), (), ""
    if not isinstance(doc, dict) or doc.get("room") != room:
        return (), (), (), ""

    def short(x: object, n: int = 40) -> bool:
        return isinstance(x, str) and 0 < len(x) <= n

    def listed(key: str, n: int) -> list[object]:
        found = doc.get(key)
        return found[:n] if isinstance(found, list) else []

    claims = tuple((c[0], c[1], c[2]) for c in listed("claims", MAX_KEPT_CLAIMS)
                   if isinstance(c, list) and len(c) == 3 and short(c[0]) and short(c[1]) and short(c[2]))
    trusted = tuple((t[0], t[1]) for t in listed("trusted", MAX_KEPT_TRUSTED)
                    if isinstance(t, list) and len(t) == 2 and short(t[0]) and short(t[1], 200))
    requests = []
    for r in listed("requests", MAX_KEPT_REQUESTS):
        # (a cast spell's target is its targets' ids, joined by commas: up to 12)
        if (isinstance(r, list) and len(r) in (8, 10, 11, 12, 13, 14) and type(r[0]) is int and short(r[1]) and r[2] in REQUEST_KINDS
                and short(r[3]) and short(r[4], 2000) and isinstance(r[5], str) and len(r[5]) <= (12 * 41 if r[2] == "cast" else 40)
                and type(r[6]) is int and type(r[7]) is int):
            seed, weapon = (r[8], r[9]) if len(r) >= 10 else (0, "")
            typed = r[10] if len(r) >= 11 else False
            eid = r[11] if len(r) >= 12 else ""
            dtype = r[12] if len(r) >= 13 else ""
            spell = r[13] if len(r) == 14 else ""
            if (type(seed) is int and 0 <= seed < MAX_SEED and isinstance(weapon, str) and len(weapon) <= 60 and type(typed) is bool
                    and isinstance(eid, str) and len(eid) <= 40 and isinstance(dtype, str) and len(dtype) <= 60
                    and isinstance(spell, str) and len(spell) <= 100):
                requests.append(Request(r[0], "", r[1], r[2], r[3], r[4], r[5], r[6], r[7], seed, weapon, typed, eid, dtype, spell))
    key = doc.get("key")
    return claims, trusted, tuple(requests), str(key) if is_secret(key) else ""


def relays_line(live: Live) -> str:
    """What the game master's No internet section says of the relays."""
    if live.hosting and not live.relays and not live.nostr:
        return "This table is live without the relays: players join with two scans each."
    if live.relays_up == 0:
        return "The relays cannot be reached (no internet?): players on this Wi-Fi can join with two scans each."
    return "No internet at the table? Phones on the same Wi-Fi (or this phone's hotspot) can join with two scans each."
