"""Issue 35, item 2: the live table's beat, rejoin, answer, rate-limit and revision rules with a given
clock, in CPython, including a clock that goes back an hour (a phone's time set by hand, a time
zone's hour): what was heard 3 s ago is still 3 s ago. The runtime's own clock is monotonic
(web/page/live.live_clock); these rules are right whatever clock they are given. The timers themselves
are the model's subscriptions (web/app/update/clock.subscriptions): which run is a function of the model."""

from __future__ import annotations

import random

from pyengine.live import DEFAULT_RELAYS, SILENT_MS, beat_text, request_text, state_text
from tests.unit.test_live import KEY, approved, hosting, joined, met_game_master
from tests.unit.test_update import PARTY, fight
from web.app.effects import LiveConnect, LiveTell
from web.app.live_status import state_line
from web.app.messages import ClaimTapped, LiveBeat, LiveOpened, LiveStopped, LiveTicked, PeerSaid
from web.app.update import update
from web.app.update.live import ANSWER_MS, BURST, MUTE_MS, at_time, muted_peers

HOUR = 3_600_000.0
T = 5_000_000.0   # some time after the page started
RNG = random.Random(0)
REJOIN = LiveConnect("follow", "room1234", "secret1234", ("ws://x:1",), (), host_key=KEY)


def follower_hearing_the_game_master():
    model, view, ids_, turn = met_game_master(T, 1)
    model, _ = update(model, LiveTicked(T + 1_000))
    assert state_line(model.live) == "live"
    return model, view, ids_, turn


def test_a_followers_clock_set_back_an_hour_still_notices_the_silent_game_master_and_joins_again():
    """The clock read an hour earlier than the last reading: the time between them is taken as none
    (at most one tick, 2 s, is lost), what was kept moves back with it."""
    model, *_ = follower_hearing_the_game_master()
    model, _ = update(model, PeerSaid("gm1", beat_text(1, "s1"), T + 2_000))   # last heard at T + 2 s
    back = T + 2_000 - HOUR                                                     # the clock, an hour earlier
    model, _ = update(model, LiveTicked(back))
    assert state_line(model.live) == "live" and model.live.heard_ms == back
    model, _ = update(model, LiveTicked(back + SILENT_MS - 1))
    assert state_line(model.live) == "live" and model.live.met_ms == back + SILENT_MS - 1
    model, _ = update(model, LiveTicked(back + SILENT_MS + 1))                  # silent: killed in the background
    assert state_line(model.live) == "reconnecting…"
    # Not heard since: it joins the room again 8 s after it last met the game master's phone.
    model, effects = update(model, LiveTicked(back + SILENT_MS - 1 + 7_999))
    assert REJOIN not in effects
    model, effects = update(model, LiveTicked(back + SILENT_MS - 1 + 8_000))
    assert REJOIN in effects


def test_a_request_sent_before_the_clock_went_back_is_said_not_delivered_after_ANSWER_MS_not_an_hour():
    model, view, ids_, turn = follower_hearing_the_game_master()
    model, effects = update(model, ClaimTapped(ids_[0][0]))
    assert any(isinstance(e, LiveTell) for e in effects) and model.live.asked_ms == T + 1_000
    back = T + 1_000 - HOUR
    model, _ = update(model, PeerSaid("gm1", beat_text(1, "s1"), back))
    assert model.live.asked_ms == back
    model, effects = update(model, LiveTicked(back + ANSWER_MS - 1))
    assert model.live.tries == 1
    model, effects = update(model, LiveTicked(back + ANSWER_MS))                # no answer: once more
    assert model.live.tries == 2 and LiveTell(model.live.asking, "gm1") in effects
    model, _ = update(model, PeerSaid("gm1", beat_text(1, "s1"), back + 2 * ANSWER_MS - 1))
    model, _ = update(model, LiveTicked(back + 2 * ANSWER_MS))
    assert model.live.said.startswith("not delivered")


def test_states_are_taken_by_the_game_masters_page_and_count_not_by_any_clock():
    model, view, ids_, turn = follower_hearing_the_game_master()
    # The game master's phone's clock went back an hour: nothing in its states is a time; the count goes on.
    model, _ = update(model, PeerSaid("gm1", state_text(view, 2, ids_, turn, "gm1", "s1"), T + 2_000 - HOUR))
    assert model.live.revision == 2
    model, _ = update(model, PeerSaid("gm1", state_text(view, 1, ids_, turn, "gm1", "s1"), T + 3_000 - HOUR))
    assert model.live.revision == 2                                              # an older one of the same page: ignored
    model, _ = update(model, PeerSaid("gm1", state_text(view, 1, ids_, turn, "gm1", "s2"), T + 4_000 - HOUR))
    assert (model.live.session, model.live.revision) == ("s2", 1)              # its page reloaded: taken at once
    model, _ = update(model, PeerSaid("gm1", state_text(view, 9, ids_, turn, "gm1", "s1"), T + 5_000 - HOUR))
    assert (model.live.session, model.live.revision) == ("s2", 1)              # the page it moved on from: never again


