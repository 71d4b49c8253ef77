"""Issue 52, section 4: a player casts an SRD spell from the phone. The library's spells (from
5e-database's spells table); a save spell becomes the game master's save panel pre-filled (the
caster's DC, the damage at its level, its targets) and its outcome goes back to the caster's phone;
an attack spell is the player's attack with the caster's spell attack bonus (dice from both phones);
damage alone is a roll at a target. What a modified phone sends is refused."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

import build
from pyengine.core_args import Flag
from pyengine.errors import RuleError
from pyengine.fair import new_secret
from pyengine.live import FROM_FOLLOWER, Cast, read_message, request_text
from pyengine.systems.spells import Spell, find_spell, read_spell
from pyengine.systems.srd import read_library
from tests.unit.test_live import approved, asked, hosting, joined, playing_phone, rolled, vids
from tests.unit.test_update import fight, ids
from web.app.effects import LiveTell, LoadLibrary, Refuse
from web.app.messages import Act, PlayerPanelToggled, RequestAnswered, SavesApplied, SavesRolled, SpellPicked, SpellSent
from web.app.model import Model
from web.app.screens.live import spell_panel_html
from web.app.update import update


@pytest.fixture(scope="module")
def library():
    return read_library(build.srd_library_text())


PEOPLE = ({"name": "Cyra", "side": "party", "pc": True, "initiative": 18, "max_hp": 30, "stats": {"spell_dc": 15, "spell_attack": 7}},
          {"name": "Dax", "side": "party", "pc": True, "initiative": 12, "max_hp": 24},
          {"name": "Goblin 1", "initiative": 15, "max_hp": 30, "stats": {"ac": 13, "save_dex": 2}},
          {"name": "Goblin 2", "initiative": 14, "max_hp": 30, "stats": {"ac": 13, "save_dex": 2}},
          {"name": "Troll", "initiative": 9, "max_hp": 84, "stats": {"ac": 15, "save_dex": 1},
           "tools": [{"kind": "regeneration", "amount": "10", "stops": "acid, fire"}]})


def table(library, *, loaded: bool = True) -> Model:
    model = approved(joined(hosting(fight(*PEOPLE, started=True))))
    return replace(model, library=library) if loaded else model


def said(effects: tuple) -> list[str]:
    return [json.loads(e.text).get("why", "") for e in effects if isinstance(e, LiveTell) and json.loads(e.text).get("t") == "ans"]


def test_the_librarys_spells_are_the_ones_the_engine_resolves(library):
    kinds = {k: [s for s in library.spells if s.kind == k] for k in ("save", "attack", "damage")}
    assert (len(kinds["save"]), len(kinds["attack"]), len(kinds["damage"])) == (56, 12, 9)
    fireball = find_spell(library.spells, "fireball")
    assert (fireball.level, fireball.ability, fireball.success, fireball.damage_at(3), fireball.damage_at(4)) == (3, "dex", "half", "8d6 fire", "9d6 fire")
    hold = find_spell(library.spells, "Hold Person")
    assert (hold.condition, hold.rounds, hold.repeat, hold.damage) == ("Paralyzed", 10, True, ())
    bolt = find_spell(library.spells, "Fire Bolt")
    assert bolt.kind == "attack" and bolt.slots() == (1, 5, 11, 17) and bolt.damage_at(11) == "3d10 fire"
    assert find_spell(library.spells, "Magic Missile").damage_at(2) == "4d4+4 force"
    with pytest.raises(RuleError):
        fireball.check_slot(2)
    with pytest.raises(RuleError):
        find_spell(library.spells, "Wish for a dragon")
    # The file's spells are checked as they are read: a damaged one is refused.
    for bad in (["Fireball", 3, "save", "luck", "half", "fire", [[3, "8d6"]], "", 0, False],
                ["Fireball", 3, "save", "dex", "half", "fire", [[3, "8d6; alert(1)"]], "", 0, False],
                ["Fireball", 12, "save", "dex", "half", "fire", [[3, "8d6"]], "", 0, False],
                ["Bolt", 0, "attack", "", "none", "fire", [], "", 0, False]):
        with pytest.raises(ValueError):
            read_spell(bad)
    assert read_spell(fireball.to_list()) == fireball


def test_a_save_spell_waits_for_the_game_master_and_opens_the_save_panel_pre_filled(library):
    model = table(library)
    v, names = vids(model), ids(model)
    model, effects = asked(model, "cast", spell="Fireball", slot=4, targets=[v["Goblin 1"], v["Goblin 2"], v["Troll"]], rid=3)
    request = model.live.requests[-1]
    assert request.kind == "cast" and request.text == ("Cyra casts Fireball (level 4) on Goblin 1, Goblin 2, Troll: "
                                                       "DC 15 Dexterity, 9d6 fire, half on a success.")
    model, effects = update(model, RequestAnswered(request.id, True, random.Random(1)))
    save = model.ui.save
    assert model.ui.sheet == ("save", names["Cyra"]) and save["source"] == names["Cyra"]
    assert (save["effect"]["name"], save["effect"]["dc"], save["effect"]["damage"], save["effect"]["magical"]) == ("Fireball", "15", "9d6 fire", True)
    assert save["targets"] == [names["Goblin 1"], names["Goblin 2"], names["Troll"]]
    assert "the game master rolls Fireball's saves" in " ".join(e.text for e in effects if isinstance(e, LiveTell))
    model, _ = update(model, SavesRolled(random.Random(8)))
    results = model.ui.save["pending"].args["results"]
    model, effects = update(model, SavesApplied())
    outcome = said(effects)[-1]
    for r in results:
        name = next(n for n, i in names.items() if i == r["id"])
        assert f"{name} {'saved' if r['saved'] else 'failed'}" in outcome
    log = [e.text for e in model.timeline.log()]
    assert any(line.startswith("Cyra's Fireball (DC 15 Dexterity, 9d6 fire, half on a success) on Goblin 1, Goblin 2, Troll") for line in log)
    assert any("Troll's Regeneration is off at its next turn (fire damage)" in line for line in log)


def test_an_attack_spell_is_the_players_attack_with_its_spell_attack_bonus_and_dice_from_both_phones(library):
    model = table(library)
    v = vids(model)
    secret = new_secret(random.Random(31))
    model, effects = rolled(model, "atk", secret=secret, target=v["Troll"], spell="Fire Bolt", slot=5, rid=4)
    request = model.live.requests[-1]
    assert request.kind == "attack" and request.weapon == "Fire Bolt" and request.spell == "2d10 fire"
    assert request.text.startswith("Cyra attacks Troll (Fire Bolt): 1d20 (") and "+7" in request.text
    model, effects = update(model, RequestAnswered(request.id, True, random.Random(1)))
    log = [e.text for e in model.timeline.log()]
    assert any(line.startswith("Cyra attacks Troll (Fire Bolt): ") for line in log)
    if request.amount:
        assert f"Troll took {request.amount} fire damage from Cyra" in log
    # No spell attack bonus on the caster: refused with the reason.
    bare = replace(approved(joined(hosting(fight(*({**PEOPLE[0], "stats": {}}, *PEOPLE[1:]), started=True)))), library=library)
    _, effects = rolled(bare, "atk", target=vids(bare)["Troll"], spell="Fire Bolt", slot=1, rid=1)
    assert any("no spell attack bonus" in w for w in said(effects))


def test_what_a_modified_phone_sends_for_a_spell_is_refused(library):
    model = table(library)
    v = vids(model)
    cases = (({"spell": "Fireball", "slot": 2, "targets": [v["Troll"]]}, "from level 3 to 9"),
             ({"spell": "Fire Bolt", "slot": 1, "targets": [v["Troll"]]}, "is no saving throw"),
             ({"spell": "Meteor of the GM", "slot": 9, "targets": [v["Troll"]]}, "No SRD spell"),
             ({"spell": "Fireball", "slot": 3, "targets": ["nobody"]}, "not in the fight"),
             ({"spell": "Fireball", "slot": 3, "targets": []}, "targets (1 to 12)"))
    for fields, why in cases:
        after, effects = asked(model, "cast", rid=9, **fields)
        assert any(why in w for w in said(effects)), (fields, said(effects))
        assert after.live.requests == model.live.requests
    # A hidden target is not one the phone can name; a spell attack's damage is the library's, never the phone's.
    hidden, _ = update(model, Act("set_flag", Flag(ids(model)["Goblin 2"], "hidden", True), random.Random(0)))
    _, effects = asked(hidden, "cast", spell="Fireball", slot=3, targets=[v["Goblin 2"]], rid=10)
    assert any("not in the fight" in w for w in said(effects))
    msg = read_message(request_text("atk", target=v["Troll"], spell="Fire Bolt", slot=5, c="ab" * 32, damage="99d10 fire", rid=1), FROM_FOLLOWER)
    assert not hasattr(msg, "damage") and msg.spell == "Fire Bolt"
    # The game master's phone without its library: the phone is told to send again, and the library loads.
    bare = table(library, loaded=False)
    assert bare.library_state == "loading"  # (read as the table went live)
    after, effects = asked(bare, "cast", spell="Fireball", slot=3, targets=[v["Troll"]], rid=11)
    assert any("send it again" in w for w in said(effects)) and not any(isinstance(e, LoadLibrary) for e in effects)
    after, effects = asked(replace(bare, library_state=""), "cast", spell="Fireball", slot=3, targets=[v["Troll"]], rid=12)
    assert any("send it again" in w for w in said(effects)) and any(isinstance(e, LoadLibrary) for e in effects)
    assert after.library_state == "loading"
    assert isinstance(read_message(request_text("cast", spell="Fireball", slot=3, targets=[v["Troll"]] * 3, rid=2), FROM_FOLLOWER), Cast)


def test_the_players_phone_spell_panel_and_what_it_sends(library):
    gm = fight(*PEOPLE, started=True)
    phone = playing_phone(gm)
    v = vids(gm)
    phone, effects = update(phone, PlayerPanelToggled("spell"))
    assert any(isinstance(e, LoadLibrary) for e in effects) and phone.library_state == "loading"
    assert "Loading the SRD spells" in spell_panel_html(phone.live, None, "loading")
    phone = replace(phone, library=library, library_state="")
    phone, _ = update(phone, SpellPicked("Fireball"))
    html = spell_panel_html(phone.live, library.spells)
    assert '<option value="Fireball" selected>' in html and "Level 4 · 9d6 fire" in html and "Dexterity save, half on a success" in html
    assert html.count('type="checkbox" name="spell-target"') == 5
    phone, effects = update(phone, SpellSent(random.Random(2), "Fireball", 4, (v["Goblin 1"], v["Troll"])))
    sent = json.loads(next(e for e in effects if isinstance(e, LiveTell)).text)
    assert sent == {**sent, "t": "cast", "spell": "Fireball", "slot": 4, "targets": [v["Goblin 1"], v["Troll"]]}
    # An attack spell: one target, a commitment, never its dice; a spell of damage alone: a verified roll of the library's dice.
    _, effects = update(phone, SpellSent(random.Random(2), "Fire Bolt", 5, (v["Goblin 1"], v["Troll"])))
    assert any(isinstance(e, Refuse) and "one target" in e.text for e in effects)
    _, effects = update(phone, SpellSent(random.Random(2), "Fire Bolt", 5, (v["Troll"],)))
    sent = json.loads(next(e for e in effects if isinstance(e, LiveTell)).text)
    assert sent["t"] == "atk" and sent["spell"] == "Fire Bolt" and sent["slot"] == 5 and "c" in sent
    after, effects = update(phone, SpellSent(random.Random(2), "Magic Missile", 2, (v["Troll"],)))
    sent = json.loads(next(e for e in effects if isinstance(e, LiveTell)).text)
    assert sent["t"] == "roll" and sent["expr"] == "4d4+4 force" and sent["label"] == "Magic Missile" and after.live.rolling[1] == "4d4+4 force"
    _, effects = update(phone, SpellSent(random.Random(2), "Fireball", 2, (v["Troll"],)))
    assert any(isinstance(e, Refuse) and "level 3 to 9" in e.text for e in effects)
    assert isinstance(find_spell(library.spells, "Fireball"), Spell)


def test_a_cast_and_a_spell_attack_waiting_come_back_after_the_game_masters_reload(library):
    from web.app.live_status import live_table_text, read_live_table

    model = table(library)
    v = vids(model)
    model, _ = asked(model, "cast", spell="Fireball", slot=3, targets=[v["Goblin 1"], v["Goblin 2"], v["Troll"]], rid=3)
    model, _ = rolled(model, "atk", secret=new_secret(random.Random(8)), target=v["Troll"], spell="Fire Bolt", slot=5, rid=4)
    kept = read_live_table(live_table_text(model.live), "room1234")[2]
    assert [(r.kind, r.target.count(","), r.weapon, r.spell) for r in kept] == [("cast", 2, "Fireball", ""), ("attack", 0, "Fire Bolt", "2d10 fire")]
    assert [replace(r, peer="") for r in model.live.requests] == list(kept)
