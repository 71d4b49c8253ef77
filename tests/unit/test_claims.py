"""Issue 53, item 3: a claim belongs to one character of one fight. Combatant ids are per encounter
(c1, c2 …), so the players' view ids are keyed by the fight too: in another encounter a phone plays
no one until it asks again (the character of the name it played offered first), and a claim on that
name applies at once once the game master approved it for that phone. Item 5: a player's answer is
shown in the fight it was asked in."""

from __future__ import annotations

import random
from dataclasses import replace

from pyengine.handoff import fight_token, players_id, players_ids
from pyengine.live import you_text
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.test_live import approved, asked, hosting, joined, vids
from tests.unit.test_players_phone import told
from tests.unit.test_update import PARTY, fight
from web.app.effects import LiveSend, LiveTell
from web.app.live_status import followers_line, playing
from web.app.messages import FightShown, RequestAnswered
from web.app.model import Live, Model
from web.app.screens.live import _player_asks
from web.app.update import update

RNG = random.Random(0)


def another_fight(eid: str, *names: str) -> Timeline:
    t = Timeline.start(new_encounter(eid, "Encounter 3"))
    for name in names:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "side": "party", "pc": True, "max_hp": 20, "initiative": 10}},
                         random.Random(0)))
    return t


def test_another_fight_carries_no_claim_over_and_a_claim_on_the_same_name_applies_at_once():
    model = approved(joined(hosting(fight(*PARTY, started=True))))  # Ana's phone plays Cyra (c1) in e1
    first = model.timeline
    assert model.live.claims == (("dev-ana-0001", "e1", "c1"),)
    # The game master opens another encounter: Kael is its c1 (Cyra's position in the first).
    e3 = another_fight("e3", "Kael", "Bryn")
    model, effects = update(model, FightShown(e3))
    assert model.timeline.present.id == "e3"
    # Ana's phone is told it plays no one here ...
    assert LiveTell(you_text(""), "p1") in effects
    sent = next(e for e in effects if isinstance(e, LiveSend) and e.peer is None)
    assert sent.fight == fight_token("secret1234", model.timeline.present) != fight_token("secret1234", first.present)
    # ... and no view id of the last fight names anyone in this one.
    assert not {players_id(first.present, "secret1234", c.id) for c in first.present.combatants} & {i for i, _, _ in sent.ids}
    assert followers_line(model.live, model.timeline.present.combatants, "e3") == "1 phone follows: Ana (connected)."
    # A claim on Kael waits for the game master.
    model, effects = asked(model, "claim", cid=vids(model)["Kael"], rid=5)
    assert [r.text for r in model.live.requests] == ["Ana asks to play Kael."]
    model, effects = update(model, RequestAnswered(model.live.requests[0].id, False, RNG))  # dismissed
    # Cyra joins this fight too: a claim on her (approved for this phone once) applies at once.
    t = model.timeline
    model = replace(model, timeline=t.do(resolve(t.present, "add_combatant", {"combatant": {"name": "Cyra", "side": "party", "pc": True, "max_hp": 20}}, RNG)))
    model, effects = asked(model, "claim", cid=vids(model)["Cyra"], rid=6)
    assert LiveTell(you_text(vids(model)["Cyra"]), "p1") in effects and model.live.requests == ()
    assert [t["state"] for t in told(effects) if t["t"] == "ans"] == ["applied"]
    assert ("dev-ana-0001", "e3", "c3") in model.live.claims and ("dev-ana-0001", "e1", "c1") in model.live.claims
    assert followers_line(model.live, model.timeline.present.combatants, "e3") == "1 phone follows: Cyra (connected)."
    # Back to the first fight: the phone is told it plays Cyra there again, by that fight's id.
    model, effects = update(model, FightShown(first))
    assert LiveTell(you_text(players_id(first.present, "secret1234", "c1")), "p1") in effects


def test_a_phone_approved_for_a_name_plays_the_character_of_that_name_as_soon_as_a_fight_with_it_is_shown():
    model = approved(joined(hosting(fight(*PARTY, started=True))))
    model, effects = update(model, FightShown(another_fight("e4", "Brom", "Cyra")))
    assert LiveTell(you_text(vids(model)["Cyra"]), "p1") in effects and ("dev-ana-0001", "e4", "c2") in model.live.claims
    from web.app.effects import KeepLiveTable
    from web.app.live_status import read_live_table

    (kept,) = [e for e in effects if isinstance(e, KeepLiveTable)]  # kept with the room: a reload has it
    assert ("dev-ana-0001", "e4", "c2") in read_live_table(kept.text, "room1234")[0]


def test_a_request_asked_in_another_fight_is_not_applied_in_this_one():
    model = approved(joined(hosting(fight(*PARTY, started=True))))
    model, _ = asked(model, "done", rid=3)  # Cyra's "I'm done", waiting
    (request,) = model.live.requests
    assert request.eid == "e1"
    model, _ = update(model, FightShown(another_fight("e5", "Kael", "Cyra")))
    before = model.timeline
    model, effects = update(model, RequestAnswered(request.id, True, RNG))
    assert model.timeline is before
    assert [(t["state"], t["why"]) for t in told(effects) if t["t"] == "ans"] == [("refused", "that was asked in another fight: ask again")]


