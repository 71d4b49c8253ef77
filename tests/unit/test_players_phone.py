"""Issue 38: a player's phone is where a player plays their character from. Its attack is rolled from
the dice its phone drew and resolved by the game master's engine against defences the phone never
receives; it sees its own state (HP with temporary HP, conditions and what remains of them, death
saves) and sends healing, temporary HP and death saves; the game master's requests wait in a tray,
one of a kind per phone, at most MAX_WAITING, none dropped in silence."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from pyengine.core_args import Flag, HitPoints, NewCondition, Temporary
from pyengine.fair import commitment, new_secret
from pyengine.handoff import pc_state, players_ids
from pyengine.live import FROM_FOLLOWER, FROM_HOST, LiveError, hello_text, read_message, request_text, state_text, you_text
from pyengine.rules import get_system
from pyengine.tracker import resolve
from tests.unit.test_live import approved, asked, following, hosting, joined, joint, rolled, secret_for, vids
from tests.unit.test_update import fight, hp, ids
from web.app.effects import LiveSend, LiveTell, Refuse, Toast
from web.app.live_status import followers_line, live_table_text, read_live_table
from web.app.messages import (
    Act,
    AttackSent,
    AutoSavesToggled,
    DeathSaveSent,
    HealSent,
    PeerChanged,
    PeerSaid,
    PlayerTargetPicked,
    RequestAnswered,
    UndoTapped,
)
from web.app.model import Model
from web.app.screens.live import player_target
from web.app.update import requests as requests_module
from web.app.update import update
from web.app.update.requests import MAX_UNAPPROVED

RNG = random.Random(0)

ROSTERS = {
    "generic": ({"name": "Cyra", "side": "party", "pc": True, "initiative": 18, "max_hp": 20,
                 "attacks": [{"name": "Longsword", "bonus": 5, "damage": "1d8+3 slashing"}, {"name": "Dagger", "bonus": 5, "damage": "1d4+3 piercing"}]},
                {"name": "Dax", "side": "party", "pc": True, "initiative": 12, "max_hp": 24},
                {"name": "Goblin", "initiative": 15, "max_hp": 7, "stats": {"ac": 15}}),
    "realms": ({"name": "Cyra", "side": "party", "pc": True, "initiative": 18, "max_hp": 12,
                "stats": {"ac": 14, "str": 2, "weight": 1, "skills": "melee fighting, slashing", "damage_type": "edged"}},
               {"name": "Dax", "side": "party", "pc": True, "initiative": 12, "max_hp": 9},
               {"name": "Goblin", "initiative": 15, "max_hp": 10, "stats": {"ac": 12, "skills": "melee fighting"}}),
    "strife": ({"name": "Cyra", "side": "party", "pc": True, "init_mod": 60, "max_hp": 30, "stats": {"ac": 35, "crit": 10, "hit": 5, "weapon": "1d8+2"}},
               {"name": "Dax", "side": "party", "pc": True, "init_mod": 40, "max_hp": 20},
               {"name": "Goblin", "init_mod": 20, "max_hp": 12, "stats": {"ac": 20, "weapon": "1d6"}}),
    "laurels": ({"name": "Cyra", "side": "party", "pc": True, "max_hp": 55, "stats": {"level": 1, "str": 1, "die": 4, "injury_max": 10}},
                {"name": "Dax", "side": "party", "pc": True, "max_hp": 20},
                {"name": "Goblin", "max_hp": 20, "stats": {"level": 2, "dex": 1, "armour": 3, "die": 6, "injury_max": 8}}),
}
ATTACK_KINDS = {"generic": "d20_attack", "realms": "er_attack", "strife": "ros_attack", "laurels": "ll_attack"}


def table(system: str) -> Model:
    """The game master's phone: the system's fight started on Cyra's turn, live, Ana's phone plays Cyra."""
    model = fight(*ROSTERS[system], system=system, started=True)
    assert model.timeline.present.get(model.timeline.present.active_id).name == "Cyra"
    return approved(joined(hosting(model)))


def told(effects) -> list[dict]:
    return [json.loads(e.text) for e in effects if isinstance(e, LiveTell)]


def sent_to_phones(effects) -> str:
    """Everything a phone is given by these effects (states and answers), as text."""
    return " ".join(json.dumps([e.view, e.ids, e.pcs]) if isinstance(e, LiveSend) else e.text for e in effects
                    if isinstance(e, (LiveSend, LiveTell)))


# -- the attack ---------------------------------------------------------------------------------

def attack_by(model: Model, system: str, wanted: str, weapon: str = "") -> tuple[str, object]:
    """A player's secret whose attack, its dice from both phones, comes out `wanted` (hit, miss, crit),
    and that attack as the game master's panel rolls it (worked out here from both values)."""
    enc = model.timeline.present
    args = {"attacker": ids(model)["Cyra"], "target": ids(model)["Goblin"], **({"with": weapon} if weapon else {})}

    def kind(seed: int) -> str:
        outcome = get_system(system).attack_outcome(resolve(enc, ATTACK_KINDS[system], args, random.Random(seed)).args)
        return "crit" if outcome.crit else "hit" if outcome.hit and outcome.damage > 0 else "miss" if not outcome.hit else "other"

    secret = secret_for(model, lambda seed: kind(seed) == wanted)
    return secret, resolve(enc, ATTACK_KINDS[system], args, random.Random(joint(model, secret)))


