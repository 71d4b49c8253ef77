"""The live table: the game master's phone hosts (the one writer), players' phones and the table
display follow. Other phones are one more source of messages (PeerChanged, PeerSaid) and one more
kind of effect (LiveConnect, LiveSend ...); what they send is read by pyengine.live, whole, and can
change no fight."""

from __future__ import annotations

from dataclasses import replace
from random import Random, SystemRandom
from typing import assert_never

from pyengine.dice import roll
from pyengine.fair import joint_seed, new_secret
from pyengine.handoff import fight_token, pc_state, players_id, players_ids, shown_to_players, table_view
from pyengine.live import (
    DEFAULT_NOSTR,
    DEFAULT_RELAYS,
    DEFAULT_STUN,
    FROM_FOLLOWER,
    FROM_HOST,
    RELAY_SCHEMES,
    STUN_SCHEMES,
    Answer,
    Beat,
    Bye,
    Drawn,
    LiveError,
    SaveAsk,
    State,
    You,
    check_relays,
    hello_text,
    newer,
    read_message,
    read_room,
    read_servers,
    request_text,
    you_text,
)
from web.app.effects import (
    ClearLink,
    Effect,
    FillForm,
    ForgetLive,
    KeepAwake,
    KeepLiveTable,
    LiveConnect,
    LiveLeave,
    LiveSend,
    LiveTell,
    OpenDisplay,
    Refuse,
    RenderNotices,
    RenderSheet,
    SayOnLine,
    ShowLiveLink,
    StoreServers,
)
from web.app.live_status import answering, live_table_text, muted, networks_line, read_live_table, state_kind, state_line
from web.app.messages import (
    AutoDoneToggled,
    AutoSavesToggled,
    ClaimReleased,
    DisplayOpened,
    LiveAttackPicked,
    LiveFollowed,
    LiveLinkOpened,
    LiveOpened,
    LiveResumed,
    LiveStopped,
    PeerChanged,
    PeerSaid,
    RequestAnswered,
    ServersSaved,
    TrayToggled,
)
from web.app.model import Live, Model, Peer
from web.app.storage.records import Notice
from web.app.update.common import Result, closed, notify, opened
from web.app.update.library import loading
from web.app.update.pairing import GM_PEER
from web.app.update.requests import (
    MAX_WAITING,
    MAX_WAITING_PER_PHONE,
    answered,
    asked,
    claimed,
    redraw,
    refused,
    released,
    with_claim,
)

__all__ = ["Handled", "handle", "broadcast", "at_time", "muted_peers", "gm_connected", "follow_redraw", "send_asking", "ANSWER_MS", "NOT_DELIVERED", "BURST", "RATE", "MUTE_MS", "MAX_WAITING", "MAX_WAITING_PER_PHONE"]


def _present(model: Model, peer: str | None = None) -> LiveSend:
    """The present as the players may see it: the view, and who is who in it (ids, whose turn)."""
    enc = model.timeline.present
    ids, turn = players_ids(enc, model.live.secret)
    view = table_view(enc)
    return LiveSend(view, peer, tuple((a, b, c) for a, b, c in ids), tuple(turn), pc_state(enc, model.live.secret),
                    fight=fight_token(model.live.secret, enc))


def _hosted(model: Model, m: LiveOpened) -> Result:
    live = model.live
    fresh = not live.hosting
    if fresh:
        # Taken up again after a reload: the claims the game master approved and the requests still
        # waiting come back with the room (kept by KeepLiveTable as they changed).
        claims, trusted, requests, key = read_live_table(m.kept, m.room)
        live = Live(role="host", room=m.room, secret=m.secret, relays=m.relays, nostr=m.nostr, stun=m.stun, display=live.display,
                    claims=claims, trusted=trusted, requests=requests, asked=max((r.id for r in requests), default=0),
                    key=key or new_secret(m.rng if m.rng is not None else SystemRandom()))
    model = replace(model, live=live)
    effects: tuple[Effect, ...] = (LiveConnect("host", live.room, live.secret, live.relays, live.stun, nostr=live.nostr),) if fresh else ()
    if m.shown:
        model, shown = opened(model, "live")
        effects += shown + (ShowLiveLink(f"live={live.room}.{live.secret}"),)
    if fresh and model.timeline.present.system == "generic":
        # The players' spells are checked against the SRD library: read now (precached, a slice at a
        # time), not when the first spell comes in.
        model, load = loading(model)
        effects += load
    return model, effects


