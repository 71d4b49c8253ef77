"""The live table without a browser: what players may see (hidden, unknown, HP as words or numbers),
the wire messages read whole (pyengine/live.py), and the host's and followers' update (web/app/update/live.py)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from pyengine import fair
from pyengine.core_args import Flag, Flow, Option
from pyengine.dice import roll
from pyengine.fair import commitment, joint_seed, new_secret
from pyengine.handoff import UNKNOWN_NAME, check_view, fight_token, pc_state, players_id, players_ids, table_view
from pyengine.live import (
    DEFAULT_RELAYS,
    FROM_FOLLOWER,
    FROM_HOST,
    MAX_MESSAGE,
    SILENT_MS,
    LiveError,
    answer_text,
    beat_text,
    drawn_text,
    hello_text,
    join_code,
    new_room,
    read_message,
    read_room,
    read_servers,
    request_text,
    state_text,
    you_text,
)
from tests.unit.pages import FakePage
from tests.unit.test_update import PARTY, fight, hp, ids
from web.app.effects import (
    ForgetLive,
    LiveConnect,
    LiveLeave,
    LiveSend,
    LiveTell,
    OpenDisplay,
    Refuse,
    RenderNotices,
    SayOnLine,
    SetField,
    ShowLiveLink,
    Toast,
)
from web.app.html import view_body_html
from web.app.live_status import followers_line, state_line, state_sent
from web.app.messages import (
    Act,
    AutoDoneToggled,
    ClaimTapped,
    DisplayOpened,
    DoneTapped,
    InitiativeRolled,
    InitiativeSent,
    LiveFollowed,
    LiveOpened,
    LiveStopped,
    LiveTicked,
    NextTurnTapped,
    PeerChanged,
    PeerSaid,
    RequestAnswered,
    RequestResent,
    RollSent,
    UndoTapped,
)
from web.app.model import Live, Model
from web.app.screens import CHANGES, EVENTS
from web.app.update import update

KEY = "B" + "x" * 86  # a public key's length in a join link
RNG = random.Random(0)


def flag(model: Model, name: str, which: str, on: bool = True) -> Model:
    model, _ = update(model, Act("set_flag", Flag(ids(model)[name], which, on), RNG))
    return model


def hosting(model: Model) -> Model:
    model, _ = update(model, LiveOpened("room1234", "secret1234", DEFAULT_RELAYS, ()))
    return replace(model, live=replace(model.live, key=GM_KEY))


def following(model: Model | None = None) -> Model:
    model, _ = update(model or fight(), LiveFollowed(f"room1234.secret1234.{KEY}", ("ws://127.0.0.1:1",), ()))
    return model


def playing_phone(gm: Model, name: str = "Cyra") -> Model:
    """A player's phone following `gm`'s fight: its state received from the game master's phone, the
    game master having let it play `name`."""
    phone = following(fight())
    phone, _ = update(phone, PeerChanged("gm", True))
    enc = gm.timeline.present
    ids_, turn = players_ids(enc)
    phone, _ = update(phone, PeerSaid("gm", state_text(table_view(enc), 5, ids_, turn, pcs=pc_state(enc)), 10.0))
    return replace(phone, live=replace(phone.live, you=vids(gm)[name]))


def vids(model: Model) -> dict[str, str]:
    """Name -> the id the players' view gives it (what a player's phone claims and targets by)."""
    enc = model.timeline.present
    return {c.name: players_id(enc, model.live.secret, c.id) for c in enc.combatants}


def present(model: Model, peer: str | None = None, revision: int | None = None) -> LiveSend:
    """The LiveSend of the present as the host sends it: the view, who is who, whose turn, and the
    party's own state (the view as drawn is added by the performer: state_sent); numbered with the
    model's last revision sent (the step that sent it), else `revision`."""
    ids, turn = players_ids(model.timeline.present, model.live.secret)
    view = table_view(model.timeline.present)
    return LiveSend(view, peer, tuple(tuple(i) for i in ids), tuple(turn), pc_state(model.timeline.present, model.live.secret),
                    model.live_rev if revision is None else revision, model.live_page, fight_token(model.live.secret, model.timeline.present))


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
    # Cyra (18) acts, the hidden Goblin (15) acts after her: to the players, Dax is next (the hidden
    # one's turn is no one's to them), and during the Goblin's turn no one is "now", Dax still next.
    assert view["now"] == "Cyra" and view["next"] == "Dax"
    assert [r[6] for r in view["rows"]] == ["now", "next", ""]
    model, _ = update(model, NextTurnTapped(100.0, RNG))
    view = table_view(model.timeline.present)
    assert view["now"] == "" and view["next"] == "Dax" and [r[6] for r in view["rows"]] == ["", "next", ""]


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
    model, _ = update(model, Act("set_option", Option("players_hp", "numbers"), RNG))
    goblin = next(r for r in table_view(model.timeline.present)["rows"] if r[0] == "Goblin")
    assert goblin[2:4] == [7, 7]
    model, effects = update(model, Act("set_option", Option("players_hp", "everything"), RNG))
    assert "words or numbers" in effects[0].text


def test_the_sheet_toggles_hidden_and_the_live_screen_picks_numbers():
    model = fight(*PARTY)
    goblin = ids(model)["Goblin"]
    answer = EVENTS["players-flag"](FakePage(model, node={"id": goblin, "flag": "hidden"}))
    assert answer == Act("set_flag", Flag(goblin, "hidden", True), answer.rng)
    model = flag(model, "Goblin", "hidden")
    assert EVENTS["players-flag"](FakePage(model, node={"id": goblin, "flag": "hidden"})).args.on is False
    picked = CHANGES["players-hp"](FakePage(model, chosen="numbers"))
    assert picked.args == Option("players_hp", "numbers")


# -- the wire ---------------------------------------------------------------------------------

def test_a_state_is_read_back_whole_and_hellos_are_cleaned():
    view = table_view(fight(*PARTY, started=True).timeline.present)
    got = read_message(state_text(view, 123), FROM_HOST)
    assert got.kind == "state" and got.revision == 123 and got.view == check_view(view)
    assert read_message(beat_text(5), FROM_HOST).revision == 5
    hello = read_message(hello_text("Ana\u202e<b>"), FROM_FOLLOWER)
    assert hello.kind == "hello" and "\u202e" not in hello.name