def test_the_game_masters_card_names_the_attack_its_engine_rolled():
    """Issue 50, item 3: "Cyra attacks Goblin (Dagger): …", the weapon the phone chose; a name the fight's
    Cyra does not have (a modified phone, a character renamed since) is rolled as her first attack and
    the card says that one, not the name the phone sent."""
    for sent, named in (("Dagger", "Dagger"), ("Vorpal Sword", "Longsword")):
        model = table("generic")
        secret, expected = attack_by(model, "generic", "hit", named)
        model, _ = rolled(model, "atk", secret=secret, target=vids(model)["Goblin"], **{"with": sent})
        (request,) = model.live.requests
        assert request.text == f"Cyra attacks Goblin ({named}): {expected.args['text']}", sent


@pytest.mark.parametrize("wanted", ["hit", "miss", "crit"])
def test_a_generic_attack_is_rolled_from_both_phones_dice_against_an_ac_the_phone_never_receives(wanted):
    model = table("generic")
    goblin_vid = vids(model)["Goblin"]
    secret, expected = attack_by(model, "generic", wanted, "Longsword")
    model, effects = rolled(model, "atk", secret=secret, target=goblin_vid, **{"with": "Longsword"})
    (request,) = model.live.requests
    assert request.kind == "attack" and request.text == f"Cyra attacks Goblin (Longsword): {expected.args['text']}"
    assert request.seed == joint(model, secret) and not request.typed
    assert Toast(request.text, request=request.id) in effects  # announced with its Apply / Dismiss
    rolled_words = expected.args["text"].split(" vs AC")[0]
    # First the game master's value for the commitment, then "waiting" with the roll alone: not hit or miss.
    assert [t["t"] for t in told(effects)] == ["draw", "ans"]
    assert told(effects)[-1] == {"v": 1, "t": "ans", "rid": 0, "state": "waiting", "why": rolled_words}
    before = model.timeline
    goblin_before = hp(model, "Goblin")
    model, effects = update(model, RequestAnswered(request.id, True, RNG))
    after = before.do(expected).present.get(ids(model)["Goblin"]).hp
    assert hp(model, "Goblin") == after and model.live.requests == ()
    assert model.timeline.cursor == before.cursor + 1  # one step
    answer = told(effects)[-1]
    word = {"hit": ": hit", "miss": ": miss", "crit": ": critical hit"}[wanted]
    assert answer["state"] == "applied" and answer["why"].startswith(rolled_words + word)
    if after == 0:
        assert answer["why"].endswith("; Goblin is down")
    # Nothing a phone was given says the Goblin's AC.
    model2, more = update(model, PeerChanged("p2", True))
    everything = sent_to_phones(effects + more)
    assert "AC" not in everything and "vs" not in everything
    model, _ = update(model, UndoTapped())
    assert hp(model, "Goblin") == goblin_before