def _resumed(model: Model, m: LiveResumed) -> Result:
    """The room kept for a reload, live again quietly with this page's servers (already live: nothing)."""
    if model.live.role != "off":
        return model, ()
    relays, stun, nostr = model.servers
    return _hosted(model, LiveOpened(m.room, m.secret, relays, stun, shown=False, kept=m.kept, nostr=nostr, rng=m.rng))


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
        live = Live(role="display", said="" if m.keyed else NOT_KEYED)
        model, effects = opened(replace(model, live=live), "live-follow")
        return model, (LiveConnect("display", hello=m.name), *effects)
    try:
        room, secret, key = read_room(m.fragment)
    except LiveError as error:
        return notify(model, Notice("error", str(error))), (ClearLink(), RenderNotices())
    live = Live(role="follow", room=room, secret=secret, host_key=key, relays=m.relays, nostr=m.nostr, stun=m.stun, me=m.name,
                device=m.device, early_taps=model.live.early_taps)  # (the early view's taps: its join is this one)
    model, effects = opened(replace(model, live=live), "live-follow")
    return model, (LiveConnect("follow", room, secret, m.relays, m.stun, host_key=key, nostr=m.nostr), *effects, KeepAwake())


def _link_opened(model: Model, m: LiveLinkOpened) -> Result:
    """A join link opened here: followed with this page's servers, as its first character."""
    relays, stun, nostr = model.servers
    name = str(model.characters[0].get("name", "")) if model.characters else ""
    return _followed(model, LiveFollowed(m.fragment, relays, stun, name, device=m.device, nostr=nostr, keyed=m.keyed))


def _peer_changed(model: Model, m: PeerChanged) -> Result:
    live = model.live
    if live.role == "off":
        return model, ()
    known = next((p for p in live.peers if p.id == m.peer), None)
    if known is None:
        peers = live.peers + ((Peer(m.peer),) if m.joined else ())
    else:
        peers = tuple(replace(p, connected=m.joined, left_ms=p.left_ms if m.joined else m.at_ms) if p.id == m.peer else p for p in live.peers)
    model = replace(model, live=replace(live, peers=peers))
    effects: tuple[Effect, ...] = ()
    if live.hosting and (live.relays or live.nostr) and answering(live.networks) < 0 and model.ui.sheet == ("live", None):
        effects = (SayOnLine("live-networks", networks_line(model.live)),)  # (it counts the phones until the relays are checked)
    if live.hosting and m.joined:
        # One who joins (late, or back after a reload) gets the present at once.
        effects += (_present(model, m.peer),)
    elif live.role == "follow" and m.joined and m.peer == live.gm:
        # Met the game master's phone itself (its states may have come through another player's):
        # hello, and a request that could not be delivered goes now.
        model, again = _deliver_now(model)
        return model, (LiveTell(hello_text(live.me, live.device), m.peer), *again) + redraw(model)
    elif live.direct and m.peer == GM_PEER and m.joined:
        # Joined by two scans: the player's view opens (the game master's phone sends the present).
        model = replace(model, live=replace(model.live, answer="", pairing=""))
        model, effects = opened(model, "live-follow")
        return model, effects
    elif live.direct and m.peer == GM_PEER:
        return model, follow_redraw(model)  # lost: its view offers the two scans again
    return model, effects + redraw(model)