def test_a_state_carries_the_view_as_drawn_with_no_hidden_name_and_without_it_when_it_would_be_too_large():
    """Issue 40: the view as the game master's Python draws it travels in the signed state, for a phone
    whose engine is not ready yet; a hidden combatant is in it no more than in the view; a state that
    would pass the message limit with it goes without it (that phone then waits for its engine)."""
    model = flag(fight(*PARTY, started=True), "Goblin", "hidden")
    model, effects = update(model, LiveOpened("room123", "secret123", (), ()))
    model, effects = update(model, PeerChanged("p1", True))
    sent = next(e for e in effects if isinstance(e, LiveSend))
    text = state_sent(sent, "gm-id")  # what the performer sends (web/page/live.py LiveSide.send)
    html = json.loads(text)["html"]
    assert html == view_body_html(sent.view) and "Cyra" in html and "Goblin" not in html
    assert json.loads(text)["from"] == "gm-id" and json.loads(text)["rev"] == sent.revision
    assert read_message(text, FROM_HOST).view == check_view(sent.view)  # (the engine reads the view, never the HTML)
    huge = "<b>x</b>" * (MAX_MESSAGE // 8)
    assert "html" not in json.loads(state_text(sent.view, 8, html=huge))
    fits = "y" * (MAX_MESSAGE - 200 - len(state_text(sent.view, 8)) - 20)  # just under the limit: carried
    assert json.loads(state_text(sent.view, 8, html=fits))["html"] == fits


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
    assert kinds[0] == LiveConnect and ShowLiveLink in kinds
    assert effects[-1] == present(model)
    # Open again: the same room, nothing joined twice.
    again, effects = update(model, LiveOpened("other999", "other99999", DEFAULT_RELAYS, ()))
    assert again.live.room == "room1234" and not any(isinstance(e, LiveConnect) for e in effects)


def test_every_change_players_may_see_goes_out_once_and_nothing_else_does():
    model = hosting(fight(*PARTY, started=True))
    model, effects = update(model, NextTurnTapped(100.0, RNG))
    sent = [e for e in effects if isinstance(e, LiveSend)]
    assert sent == [present(model)]
    # Hiding a combatant changes the view (it goes); the same view is not sent again.
    model, effects = update(model, Act("set_flag", Flag(ids(model)["Ogre"], "hidden", True), RNG))
    assert [e for e in effects if isinstance(e, LiveSend)]
    model, effects = update(model, Act("set_option", Option("skip_down", "all"), RNG))
    assert not [e for e in effects if isinstance(e, LiveSend)]
    # Not live: nothing is sent.
    _, effects = update(fight(*PARTY, started=True), NextTurnTapped(100.0, RNG))
    assert not [e for e in effects if isinstance(e, LiveSend)]


def test_a_phone_that_joins_gets_the_present_and_the_followers_line_lists_each_phone_once_by_its_character():
    model = hosting(fight(*PARTY))
    model, effects = update(model, PeerChanged("p1", True))
    assert present(model, "p1") in effects
    model, _ = update(model, PeerSaid("p1", hello_text("Ana", "dev-ana-0001"), 1.0))
    model, _ = update(model, PeerChanged("p2", True))
    assert followers_line(model.live) == "2 phones follow: Ana (connected), phone 2 (connected)."
    model, _ = update(model, PeerChanged("p2", False))  # left before it said who it was: not listed
    assert followers_line(model.live) == "1 phone follows: Ana (connected)."
    # Ana's phone reloads: a new connection, the same device: one phone, still.
    model, _ = update(model, PeerChanged("p1", False))
    assert followers_line(model.live) == "0 phones follow: Ana (disconnected)."
    model, _ = update(model, PeerChanged("p3", True))
    model, _ = update(model, PeerSaid("p3", hello_text("Ana", "dev-ana-0001"), 2.0))
    assert followers_line(model.live) == "1 phone follows: Ana (connected)."
    # Approved to play Cyra: called by its character.
    model = approved(model, "Cyra", "p3")
    combatants, eid = model.timeline.present.combatants, model.timeline.present.id
    assert followers_line(model.live, combatants, eid) == "1 phone follows: Cyra (connected)."
    # A table display on this device, then its window closed (it says bye on the channel).
    model, _ = update(model, PeerSaid("display", hello_text("Table display"), 3.0))
    assert followers_line(model.live, combatants, eid).endswith("A table display follows on this device.")
    model, _ = update(model, PeerSaid("display", request_text("bye"), 4.0))
    assert followers_line(model.live, combatants, eid) == "1 phone follows: Cyra (connected)."


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
    assert model.live == Live() and LiveLeave() in effects and ForgetLive() in effects


# -- a follower -------------------------------------------------------------------------------

def test_a_follower_takes_newer_states_only_and_says_how_it_is_connected():
    gm = fight(*PARTY, started=True)
    model, effects = update(fight(), LiveFollowed(f"room1234.secret1234.{KEY}", ("ws://127.0.0.1:1",), (), "Ana", "dev-ana-0001"))
    assert effects[0] == LiveConnect("follow", "room1234", "secret1234", ("ws://127.0.0.1:1",), (), host_key=KEY)
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
    assert effects == (SayOnLine("live-state", "live", "live"),)
    model, effects = update(model, LiveTicked(4_000.0 + SILENT_MS + 1))  # silent: killed in the background
    assert effects == (SayOnLine("live-state", "reconnecting…", "waiting"),)
    model, effects = update(model, LiveTicked(1_000.0 + 30_000))
    # Still connected (the game master's phone killed says nothing), but not heard since it was last
    # met (at 4 s, SILENT_MS + 1 later): past 8 s, the phone joins the room again (a fresh announce).
    # "last update": since the view was last known to be the newest (the beat of its revision at 4 s,
    # not the state at 1 s: a quiet table's view is not old while the beats go on).
    rejoin = LiveConnect("follow", "room1234", "secret1234", ("ws://127.0.0.1:1",), (), host_key=KEY)
    assert effects == (SayOnLine("live-state", "last update 27 s ago · reconnecting…", "lost"), rejoin)
    model, effects = update(model, LiveTicked(1_000.0 + 32_000))
    assert effects == (SayOnLine("live-state", "last update 29 s ago · reconnecting…", "lost"),)  # not again at once
    # Then less and less often while it meets no one: 10 s, 15 s, 20 s, 30 s, 30 s … after the last.
    joins = []
    for t in range(32_000, 200_000, 1_000):
        model, effects = update(model, LiveTicked(1_000.0 + t))
        joins += [t] * (rejoin in effects)
    assert [b - a for a, b in zip([30_000] + joins, joins)] == [10_000, 15_000, 20_000, 30_000, 30_000, 30_000, 30_000]


def test_a_follower_connected_to_another_follower_rejoins_and_one_that_meets_the_game_master_stops():
    gm = fight(*PARTY, started=True)
    ids_, turn = players_ids(gm.timeline.present)
    view = table_view(gm.timeline.present)
    model, _ = update(fight(), LiveFollowed(f"room1234.secret1234.{KEY}", ("ws://x:1",), (), "Ana", "dev-ana-0001"))
    rejoin = LiveConnect("follow", "room1234", "secret1234", ("ws://x:1",), (), host_key=KEY)
    # Met the game master's phone, and Ben's.
    model, _ = update(model, PeerChanged("gm1", True))
    model, _ = update(model, PeerChanged("ben", True))
    model, _ = update(model, PeerSaid("gm1", state_text(view, 5, ids_, turn, "gm1", "s1"), 1_000.0))
    model, effects = update(model, LiveTicked(3_000.0))
    assert rejoin not in effects and model.live.met_ms == 3_000.0
    # The game master's tab closes: its connection goes; Ben's stays. Ana still rejoins, 8 s after she
    # last met it, whoever else she is connected to.
    model, _ = update(model, PeerChanged("gm1", False))
    model, effects = update(model, LiveTicked(10_000.0))
    assert rejoin not in effects
    model, effects = update(model, LiveTicked(11_000.0))
    assert rejoin in effects and model.live.rejoins == 1
    # A state passed on by Ben (the game master's page back, as "gm2") is not the game master met:
    # Ana goes on joining until she is connected to gm2 itself.
    model, effects = update(model, PeerSaid("ben", state_text(view, 1, ids_, turn, "gm2", "s2"), 12_000.0))
    assert LiveTell(hello_text("Ana", "dev-ana-0001"), "gm2") in effects
    # A new game master's page heard of only through Ben's (its states and beats passed on): she is
    # live, but her requests go to the game master's phone alone; unless she meets it meanwhile, she
    # joins again RELAYED_REJOIN_MS (20 s) later: a join drops her connections for a moment, so one
    # that still hears the game master does not do it often (a busy room would flap).
    for t in (16_000, 20_000, 24_000, 28_000):
        model, effects = update(model, PeerSaid("ben", beat_text(1, "s2"), float(t)))
        model, effects = update(model, LiveTicked(t + 1_000.0))
        assert rejoin not in effects and state_line(model.live) == "live"
    model, effects = update(model, LiveTicked(32_000.0))
    assert rejoin in effects and model.live.rejoins == 1
    model, _ = update(model, PeerChanged("gm2", True))
    model, _ = update(model, PeerSaid("gm2", state_text(view, 2, ids_, turn, "gm2", "s2"), 33_000.0))
    model, effects = update(model, LiveTicked(34_000.0))
    assert rejoin not in effects and model.live.rejoins == 0 and state_line(model.live) == "live"
    # The game master's phone's clock went back an hour: nothing in a follower depends on it (the
    # revisions count within its page), and this phone's own clock keeps the rejoin's time.
    model, _ = update(model, PeerSaid("gm2", state_text(view, 3, ids_, turn, "gm2", "s2"), 35_000.0))
    assert model.live.revision == 3


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
    assert effects == (OpenDisplay(), present(gm, "display"))
    # A display is listening: changes go to it even with no live table.
    gm, effects = update(gm, Act("start_combat", Flow(), RNG))
    assert any(isinstance(e, LiveSend) and e.peer is None for e in effects)
    display, effects = update(fight(), LiveFollowed("display", (), ()))
    assert display.live.role == "display" and effects[0] == LiveConnect("display")
    display, _ = update(display, PeerSaid("gm", state_from(table_view(gm.timeline.present), 9), 5.0))
    assert display.live.view["round"] == 1 and state_line(display.live) == "live"
    # A new display says hello: the game master's window, live or not, answers with the present.
    other, effects = update(fight(*PARTY), PeerSaid("display", hello_text(""), 1.0))
    assert other.live.display and effects == (present(other, "display"),)


def test_a_new_room_is_random_and_link_safe():
    rooms = {new_room() for _ in range(50)}
    assert len(rooms) == 50
    for room, secret in rooms:
        read_room(join_code(room, secret, KEY))


# -- players ask, the game master decides --------------------------------------------------------

def joined(model: Model, peer: str = "p1", device: str = "dev-ana-0001", name: str = "Ana") -> Model:
    model, _ = update(model, PeerChanged(peer, True))
    model, _ = update(model, PeerSaid(peer, hello_text(name, device), 1.0))
    return model


def asked(model: Model, kind: str, peer: str = "p1", **fields) -> tuple[Model, tuple]:
    return update(model, PeerSaid(peer, request_text(kind, **fields), 2.0, random.Random(5)))


GM_KEY = "6b" * 16   # the game master's page's key for its answers to commitments (pyengine.fair.drawn), fixed in tests


def rolled(model: Model, kind: str, peer: str = "p1", secret: str = "", **fields) -> tuple[Model, tuple]:
    """A verified roll's three messages as a player's phone sends them: the request with its
    commitment, (the game master's phone answers with its value), the reveal of the secret."""
    secret = secret or new_secret(random.Random(len(model.live.seen)))
    rid = fields.pop("rid", 0)
    model, first = asked(model, kind, peer, c=commitment(secret), rid=rid, **fields)
    if not any(isinstance(e, LiveTell) and '"t":"draw"' in e.text for e in first):
        return model, first  # refused before any dice
    model, second = asked(model, "show", peer, s=secret, rid=rid)
    return model, first + second


def joint(model: Model, secret: str) -> int:
    """The seed a verified roll's dice come from, worked out here from both values (not by the update)."""
    return joint_seed(secret, fair.drawn(model.live.key or GM_KEY, commitment(secret)))


def secret_for(model: Model, wanted) -> str:
    """A player's secret whose dice, from both phones, make `wanted(seed)` true (as the tests once chose a seed)."""
    return next(s for s in (new_secret(random.Random(n)) for n in range(20_000)) if wanted(joint(model, s)))


def approved(model: Model, name: str = "Cyra", peer: str = "p1") -> Model:
    model, _ = asked(model, "claim", peer, cid=vids(model)[name])
    request = model.live.requests[-1]
    model, effects = update(model, RequestAnswered(request.id, True, RNG))
    assert LiveTell(you_text(vids(model)[name]), peer) in effects
    return model


def test_a_claim_waits_for_the_game_master_and_is_kept_for_the_phone_across_a_reload():
    model = joined(hosting(fight(*PARTY)))
    model, effects = asked(model, "claim", cid=vids(model)["Cyra"])
    assert [r.text for r in model.live.requests] == ["Ana asks to play Cyra."] and RenderNotices() in effects
    assert Toast("Ana asks to play Cyra.", request=model.live.requests[0].id) in effects
    model, _ = asked(model, "claim", cid=vids(model)["Cyra"])  # asked twice: one request
    assert len(model.live.requests) == 1
    model = approved(model)
    assert model.live.claims == (("dev-ana-0001", "e1", ids(model)["Cyra"]),) and model.live.requests == ()
    assert model.live.trusted == (("dev-ana-0001", "Cyra"),)
    # The phone reloads (a new peer id, the same device): it is told at once whom it plays.
    model, _ = update(model, PeerChanged("p9", True))
    model, effects = update(model, PeerSaid("p9", hello_text("Ana", "dev-ana-0001"), 3.0))
    assert LiveTell(you_text(vids(model)["Cyra"]), "p9") in effects
    # Another phone cannot take Cyra, nor an opponent.
    model = joined(model, "p2", "dev-ben-0002", "Ben")
    before = model.live.refused
    model, _ = asked(model, "claim", "p2", cid=vids(model)["Cyra"])
    model, _ = asked(model, "claim", "p2", cid=vids(model)["Goblin"])
    assert model.live.refused == before + 2 and model.live.requests == ()


def test_dismissing_a_claim_tells_the_phone():
    model = joined(hosting(fight(*PARTY)))
    model, _ = asked(model, "claim", cid=vids(model)["Dax"])
    model, effects = update(model, RequestAnswered(model.live.requests[0].id, False, RNG))
    assert model.live.claims == () and LiveTell(you_text(""), "p1") in effects


def test_requests_for_a_combatant_not_claimed_are_refused_and_counted():
    model = joined(hosting(fight(*PARTY, started=True)))
    timeline = model.timeline
    for kind, fields in (("init", {"value": 12}), ("done", {}), ("roll", {"target": vids(model)["Goblin"], "value": 9, "expr": "1d8+3"})):
        model, _ = asked(model, kind, **fields)
    assert model.live.refused == 3 and model.live.requests == () and model.timeline is timeline


def test_a_sent_initiative_fills_the_game_masters_initiative_step():
    model = approved(joined(hosting(fight(*PARTY))))
    model = replace_ui_sheet(model, ("init", None))
    model, effects = asked(model, "init", value=17)
    cyra = ids(model)["Cyra"]
    assert model.live.initiatives == ((cyra, 17),)
    assert SetField(f"init-{cyra}", "17") in effects and Toast("Cyra: initiative 17") in effects


def replace_ui_sheet(model: Model, sheet):
    from dataclasses import replace as rep
    return rep(model, ui=rep(model.ui, sheet=sheet))


def test_im_done_asks_for_the_next_turn_or_passes_it_when_allowed():
    model = approved(joined(hosting(fight(*PARTY, started=True))))  # Cyra (18) acts first
    first = model.timeline.present.active_id
    model, _ = asked(model, "done")
    assert model.live.requests[-1].kind == "done" and model.timeline.present.active_id == first
    model, _ = update(model, RequestAnswered(model.live.requests[-1].id, True, RNG))
    assert model.timeline.present.active_id != first and model.live.requests == ()
    # Not her turn now: "I'm done" does nothing.
    model, _ = asked(model, "done")
    assert model.live.requests == ()
    model, _ = update(model, UndoTapped())
    model, _ = update(model, AutoDoneToggled(True))
    model, _ = asked(model, "done")
    assert model.timeline.present.active_id != first and model.live.requests == ()


def test_a_roll_arrives_as_a_pending_result_and_apply_is_one_undoable_step():
    model = approved(joined(hosting(fight(*PARTY, started=True))))
    goblin = vids(model)["Goblin"]
    model, _ = asked(model, "roll", target=goblin, value=5, expr="1d8+3", label="Longsword")
    assert model.live.requests[-1].text == "Cyra: Longsword 1d8+3 = 5 (typed) against Goblin." and model.live.requests[-1].typed
    # Issue 38: a second roll at the same target from the same phone replaces the first card (a
    # second tap, a corrected roll); a roll at another target waits beside it.
    model, _ = asked(model, "roll", target=goblin, value=4, expr="1d4", label="Dagger")
    assert [r.text for r in model.live.requests] == ["Cyra: Dagger 1d4 = 4 (typed) against Goblin."]
    model, _ = asked(model, "roll", target=vids(model)["Ogre"], value=6, expr="1d10", label="Fire Bolt")
    first, second = model.live.requests
    model, _ = update(model, RequestAnswered(first.id, True, RNG))
    assert hp(model, "Goblin") == 3
    model, _ = update(model, RequestAnswered(second.id, False, RNG))
    assert hp(model, "Goblin") == 3 and model.live.requests == ()
    model, _ = update(model, UndoTapped())
    assert hp(model, "Goblin") == 7


def test_a_roll_at_a_hidden_or_unknown_target_is_refused():
    model = approved(joined(hosting(fight(*PARTY, started=True))))
    model = flag(model, "Ogre", "hidden")
    model, _ = asked(model, "roll", target=vids(model)["Ogre"], value=5, expr="1d8")
    model, _ = asked(model, "roll", target="nobody", value=5, expr="1d8")
    assert model.live.refused == 2 and model.live.requests == ()


def test_a_players_phone_claims_sends_and_rolls_through_its_host_and_says_what_each_request_came_to():
    from web.app.live_status import read_live_table  # noqa: F401 - (the module the answers are said by)

    gm = fight(*PARTY, started=True)
    model = following(fight())
    model, effects = update(model, ClaimTapped("c1"))
    assert model.live.said.startswith("not delivered: the game master's phone is not connected") and not any(isinstance(e, LiveTell) for e in effects)
    ids_, turn = players_ids(gm.timeline.present)
    model, _ = update(model, PeerChanged("gm", True))
    model, _ = update(model, PeerSaid("gm", state_text(table_view(gm.timeline.present), 5, ids_, turn), 10.0))
    model, effects = update(model, ClaimTapped(vids(gm)["Cyra"]))
    assert LiveTell(request_text("claim", cid=vids(gm)["Cyra"], rid=2), "gm") in effects
    assert model.live.said == "sending your claim on Cyra…"
    model, _ = update(model, PeerSaid("gm", answer_text(2, "waiting"), 10.5))
    assert model.live.said == "waiting: the game master has your claim on Cyra."
    model, _ = update(model, PeerSaid("gm", you_text(vids(gm)["Cyra"]), 11.0))
    model, _ = update(model, PeerSaid("gm", answer_text(2, "applied"), 11.0))
    assert model.live.you == vids(gm)["Cyra"] and model.live.said == "applied: your claim on Cyra."
    model, effects = update(model, RollSent(vids(gm)["Goblin"], "1d8+3", "Longsword", random.Random(5)))
    sent = next(e for e in effects if isinstance(e, LiveTell))
    secret = new_secret(random.Random(5))
    assert json.loads(sent.text) == {"v": 1, "t": "roll", "target": vids(gm)["Goblin"], "expr": "1d8+3", "label": "Longsword",
                                     "c": commitment(secret), "rid": 3}
    # The game master's phone answers with its value: the dice are rolled here from both, shown at
    # once, and the secret goes to the game master's phone (which rolls the same dice).
    value = fair.drawn(GM_KEY, commitment(secret))
    model, effects = update(model, PeerSaid("gm", drawn_text(3, value), 10.8))
    seed = joint_seed(secret, value)
    result = roll("1d8+3", random.Random(seed))
    assert LiveTell(request_text("show", rid=3, s=secret), "gm") in effects
    assert model.live.said == f"rolled {result.text}: sending Longsword 1d8+3…" and result.text.startswith("1d8 (")
    _, effects = update(model, PeerSaid("evil", drawn_text(3, value), 10.9))
    assert effects == ()  # (a draw is told straight from the game master's phone, never passed on)
    # An answer to an older request, or from another phone, says nothing of this one.
    model, _ = update(model, PeerSaid("gm", answer_text(2, "dismissed"), 11.5))
    model, _ = update(model, PeerSaid("evil", answer_text(3, "applied"), 11.5))
    assert model.live.said.startswith("rolled 1d8 (")
    model, _ = update(model, PeerSaid("gm", answer_text(3, "dismissed"), 11.6))
    assert model.live.said.startswith("dismissed: the game master dismissed Longsword 1d8+3")
    _, effects = update(model, RollSent(vids(gm)["Goblin"], "1d8+", "", RNG))
    assert isinstance(effects[0], Refuse)
    _, effects = update(model, InitiativeSent(None))
    assert isinstance(effects[0], Refuse)
    model, effects = update(model, DoneTapped())
    assert LiveTell(request_text("done", rid=4), "gm") in effects
    model, _ = update(model, PeerSaid("gm", answer_text(4, "refused", "it is not Cyra's turn"), 12.0))
    assert model.live.said == "refused: it is not Cyra's turn."
    # No answer within ANSWER_MS: sent once more; none again: said not delivered, with Send again (the
    # same request, the same number).
    model, effects = update(model, DoneTapped())
    model, _ = update(model, LiveTicked(12.0 + 4_000))
    assert model.live.said.startswith("sending")
    model, effects = update(model, LiveTicked(12.0 + 5_001))
    assert LiveTell(request_text("done", rid=5), "gm") in effects and model.live.said.startswith("sending")
    model, _ = update(model, LiveTicked(12.0 + 10_000))
    assert model.live.said.startswith("sending")
    model, _ = update(model, LiveTicked(12.0 + 10_001))
    assert model.live.said == "not delivered: the game master's phone is not connected (“I'm done”: no answer)."
    from web.app.screens import SCREENS, Context
    drawn = SCREENS["live-follow"].draw(Context(replace_ui_sheet(model, ("live-follow", None))), None)
    assert 'data-testid="request-again"' in drawn and 'data-testid="request-state"' in drawn
    model, effects = update(model, RequestResent())
    assert LiveTell(request_text("done", rid=5), "gm") in effects and model.live.said.startswith("sending")
    # A "you" from another phone is not the game master's: ignored.
    model, _ = update(model, PeerSaid("evil", you_text(""), 12.0))
    assert model.live.you == vids(gm)["Cyra"]


def test_every_request_the_game_master_gets_is_answered_and_a_refusal_says_why():
    model = joined(hosting(fight(*PARTY)))
    cyra, dax, goblin = vids(model)["Cyra"], vids(model)["Dax"], vids(model)["Goblin"]

    def answers(effects) -> list[tuple[int, str, str]]:
        out = []
        for e in effects:
            if isinstance(e, LiveTell) and json.loads(e.text)["t"] == "ans":
                doc = json.loads(e.text)
                out.append((doc["rid"], doc["state"], doc["why"]))
                assert e.peer == "p1"
        return out

    # Before the claim: a roll or an initiative for no one is refused, with why.
    model, effects = asked(model, "init", value=12, rid=1)
    assert answers(effects) == [(1, "refused", "the game master has not let this phone play anyone (tap your character first)")]
    model, effects = asked(model, "claim", cid=cyra, rid=2)
    assert answers(effects) == [(2, "waiting", "")]
    model, effects = asked(model, "claim", cid=cyra, rid=3)  # tapped twice: the one card, answering the newer
    assert answers(effects) == [(3, "waiting", "")] and len(model.live.requests) == 1
    model, effects = asked(model, "claim", cid=dax, rid=4)  # changed its mind: the card says Dax now
    assert answers(effects) == [(4, "waiting", "")] and [r.text for r in model.live.requests] == ["Ana asks to play Dax."]
    model, effects = update(model, RequestAnswered(model.live.requests[0].id, True, RNG))
    assert answers(effects) == [(4, "applied", "")]
    model, effects = asked(model, "init", value=12, rid=5)
    assert answers(effects) == [(5, "applied", "initiative 12 is with the game master")]
    model, effects = asked(model, "claim", cid=goblin, rid=6)
    assert answers(effects) == [(6, "refused", "that is not a party member the players can see")]
    model2 = joined(model, "p2", "dev-ben-0002", "Ben")
    _, effects = update(model2, PeerSaid("p2", request_text("claim", cid=dax, rid=1), 3.0, RNG))
    assert [json.loads(e.text)["why"] for e in effects if isinstance(e, LiveTell)] == ["another phone plays Dax"]
    model, _ = update(model, NextTurnTapped(100.0, RNG))  # the fight starts: Cyra (18) first
    model, effects = asked(model, "init", value=3, rid=7)
    assert answers(effects) == [(7, "refused", "the fight has started: initiative is settled")]
    model, effects = asked(model, "done", rid=8)
    assert answers(effects) == [(8, "refused", "it is not Dax's turn")]
    model, effects = asked(model, "roll", target="nobody", value=3, expr="1d4", rid=9)
    assert answers(effects) == [(9, "refused", "that target is not in the fight the players see")]
    model, effects = asked(model, "roll", target=goblin, value=3, expr="1d4", rid=10)
    assert answers(effects) == [(10, "waiting", "1d4 = 3")]
    model, effects = update(model, RequestAnswered(model.live.requests[0].id, False, RNG))
    assert answers(effects) == [(10, "dismissed", "")]
    # A phone without a device id (no hello yet) is told to wait, not left wondering.
    model, effects = update(model, PeerSaid("p9", request_text("done", rid=1), 5.0, RNG))
    assert [json.loads(e.text)["state"] for e in effects if isinstance(e, LiveTell)] == ["refused"]


def test_claims_and_waiting_requests_are_kept_with_the_room_and_come_back_after_the_game_masters_reload():
    from web.app.effects import KeepLiveTable
    from web.app.live_status import live_table_text, read_live_table

    model = joined(hosting(fight(*PARTY, started=True)))
    model, effects = asked(model, "claim", cid=vids(model)["Cyra"], rid=1)
    kept = [e for e in effects if isinstance(e, KeepLiveTable)]
    assert len(kept) == 1 and read_live_table(kept[0].text, "room1234")[2][0].text == "Ana asks to play Cyra."
    model, effects = update(model, RequestAnswered(model.live.requests[0].id, True, RNG))
    model, effects = asked(model, "done", rid=2)  # Cyra (18) acts first: "I'm done" waits
    text = next(e for e in effects if isinstance(e, KeepLiveTable)).text
    assert text == live_table_text(model.live)
    # The page reloads: a fresh model, the room taken up again with what was kept.
    back, _ = update(fight(*PARTY, started=True), LiveOpened("room1234", "secret1234", DEFAULT_RELAYS, (), shown=False, kept=text))
    assert back.live.claims == model.live.claims and [(r.kind, r.text, r.rid) for r in back.live.requests] == [
        ("done", "Cyra is done: next turn?", 2)]
    # Ana's phone comes back under a new connection: told again who it plays; the waiting "I'm done",
    # applied, is answered there.
    back, effects = update(back, PeerChanged("p7", True))
    back, effects = update(back, PeerSaid("p7", hello_text("Ana", "dev-ana-0001"), 9.0))
    assert LiveTell(you_text(vids(back)["Cyra"]), "p7") in effects
    first = back.timeline.present.active_id
    back, effects = update(back, RequestAnswered(back.live.requests[0].id, True, RNG))
    assert back.timeline.present.active_id != first
    assert LiveTell(answer_text(2, "applied", "the turn passed"), "p7") in effects
    # Another reload, and a request answered before its phone is back: told when it says hello.
    again, _ = update(fight(*PARTY, started=True), LiveOpened("room1234", "secret1234", DEFAULT_RELAYS, (), shown=False, kept=text))
    again, effects = update(again, RequestAnswered(again.live.requests[0].id, False, RNG))
    assert not any(isinstance(e, LiveTell) for e in effects)
    again, _ = update(again, PeerChanged("p8", True))
    again, effects = update(again, PeerSaid("p8", hello_text("Ana", "dev-ana-0001"), 9.0))
    assert LiveTell(answer_text(2, "dismissed"), "p8") in effects and again.live.owed == ()
    # Another room's, or a damaged text: nothing is taken.
    assert read_live_table(text, "other") == ((), (), (), "")
    for bad in ("", "{", "[]", '{"room":"room1234","claims":{"a":1},"requests":[[1]]}', "x" * 200_000):
        assert read_live_table(bad, "room1234") == ((), (), (), "")


def test_the_followers_line_says_the_count_with_the_refusal_that_made_it():
    model = hosting(fight(*PARTY))
    for n in (1, 2):
        model, effects = update(model, PeerSaid("evil", "{", 1.0))
        assert effects == (SayOnLine("live-followers", followers_line(model.live)),)
        assert followers_line(model.live).endswith(f"{n} {'message' if n == 1 else 'messages'} refused.")


def test_the_live_screens_close_when_no_table_is_live():
    from web.app.screens import SCREENS, Context, Elsewhere

    model = fight(*PARTY)
    assert SCREENS["live"].draw(Context(model), None) == Elsewhere()
    assert SCREENS["live-follow"].draw(Context(model), None) == Elsewhere()
    # A follower's screen: the claim buttons before the game master answers, the player's part after.
    gm = fight(*PARTY, started=True)
    ids_, turn = players_ids(gm.timeline.present)
    follower = following(fight())
    follower, _ = update(follower, PeerChanged("gm", True))
    follower, _ = update(follower, PeerSaid("gm", state_text(table_view(gm.timeline.present), 5, ids_, turn), 10.0))
    drawn = SCREENS["live-follow"].draw(Context(follower), None)
    assert drawn.count('data-testid="claim"') == 2 and "send-roll" not in drawn
    follower, _ = update(follower, PeerSaid("gm", you_text(vids(gm)["Cyra"]), 11.0))
    drawn = SCREENS["live-follow"].draw(Context(follower), None)
    assert 'data-testid="claim"' not in drawn and "send-roll" in drawn and 'data-testid="im-done">' in drawn


def test_a_players_attack_from_my_characters_fills_the_roll():
    from web.app.messages import LiveAttackPicked
    from web.app.screens.live import my_attacks

    characters = ({"name": "Cyra", "stats": {"damage": "1d6"}, "attacks": [
        {"name": "Longsword", "stats": {"damage": "1d8+3"}}, {"name": "Fists", "stats": {}}]},
        {"name": "Odd", "stats": "x", "attacks": "y"}, {"name": "Odder", "stats": {"damage": "2"}, "attacks": ["z"]})
    assert my_attacks(characters) == [("Cyra: Longsword", "1d8+3"), ("Cyra: Fists", "1d6")]
    model = Model(fight().timeline, characters=characters)
    picked = CHANGES["live-attack"](FakePage(model, chosen="0"))
    assert picked == LiveAttackPicked("1d8+3", "Longsword")
    assert CHANGES["live-attack"](FakePage(model, chosen="")) is None
    _, effects = update(model, picked)
    assert effects[0].fields == (("live-dice", "1d8+3"), ("live-label", "Longsword"))


def test_a_follower_says_hello_to_the_game_masters_phone_alone_and_takes_you_from_it_alone():
    gm = fight(*PARTY, started=True)
    ids_, turn = players_ids(gm.timeline.present)
    view = table_view(gm.timeline.present)
    model, _ = update(fight(), LiveFollowed(f"room1234.secret1234.{KEY}", ("ws://x:1",), (), "Ana", "dev-ana-0001"))
    # The state came through Ben's phone ("ben"), signed by the game master's ("gm1"): hello goes to gm1.
    model, effects = update(model, PeerSaid("ben", state_text(view, 5, ids_, turn, "gm1"), 10.0))
    assert effects[0] == LiveTell(hello_text("Ana", "dev-ana-0001"), "gm1") and model.live.gm == "gm1"
    model, effects = update(model, PeerSaid("ben", state_text(view, 6, ids_, turn, "gm1"), 11.0))
    assert not any(isinstance(e, LiveTell) for e in effects)  # the same game master: no second hello
    model, effects = update(model, PeerChanged("gm1", True))  # met it directly: hello again, there
    assert effects[0] == LiveTell(hello_text("Ana", "dev-ana-0001"), "gm1")
    # A "you" is taken from the game master's phone only.
    model, _ = update(model, PeerSaid("ben", you_text("c1"), 12.0))
    assert model.live.you == ""
    model, _ = update(model, PeerSaid("gm1", you_text("c1"), 12.0))
    assert model.live.you == "c1"
    # Requests go to the game master's phone, not to whoever passed the state on.
    _, effects = update(model, DoneTapped())
    assert LiveTell(request_text("done", rid=1), "gm1") in effects
    # The game master's phone reloads (a new id in its states): hello to the new one.
    model, effects = update(model, PeerSaid("ben", state_text(view, 9, ids_, turn, "gm2"), 20.0))
    assert effects[0] == LiveTell(hello_text("Ana", "dev-ana-0001"), "gm2")


def test_an_initiative_sent_before_the_step_is_open_is_in_its_field_when_it_opens():
    from web.app.screens import SCREENS, Context

    model = approved(joined(hosting(fight(*PARTY))))
    model, effects = asked(model, "init", value=17)
    assert not any(isinstance(e, SetField) for e in effects)  # the step is not open yet
    cyra = ids(model)["Cyra"]
    drawn = SCREENS["init"].draw(Context(replace_ui_sheet(model, ("init", None))), None)
    assert f'id="init-{cyra}"' in drawn and 'value="17"' in drawn


def test_the_connection_settings_take_only_relays_the_site_may_reach():
    from pyengine.live import allowed_relays, check_relays, relay_origin
    from web.app.effects import StoreServers
    from web.app.messages import ServersSaved

    policy = "default-src 'self'; connect-src 'self' wss://tracker.openwebtorrent.com wss://tracker.files.fm:7073 ws://127.0.0.1:47913; worker-src 'self'"
    allowed = allowed_relays(policy)
    assert allowed == ("wss://tracker.openwebtorrent.com", "wss://tracker.files.fm:7073", "ws://127.0.0.1:47913")
    assert relay_origin("wss://tracker.files.fm:7073/announce") == "wss://tracker.files.fm:7073"
    check_relays(("wss://tracker.files.fm:7073/announce",), allowed)
    with pytest.raises(LiveError, match="not among the relays"):
        check_relays(("wss://evil.example",), allowed)
    model = hosting(fight())
    _, effects = update(model, ServersSaved("ws://127.0.0.1:47913", "none", allowed))
    assert effects[0] == StoreServers(("ws://127.0.0.1:47913",), ()) and "next time" in effects[1].text
    # Nostr relays too: checked against the same policy; with no WebTorrent tracker, Nostr alone will do.
    _, effects = update(model, ServersSaved("none", "none", allowed, "ws://127.0.0.1:47913"))
    assert effects[0] == StoreServers((), (), ("ws://127.0.0.1:47913",))
    _, effects = update(model, ServersSaved("none", "none", allowed, "wss://nostr.evil.example"))
    assert isinstance(effects[0], Refuse) and "not among" in effects[0].text
    _, effects = update(model, ServersSaved("none", "none", allowed, "none"))
    assert isinstance(effects[0], Refuse) and "at least one relay" in effects[0].text
    for relays, stun, why in (("wss://evil.example", "", "not among"), ("none", "", "at least one relay"),
                              ("http://x", "", "not a"), ("", "http://stun", "not a")):
        _, effects = update(model, ServersSaved(relays, stun, allowed))
        assert isinstance(effects[0], Refuse) and why in effects[0].text, (relays, effects)
    answer = EVENTS["save-servers"](FakePage(model, {"live-relays": "ws://127.0.0.1:47913", "live-stun": "none", "live-nostr": "none",
                                                     "meta[http-equiv=Content-Security-Policy]@content": policy}))
    assert answer == ServersSaved("ws://127.0.0.1:47913", "none", allowed, "none")


def test_a_game_masters_clock_that_goes_back_an_hour_never_stops_the_followers():
    """Issue 37, item 3. The revision was the game master's millisecond clock: a page whose clock was
    an hour ahead, then corrected and reloaded, sent revisions an hour *lower*, and every follower
    ignored them for an hour. Now a revision counts up within one page of the game master's (its
    session); a new page of the same key is taken whatever its numbers, a page left behind never."""
    gm = fight(*PARTY, started=True)
    ids_, turn = players_ids(gm.timeline.present)
    view = table_view(gm.timeline.present)
    model = following()
    hour_ahead = 1_800_000_000_000 + 3_600_000  # what the old page's clock-based revision was
    model, _ = update(model, PeerSaid("gm", state_text(view, hour_ahead, ids_, turn, "gm1", "aaaa1111"), 10.0))
    assert model.live.revision == hour_ahead and model.live.session == "aaaa1111"
    # The game master's page reloads with the clock corrected: its count starts again from 1.
    later = table_view(fight(*PARTY, started=True).timeline.present) | {"round": 2}
    model, effects = update(model, PeerSaid("gm", state_text(later, 1, ids_, turn, "gm2", "bbbb2222"), 20.0))
    assert (model.live.session, model.live.revision, model.live.view["round"]) == ("bbbb2222", 1, 2)
    assert model.live.past_sessions == ("aaaa1111",)
    model, _ = update(model, PeerSaid("gm", state_text(later | {"round": 3}, 2, ids_, turn, "gm2", "bbbb2222"), 21.0))
    assert model.live.view["round"] == 3
    # An old page's signed state replayed by another phone (or arriving late) is never taken again.
    model, _ = update(model, PeerSaid("ben", state_text(view, hour_ahead + 5, ids_, turn, "gm1", "aaaa1111"), 22.0))
    assert (model.live.session, model.live.view["round"]) == ("bbbb2222", 3)
    # Within a page, an older or repeated revision is ignored as before.
    model, _ = update(model, PeerSaid("gm", state_text(later | {"round": 9}, 2, ids_, turn, "gm2", "bbbb2222"), 23.0))
    assert model.live.view["round"] == 3
    with pytest.raises(LiveError):
        read_message(state_text(view, 1, ids_, turn, "gm2", "NOT A SESSION"), FROM_HOST)


def test_the_players_views_ids_tell_nothing_of_who_is_hidden():
    """Issue 37, item 6: the fight's ids (c1, c2, c3, c5) told that c4 was hidden by the gap. The view
    names each combatant by a keyed hash of its id: the same whether others are hidden or not, the
    same across the game master's reload (the key is the table's secret), another table's another."""
    model = hosting(fight(*PARTY, started=True))
    secret = model.live.secret
    everyone, _ = players_ids(model.timeline.present, secret)
    hidden = flag(model, "Goblin", "hidden")
    shown, turn = players_ids(hidden.timeline.present, secret)
    assert [row[1] for row in shown] == ["Cyra", "Dax", "Ogre"]
    assert [row for row in everyone if row[1] != "Goblin"] == shown  # nothing renumbered: no gap to count
    assert all(row[0].startswith("v") and len(row[0]) == 13 and row[0] not in model.timeline.present.names() for row in shown)
    assert players_ids(hidden.timeline.present, "another table")[0][0][0] != shown[0][0]
    text = present(hidden).ids
    assert "Goblin" not in json.dumps(text) and vids(hidden)["Goblin"] not in json.dumps(text)


def test_a_flood_from_one_phone_is_counted_not_drawn_and_the_phone_is_muted():
    """Issue 37, item 1: 3,000 rolls in one burst from an approved phone kept the game master's page
    busy 208 s (every message parsed, listed and the whole list drawn again). Now each phone has a
    token bucket (BURST at once, RATE a second), a phone that keeps on is muted for a minute, at most
    MAX_WAITING_PER_PHONE of its requests wait, and what is dropped is counted: no effect at all."""
    from web.app.effects import RenderNotices
    from web.app.update.live import BURST, MUTE_MS, muted_peers

    model = approved(joined(hosting(fight(*PARTY, started=True))))
    goblin = vids(model)["Goblin"]
    effects_seen = 0
    redraws = 0
    for i in range(3000):  # one burst: all within 300 ms
        model, effects = update(model, PeerSaid("p1", request_text("roll", target=goblin, value=i % 7 + 1, expr="1d8", label=f"#{i}"),
                                                1000.0 + i / 10, random.Random(i)))
        effects_seen += len(effects)
        redraws += sum(1 for e in effects if isinstance(e, RenderNotices))
    assert len(model.live.requests) == 1  # (issue 38: one roll at one target a phone: each replaced the last)
    assert redraws <= BURST and effects_seen <= 4 * BURST  # the rest: nothing to do, nothing drawn (each taken: a card, its answer)
    assert model.live.limited == 3000 - BURST and muted_peers(model.live) == ["p1"]
    assert "Ana sent too much: muted for 60 s." in followers_line(model.live)
    # Still muted a little later; a minute on, its next request is heard again.
    model, effects = update(model, PeerSaid("p1", request_text("done"), 30_000.0, RNG))
    assert effects == () and muted_peers(model.live) == ["p1"]
    model, _ = update(model, RequestAnswered(model.live.requests[0].id, False, RNG))
    model, _ = update(model, PeerSaid("p1", request_text("roll", target=goblin, value=3, expr="1d8", label="again"), 1300.0 + MUTE_MS, RNG))
    assert model.live.requests[-1].text.startswith("Cyra: again 1d8 = 3") and muted_peers(model.live) == []


def test_a_phone_with_only_the_link_cannot_flood_with_hello_and_claim():
    model = hosting(fight(*PARTY))
    for i in range(2000):
        peer = "evil"
        text = hello_text(f"Eve {i}", f"dev-eve-{i:05d}") if i % 2 else request_text("claim", cid=vids(model)["Cyra"])
        model, _ = update(model, PeerSaid(peer, text, 5000.0 + i, RNG))
    assert len(model.live.requests) <= 5 and model.live.limited >= 1900
    assert len(model.live.limits) == 1 and len(model.live.peers) <= 1
    # Many made-up phones: each its own bucket, but the list of buckets and of requests stays bounded.
    for i in range(300):
        model, _ = update(model, PeerSaid(f"fake{i}", request_text("claim", cid=vids(model)["Cyra"]), 9000.0 + i, RNG))
    assert len(model.live.limits) <= 50 and len(model.live.requests) <= 20


def test_a_claim_names_the_phone_only_when_it_says_something_more():
    """Issue 38, section 4: "Aria asks to play Aria"."""
    model = joined(hosting(fight(*PARTY)), name="Cyra")
    model, _ = asked(model, "claim", cid=vids(model)["Cyra"])
    assert model.live.requests[-1].text == "A phone asks to play Cyra."
    other = joined(hosting(fight(*PARTY)), name="Ana's phone")
    other, _ = asked(other, "claim", cid=vids(other)["Cyra"])
    assert other.live.requests[-1].text == "Ana's phone asks to play Cyra."


def test_the_live_table_says_which_relay_networks_answer():
    from web.app.live_status import networks_line
    from web.app.messages import RelaysChecked

    model, effects = update(hosting(fight(*PARTY)), live_sheet())
    assert networks_line(model.live) == "relays: connecting…"  # (not checked yet: the host's first beat checks)
    # Issue 50, item 6: a reopened tab whose phones are back before its first check says so, not "connecting…".
    model, effects = update(model, PeerChanged("p1", True))
    assert SayOnLine("live-networks", "relays: checking…; 1 phone connected through them.") in effects
    model, effects = update(model, PeerChanged("p2", True))
    assert networks_line(model.live) == "relays: checking…; 2 phones connected through them."
    model, effects = update(model, RelaysChecked(3, (3, 4, 0, 3)))
    assert model.live.networks == (3, 4, 0, 3)
    assert networks_line(model.live) == "relays: Nostr 3 of 4, WebTorrent 0 of 3."
    assert SayOnLine("live-networks", "relays: Nostr 3 of 4, WebTorrent 0 of 3.") in effects
    model, _ = update(model, RelaysChecked(0, (0, 1, -1, -1)))  # Nostr alone, and down
    assert networks_line(model.live).startswith("relays: Nostr 0 of 1: none answers (no internet?)")
    # A follower's line says so too (it stays live through its connections; a drop would not come back).
    follower = following(fight())
    gm = fight(*PARTY, started=True)
    ids_, turn = players_ids(gm.timeline.present)
    follower, _ = update(follower, PeerChanged("gm", True))
    follower, _ = update(follower, PeerSaid("gm", state_text(table_view(gm.timeline.present), 5, ids_, turn, "gm"), 1_000.0))
    follower, effects = update(follower, LiveTicked(2_000.0, (0, 1, 0, 1)))
    assert state_line(follower.live).startswith("live · the relays do not answer")
    follower, effects = update(follower, LiveTicked(3_000.0, (1, 1, 0, 1)))
    assert state_line(follower.live) == "live"


def live_sheet():
    from web.app.messages import SheetOpened
    return SheetOpened("live")


def met_game_master(at_ms: float = 1_000.0, revision: int = 5) -> tuple[Model, dict, list, list]:
    """Ana's phone following, connected to the game master's phone ("gm1", page "s1") and given its
    state at `at_ms`: (model, the view, its ids, whose turn)."""
    gm = fight(*PARTY, started=True)
    ids_, turn = players_ids(gm.timeline.present)
    view = table_view(gm.timeline.present)
    model, _ = update(fight(), LiveFollowed(f"room1234.secret1234.{KEY}", ("ws://x:1",), (), "Ana", "dev-ana-0001"))
    model, _ = update(model, PeerChanged("gm1", True))
    model, _ = update(model, PeerSaid("gm1", state_text(view, revision, ids_, turn, "gm1", "s1"), at_ms))
    return model, view, ids_, turn


def test_a_request_not_delivered_goes_by_itself_when_the_game_masters_phone_is_met_again():
    model, view, ids_, turn = met_game_master()
    model, _ = update(model, PeerChanged("gm1", False))  # the game master's tab closed
    model, effects = update(model, DoneTapped())
    assert model.live.said.startswith("not delivered") and not any(isinstance(e, LiveTell) for e in effects)
    # Its page back (a new connection, heard through Ben's first), then met itself: the request goes.
    model, effects = update(model, PeerSaid("ben", state_text(view, 1, ids_, turn, "gm2", "s2"), 5_000.0))
    assert LiveTell(request_text("done", rid=1), "gm2") not in effects
    model, effects = update(model, PeerChanged("gm2", True))
    assert LiveTell(request_text("done", rid=1), "gm2") in effects and model.live.said.startswith("sending")
    # Once delivered, meeting it again sends nothing twice.
    model, _ = update(model, PeerSaid("gm2", answer_text(1, "waiting"), 5_100.0))
    model, effects = update(model, PeerChanged("gm2", True))
    assert LiveTell(request_text("done", rid=1), "gm2") not in effects


def test_an_answer_for_a_phone_that_dropped_is_kept_for_its_next_hello():
    model = approved(joined(hosting(fight(*PARTY, started=True))))  # Ana's phone (p1) plays Cyra, who acts first
    model, _ = asked(model, "done", rid=7)
    model, _ = update(model, PeerChanged("p1", False))  # its connection drops before the game master answers
    model, effects = update(model, RequestAnswered(model.live.requests[0].id, True, RNG))
    assert not any(isinstance(e, LiveTell) for e in effects) and len(model.live.owed) == 1
    model, _ = update(model, PeerChanged("p2", True))
    model, effects = update(model, PeerSaid("p2", hello_text("Ana", "dev-ana-0001"), 9.0))
    assert LiveTell(answer_text(7, "applied", "the turn passed"), "p2") in effects and model.live.owed == ()


def test_each_kind_on_the_wire_is_read_as_its_own_record_of_the_incoming_union():
    """Issue 35: `Incoming` is a union of one frozen record per kind (a reader matches on the class,
    and mypy finds a kind it left out: web/app/update/requests.asked ends in assert_never)."""
    import typing

    from pyengine import live as wire

    samples = {
        "state": state_text(table_view(fight(*PARTY).timeline.present), 3, sender="gm1", session="s1"),
        "beat": beat_text(4, "s1"), "you": you_text("v1"), "ans": wire.answer_text(7, "refused", "not now"),
        "hello": hello_text("Ana", "dev-ana-0001"), "bye": request_text("bye"),
        "claim": request_text("claim", cid="v1", rid=1), "init": request_text("init", value=14, rid=2),
        "done": request_text("done", rid=3), "roll": request_text("roll", target="v2", value=17, expr="1d20+5", rid=4),
        "atk": request_text("atk", target="v2", c="c0" * 32, rid=5, **{"with": "Longsword"}),
        "heal": request_text("heal", value=6, temp=True, rid=6), "dsave": request_text("dsave", face=12, rid=7),
        "show": request_text("show", s="5e" * 16, rid=8), "draw": wire.drawn_text(8, "9a" * 16),
        "save": request_text("save", ask=3, face=11, rid=9), "cast": request_text("cast", spell="Fireball", slot=4, targets=["v2", "v3"], rid=10),
        "sask": wire.save_ask_text(wire.SaveAsk(ask=3, cid="v1", what="Fire Breath", dc=17, bonus=2, roll="2d20kh1")),
    }
    assert set(samples) == FROM_HOST | FROM_FOLLOWER
    read = {kind: read_message(text, FROM_HOST if kind in FROM_HOST else FROM_FOLLOWER) for kind, text in samples.items()}
    assert {kind: type(message) for kind, message in read.items()} == {
        "state": wire.State, "beat": wire.Beat, "you": wire.You, "ans": wire.Answer, "hello": wire.Hello, "bye": wire.Bye,
        "claim": wire.Claim, "init": wire.Init, "done": wire.Done, "roll": wire.Roll, "atk": wire.Attack, "heal": wire.Heal,
        "dsave": wire.DeathSave, "show": wire.Reveal, "draw": wire.Drawn, "save": wire.SaveRoll, "sask": wire.SaveAsk,
        "cast": wire.Cast}
    assert all(message.kind == kind for kind, message in read.items())
    assert set(typing.get_args(wire.Incoming)) == {type(m) for m in read.values()}
    assert read["atk"] == wire.Attack(target="v2", weapon="Longsword", commit="c0" * 32, rid=5)
    assert read["roll"] == wire.Roll(target="v2", expr="1d20+5", value=17, rid=4)
    assert read["show"] == wire.Reveal(secret="5e" * 16, rid=8) and read["draw"] == wire.Drawn(rid=8, value="9a" * 16)
    assert read["heal"] == wire.Heal(value=6, temp=True, rid=6) and read["dsave"] == wire.DeathSave(face=12, rid=7)
    assert read["ans"] == wire.Answer(rid=7, answer="refused", text="not now") and read["beat"] == wire.Beat(revision=4, session="s1")
    assert (read["state"].revision, read["state"].session, read["state"].sender) == (3, "s1", "gm1")
    assert read["save"] == wire.SaveRoll(ask=3, face=11, rid=9)
    assert read["cast"] == wire.Cast(spell="Fireball", slot=4, targets=("v2", "v3"), rid=10)
    assert read["sask"] == wire.SaveAsk(ask=3, cid="v1", what="Fire Breath", dc=17, bonus=2, roll="2d20kh1")


def test_a_players_typed_damage_keeps_its_type_a_troll_stops_regenerating():
    """Issue 52: "Another roll" with 2d10 fire on a troll applies fire damage (its regeneration stops),
    verified or typed from real dice; untyped dice stay untyped."""
    troll = {"name": "Troll", "initiative": 9, "max_hp": 84, "tools": [{"kind": "regeneration", "amount": "10", "stops": "acid, fire"}]}
    model = approved(joined(hosting(fight(*PARTY, troll, started=True))))
    model, _ = asked(model, "roll", target=vids(model)["Troll"], expr="2d10 fire", label="Fire bolt", value=16)
    request = model.live.requests[-1]
    assert request.dtype == "fire" and request.text == "Cyra: Fire bolt 2d10 fire = 16 (typed) against Troll."
    model, _ = update(model, RequestAnswered(request.id, True, RNG))
    troll_now = model.timeline.present.get(ids(model)["Troll"])
    assert troll_now.hp == 84 - 16 and troll_now.tools[0].paused
    assert "Troll took 16 fire damage from Cyra" in [e.text for e in model.timeline.log()]
    secret = secret_for(model, lambda seed: True)
    model, _ = rolled(model, "roll", secret=secret, target=vids(model)["Troll"], expr="1d8+3 magical slashing", label="Sword", rid=7)
    assert model.live.requests[-1].dtype == "magical slashing"
    model, _ = asked(model, "roll", target=vids(model)["Goblin"], expr="1d6", value=4)
    assert model.live.requests[-1].dtype == ""


def test_a_player_rolls_initiative_on_the_phone_with_dice_neither_phone_chooses():
    """Issue 52: Roll initiative on the phone: the d20 from both phones (a commitment, the game master's
    value, the reveal), the character's modifier added by the game master's phone."""
    party = ({**PARTY[0], "init_mod": 3, "initiative": None}, *PARTY[1:])
    model = approved(joined(hosting(fight(*party))))
    secret = new_secret(random.Random(77))
    model, effects = rolled(model, "init", secret=secret, rid=4)
    face = random.Random(joint(model, secret)).randint(1, 20)
    assert dict(model.live.initiatives)[ids(model)["Cyra"]] == face + 3
    assert any(isinstance(e, LiveTell) and f"initiative {face + 3} (d20 {face} +3)" in e.text for e in effects)
    # The same commitment again is a replayed roll; a typed total still works.
    model, effects = rolled(model, "init", secret=secret, rid=5)
    assert any(isinstance(e, LiveTell) and "used already" in e.text for e in effects)
    model, _ = asked(model, "init", value=12, rid=6)
    assert dict(model.live.initiatives)[ids(model)["Cyra"]] == 12
    # The phone: its own state carries the modifier, and the button sends a commitment, never a number.
    gm = fight(*party)
    phone = playing_phone(gm)
    assert phone.live.pcs[vids(gm)["Cyra"]]["init"] == 3
    phone, effects = update(phone, InitiativeRolled(random.Random(3)))
    sent = json.loads(next(e for e in effects if isinstance(e, LiveTell)).text)
    assert sent["t"] == "init" and "c" in sent and "value" not in sent


def test_a_room_kept_for_a_reload_and_a_join_link_opened_take_this_pages_servers_from_the_model():
    """Issue 49, item 2: the page says what it read (the kept room, the link); update takes the relays,
    STUN and Nostr servers (and a follower's name) from the model, as the runtime once read them."""
    from web.app.messages import LiveLinkOpened, LiveResumed

    servers = (("ws://127.0.0.1:1",), ("stun:127.0.0.1:2",), ("ws://127.0.0.1:3",))
    gm = replace(fight(*PARTY, started=True), servers=servers)
    back, effects = update(gm, LiveResumed("room1234", "secret1234", rng=random.Random(5)))
    assert effects[0] == LiveConnect("host", "room1234", "secret1234", servers[0], servers[1], nostr=servers[2])
    assert back.live.hosting and back.ui.sheet is None  # quietly: no screen opened
    assert back == update(gm, LiveOpened("room1234", "secret1234", *servers[:2], shown=False, nostr=servers[2], rng=random.Random(5)))[0]
    assert update(back, LiveResumed("room9999", "secret9999")) == (back, ())  # already live: nothing
    phone = replace(fight(), servers=servers, characters=({"name": "Ana"},))
    link = f"room1234.secret1234.{KEY}"
    assert update(phone, LiveLinkOpened(link, "dev-ana-0001")) == update(
        phone, LiveFollowed(link, servers[0], servers[1], "Ana", device="dev-ana-0001", nostr=servers[2]))
    followed, _ = update(phone, LiveLinkOpened(link, "dev-ana-0001"))
    assert followed.live.me == "Ana" and followed.live.nostr == servers[2]
    assert update(fight(), LiveLinkOpened("display", keyed=False))[0].live.role == "display"


def test_the_taps_made_on_the_early_view_wait_in_the_model_and_are_asked_once_the_join_is_taken_over():
    """Issue 49, item 2: the early view's taps (static/early.mjs, before the engine was ready) are the
    model's, not the page's: kept (the last one alone) until the join is taken over, then a claim is
    asked as the same tap on the page would ask it; nothing is asked twice."""
    from web.app.messages import EarlyJoinTaken, EarlyTapsKept

    gm = fight(*PARTY, started=True)
    ids_, turn = players_ids(gm.timeline.present)
    cyra, dax = vids(gm)["Cyra"], vids(gm)["Dax"]
    # The page says them as it starts, before it opens the link (LiveFollowed): they wait for that join.
    phone, effects = update(fight(), EarlyTapsKept((("live-claim", dax), ("live-claim", cyra))))
    assert phone.live.early_taps == (("live-claim", cyra),) and effects == ()
    phone = following(phone)
    assert phone.live.early_taps == (("live-claim", cyra),)
    phone, _ = update(phone, PeerChanged("gm", True))
    phone, _ = update(phone, PeerSaid("gm", state_text(table_view(gm.timeline.present), 5, ids_, turn), 10.0))
    taken, effects = update(phone, EarlyJoinTaken())
    tapped = update(replace(phone, live=replace(phone.live, early_taps=())), ClaimTapped(cyra))
    assert (taken, effects) == tapped and taken.live.early_taps == ()
    assert LiveTell(request_text("claim", cid=cyra, rid=1), "gm") in effects and taken.live.said == "sending your claim on Cyra…"
    assert update(taken, EarlyJoinTaken()) == (taken, ())  # taken over once: nothing asked again
    # A tap of another kind waits for nothing; none at all: the join changes nothing.
    assert update(following(fight()), EarlyTapsKept((("live-done", ""),)))[0].live.early_taps == (("live-done", ""),)
    bare = following(fight())
    assert update(bare, EarlyJoinTaken()) == (bare, ())
