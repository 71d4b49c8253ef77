"""The live table without a browser: what players may see (hidden, unknown, HP as words or numbers),
the wire messages read whole (pyengine/live.py), and the host's and followers' update (web/update/live.py)."""

from __future__ import annotations

import json
import random

import pytest

from pyengine.handoff import UNKNOWN_NAME, check_view, table_view
from pyengine.live import (
    DEFAULT_RELAYS,
    FROM_FOLLOWER,
    FROM_HOST,
    MAX_MESSAGE,
    SILENT_MS,
    LiveError,
    beat_text,
    hello_text,
    join_code,
    new_room,
    read_message,
    read_room,
    read_servers,
    state_text,
)
from tests.unit.pages import FakePage
from tests.unit.test_update import PARTY, fight, ids
from web.effects import LiveConnect, LiveLeave, LiveSend, OpenDisplay, SayOnLine, ShowLiveLink, StoreLive
from web.live import followers_line, state_line
from web.messages import (
    Act,
    DisplayOpened,
    LiveFollowed,
    LiveOpened,
    LiveStopped,
    LiveTicked,
    NextTurnTapped,
    PeerChanged,
    PeerSaid,
    UndoTapped,
)
from web.model import Live, Model
from web.screens import CHANGES, EVENTS
from web.update import update

KEY = "B" + "x" * 86  # a public key's length in a join link
RNG = random.Random(0)


def flag(model: Model, name: str, which: str, on: bool = True) -> Model:
    model, _ = update(model, Act("set_flag", {"id": ids(model)[name], "flag": which, "on": on}, RNG))
    return model


def hosting(model: Model) -> Model:
    model, _ = update(model, LiveOpened("room1234", "secret1234", DEFAULT_RELAYS, ()))
    return model


def following(model: Model | None = None) -> Model:
    model, _ = update(model or fight(), LiveFollowed(f"room1234.secret1234.{KEY}", ("ws://127.0.0.1:1",), ()))
    return model


def state_from(view: dict, rev: int) -> str:
    return state_text(view, rev)


# -- what the players may see -------------------------------------------------------------------

def test_a_hidden_combatant_is_in_no_part_of_the_players_view_and_an_unknown_one_has_no_name():
    model = flag(fight(*PARTY, started=True), "Goblin", "hidden")
    model = flag(model, "Ogre", "unknown")
    view = table_view(model.timeline.present)
    text = json.dumps(view)
    assert "Goblin" not in text and "Ogre" not in text
    assert [r[0] for r in view["rows"]] == ["Cyra", "Dax", UNKNOWN_NAME]
    # Cyra (18) acts, the hidden Goblin (15) is next: the players are told no name for it.
    assert view["now"] == "Cyra" and view["next"] == ""
    model, _ = update(model, NextTurnTapped(100.0, RNG))
    view = table_view(model.timeline.present)
    assert view["now"] == "" and view["next"] == "Dax"


def test_the_players_flags_last_through_turns_and_undo_takes_them_back():
    model = flag(fight(*PARTY, started=True), "Goblin", "hidden")
    for step in range(6):  # two rounds: the per-turn flags are cleared, these stay
        model, _ = update(model, NextTurnTapped(100.0 + step, RNG))
    goblin = next(c for c in model.timeline.present.combatants if c.name == "Goblin")
    assert "hidden" in goblin.flags
    assert any(e.text == "Goblin is hidden from the players" for e in model.timeline.log())
    model = flag(model, "Goblin", "hidden", on=False)
    assert "Goblin" in [r[0] for r in table_view(model.timeline.present)["rows"]]
    model, _ = update(model, UndoTapped())
    assert "Goblin" not in [r[0] for r in table_view(model.timeline.present)["rows"]]