# A phone's messages to the game master's (issue 37, item 1): a token bucket per phone. A player sends a
# few a minute (hello, claim, initiative, I'm done, a roll; a follower passes the game master's states
# on). Past BURST at once, RATE a second; a phone that keeps sending once its bucket is empty for as
# many again is muted for MUTE_MS. What is dropped is counted, never parsed, drawn or answered.
BURST = 20
RATE = 5.0                  # messages a second, refilled
MUTE_MS = 60_000.0


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


def at_time(live: Live, now: float) -> Live:
    """The live state at the clock's `now`. A clock that went back (a phone's time set, a time zone's
    hour) moves every time kept back with it, so that what was heard 3 s ago is still 3 s ago: no phone
    stays "live" for an hour with no game master, none stays muted for an hour, no request waits an hour
    for its "not delivered". (The runtime's clock is monotonic; this keeps the rules right whatever
    clock they are given.)"""
    if now >= live.now_ms:
        return replace(live, now_ms=now) if now != live.now_ms else live
    back = live.now_ms - now

    def moved(t: float) -> float:
        return t - back if t else t

    return replace(live, now_ms=now, heard_ms=moved(live.heard_ms), updated_ms=moved(live.updated_ms),
                   confirmed_ms=moved(live.confirmed_ms), met_ms=moved(live.met_ms),
                   rejoined_ms=moved(live.rejoined_ms), asked_ms=moved(live.asked_ms),
                   limits=tuple((peer, tokens, moved(at), moved(until)) for peer, tokens, at, until in live.limits),
                   draws=tuple(replace(d, at_ms=moved(d.at_ms)) for d in live.draws), since_ms=moved(live.since_ms),
                   peers=tuple(replace(p, left_ms=moved(p.left_ms)) for p in live.peers))


def _said(model: Model, m: PeerSaid) -> Result:
    live = at_time(model.live, m.at_ms) if model.live.role != "off" else model.live
    if live.hosting and not live.since_ms:
        live = replace(live, since_ms=m.at_ms)
    if live.hosting and m.peer != "display":
        taken, live, just_muted = _admitted(live, m.peer, m.at_ms)
        model = replace(model, live=live)
        if not taken:  # counted; said once, as the phone is muted
            return model, redraw(model) if just_muted else ()
    if m.peer == "display" and not live.following:
        return _from_display(replace(model, live=live), m)
    if live.role == "off":
        return model, ()
    expected = FROM_FOLLOWER if live.hosting else FROM_HOST
    try:
        if m.text is None:
            raise LiveError("too large")
        message = read_message(m.text, expected)
    except LiveError as error:
        return refused(model, m.peer, error.rid, str(error)) if live.hosting and error.rid else refused(model)
    if live.hosting:
        return asked(model, m, message)
    if isinstance(message, (You, Answer, Drawn, SaveAsk)):
        if m.peer != live.gm:
            return model, ()  # told to one phone, straight from the game master's (never passed on)
        if isinstance(message, Answer):
            return _answer_heard(model, message)
        if isinstance(message, Drawn):
            return _drawn_heard(model, message)
        if isinstance(message, SaveAsk):
            return _save_asked(model, message)
        played = next((n for i, n, _ in live.ids if i == message.cid), live.played)
        live = replace(live, you=message.cid, played=played)
        return replace(model, live=live), follow_redraw(model)
    if isinstance(message, Beat):
        if m.peer != live.host:
            return model, ()
        was = live.host_here()
        live = replace(live, heard_ms=m.at_ms)
        if (message.session, message.revision) == (live.session, live.revision):
            live = replace(live, confirmed_ms=m.at_ms)  # the view shown is still the game master's newest
        return replace(model, live=live), (SayOnLine("live-state", state_line(live), state_kind(live)),) if was != live.host_here() else ()
    if not isinstance(message, State):
        return model, ()  # (a follower's message: read_message refuses it from FROM_HOST's kinds already)
    return _state_heard(model, live, m, message)