@pytest.mark.parametrize(("system", "wanted", "words"), [
    ("realms", "hit", "hit"), ("realms", "miss", "miss"), ("realms", "crit", "critical hit"),
    ("strife", "hit", "hit"), ("strife", "miss", "miss"),
    ("laurels", "hit", "hit"), ("laurels", "miss", "no damage"),
])
def test_each_systems_attack_is_the_game_master_panels_own_roll_and_apply_is_one_undoable_step(system, wanted, words):
    model = table(system)
    enc = model.timeline.present
    secret, expected = attack_by(model, system, wanted)
    model, effects = rolled(model, "atk", secret=secret, target=vids(model)["Goblin"])
    (request,) = model.live.requests
    assert request.text == f"Cyra attacks Goblin: {expected.args['text']}"
    # Waiting: the phone's own roll, in every system (issue 53, item 7), never hit or miss.
    a = expected.args
    if system == "realms":
        rolled_words = f"{len(a['faces'])}d20 ({', '.join(map(str, a['faces']))})"
    elif system == "strife":
        rolled_words = f"d100 ({a['natural']}) = {a['portions'][0]['total']}"
    else:
        rolled_words = f"{len(a['dice'])}d{a['die']} ({', '.join('+'.join(map(str, c)) for c in a['dice'])}) = {sum(map(sum, a['dice']))}"
    assert rolled_words and told(effects)[-1] == {"v": 1, "t": "ans", "rid": 0, "state": "waiting", "why": rolled_words}
    before = model.timeline
    model, effects = update(model, RequestAnswered(request.id, True, RNG))
    goblin = before.do(expected).present.get(ids(model)["Goblin"])
    assert hp(model, "Goblin") == goblin.hp
    # Applied: the same words in every system: what it rolled, hit or miss, the damage, the target's state.
    outcome = get_system(system).attack_outcome(a)
    damage = ""
    if system == "laurels" and outcome.damage:
        r = a["result"]
        damage = f", {outcome.damage} damage (" + ", ".join(([f"{r['to_stamina']} Stamina"] if r["to_stamina"] else [])
                                                          + ([f"{r['to_injuries']} Injur{'y' if r['to_injuries'] == 1 else 'ies'}"] if r["to_injuries"] else [])) + ")"
    elif outcome.damage:
        damage = f", {outcome.damage} damage" + (" (doubled)" if system == "strife" and outcome.crit else "")
    state = get_system(system).players_health(goblin)
    assert told(effects)[-1]["state"] == "applied"
    assert told(effects)[-1]["why"] == f"{rolled_words}: {words}{damage}" + (f"; Goblin is {state}" if state else "")
    assert (outcome.damage > 0) == (wanted != "miss")
    model, _ = update(model, UndoTapped())
    assert model.timeline.present == enc


def test_an_attack_is_refused_with_its_reason_at_the_lair_at_itself_at_a_hidden_target_and_out_of_turn():
    model = fight(*ROSTERS["generic"], {"name": "Lair", "side": "opponents", "initiative": 20, "stats": {"lair": True}},
                  {"name": "Assassin", "initiative": 1, "max_hp": 9, "stats": {"ac": 14}}, started=True)
    model = approved(joined(hosting(model)))
    model, _ = update(model, Act("set_flag", Flag(ids(model)["Assassin"], "hidden", True), RNG))
    v = vids(model)
    model, effects = rolled(model, "atk", target=v["Lair"])
    assert told(effects)[-1] == {"v": 1, "t": "ans", "rid": 0, "state": "refused", "why": "Lair cannot be attacked"}
    model, effects = rolled(model, "atk", target=v["Cyra"])
    assert told(effects)[-1]["why"] == "Cyra cannot be attacked"
    model, effects = rolled(model, "atk", target="v" + "0" * 12)
    assert told(effects)[-1]["why"] == "that target is not in the fight the players see"
    laurels = table("laurels")
    laurels, _ = update(laurels, Act("set_flag", Flag(ids(laurels)["Cyra"], "parry_weapon", True), RNG))
    laurels, effects = rolled(laurels, "atk", target=vids(laurels)["Goblin"])
    assert told(effects)[-1]["state"] == "refused" and "parrying" in told(effects)[-1]["why"] and laurels.live.requests == ()


