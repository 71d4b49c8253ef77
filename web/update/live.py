"""The live table: the game master's phone hosts (the one writer), players' phones and the table
display follow. Other phones are one more source of messages (PeerChanged, PeerSaid) and one more
kind of effect (LiveConnect, LiveSend ...); what they send is read by pyengine.live, whole, and can
change no fight."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyengine.handoff import table_view
from pyengine.live import FROM_FOLLOWER, FROM_HOST, LiveError, read_message, read_room

from ..effects import (
    ClearLink,
    Effect,
    KeepAwake,
    LiveConnect,
    LiveLeave,
    LiveSend,
    OpenDisplay,
    RenderNotices,
    RenderSheet,
    SayOnLine,
    ShowLiveLink,
    StoreLive,
)
from ..live import followers_line, state_line
from ..messages import DisplayOpened, LiveFollowed, LiveOpened, LiveStopped, LiveTicked, PeerChanged, PeerSaid
from ..model import Live, Model, Peer
from ..persist import Notice
from .common import Result, closed, notify, opened

__all__ = ["UPDATES", "broadcast"]


def _hosted(model: Model, m: LiveOpened) -> Result:
    live = model.live
    fresh = not live.hosting
    if fresh:
        live = Live(role="host", room=m.room, secret=m.secret, relays=m.relays, stun=m.stun, display=live.display)
    model = replace(model, live=live)
    effects: tuple[Effect, ...] = ((StoreLive((live.room, live.secret)), LiveConnect("host", live.room, live.secret, live.relays, live.stun))
                                   if fresh else ())
    if m.shown:
        model, shown = opened(model, "live")
        effects += shown + (ShowLiveLink(f"live={live.room}.{live.secret}"),)
    return model, effects


def _stopped(model: Model, m: LiveStopped) -> Result:
    """The table stops being live (the host) or this phone stops following; the table display keeps
    its channel (it has no network)."""
    if model.live.role == "off":
        return model, ()
    was_following = model.live.following
    model = replace(model, live=Live(display=model.live.display and model.live.hosting))
    model, effects = closed(model)
    return model, (LiveLeave(), StoreLive(None), *effects, KeepAwake()) + ((ClearLink(),) if was_following else ())


def _followed(model: Model, m: LiveFollowed) -> Result:
    if m.fragment == "display":
        live = Live(role="display")
        model, effects = opened(replace(model, live=live), "live-follow")
        return model, (LiveConnect("display", hello=m.name), *effects)
    try:
        room, secret, key = read_room(m.fragment)
    except LiveError as error:
        return notify(model, Notice("error", str(error))), (ClearLink(), RenderNotices())
    live = Live(role="follow", room=room, secret=secret, host_key=key, relays=m.relays, stun=m.stun)
    model, effects = opened(replace(model, live=live), "live-follow")
    return model, (LiveConnect("follow", room, secret, m.relays, m.stun, hello=m.name, host_key=key), *effects, KeepAwake())


def _peer_changed(model: Model, m: PeerChanged) -> Result:
    live = model.live
    if live.role == "off":
        return model, ()
    known = next((p for p in live.peers if p.id == m.peer), None)
    if known is None:
        peers = live.peers + ((Peer(m.peer),) if m.joined else ())
    else:
        peers = tuple(replace(p, connected=m.joined) if p.id == m.peer else p for p in live.peers)
    model = replace(model, live=replace(live, peers=peers))
    effects: tuple[Effect, ...] = ()
    if live.hosting and m.joined:
        # One who joins (late, or back after a reload) gets the present at once.
        effects = (LiveSend(table_view(model.timeline.present), m.peer),)
    return model, effects + _redraw(model)


def _said(model: Model, m: PeerSaid) -> Result:
    live = model.live
    if m.peer == "display" and not live.following:
        # The game master's own windows (BroadcastChannel): a table display's hello gets the present;
        # what another tab of ours posts for its display is not for us.
        try:
            read_message(m.text, FROM_FOLLOWER)
        except LiveError:
            return model, ()
        view = table_view(model.timeline.present)
        return replace(model, live=replace(live, display=True, sent=view)), (LiveSend(view, "display"),)
    if live.role == "off":
        return model, ()
    expected = FROM_FOLLOWER if live.hosting else FROM_HOST
    try:
        if m.text is None:
            raise LiveError("too large")
        message = read_message(m.text, expected)
    except LiveError:
        return replace(model, live=replace(live, refused=live.refused + 1)), _redraw(model)
    if live.hosting:
        peers = live.peers if any(p.id == m.peer for p in live.peers) else live.peers + (Peer(m.peer),)
        peers = tuple(replace(p, name=message.name, connected=True) if p.id == m.peer else p for p in peers)
        return replace(model, live=replace(live, peers=peers)), _redraw(model)
    if message.kind == "beat":
        if m.peer != live.host:
            return model, ()
        was = live.host_here()
        live = replace(live, heard_ms=m.at_ms, now_ms=max(live.now_ms, m.at_ms))
        return replace(model, live=live), (SayOnLine("live-state", state_line(live)),) if was != live.host_here() else ()
    if message.revision <= live.revision:
        return model, ()  # older than what is shown (or the same again): ignored
    peers = live.peers
    if live.role == "follow" and not any(p.id == m.peer for p in peers):
        peers = peers + (Peer(m.peer),)
    live = replace(live, view=message.view, revision=message.revision, host=m.peer, updated_ms=m.at_ms, now_ms=m.at_ms,
                   heard_ms=m.at_ms, peers=peers)
    return replace(model, live=live), (RenderSheet(),) if model.ui.sheet == ("live-follow", None) else ()


def _ticked(model: Model, m: LiveTicked) -> Result:
    if not model.live.following:
        return model, ()
    model = replace(model, live=replace(model.live, now_ms=m.now_ms))
    return model, (SayOnLine("live-state", state_line(model.live)),)


def _display(model: Model, m: DisplayOpened) -> Result:
    view = table_view(model.timeline.present)
    model = replace(model, live=replace(model.live, display=True, sent=view))
    return model, (OpenDisplay(), LiveSend(view, "display"))


def _redraw(model: Model) -> tuple[Effect, ...]:
    """The line that changed, on the screen that shows it."""
    if model.ui.sheet == ("live", None):
        return (SayOnLine("live-followers", followers_line(model.live)),)
    return (SayOnLine("live-state", state_line(model.live)),) if model.ui.sheet == ("live-follow", None) else ()


def broadcast(before: Model, after: Model) -> tuple[Model, tuple[Effect, ...]]:
    """After every update: while the table is live (or a table display listens), a change to what
    the players may see goes out, once. Only the players' view is ever sent (hidden data is not in it)."""
    live = after.live
    if not (live.hosting or live.display) or (after.timeline is before.timeline and live is before.live):
        return after, ()
    view = table_view(after.timeline.present)
    if view == live.sent:
        return after, ()
    return replace(after, live=replace(live, sent=view)), (LiveSend(view),)


UPDATES: dict[type, Callable[[Model, Any], Result]] = {
    LiveOpened: _hosted,
    LiveStopped: _stopped,
    LiveFollowed: _followed,
    PeerChanged: _peer_changed,
    PeerSaid: _said,
    LiveTicked: _ticked,
    DisplayOpened: _display,
}