def test_opponents_hp_as_words_by_default_and_as_numbers_when_the_game_master_says_so():
    model = fight(*PARTY)
    goblin = next(r for r in table_view(model.timeline.present)["rows"] if r[0] == "Goblin")
    assert goblin[2:5] == [None, None, "unhurt"]
    model, _ = update(model, Act("set_option", {"key": "players_hp", "value": "numbers"}, RNG))
    goblin = next(r for r in table_view(model.timeline.present)["rows"] if r[0] == "Goblin")
    assert goblin[2:4] == [7, 7]
    model, effects = update(model, Act("set_option", {"key": "players_hp", "value": "everything"}, RNG))
    assert "words or numbers" in effects[0].text


def test_the_sheet_toggles_hidden_and_the_live_screen_picks_numbers():
    model = fight(*PARTY)
    goblin = ids(model)["Goblin"]
    answer = EVENTS["players-flag"](FakePage(model, node={"id": goblin, "flag": "hidden"}))
    assert answer == Act("set_flag", {"id": goblin, "flag": "hidden", "on": True}, answer.rng)
    model = flag(model, "Goblin", "hidden")
    assert EVENTS["players-flag"](FakePage(model, node={"id": goblin, "flag": "hidden"})).args["on"] is False
    picked = CHANGES["players-hp"](FakePage(model, chosen="numbers"))
    assert picked.args == {"key": "players_hp", "value": "numbers"}


# -- the wire ---------------------------------------------------------------------------------

def test_a_state_is_read_back_whole_and_hellos_are_cleaned():
    view = table_view(fight(*PARTY, started=True).timeline.present)
    got = read_message(state_text(view, 123), FROM_HOST)
    assert got.kind == "state" and got.revision == 123 and got.view == check_view(view)
    assert read_message(beat_text(5), FROM_HOST).revision == 5
    hello = read_message(hello_text("Ana\u202e<b>"), FROM_FOLLOWER)
    assert hello.kind == "hello" and "\u202e" not in hello.name


@pytest.mark.parametrize("text, why", [
    ("x" * (MAX_MESSAGE + 1), "too large"),
    ("[" * 50 + "]" * 50, "too deep"),
    ("{not json", "not JSON"),
    ("[1, 2]", "not a message"),
    (json.dumps({"v": 2, "t": "state"}), "another version"),
    (json.dumps({"v": 1, "t": "claim"}), "not expected"),
    (json.dumps({"v": 1, "t": "state", "rev": True, "view": {}}), "revision"),
    (json.dumps({"v": 1, "t": "state", "rev": 2**60, "view": {}}), "revision"),
    (json.dumps({"v": 1, "t": "state", "rev": 3, "view": {"v": 1, "rows": [["x"]]}}), "unreadable view"),
    (None, "not text"),
])
def test_a_broken_or_hostile_message_is_refused_with_what_was_wrong(text, why):
    with pytest.raises(LiveError, match=why):
        read_message(text, FROM_HOST)


def test_a_follower_sends_only_hellos_and_the_host_only_states():
    view = table_view(fight(*PARTY).timeline.present)
    with pytest.raises(LiveError, match="not expected"):
        read_message(state_text(view, 4), FROM_FOLLOWER)
    with pytest.raises(LiveError, match="not expected"):
        read_message(hello_text("me"), FROM_HOST)


def test_join_links_and_server_lists_are_checked():
    room, secret = new_room()
    assert read_room(join_code(room, secret, KEY)) == (room, secret, KEY)
    assert read_room(f"{room}.{secret}", with_key=False) == (room, secret, "")
    for bad in (f"{room}.{secret}", f"{room}.{secret}.short", f"a.{secret}.{KEY}", f"{room}.{secret}.{KEY}<x>", ""):
        with pytest.raises(LiveError):
            read_room(bad)
    assert read_servers(None, ("ws://", "wss://"), DEFAULT_RELAYS) == DEFAULT_RELAYS
    assert read_servers("none", ("stun:",), ("stun:x",)) == ()
    assert read_servers(" ws://127.0.0.1:9 , wss://a.example ", ("ws://", "wss://"), ()) == ("ws://127.0.0.1:9", "wss://a.example")
    for bad in ("http://x", "ws://a b", "ws://x'onerror", ",".join(["ws://x"] * 9)):
        with pytest.raises(LiveError):
            read_servers(bad, ("ws://", "wss://"), ())