def test_the_players_phone_draws_the_seed_names_the_weapon_and_keeps_its_target_across_sends():
    model = following()
    gm = table("generic")
    ids_, turn = players_ids(gm.timeline.present, "secret1234")
    state = state_text({"v": 1, "name": "", "system": "generic", "round": 1, "now": "", "next": "", "rows": []}, 1,
                       ids_, turn, "gm", "s1", pcs=pc_state(gm.timeline.present, "secret1234"))
    model, _ = update(model, PeerChanged("gm", True))
    model, _ = update(model, PeerSaid("gm", state, 10.0))
    model, _ = update(model, PeerSaid("gm", you_text(vids(gm)["Cyra"]), 11.0))
    assert model.live.pcs[vids(gm)["Cyra"]]["atk"] == ["Longsword", "Dagger"]
    goblin = vids(gm)["Goblin"]
    assert player_target(model.live) == goblin  # the only opponent
    model, effects = update(model, AttackSent(goblin, "Dagger", random.Random(7)))
    (tell,) = [e for e in effects if isinstance(e, LiveTell)]
    sent = json.loads(tell.text)
    secret = new_secret(random.Random(7))
    assert sent == {"v": 1, "t": "atk", "target": goblin, "c": commitment(secret), "with": "Dagger", "rid": 1}  # (no seed: a commitment)
    assert read_message(tell.text, FROM_FOLLOWER).commit == sent["c"] and model.live.rolling == (secret, "")
    assert model.live.said == "sending your attack on Goblin (Dagger)…" and model.live.target == goblin
    model, effects = update(model, AttackSent(vids(gm)["Cyra"], "", RNG))
    assert effects == (Refuse("Pick a target."),)


def test_the_default_target_is_the_opponent_whose_turn_it_is_else_the_last_chosen_never_the_lair():
    from web.app.model import Live
    live = Live(role="follow", you="va", ids=(("va", "Cyra", "p"), ("vb", "Dax", "p"), ("vl", "Lair", "x"), ("vg", "Goblin", "o"),
                                               ("vo", "Ogre", "o")), turn=("vl",))
    assert player_target(live) == "vg"  # the lair's turn: never the lair, the first opponent
    live = live.__class__(**{**live.__dict__, "turn": ("vo",)})
    assert player_target(live) == "vo"  # an opponent's turn: it
    live = live.__class__(**{**live.__dict__, "turn": ("va",), "target": "vb", "target_turn": ("vo",)})
    assert player_target(live) == "vb"  # its own turn: the last it chose, even a party member
    model = Model(following().timeline, live=live)
    model, _ = update(model, PlayerTargetPicked("vg"))
    assert player_target(model.live) == "vg"
    model = Model(model.timeline, live=model.live.__class__(**{**model.live.__dict__, "turn": ("vo",)}))
    assert player_target(model.live) == "vo"  # the next turn, an opponent's: it again


# -- own state ----------------------------------------------------------------------------------

def test_own_state_has_temporary_hp_conditions_with_what_remains_and_no_hidden_name():
    model = fight(*ROSTERS["generic"], {"name": "Assassin", "initiative": 1, "max_hp": 9}, started=True)
    k = ids(model)
    for kind, args in (("damage", HitPoints(k["Cyra"], 6)), ("temp_hp", Temporary(k["Cyra"], 8)),
                       ("add_condition", NewCondition(k["Cyra"], "Poisoned", "end", 1, k["Goblin"])),
                       ("add_condition", NewCondition(k["Cyra"], "Frightened", "end", 1, k["Assassin"])),
                       ("set_flag", Flag(k["Assassin"], "hidden", True))):
        model, _ = update(model, Act(kind, args, RNG))
    own = pc_state(model.timeline.present, "s")
    from pyengine.handoff import players_id
    enc = model.timeline.present
    cyra = own[players_id(enc, "s", k["Cyra"])]
    assert cyra == {"hp": 14, "max": 20, "temp": 8, "cond": [["Poisoned", "until end of Goblin's turn"], ["Frightened", "until a creature's turn"]],
                    "ds": None, "atk": ["Longsword", "Dagger"], "init": 0, "label": "HP", "down": "", "more": []}
    assert "Assassin" not in json.dumps(own) and set(own) == {players_id(enc, "s", k["Cyra"]), players_id(enc, "s", k["Dax"])}
    text = state_text({"v": 1, "name": "", "system": "generic", "round": 1, "now": "", "next": "", "rows": []}, 1, pcs=own)
    assert read_message(text, FROM_HOST).pcs == own
    for bad in ({"x": {"hp": "1"}}, {"v1": {"cond": [["a"]]}}, {"v1": {"ds": [4, 0, "dying"]}}, {"v1": {"atk": ["a"] * 21}}, []):
        with pytest.raises(LiveError):
            read_message(state_text({"v": 1, "name": "", "system": "", "round": 0, "now": "", "next": "", "rows": []}, 1, pcs=bad or {"v": 1})
                         if bad != [] else text.replace('"pcs":{', '"pcs":[{').replace("}}}", "}]}"), FROM_HOST)


