"""The live table with no internet: a player joins by two scans. The game master's phone shows an
offer (pyengine/pairing.py), the player's phone reads it and shows its answer, the game master's
phone reads that; the two phones then talk WebRTC directly over the Wi-Fi, and the player follows
exactly as through the relays (web/app/update/live.py: the same view, requests and lines). One offer is
on screen at a time, and is answered once: a second player who read the same code is told to read
the new one, and never takes the first player's connection."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from pyengine.pairing import (
    Pairing,
    PairingError,
    from_sdp,
    join_link,
    pack,
    read_code,
    same_network,
    sdp_of,
)
from web.app.effects import (
    AcceptOffer,
    ApplyAnswer,
    Effect,
    KeepAwake,
    LiveConnect,
    LiveLeave,
    MakeOffer,
    Refuse,
    RenderNotices,
    RenderSheet,
    SayOnLine,
)
from web.app.live_status import networks_line, relays_line
from web.app.messages import (
    AnswerMade,
    CodeRead,
    DirectFailed,
    OfferMade,
    OfflineStarted,
    PairingFailed,
    RelaysChecked,
    ScanOpened,
)
from web.app.model import Live, Model
from web.app.storage.records import Notice
from web.app.update.common import Result, notify, opened

__all__ = ["Handled", "handle", "GM_PEER", "CANNOT_CONNECT", "relays_checked"]

GM_PEER = "direct-gm"   # a player's phone names the game master's phone so on its direct connection
PEER_PREFIX = "direct-"  # the game master's phone names a player's phone "direct-" + its offer's token

CANNOT_CONNECT = (
    "Both phones must be on the same Wi-Fi: check that the player's phone is not on mobile data or on another network. "
    "Some Wi-Fi (guest networks, venues, hotels) keep their devices apart: then make the game master's phone a hotspot "
    "and have the players join it. Or show the players one moment of the fight by QR code (Menu → Share link, "
    "for players at the table), and again when it has moved on."
)


def _offline_started(model: Model, m: OfflineStarted) -> Result:
    """The table goes live (without the relays) if it was not, and the next offer is made."""
    live = model.live
    effects: tuple[Effect, ...] = ()
    if live.following:
        return model, (Refuse("This phone follows a table: stop following first."),)
    if not live.hosting:
        live = Live(role="host", room=m.room, secret=m.secret, display=live.display)
        effects = (LiveConnect("host", m.room, m.secret),)
    model = replace(model, live=replace(live, offer=None, pairing="Making a code…"))
    if model.ui.sheet != ("live", None):
        model, shown = opened(model, "live")
        effects += shown
    else:
        effects += (RenderSheet(),)
    return model, effects + (MakeOffer(),)


def _offer_made(model: Model, m: OfferMade) -> Result:
    live = model.live
    if not live.hosting:
        return model, ()
    try:
        offer = from_sdp(m.sdp, "offer", m.token)
    except PairingError as error:
        return replace(model, live=replace(live, offer=None, pairing=str(error))), _host_redraw(model)
    link = join_link(m.base, offer)
    model = replace(model, live=replace(live, offer=(offer, link),
                                        pairing="Waiting for the player's answer: scan it when their phone shows it."))
    return model, _host_redraw(model)  # (the runtime draws a code field's QR code with its sheet)


def _host_redraw(model: Model) -> tuple[Effect, ...]:
    return (RenderSheet(),) if model.ui.sheet == ("live", None) else ()


def _scan_opened(model: Model, m: ScanOpened) -> Result:
    if m.kind == "answer" and (not model.live.hosting or model.live.offer is None):
        return model, (Refuse("Make a code first: Join a phone without internet."),)
    return opened(model, "scan", m.kind)


def _code_read(model: Model, m: CodeRead) -> Result:
    """A code from the camera or pasted: an offer on a player's phone, an answer on the game master's."""
    if m.kind == "answer":
        return _answer_read(model, m.text)
    if model.live.hosting:
        return model, (Refuse("This phone hosts the live table: the players' phones read its code."),)
    try:
        offer = read_code(m.text, "offer")
    except PairingError as error:
        return model, (Refuse(str(error)),)
    effects: tuple[Effect, ...] = (LiveLeave(),) if model.live.role == "follow" else ()
    live = Live(role="follow", direct=True, display=False, pairing="Making this phone's answer…")
    model, shown = opened(replace(model, live=live), "join")
    name = str(model.characters[0].get("name", "")) if model.characters else ""
    return model, effects + shown + (AcceptOffer(offer.token, sdp_of(offer), name), KeepAwake())


def _answer_read(model: Model, text: str) -> Result:
    live = model.live
    if not live.hosting or live.offer is None:
        return model, (Refuse("Make a code first: Join a phone without internet."),)
    try:
        answer = read_code(text, "answer")
    except PairingError as error:
        return model, (Refuse(str(error)),)
    offer, _ = live.offer
    if any(token == answer.token for token, _, _ in live.answered):
        return model, (Refuse("That answer was read already: its phone is joined, or joining. The next player scans the "
                              "new code on the Live table screen."),)
    if answer.token != offer.token:
        return model, (Refuse("That answer is for an older code: the player scans the code on the Live table screen now, "
                              "then shows the new answer."),)
    near = same_network(offer, answer)
    said = "Connecting to the player's phone…"
    if near is False:
        said = (f"These phones seem to be on different networks ({_nets(offer)} and {_nets(answer)}). Connecting anyway… "
                + CANNOT_CONNECT)
    live = replace(live, offer=None, answered=live.answered + ((answer.token, offer, answer),), pairing=said)
    model, shown = opened(replace(model, live=live), "live")
    return model, shown + (ApplyAnswer(answer.token, sdp_of(answer)), MakeOffer())


def _nets(p: Pairing) -> str:
    return ", ".join(sorted({a.rsplit(".", 1)[0] + ".x" for a, _ in p.candidates if a.count(".") == 3})) or "hidden addresses"


def _answer_made(model: Model, m: AnswerMade) -> Result:
    live = model.live
    if not (live.role == "follow" and live.direct):
        return model, ()
    try:
        code = pack(from_sdp(m.sdp, "answer", m.token))
    except PairingError as error:
        return replace(model, live=replace(live, pairing=str(error))), _join_redraw(model)
    model = replace(model, live=replace(live, answer=code, me=m.name, device=m.device,
                                        pairing="Waiting for the game master's phone to read this code…"))
    return model, _join_redraw(model)


def _join_redraw(model: Model) -> tuple[Effect, ...]:
    return (RenderSheet(),) if model.ui.sheet == ("join", None) else ()


def _pairing_failed(model: Model, m: PairingFailed) -> Result:
    live = model.live
    if not (live.hosting or live.direct):
        return model, ()
    model = replace(model, live=replace(live, pairing=m.text[:300]))
    return model, _host_redraw(model) + _join_redraw(model)


def _direct_failed(model: Model, m: DirectFailed) -> Result:
    """The codes were exchanged but the phones never reached each other: say the likely cause."""
    live = model.live
    if live.hosting and m.peer.startswith(PEER_PREFIX):
        token = m.peer[len(PEER_PREFIX):]
        found = next(((o, a) for t, o, a in live.answered if t == token), None)
        if found is None:
            return model, ()
        near = same_network(*found)
        why = (f"These phones are on different networks ({_nets(found[0])} and {_nets(found[1])}). " if near is False else "")
        text = f"A phone that joined by two scans could not connect. {why}{CANNOT_CONNECT}"
        model = notify(replace(model, live=replace(live, pairing=text)), Notice("error", text))
        return model, (RenderNotices(),) + _host_redraw(model)
    if live.direct and m.peer == GM_PEER and not live.host_here():
        text = "This phone could not reach the game master's phone. " + CANNOT_CONNECT
        model = replace(model, live=replace(live, pairing=text))
        return model, _join_redraw(model)
    return model, ()


def relays_checked(model: Model, m: RelaysChecked) -> Result:
    live = model.live
    if not live.hosting or (m.up, m.networks) == (live.relays_up, live.networks):
        return model, ()
    model = replace(model, live=replace(live, relays_up=m.up, networks=m.networks))
    if model.ui.sheet != ("live", None):
        return model, ()
    return model, (SayOnLine("relays-state", relays_line(model.live)), SayOnLine("live-networks", networks_line(model.live)))


Handled = OfflineStarted | OfferMade | ScanOpened | CodeRead | AnswerMade | PairingFailed | DirectFailed | RelaysChecked


def handle(model: Model, message: Handled) -> Result:
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case OfflineStarted():
            return _offline_started(model, message)
        case OfferMade():
            return _offer_made(model, message)
        case ScanOpened():
            return _scan_opened(model, message)
        case CodeRead():
            return _code_read(model, message)
        case AnswerMade():
            return _answer_made(model, message)
        case PairingFailed():
            return _pairing_failed(model, message)
        case DirectFailed():
            return _direct_failed(model, message)
        case RelaysChecked():
            return relays_checked(model, message)
        case _:
            assert_never(message)
