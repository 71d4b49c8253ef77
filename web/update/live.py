"""The live table: the game master's phone hosts (the one writer), players' phones and the table
display follow. Other phones are one more source of messages (PeerChanged, PeerSaid) and one more
kind of effect (LiveConnect, LiveSend ...); what they send is read by pyengine.live, whole, and can
change no fight."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from random import Random
from typing import Any

from pyengine.dice import roll
from pyengine.errors import EngineError
from pyengine.handoff import fight_id, players_ids, shown_to_players, table_view, view_id
from pyengine.live import (
    DEFAULT_RELAYS,
    DEFAULT_STUN,
    FROM_FOLLOWER,
    FROM_HOST,
    RELAY_SCHEMES,
    STUN_SCHEMES,
    Incoming,
    LiveError,
    check_relays,
    hello_text,
    newer,
    read_message,
    read_room,
    read_servers,
    request_text,
    you_text,
)
from pyengine.text import clean_text
from pyengine.turns import active_unit

from ..effects import (
    ClearLink,
    Effect,
    FillForm,
    ForgetLive,
    KeepAwake,
    LiveConnect,
    LiveLeave,
    LiveSend,
    LiveTell,
    OpenDisplay,
    Refuse,
    RenderNotices,
    RenderSheet,
    SayOnLine,
    SetField,
    ShowLiveLink,
    StoreServers,
    Toast,
)
from ..live import followers_line, muted, state_line
from ..messages import (
    AutoDoneToggled,
    ClaimTapped,
    DisplayOpened,
    DoneTapped,
    InitiativeSent,
    LiveAttackPicked,
    LiveFollowed,
    LiveOpened,
    LiveStopped,
    LiveTicked,
    PeerChanged,
    PeerSaid,
    RequestAnswered,
    RollSent,
    ServersSaved,
)
from ..model import Live, Model, Peer, Request
from ..persist import Notice
from .common import Result, act, closed, notify, opened
from .pairing import GM_PEER

__all__ = ["UPDATES", "broadcast", "muted_peers", "BURST", "RATE", "MUTE_MS", "MAX_WAITING", "MAX_WAITING_PER_PHONE"]


def _present(model: Model, peer: str | None = None) -> LiveSend:
    """The present as the players may see it: the view, and who is who in it (ids, whose turn)."""
    enc = model.timeline.present
    ids, turn = players_ids(enc, model.live.secret)
    return LiveSend(table_view(enc), peer, tuple((a, b, c) for a, b, c in ids), tuple(turn))


def _hosted(model: Model, m: LiveOpened) -> Result:
    live = model.live
    fresh = not live.hosting
    if fresh:
        live = Live(role="host", room=m.room, secret=m.secret, relays=m.relays, stun=m.stun, display=live.display)
    model = replace(model, live=live)
    effects: tuple[Effect, ...] = (LiveConnect("host", live.room, live.secret, live.relays, live.stun),) if fresh else ()
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
    return model, (LiveLeave(), ForgetLive(), *effects, KeepAwake()) + ((ClearLink(),) if was_following else ())


def _followed(model: Model, m: LiveFollowed) -> Result:
    if m.fragment == "display":
        live = Live(role="display")
        model, effects = opened(replace(model, live=live), "live-follow")
        return model, (LiveConnect("display", hello=m.name), *effects)
    try:
        room, secret, key = read_room(m.fragment)
    except LiveError as error:
        return notify(model, Notice("error", str(error))), (ClearLink(), RenderNotices())
    live = Live(role="follow", room=room, secret=secret, host_key=key, relays=m.relays, stun=m.stun, me=m.name, device=m.device)
    model, effects = opened(replace(model, live=live), "live-follow")
    return model, (LiveConnect("follow", room, secret, m.relays, m.stun, host_key=key), *effects, KeepAwake())


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
        effects = (_present(model, m.peer),)
    elif live.role == "follow" and m.joined and m.peer == live.gm:
        # Met the game master's phone itself (its states may have come through another player's).
        effects = (LiveTell(hello_text(live.me, live.device), m.peer),)
    elif live.direct and m.peer == GM_PEER and m.joined:
        # Joined by two scans: the player's view opens (the game master's phone sends the present).
        model = replace(model, live=replace(model.live, answer="", pairing=""))
        model, effects = opened(model, "live-follow")
        return model, effects
    elif live.direct and m.peer == GM_PEER:
        return model, _follow_redraw(model)  # lost: its view offers the two scans again
    return model, effects + _redraw(model)


# A phone's messages to the game master's (issue 37, item 1): a token bucket per phone. A player sends a
# few a minute (hello, claim, initiative, I'm done, a roll; a follower passes the game master's states
# on). Past BURST at once, RATE a second; a phone that keeps sending once its bucket is empty for as
# many again is muted for MUTE_MS. What is dropped is counted, never parsed, drawn or answered.
BURST = 20
RATE = 5.0                  # messages a second, refilled
MUTE_MS = 60_000.0
MAX_WAITING_PER_PHONE = 5   # requests waiting for Apply / Dismiss from one phone
MAX_WAITING = 20            # and from all


def _admitted(live: Live, peer: str, now: float) -> tuple[bool, Live, bool]:
    """(taken, the live state with this phone's bucket, whether it was muted just now)."""
    found = next((x for x in live.limits if x[0] == peer), None)
    tokens, at, muted = (found[1], found[2], found[3]) if found else (float(BURST), now, 0.0)
    others = tuple(x for x in live.limits if x[0] != peer)[-49:]  # (a bounded list: peer ids are anyone's to make up)
    if now < muted:
        return False, replace(live, limits=others + ((peer, tokens, at, muted),), limited=live.limited + 1), False
    tokens = min(float(BURST), tokens + max(0.0, now - at) / 1000.0 * RATE)
    if tokens >= 1.0:
        return True, replace(live, limits=others + ((peer, tokens - 1.0, now, 0.0),)), False
    tokens -= 1.0  # in debt: a phone that keeps sending goes on counting down
    just_muted = tokens <= -BURST
    state = (peer, 0.0 if just_muted else tokens, now, now + MUTE_MS if just_muted else 0.0)
    return False, replace(live, limits=others + (state,), limited=live.limited + 1), just_muted


def muted_peers(live: Live) -> list[str]:
    """The phones muted for sending too much, now."""
    return [peer for peer, _ in muted(live)]


def _said(model: Model, m: PeerSaid) -> Result:
    live = model.live
    if live.hosting and m.peer != "display":
        taken, live, just_muted = _admitted(replace(live, now_ms=max(live.now_ms, m.at_ms)), m.peer, m.at_ms)
        model = replace(model, live=live)
        if not taken:  # counted; said once, as the phone is muted
            return model, _redraw(model) if just_muted else ()
    if m.peer == "display" and not live.following:
        # The game master's own windows (BroadcastChannel): a table display's hello gets the present;
        # what another tab of ours posts for its display is not for us.
        try:
            read_message(m.text, FROM_FOLLOWER)
        except LiveError:
            return model, ()
        present = _present(model, "display")
        return replace(model, live=replace(live, display=True, sent=_sent(present))), (present,)
    if live.role == "off":
        return model, ()
    expected = FROM_FOLLOWER if live.hosting else FROM_HOST
    try:
        if m.text is None:
            raise LiveError("too large")
        message = read_message(m.text, expected)
    except LiveError:
        return _refused(model)
    if live.hosting:
        return _asked(model, m, message)
    if message.kind == "you":
        if m.peer != live.gm:
            return model, ()  # told to one phone, straight from the game master's (never passed on)
        live = replace(live, you=message.cid, said="")
        return replace(model, live=live), _follow_redraw(model)
    if message.kind == "beat":
        if m.peer != live.host:
            return model, ()
        was = live.host_here()
        live = replace(live, heard_ms=m.at_ms, now_ms=max(live.now_ms, m.at_ms))
        return replace(model, live=live), (SayOnLine("live-state", state_line(live)),) if was != live.host_here() else ()
    if not newer(live.session, live.revision, live.past_sessions, message):
        return model, ()  # older than what is shown (or the same again, or a page left behind): ignored
    if message.session != live.session and live.session:
        live = replace(live, past_sessions=((live.session,) + live.past_sessions)[:20])
    peers = live.peers
    if live.role == "follow" and not any(p.id == m.peer for p in peers):
        peers = peers + (Peer(m.peer),)
    gm = m.peer if live.direct else (message.sender or m.peer)  # (a direct connection has one other end)
    hello: tuple[Effect, ...] = ()
    if live.role == "follow" and gm != live.gm:
        # The game master's phone, new or back after a reload: this phone says who it is, to it alone.
        hello = (LiveTell(hello_text(live.me, live.device), gm),)
    live = replace(live, view=message.view, ids=message.ids, turn=message.turn, revision=message.revision, session=message.session,
                   host=m.peer, gm=gm,
                   updated_ms=m.at_ms, now_ms=m.at_ms, heard_ms=m.at_ms, peers=peers)
    return replace(model, live=live), hello + _follow_redraw(model)


def _follow_redraw(model: Model) -> tuple[Effect, ...]:
    return (RenderSheet(),) if model.ui.sheet == ("live-follow", None) else ()


# -- what players ask (the game master's phone) ---------------------------------------------------

def _asked(model: Model, m: PeerSaid, message: Incoming) -> Result:
    """A follower's message, on the game master's phone: a hello, or a request about the combatant
    its phone plays. Nothing changes the fight here but a player's "I'm done" when the game master
    allowed it (through the same Next turn); a request for a combatant not this phone's is refused."""
    live = model.live
    peer = next((p for p in live.peers if p.id == m.peer), None) or Peer(m.peer)
    if message.kind == "hello":
        peer = replace(peer, name=message.name, device=message.device, connected=True)
        peers = tuple(peer if p.id == m.peer else p for p in live.peers) if any(p.id == m.peer for p in live.peers) \
            else live.peers + (peer,)
        model = replace(model, live=replace(live, peers=peers))
        mine = _claimed(model.live, message.device)
        return model, ((LiveTell(you_text(view_id(live.secret, mine)), m.peer),) if mine else ()) + _redraw(model)
    enc = model.timeline.present
    party = {c.id: c for c in enc.combatants if c.side == "party" and shown_to_players(c)}
    who = peer.name or "A player's phone"
    if message.kind == "claim":  # (the phone names its combatant by the players' view's id)
        cid = fight_id(enc, live.secret, message.cid) or ""
        taken = {x for device, x in live.claims if device != peer.device}
        if not peer.device or cid not in party or cid in taken:
            return _refused(model)
        if _claimed(live, peer.device) == cid:
            return model, (LiveTell(you_text(message.cid), m.peer),)
        asker = who if peer.name and peer.name != party[cid].name else "A phone"  # never "Aria asks to play Aria"
        text = f"{asker} asks to play {party[cid].name}."
        return _request(model, Request(live.asked + 1, m.peer, peer.device, "claim", cid, text))
    mine = _claimed(live, peer.device) if peer.device else ""
    if not mine or mine not in party:
        return _refused(model)  # a request for a combatant this phone does not play
    c = party[mine]
    if message.kind == "init":
        if enc.started:
            return model, ()
        initiatives = tuple((cid, v) for cid, v in live.initiatives if cid != mine) + ((mine, message.value),)
        model = replace(model, live=replace(live, initiatives=initiatives))
        fill = (SetField(f"init-{mine}", str(message.value)),) if model.ui.sheet == ("init", None) else ()
        return model, fill + (Toast(f"{c.name}: initiative {message.value}"),)
    if message.kind == "done":
        if mine not in {x.id for x in active_unit(enc)} or not enc.started:
            return model, ()
        if live.auto_done:
            return _next_turn(model, m.rng)
        return _request(model, Request(live.asked + 1, m.peer, peer.device, "done", mine, f"{c.name} is done: next turn?"))
    found = fight_id(enc, live.secret, message.target)
    target = enc.get(found) if found is not None else None
    if target is None or not shown_to_players(target):
        return _refused(model)
    text = f"{c.name}: {message.text} = {message.value} against {target.name}."
    return _request(model, Request(live.asked + 1, m.peer, peer.device, "roll", mine, text, target.id, message.value))


def _claimed(live: Live, device: str) -> str:
    return next((cid for d, cid in live.claims if d == device), "") if device else ""


def _refused(model: Model) -> Result:
    model = replace(model, live=replace(model.live, refused=model.live.refused + 1))
    return model, _redraw(model)


def _request(model: Model, request: Request) -> Result:
    live = model.live
    if any((r.device, r.kind, r.cid, r.text) == (request.device, request.kind, request.cid, request.text) for r in live.requests):
        return model, ()  # asked twice: once is enough
    if len(live.requests) >= MAX_WAITING or sum(1 for r in live.requests if r.peer == request.peer) >= MAX_WAITING_PER_PHONE:
        return replace(model, live=replace(live, limited=live.limited + 1)), ()  # counted, not drawn
    model = replace(model, live=replace(live, requests=live.requests + (request,), asked=request.id))
    return model, (RenderNotices(), Toast(request.text))


def _next_turn(model: Model, rng: Any) -> Result:
    """The turn passes as by the game master's Next turn (its double-tap guard is for thumbs: a request
    is answered once)."""
    return act(model, "next_turn", {}, rng if rng is not None else Random())


def _answered(model: Model, m: RequestAnswered) -> Result:
    """Apply: the request becomes what the game master would have done (one undoable step); Dismiss: it goes."""
    live = model.live
    request = next((r for r in live.requests if r.id == m.id), None)
    if request is None:
        return model, (RenderNotices(),)
    model = replace(model, live=replace(live, requests=tuple(r for r in live.requests if r.id != m.id)))
    if not m.apply:
        return model, (RenderNotices(), *((LiveTell(you_text(""), request.peer),) if request.kind == "claim" else ()))
    if request.kind == "claim":
        claims = tuple((d, cid) for d, cid in model.live.claims if d != request.device and cid != request.cid)
        model = replace(model, live=replace(model.live, claims=claims + ((request.device, request.cid),)))
        return model, (RenderNotices(), LiveTell(you_text(view_id(model.live.secret, request.cid)), request.peer), *_redraw(model))
    if request.kind == "done":
        if request.cid not in {x.id for x in active_unit(model.timeline.present)}:
            return model, (RenderNotices(), Toast("That turn is over already."))
        model, effects = _next_turn(model, m.rng)
        return model, (RenderNotices(), *effects)
    model, effects = act(model, "damage", {"id": request.target, "amount": request.amount}, m.rng)
    return model, (RenderNotices(), *effects)


def _auto_done(model: Model, m: AutoDoneToggled) -> Result:
    return replace(model, live=replace(model.live, auto_done=m.on)), ()


# -- a player's phone asks ---------------------------------------------------------------------

def _tell_host(model: Model, text: str, said: str) -> Result:
    live = model.live
    if live.role != "follow" or not live.gm:
        return replace(model, live=replace(live, said="Not connected to the game master yet.")), _follow_redraw(model)
    return replace(model, live=replace(live, said=said)), (LiveTell(text, live.gm), *_follow_redraw(model))


def _claim(model: Model, m: ClaimTapped) -> Result:
    return _tell_host(model, request_text("claim", cid=m.cid), "Asked the game master…")


def _initiative(model: Model, m: InitiativeSent) -> Result:
    if m.value is None or abs(m.value) > 1000:
        return model, (Refuse("Initiative is a whole number from -1,000 to 1,000."),)
    return _tell_host(model, request_text("init", value=m.value), f"Initiative {m.value} sent.")


def _done(model: Model, m: DoneTapped) -> Result:
    return _tell_host(model, request_text("done"), "Told the game master you are done.")


def _roll_sent(model: Model, m: RollSent) -> Result:
    live = model.live
    if not live.you:
        return model, (Refuse("First tap your character under \"Which one is you?\"."),)
    if m.target not in {i for i, _, _ in live.ids}:
        return model, (Refuse("Pick a target."),)
    try:
        result = roll(m.expression, m.rng)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    if abs(result.total) > 1_000_000:
        return model, (Refuse("That total is too large to send."),)
    label = clean_text(m.label)[:60]
    text = f"{label + ' ' if label else ''}{m.expression.strip()} ({result.text})"[:200]
    return _tell_host(model, request_text("roll", target=m.target, value=result.total, text=text),
                      f"Sent: {text} = {result.total}. The game master applies it.")


REJOIN_MS = 8_000  # a follower that hears no game master this long joins the room again


def _ticked(model: Model, m: LiveTicked) -> Result:
    """A follower's clock: its line says how it stands; one connected to no phone at all that has
    heard no game master for a while joins the room again (a fresh announce at the relays: the trackers pair phones at random
    and retry only every few minutes by themselves, and a phone that slept or changed networks
    may have lost them)."""
    live = model.live
    if live.hosting:  # the game master's line: what was dropped since, and how long a muted phone still is
        model = replace(model, live=replace(live, now_ms=max(live.now_ms, m.now_ms)))
        return model, _redraw(model)
    if not live.following:
        return model, ()
    live = replace(live, now_ms=m.now_ms, rejoined_ms=live.rejoined_ms or m.now_ms)
    effects: tuple[Effect, ...] = (SayOnLine("live-state", state_line(live)),)
    alone = not any(p.connected for p in live.peers)  # (connected to anyone: what the game master signs comes through)
    if live.role == "follow" and not live.direct and alone and not live.host_here() and m.now_ms - max(live.heard_ms, live.rejoined_ms) >= REJOIN_MS:
        live = replace(live, rejoined_ms=m.now_ms)
        effects += (LiveConnect("follow", live.room, live.secret, live.relays, live.stun, host_key=live.host_key),)
    return replace(model, live=live), effects


def _display(model: Model, m: DisplayOpened) -> Result:
    present = _present(model, "display")
    model = replace(model, live=replace(model.live, display=True, sent=_sent(present)))
    return model, (OpenDisplay(), present)


def _redraw(model: Model) -> tuple[Effect, ...]:
    """The line that changed, on the screen that shows it."""
    if model.ui.sheet == ("live", None):
        return (SayOnLine("live-followers", followers_line(model.live)),)
    return (SayOnLine("live-state", state_line(model.live)),) if model.ui.sheet == ("live-follow", None) else ()


def _sent(present: LiveSend) -> Any:
    return (present.view, present.ids, present.turn)


def broadcast(before: Model, after: Model) -> tuple[Model, tuple[Effect, ...]]:
    """After every update: while the table is live (or a table display listens), a change to what
    the players may see goes out, once. Only the players' view is ever sent (hidden data is not in it)."""
    live, was = after.live, before.live
    if not (live.hosting or live.display) or (after.timeline is before.timeline and (
            live is was or ((live.hosting, live.display, live.secret, live.sent) == (was.hosting, was.display, was.secret, was.sent)
                            and live.sent is not None))):
        return after, ()  # nothing the players' view is made of changed (a counter, a phone's rate)
    present = _present(after)
    if _sent(present) == live.sent:
        return after, ()
    return replace(after, live=replace(live, sent=_sent(present))), (present,)


def _servers_saved(model: Model, m: ServersSaved) -> Result:
    try:
        relays = read_servers(m.relays, RELAY_SCHEMES, DEFAULT_RELAYS)
        stun = read_servers(m.stun, STUN_SCHEMES, DEFAULT_STUN)
        if not relays:
            raise LiveError("The live table needs at least one relay.")
        check_relays(relays, m.allowed)
    except LiveError as error:
        return model, (Refuse(str(error)),)
    when = "the next time the table goes live" if model.live.hosting else "when the table goes live"
    return model, (StoreServers(relays, stun), SayOnLine("live-servers-out", f"Saved: used {when}."))


def _attack_picked(model: Model, m: LiveAttackPicked) -> Result:
    return model, (FillForm((("live-dice", m.dice), ("live-label", m.label)), "live-target"),)


UPDATES: dict[type, Callable[[Model, Any], Result]] = {
    LiveOpened: _hosted,
    LiveStopped: _stopped,
    LiveFollowed: _followed,
    PeerChanged: _peer_changed,
    PeerSaid: _said,
    LiveTicked: _ticked,
    DisplayOpened: _display,
    RequestAnswered: _answered,
    AutoDoneToggled: _auto_done,
    ClaimTapped: _claim,
    InitiativeSent: _initiative,
    DoneTapped: _done,
    RollSent: _roll_sent,
    LiveAttackPicked: _attack_picked,
    ServersSaved: _servers_saved,
}