def _state_heard(model: Model, live: Live, m: PeerSaid, message: State) -> Result:
    """A follower takes the game master's newer state (`live`: the model's, at the message's time)."""
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
        if m.peer != gm and not live.direct:
            # Heard through another player's phone only: unless it meets the game master's own within
            # RELAYED_REJOIN_MS, it joins again (its requests go to the game master's phone alone).
            live = replace(live, rejoins=0, rejoined_ms=m.at_ms)
    played = next((n for i, n, _ in message.ids if i == live.you), live.played)
    live = replace(live, view=message.view, ids=message.ids, turn=message.turn, pcs=message.pcs, revision=message.revision, session=message.session,
                   fight=message.fight, played=played, host=m.peer, gm=gm,
                   updated_ms=m.at_ms, now_ms=m.at_ms, heard_ms=m.at_ms, peers=peers)
    if m.peer == gm:
        live = replace(live, met_ms=m.at_ms, rejoins=0)
    model = replace(model, live=live)
    if hello and gm_connected(live):
        model, again = _deliver_now(model)
        hello += again
    return model, hello + follow_redraw(model)


def _deliver_now(model: Model) -> Result:
    """The game master's phone met again: the last request, said not delivered, goes now (the same
    request, the same number: the game master's phone answers it, or refuses what is past)."""
    live = model.live
    if live.role != "follow" or not live.asking or not live.said.startswith(NOT_DELIVERED[:13]):
        return model, ()
    return send_asking(model)


def _from_display(model: Model, m: PeerSaid) -> Result:
    """The game master's own windows (BroadcastChannel): a table display's hello gets the present, its
    bye (its window closed) takes it off the followers line; what another tab of ours posts for its
    display is not for us."""
    live = model.live
    try:
        said = read_message(m.text, FROM_FOLLOWER)
    except LiveError:
        return model, ()
    if isinstance(said, Bye):
        model = replace(model, live=replace(live, display=False, sent=live.sent if live.hosting else None))
        return model, redraw(model)
    present = _present(model, "display")
    return replace(model, live=replace(live, display=True, sent=_sent(present))), (present,)


def follow_redraw(model: Model) -> tuple[Effect, ...]:
    return (RenderSheet(),) if model.ui.sheet == ("live-follow", None) else ()


def _auto_done(model: Model, m: AutoDoneToggled) -> Result:
    return replace(model, live=replace(model.live, auto_done=m.on)), ()


# -- a player's phone asks ---------------------------------------------------------------------

NOT_KEYED = ("not opened from the game master's window: this display cannot tell the game master's view from another page's. "
             "Open it from the game master's menu (Open table display).")
ANSWER_MS = 5_000  # a request with no answer this long was not delivered (said, with Send again)
NOT_DELIVERED = "not delivered: the game master's phone is not connected"



def send_asking(model: Model) -> Result:
    live = model.live
    if not gm_connected(live):
        live = replace(live, said=f"{NOT_DELIVERED} ({live.asked_what} was not sent).", asked_ms=0.0)
        return replace(model, live=live), follow_redraw(model)
    live = replace(live, said=f"sending {live.asked_what}…", asked_ms=max(live.now_ms, 1.0), tries=1)
    return replace(model, live=live), (LiveTell(live.asking, live.gm), *follow_redraw(model))



def _answer_heard(model: Model, message: Answer) -> Result:
    """The game master's answer to this phone's last request (an older one's is past)."""
    live = model.live
    if message.rid != live.rid or not live.asking:
        return model, ()
    what = live.asked_what
    said = {
        "waiting": f"waiting: the game master has {what}" + (f" ({message.text})" if message.text else ""),
        "applied": f"applied: {what}" + (f" ({message.text})" if message.text else ""),
        "dismissed": f"dismissed: the game master dismissed {what}",
        "refused": f"refused: {message.text or 'the game master refused it'}",
    }[message.answer]
    if message.answer == "refused" and live.save_sent == message.rid:  # (the card's answer refused: the card goes, the line says why)
        live = replace(live, save_ask=None, save_sent=0)
    live = replace(live, said=said + ".", asked_ms=0.0, rolling=())
    return replace(model, live=live), follow_redraw(replace(model, live=live))


