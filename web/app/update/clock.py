"""The live table's clocks, from the Model: which timers the page wants (`subscriptions`), the host's
beat and a follower's tick (each a message with its time), and the revision each state sent carries
(`numbered`: a count within this page, never a clock). Pure: the runtime starts and stops the timers
to match, and the rules here run in CPython with any clock (tests/unit/test_live_clock.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from pyengine.live import BEAT_MS, beat_text
from web.app.effects import After, Effect, Every, LiveBroadcast, LiveConnect, LiveSend, LiveTell, SayOnLine, ShowLink
from web.app.live_status import answering, state_kind, state_line
from web.app.messages import LiveBeat, LiveKeyKnown, LiveTicked, RelaysChecked
from web.app.model import Model
from web.app.params import join_link
from web.app.update.common import Result
from web.app.update.live import ANSWER_MS, NOT_DELIVERED, at_time, follow_redraw, gm_connected
from web.app.update.pairing import relays_checked
from web.app.update.requests import expire_draws, redraw
from web.app.update.timers import waiting

__all__ = ["Handled", "handle", "subscriptions", "numbered", "rejoin_after", "BEAT", "TICK", "TICK_MS", "REJOIN_MS", "RELAYED_REJOIN_MS"]

TICK_MS = 2_000  # a follower checks its clock this often (its line, an unanswered request, a join again)
BEAT = Every("beat", BEAT_MS)
TICK = Every("tick", TICK_MS)


def subscriptions(model: Model) -> frozenset[Every | After]:
    """The timers this model wants: the host (or a window with a table display) beats, a follower
    (a player's phone, the table display) ticks, none when no table is live; and what waits on a
    timer of its own (web/app/update/timers.waiting: the toast, the sheet or the odds once typing stops,
    the estimate's next slice).

    >>> from pyengine.tracker import Timeline, new_encounter
    >>> from web.app.model import Live
    >>> m = Model(Timeline.start(new_encounter("e1")))
    >>> subscriptions(m), subscriptions(replace(m, live=Live(role="host"))) == {BEAT}
    (frozenset(), True)
    >>> subscriptions(replace(m, live=Live(role="follow"))) == {TICK}
    True
    """
    live, waits = model.live, waiting(model)
    if live.hosting or live.display:
        return frozenset({BEAT}) | waits
    if live.following:
        return frozenset({TICK}) | waits
    return waits


def numbered(model: Model, effects: tuple[Effect, ...]) -> Result:
    """Each state sent gets this page's next revision (and its id: a follower takes a new page's
    states whatever their count), kept in the model: the beats say the last one."""
    if not any(isinstance(e, LiveSend) for e in effects):
        return model, effects
    rev, out = model.live_rev, []
    for effect in effects:
        if isinstance(effect, LiveSend):
            rev += 1
            effect = effect.but(revision=rev, session=model.live_page)
        out.append(effect)
    return replace(model, live_rev=rev), tuple(out)


def _beat(model: Model, m: LiveBeat) -> Result:
    """The host says it is there (the room, and this device's table display), checks how its relays
    answer, and moves its rate limits on to now (its line's counts, a muted phone's time left, what its
    data channels dropped unread)."""
    live = model.live
    if not (live.hosting or live.display):
        return model, ()
    effects: tuple[Effect, ...] = (LiveBroadcast(beat_text(model.live_rev, model.live_page), live.hosting, live.display),)
    if live.hosting:
        networks = m.networks if live.relays or live.nostr else (-1, -1, -1, -1)
        model, said = relays_checked(model, RelaysChecked(answering(networks), networks))
        effects += said
        counted = m.unread != live.unread
        if counted:
            model = replace(model, live=replace(model.live, unread=m.unread))
        if live.limited or live.limits or live.draws:
            model = replace(model, live=at_time(model.live, m.now_ms))
        if counted or live.limited or live.limits or live.draws:
            effects += redraw(model)
        model, late = expire_draws(model, m.now_ms)
        effects += late
    return model, effects


def _keyed(model: Model, m: LiveKeyKnown) -> Result:
    """The join link, once the room is joined (the room's relays, not a setting saved since)."""
    live = model.live
    if not live.hosting or m.room != live.room or not m.public:
        return model, ()  # stopped, or another room, meanwhile
    link = join_link(m.here, live.room, live.secret, m.public, live.relays, live.nostr, live.stun)
    return replace(model, live=replace(live, link=link)), (ShowLink(link),)


REJOIN_MS = (8_000, 10_000, 15_000, 20_000, 30_000)  # a follower that has not met the game master's phone this long joins again (then less often)
RELAYED_REJOIN_MS = 20_000  # the game master heard only through another phone: joins again this late (it may meet it meanwhile)


def rejoin_after(rejoins: int) -> int:
    """How long a follower waits before its next join, after `rejoins` joins that met no game master."""
    return REJOIN_MS[min(rejoins, len(REJOIN_MS) - 1)]


def _ticked(model: Model, m: LiveTicked) -> Result:
    """A follower's clock: its line says how it stands; a request with no answer is said not
    delivered; a follower that has not met the game master's phone for a while joins the room again,
    whoever else it is connected to (a fresh announce at the relays: the trackers pair phones at
    random and retry only every few minutes by themselves, a phone that slept or changed networks
    may have lost them, and two players connected to each other hear no game master), less often
    each time it meets no one (REJOIN_MS). (The game master's phone has no tick: its beat, `_beat`,
    moves its rate limits and its line on.)"""
    if not model.live.following:
        return model, ()
    live = at_time(model.live, m.now_ms)
    live = replace(live, rejoined_ms=live.rejoined_ms or m.now_ms, networks=m.networks)
    later: tuple[Effect, ...] = ()
    if live.asked_ms and m.now_ms - live.asked_ms >= ANSWER_MS:
        if live.tries < 2 and gm_connected(live):  # once more (a message lost on a connection being replaced)
            live = replace(live, asked_ms=m.now_ms, tries=2)
            later = (LiveTell(live.asking, live.gm),)
        else:
            typed = " Rolled real dice? Type what they show and send it as typed." if live.rolling else ""
            live = replace(live, said=f"{NOT_DELIVERED} ({live.asked_what}: no answer).{typed}", asked_ms=0.0)
            later = follow_redraw(model)
    effects: tuple[Effect, ...] = (SayOnLine("live-state", state_line(live), state_kind(live)),)
    if live.role == "follow" and not live.direct:
        hearing = live.host_here()
        if hearing and gm_connected(live):
            live = replace(live, met_ms=m.now_ms, rejoins=0)
        elif m.now_ms - max(live.met_ms, live.rejoined_ms) >= max(rejoin_after(live.rejoins), RELAYED_REJOIN_MS if hearing else 0):
            # (A join again drops this phone's connections for a moment: one that still hears the game
            # master through another phone waits longer, so that a busy room does not flap.)
            live = replace(live, rejoined_ms=m.now_ms, rejoins=live.rejoins + 1)
            effects += (LiveConnect("follow", live.room, live.secret, live.relays, live.stun, host_key=live.host_key, nostr=live.nostr),)
    return replace(model, live=live), effects + later


Handled = LiveBeat | LiveKeyKnown | LiveTicked


def handle(model: Model, message: Handled) -> Result:
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case LiveBeat():
            return _beat(model, message)
        case LiveKeyKnown():
            return _keyed(model, message)
        case LiveTicked():
            return _ticked(model, message)
        case _:
            assert_never(message)