def test_a_phone_muted_before_the_game_masters_clock_went_back_is_heard_again_a_minute_later():
    model = approved(joined(hosting(fight(*PARTY, started=True))))
    for i in range(3 * BURST):  # one burst, at T
        model, _ = update(model, PeerSaid("p1", request_text("done", rid=i), T + i, RNG))
    assert muted_peers(model.live) == ["p1"]
    back = T + 1_000 - HOUR
    model, _ = update(model, LiveBeat(back))  # the game master's clock: its beat (web/app/update/clock._beat)
    assert muted_peers(model.live) == ["p1"]
    model, effects = update(model, PeerSaid("p1", request_text("done", rid=99), back + MUTE_MS, RNG))
    assert muted_peers(model.live) == [] and effects  # heard: its request answered


def test_at_time_moves_what_was_kept_with_a_clock_that_went_back_and_nothing_when_it_goes_on():
    model, *_ = follower_hearing_the_game_master()
    live = model.live
    assert at_time(live, live.now_ms + 10) == live.__class__(**{**live.__dict__, "now_ms": live.now_ms + 10})
    back = at_time(live, live.now_ms - HOUR)
    assert (back.heard_ms, back.met_ms, back.updated_ms) == (live.heard_ms - HOUR, live.met_ms - HOUR, live.updated_ms - HOUR)
    assert back.asked_ms == 0.0  # (nothing asked: stays "none")


# -- the host's side: the beat and the timers as subscriptions (web/app/update/clock.py) ---------------------

def test_the_timers_are_a_function_of_the_model_beat_while_hosting_or_a_display_listens_tick_while_following():
    from dataclasses import replace

    from web.app.model import Live
    from web.app.update import subscriptions
    from web.app.update.clock import BEAT, TICK

    idle = fight()
    assert subscriptions(idle) == frozenset()
    host = hosting(fight(*PARTY))
    assert subscriptions(host) == {BEAT} and BEAT.ms == 4_000
    stopped, _ = update(host, LiveStopped())
    assert subscriptions(stopped) == frozenset()
    display_only = replace(idle, live=Live(display=True))  # a table display listens, no table live
    assert subscriptions(display_only) == {BEAT}
    follower, *_ = follower_hearing_the_game_master()
    assert subscriptions(follower) == {TICK}
    left, _ = update(follower, LiveStopped())
    assert subscriptions(left) == frozenset()
    assert subscriptions(replace(idle, live=Live(role="display"))) == {TICK}


def test_the_beat_says_the_last_revision_sent_of_this_page_and_each_state_sent_is_numbered_on():
    from dataclasses import replace

    from web.app.effects import LiveBroadcast, LiveSend
    from web.app.messages import LiveBeat, NextTurnTapped

    model = replace(fight(*PARTY, started=True), live_page="page0001")
    model, effects = update(model, LiveOpened("room1234", "secret1234", DEFAULT_RELAYS, ()))
    sent = [e for e in effects if isinstance(e, LiveSend)]
    assert [(e.revision, e.session) for e in sent] == [(1, "page0001")] and model.live_rev == 1
    model, effects = update(model, LiveBeat(T, (2, 4, -1, -1)))
    assert effects[0] == LiveBroadcast(beat_text(1, "page0001"), room=True, display=False)
    assert model.live.relays_up == 2 and model.live.networks == (2, 4, -1, -1)
    model, effects = update(model, NextTurnTapped(10.0, RNG))
    assert [e.revision for e in effects if isinstance(e, LiveSend)] == [2]
    # The table stops and goes live again in the same page: the count goes on (a follower that saw 2 takes 3).
    model, _ = update(model, LiveStopped())
    model, effects = update(model, LiveOpened("room5678", "secret5678", DEFAULT_RELAYS, ()))
    assert [e.revision for e in effects if isinstance(e, LiveSend)] == [3]
    model, effects = update(model, LiveBeat(T - HOUR))  # the game master's clock went back an hour: the beat is the same
    assert effects[0] == LiveBroadcast(beat_text(3, "page0001"), room=True, display=False)