def _drawn_heard(model: Model, message: Drawn) -> Result:
    """The game master's phone answered this phone's commitment: the dice are rolled from both values
    (shown here at once for a roll or a death save; an attack is rolled by the game master's engine
    against defences this phone never sees), and the secret goes to the game master's phone."""
    live = model.live
    if message.rid != live.rid or not live.rolling or not live.asking:
        return model, ()
    secret, dice = live.rolling
    seed = joint_seed(secret, message.value)
    rolled = ""
    if dice:
        result = roll(dice, Random(seed))
        rolled = f"rolled {result.text}: "
    live = replace(live, asking=request_text("show", rid=live.rid, s=secret), said=f"{rolled}sending {live.asked_what}…",
                   asked_ms=max(live.now_ms, 1.0), tries=1)
    return replace(model, live=live), (LiveTell(live.asking, live.gm), *follow_redraw(replace(model, live=live)))


def _save_asked(model: Model, message: SaveAsk) -> Result:
    """The game master asks this phone's character to save (its card, with the odds and Roll), or says
    what came of a save it asked (`outcome`: the card then says it and closes)."""
    live = model.live
    if message.cid != live.you:
        return model, ()  # (asked of a character this phone no longer plays)
    current = live.save_ask
    if message.outcome and current is not None and current.ask != message.ask:
        return model, ()  # the outcome of another save than the one this card asks
    live = replace(live, save_ask=message, save_sent=live.save_sent if message.outcome else 0)
    return replace(model, live=live), follow_redraw(replace(model, live=live))


def gm_connected(live: Live) -> bool:
    """Connected to the game master's phone itself (its states may reach this one through another's)."""
    return bool(live.gm) and any(p.id == live.gm and p.connected for p in live.peers)











def _tray(model: Model, m: TrayToggled) -> Result:
    return replace(model, live=replace(model.live, tray=not model.live.tray)), (RenderNotices(),)


def _auto_saves(model: Model, m: AutoSavesToggled) -> Result:
    return replace(model, live=replace(model.live, auto_saves=m.on)), ()


def _display(model: Model, m: DisplayOpened) -> Result:
    present = _present(model, "display")
    model = replace(model, live=replace(model.live, display=True, sent=_sent(present)))
    return model, (OpenDisplay(), present)


def _sent(present: LiveSend) -> tuple[object, ...]:
    """What of a state sent is compared with the next (a change sends it): the view, its ids, the turn, the party's own."""
    return (present.view, present.ids, present.turn, present.pcs, present.fight)


def broadcast(before: Model, after: Model) -> tuple[Model, tuple[Effect, ...]]:
    """After every update: while the table is live (or a table display listens), a change to what
    the players may see goes out, once. Only the players' view is ever sent (hidden data is not in it)."""
    live, was = after.live, before.live
    kept: tuple[Effect, ...] = ()
    if live.hosting and (live.claims, live.trusted, live.requests, live.key) != (was.claims, was.trusted, was.requests, was.key):
        kept = (KeepLiveTable(live_table_text(live)),)  # with the room: a reload takes them up again
    if not (live.hosting or live.display) or (after.timeline is before.timeline and (
            live is was or ((live.hosting, live.display, live.secret, live.sent) == (was.hosting, was.display, was.secret, was.sent)
                            and live.sent is not None))):
        return after, kept  # nothing the players' view is made of changed (a counter, a phone's rate)
    present = _present(after)
    if _sent(present) == live.sent:
        return after, kept
    after = replace(after, live=replace(live, sent=_sent(present)))
    enc = after.timeline.present
    if live.hosting and enc.id != before.timeline.present.id:
        after, told = _claims_here(after)
        if after.live.claims != live.claims:  # (a name's claim applied as the fight opened: kept with the room too)
            kept = (KeepLiveTable(live_table_text(after.live)),)
        kept += told
    return after, kept + (present,)