def test_healing_and_temporary_hp_are_requests_applied_as_one_step_each():
    model = table("generic")
    model, _ = update(model, Act("damage", HitPoints(ids(model)["Cyra"], 12), RNG))
    model, effects = asked(model, "heal", value=5, temp=False)
    model, more = asked(model, "heal", value=8, temp=True)
    heal, temp = model.live.requests
    assert (heal.text, temp.text) == ("Cyra is healed 5 HP.", "Cyra gains 8 temporary HP.")
    model, _ = update(model, RequestAnswered(heal.id, True, RNG))
    model, effects = update(model, RequestAnswered(temp.id, True, RNG))
    cyra = model.timeline.present.get(ids(model)["Cyra"])
    assert (cyra.hp, cyra.temp_hp) == (13, 8) and told(effects)[-1]["state"] == "applied"
    model, _ = update(model, UndoTapped())
    assert model.timeline.present.get(ids(model)["Cyra"]).temp_hp == 0
    for bad in ('{"v":1,"t":"heal","value":0}', '{"v":1,"t":"heal","value":5,"temp":"yes"}', '{"v":1,"t":"dsave","face":21}'):
        with pytest.raises(LiveError):
            read_message(bad, FROM_FOLLOWER)
    phone = following()
    phone, effects = update(phone, HealSent(None, False))
    assert isinstance(effects[0], Refuse)


def test_death_saves_are_sent_from_the_phone_and_applied_as_a_request_or_at_once():
    model = table("generic")
    cyra = ids(model)["Cyra"]
    model, effects = rolled(model, "dsave")
    assert told(effects)[-1]["state"] == "refused" and "not dying" in told(effects)[-1]["why"]
    assert [t["t"] for t in told(effects)] == ["ans"]  # (refused before any dice were drawn)
    model, _ = update(model, Act("damage", HitPoints(cyra, 20), RNG))
    assert pc_state(model.timeline.present, "secret1234")[vids(model)["Cyra"]]["ds"] == [0, 0, "dying"]
    # Verified: the d20 from both phones (a 14 here), shown on the card as rolled.
    secret = secret_for(model, lambda seed: random.Random(seed).randint(1, 20) == 14)
    model, effects = rolled(model, "dsave", secret=secret)
    (request,) = model.live.requests
    assert request.text == "Cyra rolls a death save: 14." and told(effects)[-1] == {"v": 1, "t": "ans", "rid": 0, "state": "waiting",
                                                                                     "why": "d20 (14)"}
    model, effects = update(model, RequestAnswered(request.id, True, RNG))
    assert told(effects)[-1] == {"v": 1, "t": "ans", "rid": 0, "state": "applied", "why": "Cyra succeeds on a death save (1 ✓, 0 ✗)"}
    # "Apply without asking" applies a verified death save at once, and a typed one (a real die) never.
    model, _ = update(model, AutoSavesToggled(True))
    model, effects = asked(model, "dsave", face=20, rid=1)
    (typed,) = model.live.requests
    assert typed.text == "Cyra rolls a death save: 20 (typed)." and typed.typed and told(effects)[-1]["state"] == "waiting"
    model, _ = update(model, RequestAnswered(typed.id, False, RNG))
    secret = secret_for(model, lambda seed: random.Random(seed).randint(1, 20) == 1)
    model, effects = rolled(model, "dsave", secret=secret, rid=2)
    assert model.live.requests == () and told(effects)[-1]["why"] == "Cyra rolls a 1 on a death save: two failures (1 ✓, 2 ✗)"
    assert pc_state(model.timeline.present, "secret1234")[vids(model)["Cyra"]]["ds"] == [1, 2, "dying"]
    # Another phone's Dax, not on his turn: refused (a death save is rolled at the start of one's turn).
    model = approved(joined(model, "p2", "dev-bryn-0002", "Bryn"), "Dax", "p2")
    model, _ = update(model, Act("damage", HitPoints(ids(model)["Dax"], 24), RNG))
    model, effects = rolled(model, "dsave", "p2")
    assert told(effects)[-1]["why"] == "a death save is rolled on Dax's turn" and model.live.requests == ()
    realms = table("realms")
    realms, effects = rolled(realms, "dsave")
    assert told(effects)[-1]["why"] == "this game system has no death saves"
    phone = following()
    phone = Model(phone.timeline, live=phone.live.__class__(**{**phone.live.__dict__, "you": "va", "ids": (("va", "Cyra", "p"),)}))
    phone, effects = update(phone, DeathSaveSent(random.Random(3)))
    assert phone.live.asking == request_text("dsave", c=commitment(new_secret(random.Random(3))), rid=1)
    assert phone.live.rolling == (new_secret(random.Random(3)), "1d20")
    phone, effects = update(phone, DeathSaveSent(random.Random(3), "17"))
    assert phone.live.asking == request_text("dsave", face=17, rid=2) and phone.live.asked_what == "your death save (17, typed)"
    assert phone.live.rolling == ()
    _, effects = update(phone, DeathSaveSent(random.Random(3), "21"))
    assert effects == (Refuse("A death save is one d20: type a face from 1 to 20."),)


