"""Issue 52, section 4: a save action asks the players' phones. The game master's panel asks each
target a phone plays; that phone shows the request with its own bonus and odds; its answer (d20s from
both phones, or a real die typed) goes into the open action; one Apply, and each phone told what came
of it. Hostile or stale answers are refused."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction

from pyengine.dice import roll
from pyengine.fair import new_secret
from pyengine.live import FROM_FOLLOWER, FROM_HOST, LiveError, SaveAsk, read_message, save_ask_text
from tests.unit.test_live import approved, asked, hosting, joined, joint, playing_phone, rolled, vids
from tests.unit.test_update import fight, ids
from web.app.effects import LiveTell, Refuse, Toast
from web.app.messages import (
    PeerChanged,
    PeerSaid,
    SaveConfigured,
    SavePanelOpened,
    SavesApplied,
    SavesAsked,
    SaveSent,
    SavesRolled,
)
from web.app.model import Model
from web.app.screens.live import save_request_html
from web.app.screens.save import save_panel_html
from web.app.update import update

RNG = random.Random(0)
PEOPLE = ({"name": "Cyra", "side": "party", "pc": True, "initiative": 18, "max_hp": 30, "stats": {"save_dex": 2}},
          {"name": "Dax", "side": "party", "pc": True, "initiative": 12, "max_hp": 24, "stats": {"save_dex": 1}},
          {"name": "Dragon", "initiative": 15, "max_hp": 178},
          {"name": "Goblin", "initiative": 10, "max_hp": 7, "stats": {"save_dex": 2}})
BREATH = {"name": "Fire Breath", "ability": "dex", "dc": "17", "success": "half", "damage": "16d6 fire", "condition": "", "rounds": "0",
          "repeat": False, "magical": False}


def table(adv: dict | None = None) -> Model:
    """The game master's phone hosting, Cyra played on phone p1, the save panel open on Cyra and the
    Goblin with the dragon's breath."""
    model = approved(joined(hosting(fight(*PEOPLE, started=True))))
    names = ids(model)
    model, _ = update(model, SavePanelOpened(names["Dragon"], None, (names["Cyra"], names["Goblin"])))
    model, _ = update(model, SaveConfigured({"effect": BREATH, "targets": [names["Cyra"], names["Goblin"]], "d20": {}, "adv": adv or {}}))
    return model


def told(effects: tuple, kind: str) -> list[dict]:
    return [json.loads(e.text) for e in effects if isinstance(e, LiveTell) and json.loads(e.text).get("t") == kind]


def test_the_panel_asks_the_phone_of_each_target_a_player_plays_with_its_own_bonus_alone():
    model = table(adv={})
    names = ids(model)
    model, effects = update(model, SavesAsked())
    sent = told(effects, "sask")
    assert len(sent) == 1  # Cyra's phone; the Goblin has none
    ask = read_message(json.dumps(sent[0]), FROM_HOST)
    assert isinstance(ask, SaveAsk)
    assert (ask.cid, ask.what, ask.ability, ask.dc, ask.bonus, ask.roll) == (vids(model)["Cyra"], "Dragon's Fire Breath", "dex", 17, 2, "1d20")
    assert "Goblin" not in effects[0].text  # (nothing of another target goes to the phone)
    assert model.ui.save["asked"][names["Cyra"]]["state"] == "waiting"
    html = save_panel_html(model.timeline.present, model.ui.save, frozenset({names["Cyra"]}))
    assert 'data-testid="save-phone" data-state="waiting"' in html and "Roll (for the 1 silent too)" in html


def test_a_phone_rolled_save_comes_from_both_phones_and_one_apply_tells_it_the_outcome():
    model = table()
    names = ids(model)
    model, _ = update(model, SavesAsked())
    number = model.ui.save["asked"][names["Cyra"]]["ask"]
    secret = new_secret(random.Random(9))
    model, effects = rolled(model, "save", secret=secret, rid=3, ask=number)
    face = roll("1d20", random.Random(joint(model, secret))).total
    assert model.ui.save["asked"][names["Cyra"]] == {**model.ui.save["asked"][names["Cyra"]], "state": "rolled", "faces": [face]}
    assert any(isinstance(e, LiveTell) and f"d20 {face}: the game master applies" in e.text for e in effects)
    # The same answer again is refused (answered already); a replay of the commitment too.
    model, effects = rolled(model, "save", secret=new_secret(random.Random(10)), rid=4, ask=number)
    assert any(isinstance(e, LiveTell) and "answered already" in e.text for e in effects)
    # Roll: the Goblin's d20 rolled here, Cyra's the phone's; Apply: one step, and the phone told.
    model, _ = update(model, SavesRolled(random.Random(4)))
    results = {r["id"]: r for r in model.ui.save["pending"].args["results"]}
    cyra = results[names["Cyra"]]
    assert cyra["faces"] == [face] and cyra["total"] == face + 2 and cyra.get("phone") is True and not cyra["typed"]
    steps = model.timeline.cursor
    model, effects = update(model, SavesApplied())
    assert model.timeline.cursor == steps + 1
    outcome = told(effects, "sask")
    assert len(outcome) == 1 and outcome[0]["outcome"].startswith(f"Dex save {face + 2} vs DC 17: ")
    lost = 30 - model.timeline.present.get(names["Cyra"]).hp
    assert outcome[0]["outcome"].endswith(f"; {lost} damage" if lost else "; no damage")
    log = [e.text for e in model.timeline.logs[model.timeline.cursor - 1]]
    assert any(f"Cyra: Dex save {face + 2} vs DC 17" in line and "(rolled on the player's phone)" in line for line in log)


