"""Issue 53, items 6 and 7: what the table reads is each system's own. Laurels and Loot marks who an
ambush holds back ("surprised (round 1)", on the game master's row and in the players' view) and who
cannot be surprised (the sheet), has Attack… where every system has it, and says what is true when
no one of the acting side can act; the players' health words come from the system's own state
(Stamina and Injuries); a player's own state is its system's (Stamina and Injuries, Body, Realm of
Strife's resources); and a player's attack is answered with the same parts in every system."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from pyengine.errors import SchemaError
from pyengine.handoff import SURPRISED, check_view, health_word, is_word, pc_state, table_view
from pyengine.model import Combatant
from pyengine.rules import get_system
from pyengine.tracker import Timeline, new_encounter, resolve
from pyengine.turns import side_state
from tests.unit.helpers import step
from tests.unit.scripted import Scripted
from tests.unit.test_laurels_tracker import fight as laurels_fight
from tests.unit.test_players_phone import ATTACK_KINDS, ROSTERS
from web.app.model import Live
from web.app.render import side_turn_html, tracker_html
from web.app.screens.live import live_follow_html
from web.app.views import view_for


def with_stats(t: Timeline, cid: str, hp: int | None = None, **stats) -> Timeline:
    """The fight with combatant `cid`'s Stamina/HP and stats set (as the game master's edits would)."""
    c = t.present.get(cid)
    c = replace(c, hp=c.hp if hp is None else hp, stats=tuple(sorted({**dict(c.stats), **stats}.items())))
    return Timeline.start(t.present.with_combatant(c))


# -- item 7: health words --------------------------------------------------------------------------

@pytest.mark.parametrize(("stamina", "injuries", "word"), [
    (68, 0, "unhurt"), (67, 0, "tiring"), (1, 0, "tiring"), (0, 0, "out of Stamina"),
    (68, 1, "injured"), (40, 9, "tiring, injured"), (40, 10, "tiring, badly injured"),
    (0, 12, "out of Stamina, badly injured"), (0, 20, "out of the fight"), (68, 25, "out of the fight"),
])
def test_laurels_health_words_are_stamina_and_injuries(stamina, injuries, word):
    """The issue's Hill Giant, 0/68 Stamina and 12/20 Injuries, was "bloodied"."""
    giant = Combatant("c4", "Hill Giant", hp=stamina, max_hp=68, side="opponents", stats=(("injuries", injuries), ("injury_max", 20)))
    assert health_word(giant, get_system("laurels")) == word
    assert is_word(word)


def test_hp_systems_keep_hp_words_and_the_view_checks_every_part():
    goblin = Combatant("c3", "Goblin", hp=3, max_hp=10)
    assert [health_word(replace(goblin, hp=h), get_system(s)) for s in ("realms", "strife", "generic") for h in (10, 6, 5, 0)] == \
        ["unhurt", "hurt", "bloodied", "down"] * 3
    t = with_stats(laurels_fight(), "c4", hp=0, injuries=12, injury_max=20)
    view = table_view(t.present)
    assert [r[4] for r in view["rows"] if r[0] == "Hill Giant"] == ["out of Stamina, badly injured"]
    assert check_view(view)["rows"] == view["rows"]
    for forged in ("bloodied, evil", "tiring,injured", "x" * 101, "unhurt, " * 20):
        bad = {**view, "rows": [[*view["rows"][3][:4], forged, *view["rows"][3][5:]]]}
        with pytest.raises(SchemaError):
            check_view(bad)


# -- item 7: a player's own state ------------------------------------------------------------------

def test_a_laurels_players_own_state_is_stamina_and_injuries_and_stamina_at_zero_still_attacks():
    t = with_stats(step(laurels_fight(), "start_combat", Scripted([5]), ambush="none"), "c1", hp=0, injuries=3, shield=4)
    own = pc_state(t.present, "s")
    tombril = next(pc for pc in own.values() if pc["max"] == 55)
    assert (tombril["label"], tombril["hp"], tombril["down"], tombril["more"]) == ("Stamina", 0, "", [["Injuries", 3, 20], ["Shield", 4, None]])
    html = _phone_html(tombril)
    assert 'data-testid="my-hp"><span class="muted">Stamina</span> <b>0/55</b>' in html
    assert re.search(r'Injuries</span> <b data-testid="my-gauge">3/20</b>', html) and "Shield" in html
    assert 'data-testid="player-attack"' in html and 'data-testid="no-attack"' not in html  # Stamina at 0 only tires it
    down = pc_state(with_stats(t, "c1", injuries=20).present, "s")
    out = next(pc for pc in down.values() if pc["max"] == 55)
    assert out["down"] == "Out of the fight (Injuries at their limit)"
    assert 'data-testid="no-attack">Out of the fight (Injuries at their limit): no attacks.' in _phone_html(out)


