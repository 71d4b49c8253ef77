"""What the live table says of itself: a follower's connection line, the game master's followers
line (pure functions of the model's Live)."""

from __future__ import annotations

from .model import Live

__all__ = ["state_line", "followers_line", "STALE_MS"]

STALE_MS = 15_000   # a follower without its host this long says "last update … ago" (before: "reconnecting…")


def state_line(live: Live) -> str:
    """What a follower says of its connection: "live", "reconnecting…" or "last update 40 s ago"."""
    if live.host_here():
        return "live"
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


def followers_line(live: Live) -> str:
    """The game master's line: how many phones follow, and how each is connected."""
    # A phone that reloaded comes back under a new id: its old entry goes once the new one named itself.
    named_now = {p.name for p in live.peers if p.connected and p.name}
    peers = [(i, p) for i, p in enumerate(live.peers) if p.connected or not p.name or p.name not in named_now]
    on = [p for _, p in peers if p.connected]
    if not peers:
        text = "No phone follows yet."
    else:
        names = ", ".join(f"{p.name or f'phone {i + 1}'} ({'connected' if p.connected else 'disconnected'})"
                          for i, p in peers)
        text = f"{len(on)} {'phone follows' if len(on) == 1 else 'phones follow'}: {names}."
    if live.display:
        text += " A table display follows on this device."
    if live.refused:
        text += f" {live.refused} {'message' if live.refused == 1 else 'messages'} refused."
    return text