def test_a_beat_with_no_table_is_nothing_and_a_display_only_beat_goes_to_the_display():
    from dataclasses import replace

    from web.app.effects import LiveBroadcast
    from web.app.messages import LiveBeat
    from web.app.model import Live

    idle = fight()
    assert update(idle, LiveBeat(T)) == (idle, ())
    display_only = replace(idle, live=Live(display=True), live_rev=4, live_page="p2")
    _, effects = update(display_only, LiveBeat(T, (3, 3, 3, 3)))
    assert effects == (LiveBroadcast(beat_text(4, "p2"), room=False, display=True),)  # no relays asked: not hosting


def test_the_join_link_is_made_once_the_key_is_known_for_this_room_only():
    from web.app.effects import ShowLink
    from web.app.messages import LiveKeyKnown
    from web.app.params import join_link

    model = hosting(fight(*PARTY))
    public = "k" * 87
    after, effects = update(model, LiveKeyKnown("room1234", public, "https://rk.example/app/"))
    link = join_link("https://rk.example/app/", "room1234", "secret1234", public, DEFAULT_RELAYS, (), ())
    assert after.live.link == link and effects == (ShowLink(link),)
    assert link.endswith(f"#live=room1234.secret1234.{public}") and "?" in link  # no Nostr relays: said in the link
    assert update(model, LiveKeyKnown("another1", public, "https://rk.example/")) == (model, ())  # a room left meanwhile
    assert update(model, LiveKeyKnown("room1234", "", "https://rk.example/")) == (model, ())   # could not connect
    stopped, _ = update(after, LiveStopped())
    assert stopped.live.link == ""


def test_a_quiet_tables_view_is_not_old_while_the_beats_say_it_is_the_newest():
    """The game master taps nothing for a minute (the view does not change), then its phone goes: the
    player's line says "reconnecting…" (its view was the newest 11 s ago, by the last beat), not
    "last update 70 s ago". A beat of another revision (a state this phone missed) confirms nothing."""
    model, view, ids_, turn = follower_hearing_the_game_master()   # its state at T (revision 1 of page s1)
    for t in range(4_000, 60_001, 4_000):
        model, _ = update(model, PeerSaid("gm1", beat_text(1, "s1"), T + t))
    model, _ = update(model, LiveTicked(T + 60_000 + SILENT_MS + 1))
    assert state_line(model.live) == "reconnecting…"
    model, _ = update(model, LiveTicked(T + 60_000 + 15_000))
    assert state_line(model.live) == "last update 15 s ago · reconnecting…"
    # A beat of a newer revision than the view shown: the view is not the newest; its age stands.
    model, *_ = follower_hearing_the_game_master()
    model, _ = update(model, PeerSaid("gm1", beat_text(2, "s1"), T + 50_000))
    model, _ = update(model, LiveTicked(T + 50_000 + SILENT_MS + 1))
    assert state_line(model.live) == "last update 61 s ago · reconnecting…"
    # A clock an hour back moves the confirmation with it (the second between the readings taken as none).
    model, *_ = follower_hearing_the_game_master()
    model, _ = update(model, PeerSaid("gm1", beat_text(1, "s1"), T + 4_000))
    back, _ = update(model, LiveTicked(T + 5_000 - HOUR))
    assert back.live.confirmed_ms == T + 5_000 - HOUR == back.live.now_ms


def test_what_the_data_channels_dropped_unread_is_said_on_the_game_masters_line_at_the_beat():
    """Issue 51, item 11: a flood past static/live.mjs's frame bucket is dropped before it is read; the
    beat carries the page's count and the line says it (once it changes: a beat with the same count
    draws nothing new)."""
    from dataclasses import replace

    from web.app.effects import SayOnLine
    from web.app.live_status import followers_line

    def said(effects) -> list[str]:
        return [e.text for e in effects if isinstance(e, SayOnLine) and e.line == "live-followers"]

    model = replace(fight(*PARTY, started=True), live_page="page0001")
    model, _ = update(model, LiveOpened("room1234", "secret1234", DEFAULT_RELAYS, ()))
    model = replace(model, ui=replace(model.ui, sheet=("live", None)))
    assert "unread" not in followers_line(model.live)
    model, effects = update(model, LiveBeat(T, (-1, -1, 1, 1), 2_704))
    assert model.live.unread == 2_704
    assert ["2,704 more messages dropped unread (sent too fast or too large)." in t for t in said(effects)] == [True]
    model, effects = update(model, LiveBeat(T + 2_000, (-1, -1, 1, 1), 2_704))
    assert said(effects) == []
    model, _ = update(model, LiveBeat(T + 4_000, (-1, -1, 1, 1), 1))
    assert "1 more message dropped unread" in followers_line(model.live)
    # A table display only (not hosting) keeps no such count.
    display_only, _ = update(replace(fight(), live=replace(model.live.__class__(), display=True)), LiveBeat(T, (3, 3, 3, 3), 5))
    assert display_only.live.unread == 0