def test_a_typed_die_with_advantage_and_a_roll_that_changed_since_the_ask():
    model = table()
    names = ids(model)
    model, _ = update(model, SaveConfigured({"effect": BREATH, "targets": [names["Cyra"], names["Goblin"]], "d20": {},
                                             "adv": {names["Cyra"]: "adv"}}))
    model, effects = update(model, SavesAsked())
    ask = read_message(json.dumps(told(effects, "sask")[0]), FROM_HOST)
    assert ask.roll == "2d20kh1"
    # The phone rolls two d20s from both phones; the game master keeps the higher.
    secret = new_secret(random.Random(21))
    model, _ = rolled(model, "save", secret=secret, rid=1, ask=ask.ask)
    faces = [d.face for d in roll("2d20kh1", random.Random(joint(model, secret))).dice]
    assert model.ui.save["asked"][names["Cyra"]]["faces"] == faces
    # The game master then drops the advantage: the phone's two d20s no longer fit; Roll says so.
    changed, _ = update(model, SaveConfigured({"effect": BREATH, "targets": [names["Cyra"], names["Goblin"]], "d20": {}, "adv": {}}))
    changed, effects = update(changed, SavesRolled(random.Random(4)))
    assert changed.ui.save["pending"] is None and any(isinstance(e, Refuse) and "ask the phone again" in e.text for e in effects)
    # Asked again: a typed die fills the target's d20 (marked typed in the results).
    again, effects = update(changed, SavesAsked())
    number = again.ui.save["asked"][names["Cyra"]]["ask"]
    assert number == ask.ask + 1
    stale, effects = asked(again, "save", ask=ask.ask, face=12, rid=2)
    assert any(isinstance(e, LiveTell) and "asked again" in e.text for e in effects)
    again, effects = asked(again, "save", ask=number, face=12, rid=3)
    assert again.ui.save["d20"][names["Cyra"]] == "12" and again.ui.save["asked"][names["Cyra"]]["state"] == "typed"
    again, _ = update(again, SavesRolled(random.Random(4)))
    cyra = next(r for r in again.ui.save["pending"].args["results"] if r["id"] == names["Cyra"])
    assert cyra["total"] == 14 and cyra["typed"] is True


def test_what_a_modified_phone_sends_is_refused():
    model = table()
    names = ids(model)
    model, _ = update(model, SavesAsked())
    number = model.ui.save["asked"][names["Cyra"]]["ask"]
    # A face out of range, a save with its own seed and no commitment: refused as read.
    for fields, why in (({"face": 21}, "from 1 to 20"), ({"face": 0}, "from 1 to 20"), ({"seed": 5}, "commitment")):
        after, effects = asked(model, "save", ask=number, rid=7, **fields)
        assert any(isinstance(e, LiveTell) and why in e.text for e in effects) and after.ui.save == model.ui.save
    # Another phone (Dax's, not asked) answering: refused; a phone that plays no one: refused.
    other = approved(joined(model, "p2", "dev-dax-0002", "Dax"), "Dax", "p2")
    after, effects = asked(other, "save", "p2", ask=number, face=20, rid=1)
    assert any(isinstance(e, LiveTell) and "nothing to answer" in e.text for e in effects)
    assert after.ui.save["asked"].get(names["Dax"]) is None
    # The panel closed: an answer is refused, the fight untouched.
    closed = replace(model, ui=replace(model.ui, sheet=None))
    after, effects = asked(closed, "save", ask=number, face=20, rid=1)
    assert any(isinstance(e, LiveTell) and "closed" in e.text for e in effects) and after.timeline is closed.timeline
    # Not JSON-safe shapes for the ask itself are refused on the phone.
    for bad in ({"dc": 0}, {"roll": "9d20"}, {"ability": "luck"}, {"bonus": 999}):
        doc = {**json.loads(save_ask_text(SaveAsk(ask=1, cid="abc"))), **bad}
        try:
            read_message(json.dumps(doc), FROM_HOST)
        except LiveError:
            continue
        raise AssertionError(f"read {bad}")
    assert "save" in FROM_FOLLOWER and "sask" not in FROM_FOLLOWER


