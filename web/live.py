"""What the live table says of itself: a follower's connection line, the game master's followers
line (pure functions of the model's Live)."""

from __future__ import annotations

from .model import Live, Peer

__all__ = ["state_line", "followers_line", "muted", "relays_line", "STALE_MS"]

STALE_MS = 15_000   # a follower without its host this long says "last update … ago" (before: "reconnecting…")


def state_line(live: Live) -> str:
    """What a follower says of its connection: "live", "reconnecting…" or "last update 40 s ago"."""
    if live.host_here():
        return "live"
    if live.direct:
        # Joined by two scans: no relay to look again through; a lost connection needs the two scans again.
        if not live.revision:
            return "connecting to the game master's phone…"
        ago = max(0, int((live.now_ms - live.updated_ms) // 1000))
        return f"connection lost (last update {_ago(ago)} ago) · join again: Menu → Join a table, two scans"
    if not live.revision:
        return "reconnecting… looking for the game master's phone"
    ago = max(0, int((live.now_ms - live.updated_ms) // 1000))
    if ago * 1000 < STALE_MS:
        return "reconnecting…"
    return f"last update {_ago(ago)} ago · reconnecting…"


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
    """The phones muted for sending too much (web/update/live.py's rate limit), now: (peer, until ms)."""
    return [(peer, until) for peer, _, _, until in live.limits if until > live.now_ms]


def followers_line(live: Live) -> str:
    """The game master's line: how many phones follow, and how each is connected."""
    # A phone that reloaded comes back under a new id: its old entry goes once the new one named itself.
    named_now = {p.name for p in live.peers if p.connected and p.name}
    peers = [(i, p) for i, p in enumerate(live.peers) if p.connected or not p.name or p.name not in named_now]
    on = [p for _, p in peers if p.connected]
    if not peers:
        text = "No phone follows yet."
    else:
        names = ", ".join(f"{p.name or f'phone {i + 1}'} ({_how(p)})" for i, p in peers)
        text = f"{len(on)} {'phone follows' if len(on) == 1 else 'phones follow'}: {names}."
    if live.display:
        text += " A table display follows on this device."
    if live.refused:
        text += f" {live.refused} {'message' if live.refused == 1 else 'messages'} refused."
    called = {p.id: p.name or f"phone {i + 1}" for i, p in enumerate(live.peers)}
    for peer, until in muted(live):
        text += f" {called.get(peer, 'A phone')} sent too much: muted for {max(1, round((until - live.now_ms) / 1000))} s."
    if live.limited:
        text += f" {live.limited:,} {'message' if live.limited == 1 else 'messages'} over the limit, dropped."
    return text


def relays_line(live: Live) -> str:
    """What the game master's No internet section says of the relays."""
    if live.hosting and not live.relays:
        return "This table is live without the relays: players join with two scans each."
    if live.relays_up == 0:
        return "The relays cannot be reached (no internet?): players on this Wi-Fi can join with two scans each."
    return "No internet at the table? Phones on the same Wi-Fi (or this phone's hotspot) can join with two scans each."