def test_realms_says_body_and_strife_its_resources():
    realms = _started("realms")
    cyra = _own(realms, "Cyra")
    assert (cyra["label"], cyra["more"]) == ("Body", [])
    assert '<span class="muted">Body</span>' in _phone_html(cyra)
    strife = Timeline.start(new_encounter("e1", "Bridge", system="strife"))
    strife = strife.do(resolve(strife.present, "add_combatant", {"combatant": {
        "name": "Cyra", "side": "party", "pc": True, "init_mod": 60, "max_hp": 30, "stats": {"vigor_max": 6, "fury": 2, "spirit_max": 10}}}))
    cyra = _own(strife, "Cyra")
    assert (cyra["label"], cyra["more"]) == ("HP", [["Vigor", 6, 6], ["Fury", 2, None], ["Spirit", 10, 10]])
    html = _phone_html(cyra)
    assert 'Vigor</span> <b data-testid="my-gauge">6/6</b>' in html and 'Fury</span> <b data-testid="my-gauge">2</b>' in html


def test_a_modified_phones_own_state_is_checked_whole():
    from pyengine.live import FROM_HOST, LiveError, read_message, state_text
    view = {"v": 1, "name": "", "system": "laurels", "round": 1, "now": "", "next": "", "rows": []}
    good = {"hp": 5, "max": 9, "temp": 0, "cond": [], "ds": None, "atk": [], "label": "Stamina", "down": "", "more": [["Injuries", 1, 10]]}
    assert read_message(state_text(view, 1, pcs={"va": good}), FROM_HOST).pcs["va"]["more"] == [["Injuries", 1, 10]]
    for bad in ({"more": [["Injuries", "1", 10]]}, {"more": [["x", 1]] }, {"more": [["x", 1, None]] * 11}, {"label": 5},
                {"down": True}, {"more": [["x", True, None]]}):
        with pytest.raises(LiveError):
            read_message(state_text(view, 1, pcs={"va": {**good, **bad}}), FROM_HOST)
    html = _phone_html(read_message(state_text(view, 1, pcs={"va": {**good, "label": "<img src=x onerror=alert(1)>",
                                                                    "more": [["<b>x</b>", 1, None]]}}), FROM_HOST).pcs["va"])
    assert "<img" not in html and "<b>x</b>" not in html and "&lt;img" in html


# -- item 7: the same answer words in every system -------------------------------------------------

@pytest.mark.parametrize("system", ["generic", "realms", "strife", "laurels"])
def test_every_systems_attack_words_say_the_roll_the_result_and_the_damage(system):
    """Over many seeds: "<what it rolled>: <result>[, <damage>…]", the damage figure whenever any
    reaches the target; never the target's defences (AC, armour, soak, Resistance)."""
    t = _started(system)
    rules = get_system(system)
    seen = set()
    for seed in range(300):
        args = resolve(t.present, ATTACK_KINDS[system], {"attacker": "c1", "target": "c3"}, random.Random(seed)).args
        words = rules.attack_words(args)
        outcome = rules.attack_outcome(args)
        rolled, _, rest = words.partition(": ")
        assert rolled and rolled == rules.attack_roll_words(args), words
        result = rest.split(", ", 1)[0]
        assert result in ("hit", "miss", "critical hit", "no damage", "critical miss", "automatic miss", "parried", "blocked", "warded off"), words
        reached = outcome.damage if system != "laurels" else args["result"]["to_stamina"] + args["result"]["to_injuries"]
        assert (f"{reached} damage" in rest) == (reached > 0), words
        assert not re.search(r"\bAC\b|armour|soak|Resist", words), words
        seen.add(result)
    assert {"hit"} <= seen and len(seen) >= 2


# -- item 6: Laurels' surprise, Attack…, and a side with no one left -------------------------------

def test_who_is_surprised_is_marked_on_the_row_the_players_view_and_the_players_own_state():
    """Opponents ambush, d6 2: the party is surprised, but Wren cannot be."""
    t = step(laurels_fight(), "start_combat", Scripted([2]), ambush="opponents")
    html = tracker_html(t)
    rows = {m.group(1): m.group(2) for m in re.finditer(r'data-combatant-id="(c\d)"(.*?)</li>', html)}
    assert [cid for cid, row in rows.items() if 'data-testid="surprised"' in row] == ["c1", "c2"]  # Tombril, Cedryk; not Wren
    view = table_view(t.present)
    assert {r[0]: SURPRISED in r[5] for r in view["rows"]} == {"Tombril": True, "Cedryk": True, "Wren": False, "Hill Giant": False, "Half-orc": False}
    assert check_view(view)["rows"] == view["rows"]
    own = pc_state(t.present, "s")
    assert sorted(pc["max"] for pc in own.values() if [SURPRISED, "no turn and no attack this round"] in pc["cond"]) == [20, 55]
    tombril = next(pc for pc in own.values() if pc["max"] == 55)
    html = _phone_html(tombril)
    assert 'data-testid="no-attack">Surprised (round 1): no attacks.' in html and 'data-testid="player-attack"' not in html
    # Round 2: nobody is surprised any more.
    t = step(step(step(step(t, "next_turn"), "next_turn"), "next_turn", Scripted([4])), "next_turn")
    assert t.present.round == 2
    assert 'data-testid="surprised"' not in tracker_html(t) and all(SURPRISED not in r[5] for r in table_view(t.present)["rows"])