def test_the_players_phone_shows_the_request_with_its_odds_rolls_and_shows_the_outcome():
    gm = fight(*PEOPLE, started=True)
    phone = playing_phone(gm)
    me = vids(gm)["Cyra"]
    ask = SaveAsk(ask=4, cid=me, what="Dragon's Fire Breath", ability="dex", dc=17, bonus=2, roll="2d20kl1", note="restrained")
    # From another peer than the game master's phone: ignored.
    same, _ = update(phone, PeerSaid("p9", save_ask_text(ask), 11.0))
    assert same.live.save_ask is None
    phone, _ = update(phone, PeerSaid("gm", save_ask_text(ask), 11.0))
    html = save_request_html(phone.live)
    assert "make a DC 17 Dexterity saving throw" in html and "with disadvantage (restrained)" in html
    chance = Fraction(6, 20) ** 2  # 15+ on both dice: 6 faces of 20, twice
    assert f'data-testid="save-chance">{float(chance) * 100:.1f}%' in html and 'data-testid="roll-save"' in html
    # Roll: a commitment (never a number), the card now waits.
    phone, effects = update(phone, SaveSent(random.Random(3)))
    sent = json.loads(next(e for e in effects if isinstance(e, LiveTell)).text)
    assert sent["t"] == "save" and sent["ask"] == 4 and "c" in sent and "face" not in sent
    assert phone.live.rolling[1] == "2d20kl1+2" and 'data-state="sent"' in save_request_html(phone.live)
    # A typed die out of range is refused here; the outcome closes the card.
    _, effects = update(replace(phone, live=replace(phone.live, save_sent=0)), SaveSent(random.Random(3), "25"))
    assert any(isinstance(e, Refuse) for e in effects)
    done = SaveAsk(ask=4, cid=me, dc=17, outcome="Dex save 19 vs DC 17: succeeded; 28 damage")
    phone, _ = update(phone, PeerSaid("gm", save_ask_text(done), 12.0))
    html = save_request_html(phone.live)
    assert 'data-state="done"' in html and "succeeded; 28 damage" in html and "roll-save" not in html
    # A hostile effect name renders as text.
    evil = SaveAsk(ask=5, cid=me, what="<img src=x onerror=alert(1)>", dc=10)
    phone, _ = update(phone, PeerSaid("gm", save_ask_text(evil), 13.0))
    assert "<img" not in save_request_html(phone.live) and "&lt;img" in save_request_html(phone.live)
    _, effects = update(phone, SaveSent(random.Random(1), "14"))
    typed = json.loads(next(e for e in effects if isinstance(e, LiveTell)).text)
    assert typed == {**typed, "t": "save", "ask": 5, "face": 14} and "c" not in typed


def test_a_phone_away_is_asked_when_it_comes_back():
    model = table()
    names = ids(model)
    model, _ = update(model, PeerChanged("p1", False))
    model, effects = update(model, SavesAsked())
    assert not told(effects, "sask") and model.ui.save["asked"][names["Cyra"]]["state"] == "away"
    assert any(isinstance(e, Toast) for e in effects)
    model, _ = update(model, PeerChanged("p1b", True))
    model, effects = update(model, PeerSaid("p1b", json.dumps({"v": 1, "t": "hello", "name": "Ana", "device": "dev-ana-0001"}), 30.0))
    assert [a["dc"] for a in told(effects, "sask")] == [17]


def test_asking_again_asks_only_the_phones_still_silent_and_a_refused_answer_takes_the_card_away():
    model = table()
    names = ids(model)
    other = approved(joined(model, "p2", "dev-dax-0002", "Dax"), "Dax", "p2")
    config = {"effect": BREATH, "targets": [names["Cyra"], names["Dax"], names["Goblin"]], "d20": {}, "adv": {}}
    other, _ = update(other, SaveConfigured(config))
    other, effects = update(other, SavesAsked())
    assert len(told(effects, "sask")) == 2
    first = other.ui.save["asked"][names["Cyra"]]["ask"]
    other, _ = asked(other, "save", ask=first, face=15, rid=5)
    other, effects = update(other, SavesAsked())
    again = told(effects, "sask")
    assert len(again) == 1 and again[0]["cid"] == vids(other)["Dax"]  # Cyra answered: not asked twice
    assert other.ui.save["asked"][names["Cyra"]] == {**other.ui.save["asked"][names["Cyra"]], "state": "typed", "ask": first}
    # The phone: its answer refused (the game master closed the save) takes the card away; an outcome still shows.
    gm = fight(*PEOPLE, started=True)
    phone = playing_phone(gm)
    me = vids(gm)["Cyra"]
    phone, _ = update(phone, PeerSaid("gm", save_ask_text(SaveAsk(ask=7, cid=me, what="Web", ability="dex", dc=12, bonus=2)), 11.0))
    phone, _ = update(phone, SaveSent(random.Random(1), "9"))
    rid = phone.live.rid
    assert phone.live.save_sent == rid and 'data-state="sent"' in save_request_html(phone.live)
    from pyengine.live import answer_text
    phone, _ = update(phone, PeerSaid("gm", answer_text(rid, "refused", "the game master's save is closed"), 12.0))
    assert phone.live.save_ask is None and save_request_html(phone.live) == "" and "closed" in phone.live.said
    phone, _ = update(phone, PeerSaid("gm", save_ask_text(SaveAsk(ask=7, cid=me, dc=12, outcome="Dex save 11 vs DC 12: failed")), 13.0))
    assert "failed" in save_request_html(phone.live)
