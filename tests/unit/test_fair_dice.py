"""Issue 51, items 1-3: a player cannot choose the dice. Every roll a player's phone sends for the game
master's engine is verified (its dice from both phones: pyengine.fair, a commitment, the game master's
value, the reveal) or marked typed; a replayed roll, a roll never shown, a roll shown with another
secret and a total its dice cannot make are refused with the reason, and the game master sees them."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from pyengine import fair
from pyengine.core_args import HitPoints
from pyengine.fair import commitment, new_secret
from pyengine.live import request_text
from tests.unit.test_live import GM_KEY, asked, following, joint, rolled, vids
from tests.unit.test_players_phone import table, told
from tests.unit.test_update import ids
from web.app.effects import LiveTell, Toast
from web.app.live_status import followers_line
from web.app.messages import Act, AutoSavesToggled, LiveBeat, PeerSaid, RequestAnswered
from web.app.update import update
from web.app.update.requests import MAX_DRAWS_PER_PHONE, REVEAL_MS

RNG = random.Random(0)


def answers(effects) -> list[tuple[str, str]]:
    return [(t["state"], t["why"]) for t in told(effects) if t["t"] == "ans"]


def test_the_protocol_is_a_commitment_an_answer_and_a_reveal_that_both_phones_roll_from():
    secret = new_secret(random.Random(1))
    assert fair.is_secret(secret) and fair.is_commitment(commitment(secret))
    assert fair.reveals(commitment(secret), secret) and not fair.reveals(commitment(secret), new_secret(random.Random(2)))
    assert not fair.reveals(commitment(secret), secret.upper())  # (32 lower-case hex digits, no other spelling)
    value = fair.drawn(GM_KEY, commitment(secret))
    assert value == fair.drawn(GM_KEY, commitment(secret)) != fair.drawn("7c" * 16, commitment(secret))  # the key's, the same after a reload
    assert fair.joint_seed(secret, value) != fair.joint_seed(secret, fair.drawn("7c" * 16, commitment(secret)))
    assert all(0 <= fair.joint_seed(new_secret(random.Random(n)), value) < 2**53 for n in range(50))


def test_a_seed_or_a_face_chosen_by_the_phone_is_not_taken():
    """Today's hostile messages (the audit's): `{"t":"atk","seed":5}` and a roll's total of 6000 for 1d6."""
    model = table("generic")
    goblin = vids(model)["Goblin"]
    model, effects = asked(model, "atk", target=goblin, seed=5, rid=3, **{"with": ""})
    assert answers(effects) == [("refused", "an attack without its commitment: the dice come from both phones (reload this phone's page)")]
    model, effects = asked(model, "roll", target=goblin, value=6000, text="1d6", rid=4)
    assert answers(effects)[0][0] == "refused" and "without its dice" in answers(effects)[0][1]
    model, effects = asked(model, "roll", target=goblin, value=6000, expr="1d6", rid=5)
    assert answers(effects) == [("refused", "6,000 is not a total 1d6 can make (1 to 6)")]
    model, effects = asked(model, "roll", target=goblin, value=0, expr="1d6", rid=6)
    assert answers(effects) == [("refused", "0 is not a total 1d6 can make (1 to 6)")]
    model, effects = asked(model, "roll", target=goblin, value=3, expr="1000d6", rid=7)
    assert answers(effects) == [("refused", "3 is not a total 1000d6 can make (1,000 to 6,000)")]
    assert model.live.requests == () and model.live.refused == 5


def test_a_replayed_roll_is_refused_and_the_same_request_sent_again_is_answered_again():
    model = table("generic")
    goblin = vids(model)["Goblin"]
    secret = new_secret(random.Random(9))
    model, first = asked(model, "roll", target=goblin, expr="1d8", c=commitment(secret), rid=1)
    draw = [t for t in told(first) if t["t"] == "draw"]
    assert draw == [{"v": 1, "t": "draw", "rid": 1, "g": fair.drawn(GM_KEY, commitment(secret))}]
    # Send again (a lost answer): the same draw, nothing new waits.
    model, again = asked(model, "roll", target=goblin, expr="1d8", c=commitment(secret), rid=1)
    assert told(again) == draw and len(model.live.draws) == 1
    model, shown = asked(model, "show", s=secret, rid=1)
    (request,) = model.live.requests
    assert request.seed == joint(model, secret) and answers(shown)[0][0] == "waiting"
    # The reveal sent again: it waits already.
    model, _ = asked(model, "show", s=secret, rid=1)
    assert answers(_) == [("waiting", "")] and len(model.live.requests) == 1
    # The same commitment in a new request (a replay of a roll it liked): refused.
    model, effects = asked(model, "roll", target=goblin, expr="1d8", c=commitment(secret), rid=2)
    assert answers(effects) == [("refused", "that roll was used already (a replayed roll): roll again")]
    model, effects = rolled(model, "roll", "p1", secret, target=vids(model)["Dax"], expr="1d8", rid=3)  # (at another target too)
    assert answers(effects)[0] == ("refused", "that roll was used already (a replayed roll): roll again")