# -- the host ---------------------------------------------------------------------------------

def test_going_live_joins_the_room_shows_the_link_and_sends_the_present():
    model, effects = update(fight(*PARTY), LiveOpened("room1234", "secret1234", DEFAULT_RELAYS, ()))
    assert model.live.role == "host" and model.ui.sheet == ("live", None)
    kinds = [type(e) for e in effects]
    assert kinds[:2] == [StoreLive, LiveConnect] and ShowLiveLink in kinds
    assert effects[-1] == LiveSend(table_view(model.timeline.present))
    # Open again: the same room, nothing joined twice.
    again, effects = update(model, LiveOpened("other999", "other99999", DEFAULT_RELAYS, ()))
    assert again.live.room == "room1234" and not any(isinstance(e, LiveConnect) for e in effects)


def test_every_change_players_may_see_goes_out_once_and_nothing_else_does():
    model = hosting(fight(*PARTY, started=True))
    model, effects = update(model, NextTurnTapped(100.0, RNG))
    sent = [e for e in effects if isinstance(e, LiveSend)]
    assert sent == [LiveSend(table_view(model.timeline.present))]
    # Hiding a combatant changes the view (it goes); the same view is not sent again.
    model, effects = update(model, Act("set_flag", {"id": ids(model)["Ogre"], "flag": "hidden", "on": True}, RNG))
    assert [e for e in effects if isinstance(e, LiveSend)]
    model, effects = update(model, Act("set_option", {"key": "skip_down", "value": "all"}, RNG))
    assert not [e for e in effects if isinstance(e, LiveSend)]
    # Not live: nothing is sent.
    _, effects = update(fight(*PARTY, started=True), NextTurnTapped(100.0, RNG))
    assert not [e for e in effects if isinstance(e, LiveSend)]


def test_a_phone_that_joins_gets_the_present_and_the_followers_line_counts_it():
    model = hosting(fight(*PARTY))
    model, effects = update(model, PeerChanged("p1", True))
    assert LiveSend(table_view(model.timeline.present), "p1") in effects
    model, _ = update(model, PeerSaid("p1", hello_text("Ana"), 1.0))
    model, _ = update(model, PeerChanged("p2", True))
    assert followers_line(model.live) == "2 phones follow: Ana (connected), phone 2 (connected)."
    model, _ = update(model, PeerChanged("p2", False))
    assert followers_line(model.live).startswith("1 phone follows: Ana (connected), phone 2 (disconnected)")
    # Ana's phone reloads: a new id; the old entry goes once the new one says who it is.
    model, _ = update(model, PeerChanged("p1", False))
    model, _ = update(model, PeerChanged("p3", True))
    model, _ = update(model, PeerSaid("p3", hello_text("Ana"), 2.0))
    assert followers_line(model.live) == "1 phone follows: phone 2 (disconnected), Ana (connected)."


def test_the_host_refuses_and_counts_what_it_does_not_take_and_the_fight_is_untouched():
    model = hosting(fight(*PARTY, started=True))
    before = model.timeline
    view = table_view(model.timeline.present)
    for text in (None, "x" * 70_000, "[" * 9 + "]" * 9, json.dumps({"v": 9, "t": "hello"}), state_text(view, 10**12),
                 json.dumps({"v": 1, "t": "claim", "id": "c1"})):
        model, _ = update(model, PeerSaid("evil", text, 1.0))
    assert model.live.refused == 6 and model.timeline is before
    assert followers_line(model.live).endswith("6 messages refused.")