def test_the_sheet_says_who_cannot_be_surprised():
    t = laurels_fight()
    view = view_for("laurels")
    wren, tombril = t.present.get("c3"), t.present.get("c1")
    assert 'data-testid="cannot-be-surprised"' in view.sheet_html(t.present, wren, {}, [])
    assert 'data-testid="cannot-be-surprised"' not in view.sheet_html(t.present, tombril, {}, [])


@pytest.mark.parametrize("system", ["generic", "realms", "strife", "laurels"])
def test_attack_is_beside_whose_turn_it_is_in_every_system(system):
    t = _started(system)
    now = tracker_html(t).split('data-testid="turn-now"', 1)[1].split("</p>", 1)[0]
    assert 'data-testid="attack-open">Attack…</button>' in now and "Cyra" in now


def test_a_side_with_no_one_left_to_act_says_so_and_what_next_turn_does():
    """The opponents went first in round 2 but are all out of the fight: the party acts at once (the
    engine no longer stops on "The party's turn. Now: —"); and when no one at all can act the line
    says what is true."""
    t = step(laurels_fight(), "start_combat", Scripted([5]), ambush="none")
    for cid in ("c4", "c5"):
        t = with_stats(t, cid, injuries=40)
    t = step(step(step(t, "next_turn"), "next_turn"), "next_turn", Scripted([2]))  # round 2: d6 2, opponents first
    assert t.present.round == 2 and side_state(t.present)["first"] == "opponents"
    assert t.present.get(t.present.active_id).name == "Tombril" and side_state(t.present)["side"] == "party"
    assert "Now: <b>Tombril</b>" in side_turn_html(t.present)
    # No one can act on the opponents' side and the party is done: Next turn ends the round.
    enc = replace(t.present, active_id=None, turn=tuple(sorted({**side_state(t.present), "side": "opponents", "first": "party"}.items())))
    enc = replace(enc, combatants=tuple(replace(c, flags=("done",)) if c.side == "party" else c for c in enc.combatants))
    assert side_turn_html(enc) == "No one on the opponents' side can act: Next turn ends the round"
    # The acting side went first and the other may still act: Next turn gives it the turn.
    enc = replace(enc, turn=tuple(sorted({**side_state(enc), "first": "opponents"}.items())),
                  combatants=tuple(replace(c, flags=()) for c in enc.combatants))
    assert side_turn_html(enc) == "No one on the opponents' side can act: Next turn gives the turn to the party"
    # Someone of the acting side may go but none is chosen: tap Act.
    enc = replace(enc, turn=tuple(sorted({**side_state(enc), "side": "party"}.items())))
    assert side_turn_html(enc) == "The party's turn: tap Act to choose who goes"
    assert "—" not in tracker_html(Timeline.start(enc)).split('data-testid="turn-now"', 1)[1].split("</p>", 1)[0]


def test_no_one_able_to_act_in_a_new_round_leaves_no_one_active_without_asking_for_a_second_roll():
    t = step(laurels_fight(), "start_combat", Scripted([5]), ambush="none")
    for c in t.present.combatants:
        t = with_stats(t, c.id, injuries=40)  # everyone out of the fight
    t = Timeline.start(replace(t.present, options=tuple(sorted({**dict(t.present.options), "skip_down": "all"}.items()))))
    t = step(t, "next_turn", Scripted([3]))
    assert t.present.round == 2 and t.present.active_id is None
    assert side_turn_html(t.present) == "No one on the party's side can act: Next turn ends the round"


# -- helpers ---------------------------------------------------------------------------------------

def _started(system: str) -> Timeline:
    t = Timeline.start(new_encounter("e1", "Bridge", system=system))
    for fields in ROSTERS[system]:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}, random.Random(0)))
    return t.do(resolve(t.present, "start_combat", {}, random.Random(0)))


def _own(t: Timeline, name: str) -> dict:
    own = pc_state(t.present, "s")
    from pyengine.handoff import players_id
    return own[players_id(t.present, "s", next(c.id for c in t.present.combatants if c.name == name))]


def _phone_html(own: dict) -> str:
    view = {"v": 1, "name": "Bridge", "system": "laurels", "round": 1, "now": "", "next": "", "rows": []}
    live = Live(role="follow", view=view, you="va", pcs={"va": own}, ids=(("va", "Cyra", "p"), ("vg", "Goblin", "o")), turn=())
    return live_follow_html(live, "live", False)