# -- the requests' tray --------------------------------------------------------------------------

def test_one_request_of_a_kind_a_phone_at_most_twenty_and_the_oldest_dismissed_with_a_note():
    model = table("generic")
    goblin = vids(model)["Goblin"]
    model, _ = asked(model, "done")
    model, effects = asked(model, "done")
    assert [r.kind for r in model.live.requests] == ["done"]  # a second "I'm done" is not a second card
    model, _ = rolled(model, "atk", target=goblin, rid=1)
    first = model.live.requests[1].text
    model, effects = rolled(model, "atk", target=goblin, rid=2)
    # A second attack while one waits is refused: its result would tell the Goblin's AC.
    assert [r.kind for r in model.live.requests] == ["done", "attack"] and model.live.requests[1].text == first
    assert told(effects)[-1] == {"v": 1, "t": "ans", "rid": 2, "state": "refused",
                                 "why": "one attack at a time: the game master has your attack on Goblin"}
    # Eighteen phones holding only the link ask to play Dax: at most MAX_UNAPPROVED of their claims
    # wait, the oldest dropped (its phone told, the game master's line says how many); the approved
    # player's requests stay.
    for n in range(2, 20):
        model = joined(model, f"p{n}", f"dev-{n:04d}-phone", f"P{n}")
        model, effects = update(model, PeerSaid(f"p{n}", request_text("claim", cid=vids(model)["Dax"], rid=7), 3.0 + n, RNG))
    assert [r.kind for r in model.live.requests] == ["done", "attack"] + ["claim"] * MAX_UNAPPROVED
    assert [r.peer for r in model.live.requests[2:]] == [f"p{n}" for n in range(20 - MAX_UNAPPROVED, 20)]
    notes = [(e.peer, json.loads(e.text)) for e in effects if isinstance(e, LiveTell)]
    assert (f"p{19 - MAX_UNAPPROVED}", {"v": 1, "t": "ans", "rid": 7, "state": "dismissed",
                                        "why": "too many requests were waiting: send it again if it still stands"}) in notes
    assert model.live.turned_away == 18 - MAX_UNAPPROVED
    assert f"{18 - MAX_UNAPPROVED} claims of phones not let in dropped (too many at once)." in followers_line(model.live)
    # One connection that makes up a new device id with each hello is still one phone (and one device).
    for n in range(5):
        model, _ = update(model, PeerSaid("p19", hello_text("P19", f"dev-new-{n:04d}"), 40.0 + n, RNG))
        model, _ = update(model, PeerSaid("p19", request_text("claim", cid=vids(model)["Cyra"], rid=20 + n), 40.5 + n, RNG))
    assert {p.device for p in model.live.peers if p.id == "p19"} == {"dev-0019-phone"}
    assert sum(r.peer == "p19" for r in model.live.requests) == 1
    # A tray full of approved players' requests: a claim of a phone not let in is refused, never one
    # of theirs dismissed for it.
    model = replace(model, live=replace(model.live, requests=model.live.requests[:2]))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(requests_module, "MAX_WAITING", 2)
        model, effects = update(model, PeerSaid("p5", request_text("claim", cid=vids(model)["Dax"], rid=30), 60.0, RNG))
    assert [r.kind for r in model.live.requests] == ["done", "attack"]
    assert told(effects)[-1] == {"v": 1, "t": "ans", "rid": 30, "state": "refused", "why": "too many requests are waiting: ask the game master"}