def test_a_reveal_of_another_secret_is_refused_and_said_on_the_game_masters_phone():
    model = table("generic")
    goblin = vids(model)["Goblin"]
    model, _ = asked(model, "atk", target=goblin, c=commitment(new_secret(random.Random(1))), rid=1)
    model, effects = asked(model, "show", s=new_secret(random.Random(2)), rid=1)
    assert answers(effects) == [("refused", "that is not the roll this phone promised: roll again")]
    assert Toast("Cyra showed another roll than the one it promised.") in effects
    assert model.live.requests == () and model.live.draws == () and model.live.unshown == 1
    assert "1 roll not shown by its phone." in followers_line(model.live)
    # A reveal with no commitment before it: refused with the reason.
    model, effects = asked(model, "show", s=new_secret(random.Random(3)), rid=7)
    assert answers(effects)[0][0] == "refused" and "no roll of this phone waits" in answers(effects)[0][1]


def test_a_roll_never_shown_is_said_as_such_and_its_phone_told():
    model = table("generic")
    goblin = vids(model)["Goblin"]
    model, _ = update(model, PeerSaid("p1", request_text("atk", target=goblin, c=commitment(new_secret(random.Random(4))), rid=1),
                                      1_000.0, RNG))
    assert len(model.live.draws) == 1
    model, effects = update(model, LiveBeat(1_000.0 + REVEAL_MS - 1, (-1, -1, -1, -1)))
    assert len(model.live.draws) == 1 and not any(isinstance(e, Toast) for e in effects)
    model, effects = update(model, LiveBeat(1_000.0 + REVEAL_MS, (-1, -1, -1, -1)))
    assert model.live.draws == () and model.live.unshown == 1 and model.live.requests == ()
    assert Toast("Cyra rolled and did not show it.") in effects
    assert ("refused", "your roll was not shown: it did not come in time") in answers(effects)
    # A phone that commits again and again without showing (it drops the rolls it does not like): at
    # most MAX_DRAWS_PER_PHONE wait; each one pushed out is said.
    for n in range(5):
        model, effects = update(model, PeerSaid("p1", request_text("roll", target=goblin, expr="1d20",
                                                                    c=commitment(new_secret(random.Random(100 + n))), rid=10 + n), 20_000.0 + n, RNG))
    assert len(model.live.draws) == MAX_DRAWS_PER_PHONE and model.live.unshown == 1 + 5 - MAX_DRAWS_PER_PHONE


def test_apply_without_asking_applies_verified_death_saves_only():
    model = table("generic")
    model, _ = update(model, Act("damage", HitPoints(ids(model)["Cyra"], 20), RNG))
    model, _ = update(model, AutoSavesToggled(True))
    model, effects = asked(model, "dsave", face=20, rid=1)
    assert [r.text for r in model.live.requests] == ["Cyra rolls a death save: 20 (typed)."]  # waits for Apply
    model, _ = update(model, RequestAnswered(model.live.requests[0].id, False, RNG))
    model, effects = rolled(model, "dsave", rid=2)
    assert model.live.requests == () and answers(effects)[-1][0] == "applied"


def test_four_hundred_attacks_with_seeds_chosen_for_a_natural_20_crit_about_one_in_twenty():
    """The audit's cheat: a phone that looks for a secret whose attack would crit. It must commit before
    it knows the game master's value, so the best it can do is pick secrets that crit with *some* value:
    the dice are from both, and crits come at the d20's own rate (5 %)."""
    model = table("generic")
    goblin = vids(model)["Goblin"]
    crits = 0
    for n in range(400):
        # The cheating phone's choice: a secret whose dice crit if the game master's value were its own guess.
        guess = "00" * 16
        secret = next(s for s in (new_secret(random.Random(n * 1000 + k)) for k in range(1000))
                      if random.Random(fair.joint_seed(s, guess)).randint(1, 20) == 20)
        at = 10_000.0 * (n + 1)  # (a player's pace: the rate limit lets it through)
        model, effects = update(model, PeerSaid("p1", request_text("atk", target=goblin, c=commitment(secret), rid=n + 1), at, RNG))
        model, shown = update(model, PeerSaid("p1", request_text("show", s=secret, rid=n + 1), at + 50, RNG))
        (request,) = model.live.requests
        assert request.seed == joint(model, secret)
        crits += ": crit" in request.text
        model, _ = update(model, RequestAnswered(request.id, False, RNG))
    assert 8 <= crits <= 36, crits  # 5 % of 400 is 20 (binomial: 99.9 % within 8-36); the old protocol gave 400
    assert json.loads(next(e.text for e in effects if isinstance(e, LiveTell)))["t"] == "draw"