def test_stopping_leaves_the_room_and_forgets_it():
    model, effects = update(hosting(fight()), LiveStopped())
    assert model.live == Live() and LiveLeave() in effects and StoreLive(None) in effects


# -- a follower -------------------------------------------------------------------------------

def test_a_follower_takes_newer_states_only_and_says_how_it_is_connected():
    gm = fight(*PARTY, started=True)
    model, effects = update(fight(), LiveFollowed(f"room1234.secret1234.{KEY}", ("ws://127.0.0.1:1",), (), "Ana"))
    assert effects[0] == LiveConnect("follow", "room1234", "secret1234", ("ws://127.0.0.1:1",), (), "Ana", KEY)
    assert model.ui.sheet == ("live-follow", None)
    assert state_line(model.live).startswith("reconnecting")
    view = table_view(gm.timeline.present)
    model, _ = update(model, PeerChanged("gm", True))
    model, _ = update(model, PeerSaid("gm", state_from(view, 200), 1_000.0))
    assert model.live.view == check_view(view) and state_line(model.live) == "live"
    later, _ = update(gm, NextTurnTapped(100.0, RNG))
    model, _ = update(model, PeerSaid("gm", state_from(table_view(later.timeline.present), 150), 1_100.0))
    assert model.live.revision == 200  # older: ignored
    model, _ = update(model, PeerSaid("gm", beat_text(200), 4_000.0))
    model, effects = update(model, LiveTicked(4_000.0 + SILENT_MS - 1))
    assert effects == (SayOnLine("live-state", "live"),)
    model, effects = update(model, LiveTicked(4_000.0 + SILENT_MS + 1))  # silent: killed in the background
    assert effects == (SayOnLine("live-state", "reconnecting…"),)
    model, effects = update(model, LiveTicked(1_000.0 + 40_000))
    assert effects == (SayOnLine("live-state", "last update 40 s ago · reconnecting…"),)
    model, _ = update(model, PeerChanged("gm", False))
    assert not model.live.host_here()


def test_a_follower_refuses_what_is_broken_and_takes_no_hello():
    model = following()
    for text in (None, "{", hello_text("x"), json.dumps({"v": 1, "t": "state", "rev": 5, "view": {"v": 1, "rows": "x"}})):
        model, _ = update(model, PeerSaid("p", text, 1.0))
    assert model.live.refused == 4 and model.live.view is None


def test_a_bad_join_link_is_said_and_nothing_connects():
    model, effects = update(fight(), LiveFollowed("room.bad", (), ()))
    assert model.live.role == "off" and "damaged" in model.notices[-1].text
    assert not any(isinstance(e, LiveConnect) for e in effects)


def test_the_table_display_follows_the_game_masters_window_on_the_channel():
    gm = fight(*PARTY)
    gm, effects = update(gm, DisplayOpened())
    assert effects == (OpenDisplay(), LiveSend(table_view(gm.timeline.present), "display"))
    # A display is listening: changes go to it even with no live table.
    gm, effects = update(gm, Act("start_combat", {}, RNG))
    assert any(isinstance(e, LiveSend) and e.peer is None for e in effects)
    display, effects = update(fight(), LiveFollowed("display", (), ()))
    assert display.live.role == "display" and effects[0] == LiveConnect("display")
    display, _ = update(display, PeerSaid("gm", state_from(table_view(gm.timeline.present), 9), 5.0))
    assert display.live.view["round"] == 1 and state_line(display.live) == "live"
    # A new display says hello: the game master's window, live or not, answers with the present.
    other, effects = update(fight(*PARTY), PeerSaid("display", hello_text(""), 1.0))
    assert other.live.display and effects == (LiveSend(table_view(other.timeline.present), "display"),)


def test_a_new_room_is_random_and_link_safe():
    rooms = {new_room() for _ in range(50)}
    assert len(rooms) == 50
    for room, secret in rooms:
        read_room(join_code(room, secret, KEY))