def test_an_attack_waiting_survives_the_game_masters_reload_and_applies_the_same_roll():
    model = table("generic")
    model, _ = rolled(model, "atk", target=vids(model)["Goblin"], **{"with": "Longsword"})
    kept = live_table_text(model.live)
    claims, trusted, requests, key = read_live_table(kept, "room1234")
    assert requests == tuple(r.__class__(**{**r.__dict__, "peer": ""}) for r in model.live.requests)
    assert requests[0].seed == model.live.requests[0].seed > 0 and requests[0].weapon == "Longsword" and key == model.live.key
    assert read_live_table(kept.replace('"Longsword"', '"' + "x" * 61 + '"'), "room1234")[2] == ()


def test_the_players_screen_offers_its_attacks_targets_and_death_save_as_its_state_says():
    from web.app.model import Live
    from web.app.screens.live import live_follow_html
    view = {"v": 1, "name": "Bridge", "system": "generic", "round": 2, "now": "Lair", "next": "Goblin", "rows": []}
    own = {"hp": 0, "max": 24, "temp": 0, "cond": [["Poisoned <b>", "until end of Goblin's turn"]], "ds": [1, 2, "dying"],
           "down": "At 0 HP", "atk": ["Longsword", "<img src=x onerror=alert(1)>"]}
    live = Live(role="follow", view=view, you="va", panel="attack", pcs={"va": own},
                ids=(("va", "Cyra", "p"), ("vl", "Lair", "x"), ("vg", "Goblin", "o"), ("vo", "Ogre", "o")), turn=("vl",))
    html = live_follow_html(live, "live", False)
    assert 'data-testid="my-hp"><span class="muted">HP</span> <b>0/24</b></p>' in html
    assert "Poisoned &lt;b&gt;" in html and "<img" not in html
    assert 'Death saves: <b>1</b>/3 ✓ · <b>2</b>/3 ✗' in html
    assert 'data-testid="death-save" disabled>Roll death save (on your turn)' in html
    # Dying: death saves, not Attack (issue 51, item 12), even with the attack panel left open.
    assert 'data-testid="player-attack"' not in html and 'data-testid="attack-panel"' not in html
    assert 'data-testid="no-attack">At 0 HP: no attacks.' in html
    standing = Live(**{**live.__dict__, "pcs": {"va": {**own, "hp": 5, "ds": None, "down": ""}}})
    html = live_follow_html(standing, "live", False)
    assert 'data-testid="player-attack"' in html and 'data-testid="death-save"' not in html
    target = html.split('data-testid="attack-target"', 1)[1].split("</select>", 1)[0]
    assert "Lair" not in target and "Cyra" not in target and '<option value="vg" selected>Goblin</option>' in target
    assert "&lt;img src=x" in html.split('data-testid="attack-with"', 1)[1].split("</select>", 1)[0] and "<img" not in html
    mine = Live(**{**live.__dict__, "turn": ("va",), "panel": "heal"})
    html = live_follow_html(mine, "live", False)
    assert 'data-testid="death-save">Roll death save</button>' in html and 'data-testid="heal-panel"' in html
    assert 'data-testid="attack-panel"' not in html
