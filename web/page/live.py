"""The live table's side of the page: the connections (web/page/browser.Transport), the camera for the
two-code join, and the timers the model asks for (web/app/update/clock.subscriptions). Each thing heard,
each connection made or lost and each tick is a message with its time (`live_clock`); each effect is
performed with the model `update` made. Nothing of the table's state lives here: the revision, the
page's id and the join link are the model's."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from pyengine.dice import Rng
from pyengine.live import hello_text, request_text
from web.app import effects as fx
from web.app.live_status import state_sent
from web.app.messages import (
    AnswerMade,
    CodeRead,
    DirectFailed,
    EarlyJoinTaken,
    LiveBeat,
    LiveKeyKnown,
    LiveTicked,
    Message,
    Noticed,
    OfferMade,
    PairingFailed,
    PeerChanged,
    PeerSaid,
)
from web.app.model import Model
from web.app.seal import opened, seal
from web.app.storage.keeper import Keeper
from web.app.storage.records import Notice
from web.page import browser, dom

__all__ = ["LiveSide", "live_clock"]


def live_clock() -> float:
    """The live table's clock, in ms: monotonic (a phone whose time is set back an hour keeps its beats,
    rejoins, answers and rate limits right; the times never leave this page)."""
    return time.monotonic() * 1000 + 1.0


class LiveSide:
    def __init__(self, prefix: str, keeper: Keeper, dispatch: Callable[[Message], object], rng: Rng, drawn: Callable[[], None]) -> None:
        """`drawn`: the open sheet drawn again (the early view taken over). What comes in is dispatched
        as it is; what goes out comes in an effect with what it needs: nothing here reads the model."""
        self.keeper, self.dispatch, self.rng, self.drawn = keeper, dispatch, rng, drawn
        self.displaying = False  # this page is the table display (set as it connects: LiveConnect's role)
        self.transport = browser.Transport(prefix + "live", self.heard, self.peer_changed, lambda peer: self.dispatch(DirectFailed(peer)))
        self.scanner = browser.Scanner(lambda text, kind: self.dispatch(CodeRead(text, kind)))
        self.connecting: Any = None  # the room being joined (a task; its result: the host's public key)
        self.timers: dict[fx.Every, Any] = {}  # the subscriptions running: their interval ids
        # The table display's key (web/app/seal.py): the game master's window seals what it posts with it, the
        # display (its address's `?dkey=`) opens only what is sealed with it. main.start sets it.
        self.display_key = ""

    # -- the timers the model wants ---------------------------------------------------------------
    def follow(self, wanted: frozenset[fx.Every]) -> None:
        """Start the subscriptions the model wants and stop those it no longer does."""
        for sub in [s for s in self.timers if s not in wanted]:
            dom.window.clearInterval(self.timers.pop(sub))
        for sub in wanted - self.timers.keys():
            self.timers[sub] = dom.window.setInterval(dom.proxy(self._ticker(sub.name)), sub.ms)

    def _ticker(self, name: str) -> Callable[..., object]:
        if name == "beat":
            return lambda *_: self.dispatch(LiveBeat(live_clock(), self.transport.networks(), self.transport.unread()))
        return lambda *_: self.dispatch(LiveTicked(live_clock(), self.transport.networks()))

    # -- what comes in -----------------------------------------------------------------------------
    def heard(self, peer: str, text: str | None) -> None:
        """A message from another phone (or, as "display", from this device's other windows)."""
        if peer == "display" and self.displaying:
            peer = "gm"  # the display hears the game master's window on the channel
            text = opened(self.display_key, text) if self.display_key else None  # (another page's post: refused)
        self.dispatch(PeerSaid(peer, text, live_clock(), self.rng))

    def peer_changed(self, peer: str, joined: bool) -> None:
        self.dispatch(PeerChanged(peer, joined, live_clock()))

    # -- effects -----------------------------------------------------------------------------------
    def connect(self, e: fx.LiveConnect) -> None:
        if e.role == "display":
            self.displaying = True
            self.transport.post(hello_text(e.hello))
            # Closed (or navigated away): the game master's window stops counting it.
            dom.window.addEventListener("pagehide", dom.proxy(lambda *_: self.transport.post(request_text("bye"))))
        else:
            self.connecting = browser.later(self._connect(e))

    async def _connect(self, e: fx.LiveConnect) -> str:
        """Into the room; the game master's phone first takes its signing key (the one kept with the
        room, else a new one, kept). Returns the host's public key ("" for a follower)."""
        try:
            public = ""
            if e.role == "host":
                kept = self.keeper.stored_live()
                jwk, public = await self.transport.host_key(kept[2] if kept and kept[:2] == (e.room, e.secret) else None)
                self.keeper.keep_live((e.room, e.secret, jwk))
            if e.relays or e.nostr:
                await self.transport.connect(e.room, e.secret, e.relays, e.nostr, e.stun, e.host_key or None)
            else:
                await self.transport.load()  # live without the relays: phones join by two codes only
            if e.role == "follow":
                self.took_over()
            return public
        except dom.JsException as error:
            self.dispatch(Noticed((Notice("error", f"The live table could not connect ({str(error)[:200]}). The fight goes on "
                                                   "here; check the connection and open Live table again."),)))
            return ""

    def took_over(self) -> None:
        """Joined (the early view's join taken over, with the state it had): what was tapped on the early
        view is done now (EarlyJoinTaken: the model kept them), and answered as any tap; a view still not
        drawn is drawn as this page has it."""
        self.dispatch(EarlyJoinTaken())
        self.drawn()

    def leave(self) -> None:
        """Out of the room (and, for the table display, no longer its page: what the channel says is
        no longer the game master's)."""
        self.displaying = False
        self.transport.leave()

    def send(self, e: fx.LiveSend, model: Model) -> None:
        """A state (numbered by update) to one follower, the table display, or everyone listening."""
        text = state_sent(e, self.transport.self_id)
        if e.peer == "display":
            self.to_display(text)
        elif e.peer is not None:
            self.transport.send(text, e.peer)
        else:
            if model.live.hosting:
                self.transport.send(text)
            if model.live.display:
                self.to_display(text)

    def broadcast(self, e: fx.LiveBroadcast) -> None:
        if e.room:
            self.transport.send(e.text)
        if e.display:
            self.to_display(e.text)

    def to_display(self, text: str) -> None:
        """To this device's table display, sealed with its key (web/app/seal.py)."""
        self.transport.post(seal(self.display_key, text))

    def display_address(self) -> str:
        """The table display's address: this page's, with the display's key (`?dkey=`) and `#display`."""
        location = dom.window.location
        params = dom.window.URLSearchParams.new(location.search)
        params.set("dkey", self.display_key)
        return f"{location.pathname}?{params.toString()}#display"

    def show_live_link(self, e: fx.ShowLiveLink) -> None:
        browser.later(self._keyed(e.fragment))

    async def _keyed(self, fragment: str) -> None:
        """The room joined, its public key known: the join link is made (LiveKeyKnown)."""
        public = await self.connecting if self.connecting is not None else ""
        room = fragment.removeprefix("live=").split(".")[0]
        self.dispatch(LiveKeyKnown(room, public, f"{dom.window.location.origin}{dom.window.location.pathname}"))

    # -- the live table with no internet (two codes) ------------------------------------------
    async def make_offer(self) -> None:
        token = secrets.token_hex(4)
        await self.scanner.allow()  # (its addresses in the code, not hidden names; the answers need the camera anyway)
        try:
            sdp = await self.transport.offer(token)
        except dom.JsException as error:
            self.dispatch(PairingFailed(f"This browser could not make a connection ({str(error)[:200]})."))
            return
        self.dispatch(OfferMade(token, sdp, f"{dom.window.location.origin}{dom.window.location.pathname}"))

    async def accept_offer(self, e: fx.AcceptOffer) -> None:
        try:
            sdp = await self.transport.accept(e.sdp)
        except dom.JsException as error:
            self.dispatch(PairingFailed(f"This browser could not take the game master's code ({str(error)[:200]}). "
                                        "Scan it again, or ask for a new one."))
            return
        self.dispatch(AnswerMade(e.token, sdp, e.name, self.keeper.device()))

    async def apply_answer(self, e: fx.ApplyAnswer) -> None:
        try:
            taken = await self.transport.answered(e.token, e.sdp)
        except dom.JsException as error:
            self.dispatch(PairingFailed(f"This browser could not take the player's answer ({str(error)[:200]}): "
                                        "the player scans the new code, then shows the new answer."))
            return
        if not taken:
            self.dispatch(PairingFailed("That code was replaced meanwhile: the player scans the new one."))