def _claims_here(model: Model) -> Result:
    """Another fight on the game master's screen (issue 53): each connected phone is told whom it plays
    in it: its claim there, or a character of the name it was approved for once (applied at once), or
    no one (it asks again: "Which one is you?", that name offered first)."""
    live, enc = model.live, model.timeline.present
    party = [c for c in enc.combatants if c.side == "party" and shown_to_players(c)]
    told: list[Effect] = []
    for device in dict.fromkeys(p.device for p in live.peers if p.connected and p.device):
        mine = claimed(live, device, enc.id)
        if not mine:
            taken = {cid for d, e, cid in live.claims if e == enc.id}
            mine = next((c.id for c in party if (device, c.name) in live.trusted and c.id not in taken), "")
            if mine:
                live = with_claim(live, device, enc.id, mine, enc.get(mine).name)
        you = you_text(players_id(enc, live.secret, mine) if mine else "")
        told += [LiveTell(you, p.id) for p in live.peers if p.connected and p.device == device]
    return replace(model, live=live), tuple(told)


def _servers_saved(model: Model, m: ServersSaved) -> Result:
    try:
        relays = read_servers(m.relays, RELAY_SCHEMES, DEFAULT_RELAYS)
        nostr = read_servers(m.nostr, RELAY_SCHEMES, DEFAULT_NOSTR) if m.nostr is not None else model.live.nostr
        stun = read_servers(m.stun, STUN_SCHEMES, DEFAULT_STUN)
        if not relays and not nostr:
            raise LiveError("The live table needs at least one relay (a WebTorrent tracker or a Nostr relay).")
        check_relays(relays + nostr, m.allowed)
    except LiveError as error:
        return model, (Refuse(str(error)),)
    when = "the next time the table goes live" if model.live.hosting else "when the table goes live"
    model = replace(model, servers=(relays, stun, nostr))
    return model, (StoreServers(relays, stun, nostr), SayOnLine("live-servers-out", f"Saved: used {when}."))


def _attack_picked(model: Model, m: LiveAttackPicked) -> Result:
    return model, (FillForm((("live-dice", m.dice), ("live-label", m.label)), "live-target"),)


Handled = LiveOpened | LiveResumed | LiveStopped | LiveFollowed | LiveLinkOpened | PeerChanged | PeerSaid | DisplayOpened | RequestAnswered | ClaimReleased | AutoDoneToggled | TrayToggled | AutoSavesToggled | LiveAttackPicked | ServersSaved


def handle(model: Model, message: Handled) -> Result:  # noqa: C901 - one case a message
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case LiveOpened():
            return _hosted(model, message)
        case LiveStopped():
            return _stopped(model, message)
        case LiveFollowed():
            return _followed(model, message)
        case LiveResumed():
            return _resumed(model, message)
        case LiveLinkOpened():
            return _link_opened(model, message)
        case PeerChanged():
            return _peer_changed(model, message)
        case PeerSaid():
            return _said(model, message)
        case DisplayOpened():
            return _display(model, message)
        case RequestAnswered():
            return answered(model, message)
        case ClaimReleased():
            return released(model, message)
        case AutoDoneToggled():
            return _auto_done(model, message)
        case TrayToggled():
            return _tray(model, message)
        case AutoSavesToggled():
            return _auto_saves(model, message)
        case LiveAttackPicked():
            return _attack_picked(model, message)
        case ServersSaved():
            return _servers_saved(model, message)
        case _:
            assert_never(message)