def test_a_character_that_is_down_makes_no_attack_from_its_phone_and_the_panel_says_so():
    """Issue 51, item 12: a creature at 0 HP chosen as the attacker is warned of on the game master's
    panel; a dying character's phone is refused an attack, with the reason (its death saves instead)."""
    from web.app.views import attacker_choice

    model = table("generic")
    model, _ = update(model, Act("damage", HitPoints(ids(model)["Cyra"], 20), RNG))
    model, effects = rolled(model, "atk", target=vids(model)["Goblin"])
    assert answers(effects) == [("refused", "Cyra is down: a combatant that is down makes no attack (roll your death saves)")]
    assert model.live.draws == ()  # (refused before any dice)
    enc = model.timeline.present
    chosen = attacker_choice(enc, enc.get(ids(model)["Goblin"]), ids(model)["Cyra"])
    assert chosen is not None and chosen[0] == ids(model)["Cyra"]
    assert 'data-testid="attacker-down">Cyra is down (HP 0)' in chosen[1] and ">Cyra (down)</option>" in chosen[1]
    standing = attacker_choice(enc, enc.get(ids(model)["Goblin"]), ids(model)["Dax"])
    assert standing is not None and "attacker-down" not in standing[1]


def test_a_typed_total_or_face_is_a_plain_whole_number_within_its_dice():
    from web.app.effects import Refuse
    from web.app.messages import DeathSaveSent, RollSent

    phone = following()
    phone = replace(phone, live=replace(phone.live, you="va", ids=(("va", "Cyra", "p"), ("vg", "Goblin", "o"))))
    for typed in ("²", "1e3", "9" * 5000, "twelve"):
        _, effects = update(phone, DeathSaveSent(random.Random(1), typed))
        assert effects == (Refuse("A death save is one d20: type a face from 1 to 20."),), typed
        _, effects = update(phone, RollSent("vg", "1d6", "", random.Random(1), typed))
        assert effects == (Refuse("The total of your dice is a whole number."),), typed
    _, effects = update(phone, RollSent("vg", "1d6", "", random.Random(1), "7"))
    assert effects == (Refuse("1d6 cannot total 7 (it makes 1 to 6)."),)
    typed, _ = update(phone, RollSent("vg", "2d6+1", "Club", random.Random(1), " 9 "))
    assert json.loads(typed.live.asking) == {"v": 1, "t": "roll", "target": "vg", "expr": "2d6+1", "label": "Club", "value": 9, "rid": 1}


def test_a_surprised_characters_attack_from_a_phone_is_refused_with_the_reason_in_round_one():
    """Issue 53, item 2: Laurels and Loot, opponents ambush and the d6 says 1: the party is surprised. Cyra's
    phone asks to attack in round 1: refused before any dice, with the reason; nothing waits in the tray."""
    from pyengine.tracker import Action
    from tests.unit.test_live import approved, hosting, joined
    from tests.unit.test_players_phone import ROSTERS
    from tests.unit.test_update import fight
    from web.app.model import Model

    model = fight(*ROSTERS["laurels"], system="laurels")
    model = Model(model.timeline.do(Action("start_combat", {"side_roll": 1, "ambush": "opponents"})))
    assert dict(model.timeline.present.turn)["surprised"] == "party" and model.timeline.present.round == 1
    model = approved(joined(hosting(model)))
    secret = new_secret(random.Random(4))
    model, effects = asked(model, "atk", target=vids(model)["Goblin"], c=commitment(secret), rid=1, **{"with": ""})
    assert answers(effects) == [("refused", "Cyra is surprised: the surprised side takes no turns in round 1 (seed 003).")]
    model, effects = asked(model, "roll", target=vids(model)["Goblin"], value=3, expr="1d6", rid=2)  # a roll at a target: the same
    assert answers(effects) == [("refused", "Cyra is surprised: the surprised side takes no turns in round 1 (seed 003).")]
    model, effects = asked(model, "done", rid=3)
    assert answers(effects) == [("refused", "Cyra is surprised: no turn in round 1")]
    assert model.live.requests == () and model.live.draws == ()