def test_the_players_phone_asks_again_in_another_fight_offering_the_name_it_played_first_and_shows_answers_of_this_fight_only():
    gm = fight(*PARTY, started=True)
    ids, turn = players_ids(gm.timeline.present, "s")
    token = fight_token("s", gm.timeline.present)
    cyra = next(i for i, n, _ in ids if n == "Cyra")
    live = Live(role="follow", ids=tuple(tuple(i) for i in ids), turn=tuple(turn), view={"round": 1}, you=cyra, played="Cyra",
                fight=token, asked_fight=token, said="applied: your claim on Cyra.")
    assert playing(live) == cyra
    assert 'data-testid="live-you">Cyra' in _player_asks(live, []) and "applied: your claim on Cyra." in _player_asks(live, [])
    e3 = another_fight("e3", "Kael", "Cyra").present
    other, _ = players_ids(e3, "s")
    there = replace(live, ids=tuple(tuple(i) for i in other), fight=fight_token("s", e3))
    assert playing(there) == ""
    html = _player_asks(there, [])
    assert "Which one is you?" in html and html.index(">Cyra<") < html.index(">Kael<")  # the name it played first
    assert "applied: your claim on Cyra." not in html  # (that answer was the other fight's)
    assert Model  # (imported for the reader: the phone's state is web.app.model.Live)


def test_the_game_master_releases_a_claim_and_the_character_is_free_at_once():
    """Issue 53, item 4: Release (one per claimed character, with the phone's name and whether it is
    connected) frees the character: its phone is told it plays no one, another phone's claim waits as
    any, and the released phone's claim on that name no longer applies at once."""
    from web.app.messages import ClaimReleased, PeerChanged
    from web.app.screens.live import claims_html

    model = approved(joined(hosting(fight(*PARTY, started=True))))
    html = claims_html(model.live, model.timeline.present)
    assert "<b>Cyra</b>: Ana's phone (connected)" in html and 'data-action="release-claim" data-id="c1"' in html
    model, effects = update(model, ClaimReleased("c1"))
    assert model.live.claims == () and model.live.trusted == () and LiveTell(you_text(""), "p1") in effects
    assert claims_html(model.live, model.timeline.present) == ""
    gone, _ = update(approved(model), PeerChanged("p1", False, 5_000.0))
    assert "<b>Cyra</b>: Ana's phone (left just now)" in claims_html(gone.live, gone.timeline.present)
    model = joined(model, "p2", "dev-bryn-0002", "Bryn")
    model, effects = asked(model, "claim", "p2", cid=vids(model)["Cyra"], rid=1)
    assert [r.text for r in model.live.requests] == ["Bryn asks to play Cyra."]
    # Ana's phone asks for Cyra again: it waits for the game master too (no longer applied at once).
    model, effects = asked(model, "claim", cid=vids(model)["Cyra"], rid=7)
    assert [t["state"] for t in told(effects) if t["t"] == "ans"] == ["waiting"]


def test_a_character_whose_phone_has_been_gone_a_few_minutes_may_be_taken_over_with_approval():
    """Issue 53, item 4: while Ana's phone is connected (or gone less than TAKE_OVER_MS) Cyra is hers;
    gone longer, another phone's claim asks the game master to let it take over, and approved, the
    character is the new phone's (the old one's claim ends)."""
    from web.app.messages import PeerChanged, PeerSaid
    from web.app.update.requests import TAKE_OVER_MS

    model = approved(joined(hosting(fight(*PARTY, started=True))))
    model = joined(model, "p2", "dev-bryn-0002", "Bryn")
    model, effects = asked(model, "claim", "p2", cid=vids(model)["Cyra"], rid=1)
    assert [(t["state"], t["why"]) for t in told(effects) if t["t"] == "ans"] == [("refused", "another phone plays Cyra")]
    model, _ = update(model, PeerChanged("p1", False, 10_000.0))  # Ana's phone goes at 10 s
    from pyengine.live import request_text

    def claim_at(model, at_ms, rid):
        return update(model, PeerSaid("p2", request_text("claim", cid=vids(model)["Cyra"], rid=rid), at_ms, random.Random(5)))

    model, effects = claim_at(model, 10_000.0 + TAKE_OVER_MS - 1, 2)
    assert [t["why"] for t in told(effects) if t["t"] == "ans"] == ["another phone plays Cyra"]
    model, effects = claim_at(model, 10_000.0 + 6 * 60_000, 3)
    (request,) = model.live.requests
    assert request.text == "Cyra was played by a phone that left 6 min ago: take over? (Bryn asks to play Cyra.)"
    model, effects = update(model, RequestAnswered(request.id, True, RNG))
    assert model.live.claims == (("dev-bryn-0002", "e1", "c1"),)
    assert LiveTell(you_text(vids(model)["Cyra"]), "p2") in effects
